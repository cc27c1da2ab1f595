package reconsim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/reconsim/reconsim/internal/atomicfile"
	"github.com/reconsim/reconsim/internal/cli"
	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/operator"
	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/scenarios"
	"github.com/reconsim/reconsim/sim/cluster"
)

// Result is everything a run reports. It is the type result.json is written from (the same
// definition, report.Result), so every field documented in docs/results.md is here under
// the name its JSON key suggests: Passed, Expectations, Convergence, Verdicts, Series, the
// seed, the stop reason and the trace hash. Events holds the Kubernetes Events the run
// recorded (events.jsonl). WallSeconds is the only field that differs between two runs of
// the same scenario and seed.
type Result = report.Result

// The parts of a Result, for callers that name them.
type (
	// ExpectationResult is the outcome of one `expect:` entry.
	ExpectationResult = report.ExpectationResult
	// Convergence says when the world converged after one timeline action.
	Convergence = report.Convergence
	// Verdict says why a workload ended short of what it asked for.
	Verdict = report.Verdict
	// Series is one sampled time series (the plots).
	Series = report.Series
)

// Problem is one problem with a scenario, at a position in its source: Pos.File, Pos.Line
// and Pos.Column, the field Path, the message Msg and, when there is one, a Hint. Its Error
// method formats it as "file:line:col: path: message (hint)", as `sim validate` prints it.
type Problem = model.DecodeError

// InputError is bad input: a scenario that does not parse or validate, an unknown built-in
// scenario, an unreadable file, an override (WithSet, WithDuration) the simulator refuses,
// or content the simulated API server refuses. Run returns it, never a panic, for every
// mistake a user can make; retrieve it with errors.As.
type InputError struct {
	// Scenario is what Run was given: the file path, the built-in name or the Bytes name.
	Scenario string
	// Problems are the scenario's problems, each with its file:line:col, in source order. It
	// is empty when the mistake has no position in a file (an unknown built-in name, an
	// unreadable file, a bad override).
	Problems []*Problem
	// Err is the underlying error; its text is Error's.
	Err error
}

// Error prints the problems one per line ("file:line:col: path: message (hint)"), or the
// underlying error.
func (e *InputError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error (a scenarios.Errors, a *scenarios.OverrideError, ...).
func (e *InputError) Unwrap() error { return e.Err }

// Scenario names the scenario Run simulates. Make one with File, Builtin, Bytes or Resolve.
type Scenario struct {
	kind source
	arg  string
	data []byte
}

type source int

const (
	sourceResolve source = iota
	sourceFile
	sourceBuiltin
	sourceBytes
)

// File is the scenario in the file at path. Files it refers to (objects loaded from other
// files) are found relative to its directory.
func File(path string) Scenario { return Scenario{kind: sourceFile, arg: path} }

// Builtin is the built-in scenario name, one of those `sim list` prints (BuiltinNames).
func Builtin(name string) Scenario { return Scenario{kind: sourceBuiltin, arg: name} }

// Bytes is a scenario given as its YAML source. name is the file name problems are reported
// at (for example "my-scenario.yaml"); files the scenario refers to are found relative to
// name's directory.
func Bytes(name string, data []byte) Scenario {
	return Scenario{kind: sourceBytes, arg: name, data: data}
}

// Resolve is arg resolved as `sim run ARG` resolves it: the file at arg if one exists there
// or arg ends in .yaml or .yml or holds a path separator, otherwise the built-in scenario
// called arg.
func Resolve(arg string) Scenario { return Scenario{kind: sourceResolve, arg: arg} }

// String is what the scenario was made from: the path, the name or the Bytes name.
func (s Scenario) String() string { return s.arg }

// BuiltinNames returns the names of the built-in scenarios, sorted.
func BuiltinNames() []string { return scenarios.BuiltinNames() }

// load reads and parses the scenario.
func (s Scenario) load(controllers []string) (*scenarios.Scenario, error) {
	var (
		file, baseDir string
		data          []byte
		err           error
	)
	switch s.kind {
	case sourceResolve:
		file, data, baseDir, err = scenarios.Resolve(s.arg)
	case sourceFile:
		if s.arg == "" {
			return nil, errors.New("reconsim.File: empty path")
		}
		// A path Resolve would read as a file (it holds a separator or ends in .yaml); a
		// bare name such as "scn" becomes "./scn".
		p := s.arg
		if filepath.Base(p) == p && filepath.Ext(p) != ".yaml" && filepath.Ext(p) != ".yml" {
			p = "." + string(os.PathSeparator) + p
		}
		_, data, baseDir, err = scenarios.Resolve(p)
		file = s.arg
	case sourceBuiltin:
		d, ok := scenarios.Builtin(s.arg)
		if !ok {
			_, _, _, err = scenarios.Resolve(s.arg) // the error lists the built-ins, with a did-you-mean
			if err == nil {
				err = fmt.Errorf("no built-in scenario is called %q", s.arg)
			}
		}
		file, data = scenarios.BuiltinFile(s.arg), d
	case sourceBytes:
		if len(s.data) > scenarios.MaxFileBytes {
			// Parse reports this too; checked here so the error names the limit first.
			return nil, fmt.Errorf("%s: the scenario is %d bytes, more than the limit of %d", s.arg, len(s.data), scenarios.MaxFileBytes)
		}
		file, data, baseDir = s.arg, s.data, filepath.Dir(s.arg)
	}
	if err != nil {
		return nil, err
	}
	scn, _, err := scenarios.ParseWith(file, data, baseDir, scenarios.ParseOptions{Controllers: controllers})
	return scn, err
}

// checkControllers refuses empty, duplicate and built-in names.
func checkControllers(cs []cluster.Controller) error {
	seen := map[string]bool{}
	for _, c := range cs {
		switch {
		case strings.TrimSpace(c.Name) == "":
			return errors.New("reconsim.WithController: empty controller name")
		case seen[c.Name]:
			return fmt.Errorf("reconsim.WithController: two controllers are called %q", c.Name)
		case slices.Contains(scenarios.ComponentNames(), c.Name) || slices.Contains(scenarios.ControllerNames(), c.Name):
			return fmt.Errorf("reconsim.WithController: %q is the name of a built-in component", c.Name)
		}
		seen[c.Name] = true
	}
	return nil
}

// Option configures Run (and, for the options that say so, Main).
type Option func(*config)

type config struct {
	seed      uint64
	seedSet   bool
	overrides []scenarios.Override
	out       string
	trace     io.Writer
	// controllers are the caller's controllers (WithController), in the order given.
	controllers []cluster.Controller
	// runOnly names the options given that only Run accepts (for Main's error).
	runOnly []string
}

// WithSeed runs with seed instead of the scenario's (`sim run --seed`).
func WithSeed(seed uint64) Option {
	return func(c *config) { c.seed, c.seedSet = seed, true; c.runOnly = append(c.runOnly, "WithSeed") }
}

// WithSet overrides a component flag ("kube-controller-manager.node-monitor-grace-period")
// or one of the scenario fields seed, duration, stop.maxEvents and stop.quiescence, with
// value written as on the command line (`sim run --set key=value`; `sim explain key`
// documents each). Overrides apply in the order given.
func WithSet(key, value string) Option {
	// Trimmed as `sim run --set` trims it, so the result records the same override.
	key = strings.TrimSpace(key)
	return func(c *config) {
		c.overrides = append(c.overrides, scenarios.Override{Key: key, Value: value})
		c.runOnly = append(c.runOnly, "WithSet")
	}
}

// WithDuration sets the virtual-time limit (`sim run --duration`), the same as
// WithSet("duration", d.String()).
func WithDuration(d time.Duration) Option {
	return WithSet("duration", d.String())
}

// WithOut writes what `sim run --out dir` writes into dir: result.json, events.jsonl,
// trace.txt, the plots, report.html and trace.json (docs/results.md). Without it Run writes
// nothing.
func WithOut(dir string) Option {
	return func(c *config) { c.out = dir; c.runOnly = append(c.runOnly, "WithOut") }
}

// WithTrace writes the trace to w as the run produces it (`sim run --trace`).
func WithTrace(w io.Writer) Option {
	return func(c *config) { c.trace = w; c.runOnly = append(c.runOnly, "WithTrace") }
}

// WithController runs a controller of the caller's in every run, for Run and Main. setup
// wires it to the operator.Manager it is given, as a kubebuilder SetupWithManager does:
//
//	reconsim.WithController("webapp-controller", func(mgr operator.Manager) error {
//		return (&WebAppReconciler{Client: mgr.GetClient()}).SetupWithManager(mgr)
//	})
//
// It starts with kube-controller-manager's other controllers, with its own client
// (kube-controller-manager's --kube-api-qps and --kube-api-burst), restarts with a
// controller-restart of name (or of kube-controller-manager), and appears under name in the
// trace, the work-queue series (workqueue.NAME.depth) and the report. A scenario's
// controller-restart and explore targets accept name. Names must be unique and must not be a
// built-in component's.
func WithController(name string, setup func(operator.Manager) error) Option {
	return func(c *config) {
		c.controllers = append(c.controllers, operator.Controller(name, setup))
	}
}

// Run simulates a scenario and returns its Result. A run whose expectations fail is not an
// error: Result.Passed is false and Result.Expectations and Result.Verdicts say why.
//
// Bad input (see InputError) returns an *InputError and no result. When ctx is cancelled the
// run stops at its next check (every few thousand simulated events) and Run returns what
// was recorded (StopReason "interrupted", written to the WithOut directory as well) with an
// error wrapping ctx.Err(). A panic inside the simulator (a bug in reconsim) is returned as
// an error naming the seed and virtual time, with the partial result when there is one.
//
// Run reads no global state but the files it is given and is safe to call from several
// goroutines at once; two Runs of the same scenario, seed and options give the same Result
// except WallSeconds.
func Run(ctx context.Context, scenario Scenario, opts ...Option) (res *Result, err error) {
	defer func() {
		// safeRun recovers the simulation's panics with the partial result; this recovers
		// the rest (loading, writing files), so that a bug in reconsim is an error too.
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("reconsim: internal error running %s: panic: %v\n%s", scenario, r, debug.Stack())
		}
	}()
	var c config
	for _, o := range opts {
		o(&c)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("reconsim: run of %s not started: %w", scenario, err)
	}
	for _, o := range c.overrides {
		if _, err := scenarios.ParseOverride(o.String()); err != nil {
			return nil, &InputError{Scenario: scenario.arg, Err: err}
		}
	}
	if err := checkControllers(c.controllers); err != nil {
		return nil, &InputError{Scenario: scenario.arg, Err: err}
	}
	scn, err := scenario.load(cluster.ControllerNames(c.controllers))
	if err != nil {
		return nil, inputError(scenario, err)
	}
	if err := scn.Apply(c.overrides); err != nil {
		return nil, inputError(scenario, err)
	}
	copts := cluster.Options{Seed: c.seed, SeedSet: c.seedSet, Overrides: c.overrides, Controllers: c.controllers}
	// trace.txt streams as the run goes, under a temporary name that Commit renames, so an
	// interrupted run leaves no half file under the final name.
	var traceFile *atomicfile.File
	if c.out != "" {
		traceFile, err = atomicfile.Create(c.out, report.TraceFile)
		if err != nil {
			return nil, fmt.Errorf("reconsim: %w", err)
		}
		defer traceFile.Discard()
	}
	switch {
	case traceFile != nil && c.trace != nil:
		copts.Trace = io.MultiWriter(traceFile, c.trace)
	case traceFile != nil:
		copts.Trace = traceFile
	case c.trace != nil:
		copts.Trace = c.trace
	}

	start := time.Now()
	res, runErr := safeRun(ctx, scn, copts)
	if res != nil {
		res.WallSeconds = time.Since(start).Seconds()
	}
	var inErr *cluster.InputError
	if errors.As(runErr, &inErr) {
		return nil, inputError(scenario, runErr)
	}
	if c.out != "" && res != nil {
		if err := traceFile.Commit(false); err != nil {
			return res, fmt.Errorf("reconsim: %w", err)
		}
		if err := writeFiles(c.out, res); err != nil {
			return res, fmt.Errorf("reconsim: %w", err)
		}
	}
	seed := scn.Seed
	if c.seedSet {
		seed = c.seed
	}
	switch {
	case runErr != nil:
		virtual := "unknown"
		if res != nil {
			virtual = fmt.Sprintf("%.3fs", res.VirtualSeconds)
		}
		return res, fmt.Errorf("reconsim: internal error running %s (seed %d, virtual time %s): %w", scn.Name, seed, virtual, runErr)
	case res == nil:
		return nil, fmt.Errorf("reconsim: internal error running %s (seed %d): the simulator returned no result", scn.Name, seed)
	case ctx.Err() != nil && res.StopReason == report.StopInterrupted:
		return res, fmt.Errorf("reconsim: run of %s stopped at virtual time %.3fs: %w", scn.Name, res.VirtualSeconds, ctx.Err())
	}
	return res, nil
}

// inputError wraps err, a problem with the user's input, in an *InputError.
func inputError(s Scenario, err error) error {
	ie := &InputError{Scenario: s.arg, Err: err}
	var errs scenarios.Errors
	if errors.As(err, &errs) {
		ie.Problems = errs
	}
	return ie
}

// safeRun runs the simulation, turning a panic into an error.
func safeRun(ctx context.Context, scn *scenarios.Scenario, opts cluster.Options) (res *report.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	return cluster.Run(ctx, scn, opts)
}

// writeFiles writes result.json and events.jsonl, then the plots, report.html and trace.json
// rendered from them and from trace.txt, as `sim run` does.
func writeFiles(dir string, res *Result) error {
	if err := report.WriteResult(dir, res); err != nil {
		return err
	}
	if err := report.WriteEvents(dir, res.Events); err != nil {
		return err
	}
	return report.Render(dir, res)
}

// Main runs the whole `sim` command line (run, sweep, validate, explain, report, merge, ...)
// on os.Args and exits the process with its status: 0 every expectation held, 1 one failed,
// 2 bad input, 3 an internal error. cmd/sim is `func main() { reconsim.Main() }`; a program
// of the same few lines builds its own `sim`.
//
// Main accepts WithController: the controllers are built into every run, validate and
// explore. A run's seed, overrides and output directory are given on the command line
// (--seed, --set, --out), so the other options are refused: given one, Main prints why and
// exits with status 2.
func Main(opts ...Option) {
	var c config
	for _, o := range opts {
		o(&c)
	}
	if len(c.runOnly) > 0 {
		fmt.Fprintf(os.Stderr, "reconsim.Main: run options (%s) are not accepted here; give --seed, --set, --duration or --out on the sim command line\n", strings.Join(c.runOnly, ", "))
		os.Exit(2)
	}
	if err := checkControllers(c.controllers); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	cli.MainWith(c.controllers)
}
