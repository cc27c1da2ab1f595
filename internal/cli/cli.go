package cli

import "io"

// Run executes the sim command line args (without the program name), writing to stdout and
// stderr, and returns the exit status. It does not exit, and sets no process-wide state
// (Main sets the garbage collector's target first).
func Run(args []string, stdout, stderr io.Writer) int {
	return run(args, stdout, stderr)
}
