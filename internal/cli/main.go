package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/reconsim/reconsim/internal/suggest"
	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/scenarios"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/cluster"
)

// Exit statuses.
const (
	exitOK       = 0
	exitFailed   = 1
	exitUsage    = 2
	exitInternal = 3
)

// envNoHugePages, when set (to anything), keeps the heap on the kernel's default pages
// (adviseHugePages), to measure what the huge pages save.
const envNoHugePages = "RECONSIM_NO_HUGEPAGES"

// envNoPrefault, when set (to anything), leaves the heap's fresh pages to be faulted in by
// the simulation itself (prefaultHeap), to measure what prefaulting them on another core
// saves.
const envNoPrefault = "RECONSIM_NO_PREFAULT"

// Main runs the sim command line in os.Args and exits the process with its status.
func Main() { MainWith(nil) }

// MainWith is Main with the caller's own controllers built into every run (run, validate,
// sweep, explore): they start with kube-controller-manager's, and controller-restart and
// explore address them by name (reconsim.Main(reconsim.WithController(...))).
func MainWith(controllers []cluster.Controller) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(cluster.GCPercent)
	}
	c := newCLI(os.Stdout, os.Stderr)
	c.controllers = controllers
	if os.Getenv(envNoHugePages) == "" {
		start, rangeBytes := adviseHugePages()
		if rangeBytes > 0 && os.Getenv(envNoPrefault) == "" {
			c.prefaultHeap = func() { prefaultHeap(start, rangeBytes) }
		}
	}
	os.Exit(c.main(os.Args[1:]))
}

// run executes the command line args (without the program name), writing to stdout and
// stderr, and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	return newCLI(stdout, stderr).main(args)
}

// runFunc runs a scenario; cluster.Run in production.
type runFunc func(ctx context.Context, scn *scenarios.Scenario, opts cluster.Options) (*report.Result, error)

// cli holds what a command needs from the outside world. The function fields are test seams:
// tests replace the simulator, the clock, the environment and the signal source to check
// exit statuses, summaries, interrupts and internal errors without real runs or signals.
type cli struct {
	stdout, stderr io.Writer
	// out is stdout as given; it remembers the first failed write, which main reports.
	out *checkedWriter
	// runScenario runs one scenario (cluster.Run).
	runScenario runFunc
	// controllers are the caller's own controllers (MainWith), run in every scenario.
	controllers []cluster.Controller
	// now is the wall clock, used only to report a run's speed.
	now func() time.Time
	// getenv reads the environment (RECONSIM_DEBUG).
	getenv func(string) string
	// notify arranges for interrupt signals to be sent on c and returns a function that
	// undoes it (signal.Notify and signal.Stop).
	notify func(c chan<- os.Signal) (stop func())
	// prefaultHeap, when set, starts populating the heap's prepared range ahead of its
	// growth on another core (prefaultHeap). Only `sim run` calls it: a single simulation
	// leaves the other core free, a sweep does not.
	prefaultHeap func()
}

func newCLI(stdout, stderr io.Writer) *cli {
	out := &checkedWriter{w: stdout}
	return &cli{
		stdout:      out,
		out:         out,
		stderr:      stderr,
		runScenario: cluster.Run,
		now:         time.Now,
		getenv:      os.Getenv,
		notify: func(c chan<- os.Signal) func() {
			signal.Notify(c, os.Interrupt, syscall.SIGTERM)
			return func() { signal.Stop(c) }
		},
	}
}

// command is one subcommand.
type command struct {
	name    string
	summary string
	usage   string
	run     func(c *cli, args []string) int
}

var commands []command

func init() {
	commands = []command{
		{"run", "run a scenario and report what happened", runUsage, (*cli).cmdRun},
		{"validate", "check scenario files without running them", validateUsage, (*cli).cmdValidate},
		{"import", "write a scenario from a cluster dump (kubectl get ... -o yaml)", importUsage, (*cli).cmdImport},
		{"list", "list the built-in scenarios", listUsage, (*cli).cmdList},
		{"show", "print a built-in scenario's source", showUsage, (*cli).cmdShow},
		{"explain", "explain a scenario key or a component flag", explainUsage, (*cli).cmdExplain},
		{"schema", "print the JSON Schema of the scenario format", schemaUsage, (*cli).cmdSchema},
		{"completion", "print a shell completion script (bash, zsh, fish)", completionUsage, (*cli).cmdCompletion},
		{"sweep", "run a parameter sweep: many runs in parallel, summarized", sweepUsage, (*cli).cmdSweep},
		{"explore", "search fault schedules for a broken invariant, shrink what breaks", exploreUsage, (*cli).cmdExplore},
		{"merge", "combine the shards of a sharded sweep or explore search", mergeUsage, (*cli).cmdMerge},
		{"report", "re-render plots and report.html from a result directory", reportUsage, (*cli).cmdReport},
		{"version", "print the version", versionUsage, (*cli).cmdVersion},
	}
}

const mainUsage = `sim: deterministic simulations of the Kubernetes control plane

Usage:
  sim COMMAND [ARGS]

Commands:
%s
Examples:
  sim list                                   # the built-in scenarios
  sim run node-failure                       # run one, write out/node-failure/
  sim run node-failure --set kube-controller-manager.node-monitor-grace-period=20s
  sim run my-scenario.yaml --seed 7 -o json  # a file of your own, JSON on stdout
  sim show node-failure > my-scenario.yaml   # a starting point for your own
  sim validate my-scenario.yaml              # every problem, as FILE:LINE:COL
  sim explain timeline.node-crash            # any scenario key, with an example
  sim explain kube-controller-manager.node-monitor-grace-period

Exit status: 0 all expectations held, 1 an expectation failed, 2 bad input, 3 internal error.
Run 'sim help COMMAND' for a command's options. The scenario format is in docs/scenario.md.
`

func (c *cli) mainUsage(w io.Writer) {
	width := 0
	for _, cmd := range commands {
		width = max(width, len(cmd.name))
	}
	list := ""
	for _, cmd := range commands {
		list += fmt.Sprintf("  %-*s  %s\n", width, cmd.name, cmd.summary)
	}
	fmt.Fprintf(w, mainUsage, list)
}

// checkedWriter passes writes through and remembers the first error: commands print with
// fmt.Fprint*, which drops errors, and main turns a failed write into a non-zero exit.
type checkedWriter struct {
	w   io.Writer
	err error
}

func (cw *checkedWriter) Write(p []byte) (int, error) {
	if cw.err != nil {
		return 0, cw.err
	}
	n, err := cw.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	if err != nil {
		cw.err = err
	}
	return n, err
}

// main runs the command line args and returns the exit status. Output that could not be
// written to stdout (a full disk, a closed pipe, /dev/full) is reported on stderr, and the
// status is then non-zero: exitUsage if the command itself succeeded.
func (c *cli) main(args []string) int {
	code := c.dispatch(args)
	if err := c.out.err; err != nil {
		name := "sim"
		if len(args) > 0 {
			if cmd, ok := lookupCommand(args[0]); ok {
				name += " " + cmd.name
			}
		}
		fmt.Fprintf(c.stderr, "%s: writing to standard output: %v\n", name, err)
		if code == exitOK {
			code = exitUsage
		}
	}
	return code
}

func (c *cli) dispatch(args []string) int {
	if len(args) == 0 {
		c.mainUsage(c.stderr)
		return exitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "--help":
		if len(rest) > 0 {
			if cmd, ok := lookupCommand(rest[0]); ok {
				fmt.Fprint(c.stdout, cmd.usage)
				return exitOK
			}
			return c.unknownCommand(rest[0])
		}
		c.mainUsage(c.stdout)
		return exitOK
	case "--version":
		return c.cmdVersion(nil)
	}
	cmd, ok := lookupCommand(name)
	if !ok {
		return c.unknownCommand(name)
	}
	return cmd.run(c, rest)
}

func lookupCommand(name string) (command, bool) {
	for _, cmd := range commands {
		if cmd.name == name {
			return cmd, true
		}
	}
	return command{}, false
}

func (c *cli) unknownCommand(name string) int {
	var names []string
	for _, cmd := range commands {
		names = append(names, cmd.name)
	}
	msg := fmt.Sprintf("sim: unknown command %q", name)
	if s := suggest.Command(name, names); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	fmt.Fprintf(c.stderr, "%s\nRun 'sim help' for the commands.\n", msg)
	return exitUsage
}

// internalError reports an internal error: the message, the seed and virtual time when
// known, and the stack only when RECONSIM_DEBUG=1.
func (c *cli) internalError(what string, err error, seed uint64, virtual string, stack []byte) int {
	fmt.Fprintf(c.stderr, "sim: internal error (seed %d, virtual time %s): %s: %v\n", seed, virtual, what, err)
	if c.getenv("RECONSIM_DEBUG") == "1" && len(stack) > 0 {
		c.stderr.Write(stack)
	} else if name := c.panickedController(err); name != "" {
		fmt.Fprintf(c.stderr, "The controller %q panicked: this is a bug in that controller, not in reconsim; rerun with the command above to reproduce it.\n", name)
	} else {
		fmt.Fprintln(c.stderr, "This is a bug in reconsim; rerun with RECONSIM_DEBUG=1 for a stack trace and report it with the command above.")
	}
	return exitInternal
}

// panickedController names the caller's controller (MainWith) whose worker process panicked,
// or "" when the panic was elsewhere.
func (c *cli) panickedController(err error) string {
	var pp *sim.ProcPanic
	if !errors.As(err, &pp) {
		return ""
	}
	for _, x := range c.controllers {
		if strings.HasPrefix(pp.Proc, x.Name+"-worker-") || strings.HasPrefix(pp.Proc, x.Name+"/") {
			return x.Name
		}
	}
	return ""
}

// safeRun calls runScenario, turning a panic into an error with its stack.
func (c *cli) safeRun(ctx context.Context, scn *scenarios.Scenario, opts cluster.Options) (res *report.Result, stack []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
			stack = debug.Stack()
		}
	}()
	res, err = c.runScenario(ctx, scn, opts)
	return res, nil, err
}
