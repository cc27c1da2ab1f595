package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/reconsim/reconsim/internal/words"

	"github.com/spf13/pflag"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/scenarios"
	"github.com/reconsim/reconsim/sim/cluster"
)

const runUsage = `Usage:
  sim run FILE|NAME [flags]

Runs a scenario file, or a built-in scenario by name (see 'sim list'). Writes
DIR/result.json, DIR/events.jsonl, DIR/series.csv (one row per sample of every series),
DIR/trace.txt (always; --trace prints it as well), the plots, DIR/report.html and
DIR/trace.json (docs/results.md), and prints a summary: why the run stopped, virtual and wall
time, convergence after each timeline action, every expectation with ✓ or ✗, verdicts, and
the command that reproduces the run.
Ctrl-C stops the run cleanly and writes what was recorded (stop reason "interrupted").

Flags:
      --seed N          the run's seed (default: the scenario's seed)
      --out DIR         where to write the files (default out/<scenario name>)
      --set KEY=VALUE   override a component flag (component.flag) or seed, duration,
                        stop.maxEvents, stop.quiescence; repeatable ('sim explain KEY')
      --duration D      the virtual-time limit; same as --set duration=D
      --trace           print the trace as the run goes (to stderr with -o json)
  -o, --output FORMAT   text: a summary on stdout; json: result.json on stdout (default text)
  -q, --quiet           print no summary (warnings and errors still go to stderr)
      --cpuprofile FILE write a Go CPU profile of the run to FILE ('go tool pprof FILE')
      --strict          refuse what would be skipped or ignored: manifests of kinds the
                        simulator does not model, objects of a cluster dump that the
                        simulated cluster makes itself, fields it does not model (exit 2)
      --allow-outside-paths
                        let file references (objects[].file, apply's file, a series
                        file) name files outside the scenario's directory (absolute, ../)

DIR belongs to the run: it must be new, empty, or the directory of an earlier run, whose
files the run replaces (plots that this run does not draw are removed). A directory with
other files in it is refused.

Examples:
  sim run node-failure
  sim run node-failure --seed 7 --set kube-controller-manager.node-monitor-grace-period=20s
  sim run ./my-scenario.yaml --duration 1h --out /tmp/run1 -o json

Exit status: 0 every expectation held, 1 an expectation failed, 2 bad input (or an output
that cannot be written), 3 internal error.
`

const validateUsage = `Usage:
  sim validate FILE|NAME...

Checks scenario files (or built-in scenarios by name) without running them and prints
every problem as FILE:LINE:COL: PATH: MESSAGE (HINT). It also creates the objects as a run
does at time 0, so settled workloads that do not fit on the nodes are found here.

Flags:
      --allow-outside-paths   let file references name files outside the scenario's
                              directory (absolute paths, ../)

Manifests may come as 'kubectl get ... -o yaml' prints them: what the API server set is
dropped, and kinds the simulator does not model are skipped, with a warning each.

Flags:
      --strict   refuse what would be skipped or ignored: manifests of kinds the simulator
                 does not model, objects of a cluster dump that the simulated cluster makes
                 itself, fields it does not model; each is a problem with FILE:LINE:COL

Examples:
  sim validate my-scenario.yaml
  sim validate scenarios/*.yaml node-failure

Exit status: 0 all valid, 2 any problem.
`

const listUsage = `Usage:
  sim list

Lists the built-in scenarios with the first line of their description.
'sim show NAME' prints one; 'sim run NAME' runs it.

Examples:
  sim list
  sim show node-failure > my-scenario.yaml
`

const showUsage = `Usage:
  sim show NAME|FILE

Prints a built-in scenario's source (a starting point for your own), or a file's.
Every built-in scenario starts with a comment saying what it shows and what to look at.

Examples:
  sim show node-failure > my-scenario.yaml
  sim validate my-scenario.yaml
`

const explainUsage = `Usage:
  sim explain KEY

Explains a scenario key or a component flag.

A scenario key is a path of YAML names, without list indexes: cluster.nodeGroups.zone,
timeline.at, timeline.node-crash (an action) and its arguments (timeline.drain.timeout),
expect.converged (a kind of expectation), condition.pods-at-most (a condition of
eventually/always/never), nodes, target and window (values many keys share). The last
part alone works when it names one key: node-crash, pods-at-most, ignoreDaemonSets. For each
it prints what it means, its type, whether it is required or its default, and an example.

A component flag is component.flag (kube-controller-manager.node-eviction-rate), a bare
flag name (every component that has it), or a component (its flags). For each it prints
what it does, its type, its default for each upstream version and the upstream source.

Examples:
  sim explain timeline.node-crash
  sim explain expect.converged
  sim explain drain.timeout
  sim explain kube-controller-manager.node-eviction-rate
  sim explain kubelet
`

const versionUsage = `Usage:
  sim version

Prints the simulator version, the upstream Kubernetes version whose defaults it follows,
the versions of the scenario and output formats, and the kinds it models.

Example:
  sim version
`

// flagSet returns a pflag set for a subcommand; the CLI prints usage itself.
func (c *cli) flagSet(name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.SortFlags = false
	return fs
}

// parseFlags parses args; done is true when the command should return code (help or error).
func (c *cli) parseFlags(fs *pflag.FlagSet, args []string, usage string) (done bool, code int) {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, pflag.ErrHelp):
		fmt.Fprint(c.stdout, usage)
		return true, exitOK
	case err != nil:
		fmt.Fprintf(c.stderr, "sim %s: %v\nRun 'sim help %s' for usage.\n", fs.Name(), err, fs.Name())
		return true, exitUsage
	}
	return false, 0
}

// positional parses the arguments of a command that has no flags but help and takes exactly
// want positional arguments (0 or 1), and returns them; done is true when the command should
// return code: after help, a flag error, or a wrong count, which is a usage error saying what
// the command takes ("takes no arguments; <what>" or "want <what>, got N arguments").
func (c *cli) positional(name string, args []string, usage string, want int, what string) (pos []string, done bool, code int) {
	fs := c.flagSet(name)
	if done, code := c.parseFlags(fs, args, usage); done {
		return nil, true, code
	}
	if fs.NArg() != want {
		if want == 0 {
			return nil, true, c.usageError(name, "takes no arguments; %s", what)
		}
		return nil, true, c.usageError(name, "want %s, got %d arguments", what, fs.NArg())
	}
	return fs.Args(), false, 0
}

func (c *cli) usageError(cmd, format string, args ...any) int {
	fmt.Fprintf(c.stderr, "sim %s: %s\nRun 'sim help %s' for usage.\n", cmd, fmt.Sprintf(format, args...), cmd)
	return exitUsage
}

// loadScenario resolves and parses arg, printing warnings and problems to stderr; ok is
// false after a problem was printed.
func (c *cli) loadScenario(cmd, arg string, opts scenarios.ParseOptions) (*scenarios.Scenario, bool) {
	file, data, baseDir, err := scenarios.Resolve(arg)
	if err != nil {
		fmt.Fprintf(c.stderr, "sim %s: %v\n", cmd, report.CleanText(err.Error()))
		return nil, false
	}
	s, warns, err := scenarios.ParseWith(file, data, baseDir, opts)
	for _, w := range warns {
		fmt.Fprintf(c.stderr, "%s (warning)\n", report.CleanText(w.String()))
	}
	if err != nil {
		printErrors(c.stderr, err)
		var errs scenarios.Errors
		if errors.As(err, &errs) {
			fmt.Fprintf(c.stderr, "sim %s: %s: %d %s; fix %s and run again ('sim explain KEY' documents every key, with an example)\n",
				cmd, file, errs.Count(), words.Plural(errs.Count(), "problem", "problems"), words.Plural(errs.Count(), "it", "them"))
		}
		return nil, false
	}
	return s, true
}

// printErrors prints err, one problem a line, each with control characters escaped (a line
// feed inside a problem cannot start a line of its own).
func printErrors(w io.Writer, err error) {
	if multi, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range multi.Unwrap() {
			fmt.Fprintln(w, report.CleanText(e.Error()))
		}
		return
	}
	fmt.Fprintln(w, report.CleanText(err.Error()))
}

func (c *cli) cmdRun(args []string) int {
	fs := c.flagSet("run")
	seedText := fs.String("seed", "", "")
	out := fs.String("out", "", "")
	sets := fs.StringArray("set", nil, "")
	duration := fs.String("duration", "", "")
	trace := fs.Bool("trace", false, "")
	format := fs.StringP("output", "o", "text", "")
	quiet := fs.BoolP("quiet", "q", false, "")
	cpuProfile := fs.String("cpuprofile", "", "")
	strict := fs.Bool("strict", false, "")
	allowOutside := fs.Bool("allow-outside-paths", false, "")
	if done, code := c.parseFlags(fs, args, runUsage); done {
		return code
	}
	if fs.NArg() != 1 {
		return c.usageError("run", "want one scenario (a file, or a built-in scenario from 'sim list'), got %d arguments", fs.NArg())
	}
	if *format != "text" && *format != "json" {
		return c.usageError("run", "-o must be text or json, got %q; -o json prints result.json on stdout", *format)
	}
	arg := fs.Arg(0)
	var seed uint64
	if fs.Changed("seed") {
		s, err := strconv.ParseUint(strings.TrimSpace(*seedText), 10, 64)
		if err != nil {
			return c.usageError("run", "--seed: want a whole number from 0 to %d, got %q", uint64(math.MaxUint64), *seedText)
		}
		seed = s
	}

	var overrides []scenarios.Override
	bad := false
	for _, s := range *sets {
		o, err := scenarios.ParseOverride(s)
		if err != nil {
			fmt.Fprintln(c.stderr, err)
			bad = true
			continue
		}
		overrides = append(overrides, o)
	}
	if fs.Changed("duration") {
		overrides = append(overrides, scenarios.Override{Key: "duration", Value: *duration})
	}
	if bad {
		return exitUsage
	}
	scn, ok := c.loadScenario("run", arg, scenarios.ParseOptions{Strict: *strict, AllowOutsidePaths: *allowOutside, Controllers: c.controllerNames()})
	if !ok {
		return exitUsage
	}
	if err := scn.Apply(overrides); err != nil {
		fmt.Fprintln(c.stderr, err)
		return exitUsage
	}

	effectiveSeed := scn.Seed
	if fs.Changed("seed") {
		effectiveSeed = seed
	}
	opts := cluster.Options{Seed: seed, SeedSet: fs.Changed("seed"), Overrides: overrides, Controllers: c.controllers}
	dir := *out
	if dir == "" {
		dir = filepath.Join("out", scn.Name)
	}
	// The trace always goes to DIR/trace.txt (through a temporary file renamed at the end, so
	// an interrupted write leaves no half file under that name), and with --trace also to the
	// terminal as it is produced. The file is written, and trace.json encoded from it, on a
	// goroutine of the TraceWriter's as the run goes, off the simulation's goroutine and
	// outside the time it takes to write the outputs afterwards.
	if err := checkOutDir(dir); err != nil {
		fmt.Fprintf(c.stderr, "sim run: %v\n", err)
		return exitUsage
	}
	traceFile, err := report.NewTraceWriter(dir)
	if err != nil {
		fmt.Fprintf(c.stderr, "sim run: output directory %s: %v\n", dir, err)
		return exitUsage
	}
	defer traceFile.Discard()
	sinks := []io.Writer{traceFile}
	var traceOut *bufio.Writer
	if *trace {
		w := c.stdout
		if *format == "json" {
			w = c.stderr
		}
		traceOut = bufio.NewWriterSize(w, 1<<16)
		sinks = append(sinks, traceOut)
	}
	opts.Trace = io.MultiWriter(sinks...)

	ctx, stopWatching := c.interruptContext()

	stopProfile, err := startCPUProfile(*cpuProfile)
	if err != nil {
		fmt.Fprintf(c.stderr, "sim run: --cpuprofile: %v\n", err)
		return exitUsage
	}
	if c.prefaultHeap != nil {
		c.prefaultHeap()
	}
	start := c.now()
	res, stack, runErr := c.safeRun(ctx, scn, opts)
	wall := c.now().Sub(start)
	if err := stopProfile(); err != nil {
		fmt.Fprintf(c.stderr, "sim run: --cpuprofile: %v\n", err)
	}
	stopWatching()
	// The simulated cluster is garbage now (the kernel ends its processes when the run
	// returns): collect it once, so that writing the outputs reuses its memory rather than
	// growing the heap, and the process's peak, past the simulation's. The collection (0.15
	// s after scale-5k, most of it sweeping the simulation's spans) runs while trace.txt is
	// committed and result.json and events.jsonl are written, which allocate a few MB;
	// writeFiles waits for it before the plots and the page, which allocate the most.
	collected := make(chan struct{})
	go func() {
		runtime.GC()
		close(collected)
	}()
	if traceOut != nil {
		if err := traceOut.Flush(); err != nil {
			fmt.Fprintf(c.stderr, "sim run: writing the trace: %v\n", err)
		}
	}
	// Not synced: a trace is large and a rerun rewrites it.
	traceErr := traceFile.Commit()
	if traceErr != nil {
		fmt.Fprintf(c.stderr, "sim run: %v\n", traceErr)
	}
	if res != nil {
		res.WallSeconds = wall.Seconds()
	}
	var inputErr *cluster.InputError
	if errors.As(runErr, &inputErr) {
		fmt.Fprintf(c.stderr, "%s\nsim run: %s cannot start; fix the scenario and run again ('sim validate' finds this without a run)\n", report.CleanText(inputErr.Error()), scn.File)
		return exitUsage
	}
	if runErr != nil {
		virtual := "unknown"
		if res != nil {
			virtual = strconv.FormatFloat(res.VirtualSeconds, 'f', 3, 64) + "s"
			if err := c.writeFiles(dir, res, traceFile, collected); err == nil {
				fmt.Fprintf(c.stderr, "sim run: what was recorded is in %s\n", dir)
			}
		}
		return c.internalError("running "+scn.Name, runErr, effectiveSeed, virtual, stack)
	}
	if res == nil {
		return c.internalError("running "+scn.Name, errors.New("the simulator returned no result"), effectiveSeed, "unknown", nil)
	}
	select {
	case <-ctx.Done():
		fmt.Fprintf(c.stderr, "sim run: interrupted at virtual time %s; writing what was recorded\n", strconv.FormatFloat(res.VirtualSeconds, 'f', 3, 64)+"s")
	default:
	}
	// Without trace.txt the report would be rendered from no trace, or an earlier run's.
	if traceErr != nil {
		return exitUsage
	}
	if err := c.writeFiles(dir, res, traceFile, collected); err != nil {
		fmt.Fprintf(c.stderr, "sim run: writing the results to %s: %v\n", dir, err)
		return exitUsage
	}

	switch {
	case *format == "json":
		data, err := report.EncodeResult(res)
		if err != nil {
			return c.internalError("encoding the result", err, res.Seed, fmt.Sprintf("%.3fs", res.VirtualSeconds), nil)
		}
		c.stdout.Write(data)
	case !*quiet:
		err := report.WriteSummary(c.stdout, res, report.SummaryOptions{
			ResultPath: filepath.Join(dir, report.ResultFile),
			EventsPath: filepath.Join(dir, report.EventsFile),
			ReportPath: filepath.Join(dir, report.HTMLFile),
			Reproduce:  reproduceCommand(arg, res.Seed, overrides),
		})
		if err != nil {
			fmt.Fprintf(c.stderr, "sim run: writing the summary: %v\n", err)
		}
	}
	if res.Passed {
		return exitOK
	}
	return exitFailed
}

// writeFiles writes result.json and events.jsonl, then, once collected is closed (the
// collection after the run), the plots, report.html and trace.json rendered from them and
// from the committed trace.
func (c *cli) writeFiles(dir string, res *report.Result, trace *report.TraceWriter, collected <-chan struct{}) error {
	if err := report.WriteResult(dir, res); err != nil {
		return err
	}
	if err := report.WriteEvents(dir, res.Events); err != nil {
		return err
	}
	<-collected
	return report.RenderStreamed(dir, res, trace)
}

// checkOutDir checks that a run may write into dir. A run owns its output directory: it
// replaces the files of an earlier run there (report.Render removes that run's stale plots).
// So dir must be new, empty, or an earlier run's (it has a result.json); a directory holding
// anything else is refused rather than mixed with, and a file is not a directory.
func checkOutDir(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("output directory: %w", err)
	case !fi.IsDir():
		return fmt.Errorf("output directory %s is not a directory; --out names a directory the run creates or owns", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	if len(entries) == 0 {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, report.ResultFile)); err == nil {
		return nil
	}
	return fmt.Errorf("output directory %s is not empty and holds no earlier run (no %s): a run replaces what is in its directory, so give it a new or empty one with --out",
		dir, report.ResultFile)
}

// reproduceCommand is the command line that reruns exactly this run.
func reproduceCommand(arg string, seed uint64, overrides []scenarios.Override) string {
	parts := []string{"sim", "run", report.ShellQuote(arg), "--seed", strconv.FormatUint(seed, 10)}
	for _, o := range overrides {
		parts = append(parts, "--set", report.ShellQuote(o.String()))
	}
	return strings.Join(parts, " ")
}

func (c *cli) cmdValidate(args []string) int {
	fs := c.flagSet("validate")
	strict := fs.Bool("strict", false, "")
	allowOutside := fs.Bool("allow-outside-paths", false, "")
	if done, code := c.parseFlags(fs, args, validateUsage); done {
		return code
	}
	if fs.NArg() == 0 {
		return c.usageError("validate", "name at least one scenario file or built-in scenario, e.g. sim validate my-scenario.yaml")
	}
	code := exitOK
	for _, arg := range fs.Args() {
		s, ok := c.loadScenario("validate", arg, scenarios.ParseOptions{Strict: *strict, AllowOutsidePaths: *allowOutside, Controllers: c.controllerNames()})
		if !ok {
			code = exitUsage
			continue
		}
		// Build the world at time 0 as a run would: this finds what only the objects' creation
		// can (settled workloads that do not fit on the nodes), without running anything.
		if err := cluster.Check(s); err != nil {
			fmt.Fprintf(c.stderr, "%s\nsim validate: %s: 1 problem; fix it and run again\n", report.CleanText(err.Error()), s.File)
			code = exitUsage
			continue
		}
		fmt.Fprintf(c.stdout, "ok  %s: %d %s, %d timeline %s, %d %s\n", s.File,
			len(s.Nodes()), words.Plural(len(s.Nodes()), "node", "nodes"),
			len(s.Timeline), words.Plural(len(s.Timeline), "entry", "entries"),
			len(s.Expect), words.Plural(len(s.Expect), "expectation", "expectations"))
	}
	return code
}

func (c *cli) cmdList(args []string) int {
	_, done, code := c.positional("list", args, listUsage, 0, "'sim show NAME' prints one scenario")
	if done {
		return code
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	for _, name := range scenarios.BuiltinNames() {
		data, _ := scenarios.Builtin(name)
		summary := ""
		s, _, err := scenarios.Parse(scenarios.BuiltinFile(name), data, "")
		if err != nil {
			summary = "(invalid: run 'sim validate " + name + "')"
		} else {
			summary, _, _ = strings.Cut(strings.TrimSpace(s.Description), "\n")
		}
		fmt.Fprintf(tw, "%s\t%s\n", name, summary)
	}
	tw.Flush() // a failed write is reported by main
	return exitOK
}

func (c *cli) cmdShow(args []string) int {
	pos, done, code := c.positional("show", args, showUsage, 1, "one scenario (a built-in name from 'sim list', or a file)")
	if done {
		return code
	}
	_, data, _, err := scenarios.Resolve(pos[0])
	if err != nil {
		fmt.Fprintf(c.stderr, "sim show: %v\n", err)
		return exitUsage
	}
	c.stdout.Write(data)
	return exitOK
}

func (c *cli) cmdExplain(args []string) int {
	pos, done, code := c.positional("explain", args, explainUsage, 1, "one key (e.g. timeline.node-crash or kube-controller-manager.node-eviction-rate)")
	if done {
		return code
	}
	text, err := scenarios.Explain(pos[0])
	if err != nil {
		fmt.Fprintf(c.stderr, "sim explain: %v\n", err)
		return exitUsage
	}
	fmt.Fprint(c.stdout, text)
	return exitOK
}

func (c *cli) cmdVersion(args []string) int {
	fs := c.flagSet("version")
	if done, code := c.parseFlags(fs, args, versionUsage); done {
		return code
	}
	fmt.Fprintf(c.stdout, "sim %s\n", report.SimulatorVersion)
	fmt.Fprintf(c.stdout, "upstream defaults: Kubernetes %s (simulator.upstream-version accepts %s)\n",
		scenarios.DefaultUpstreamVersion, strings.Join(scenarios.SupportedUpstreamVersions, ", "))
	fmt.Fprintf(c.stdout, "formats: scenario %s, result %s, events %s\n", scenarios.APIVersion, report.ResultSchemaVersion, report.EventsSchemaVersion)
	var kinds []string
	for _, k := range model.Kinds() {
		kinds = append(kinds, string(k.Kind))
	}
	fmt.Fprintf(c.stdout, "kinds: %s\n", strings.Join(kinds, ", "))
	fmt.Fprintf(c.stdout, "go: %s\n", runtime.Version())
	return exitOK
}

// startCPUProfile starts a CPU profile written to path ("" profiles nothing) and returns the
// function that stops it and closes the file. It fails if the file cannot be created.
func startCPUProfile(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}

// controllerNames names the caller's controllers (MainWith), for the scenario parser.
func (c *cli) controllerNames() []string { return cluster.ControllerNames(c.controllers) }

// interruptContext is a context that a Ctrl-C (SIGINT or SIGTERM, through c.notify) cancels,
// so that run, sweep and explore stop and write what they recorded; a second Ctrl-C ends the
// process at once, as the signal handling is then back to Go's default. stopWatching ends the
// watch (call it when the work is done, before writing outputs); the context stays as it is,
// so the caller can still ask whether it was interrupted.
func (c *cli) interruptContext() (ctx context.Context, stopWatching func()) {
	ctx, cancel := context.WithCancel(context.Background())
	signals := make(chan os.Signal, 1)
	stopSignals := c.notify(signals)
	finished := make(chan struct{})
	go func() {
		select {
		case <-signals:
			cancel()
			stopSignals()
		case <-finished:
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			close(finished)
			stopSignals()
		})
	}
}
