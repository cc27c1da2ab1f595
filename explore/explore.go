package explore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/reconsim/reconsim/internal/words"
	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/scenarios"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/cluster"
	"github.com/reconsim/reconsim/sweep"
)

// InvariantPanic names the finding of a run whose simulation panicked.
const InvariantPanic = "panic"

// Options are the caller's choices for a search.
type Options struct {
	// Runs is how many random runs the search makes (strategy random or all).
	Runs int
	// Seed is the explore seed every random run's faults and simulation seed derive from.
	Seed uint64
	// Strategy is one of Strategies (default random).
	Strategy string
	// Jobs is how many runs execute at once; 0 means runtime.NumCPU().
	Jobs int
	// Shard, when set, runs only that slice of the run list and writes
	// OutDir/shard-i-of-n/shard.json for Merge.
	Shard sweep.Shard
	// OutDir is where the results go (required to write files; "" writes nothing).
	OutDir string
	// Command is how the user named the scenario (a path or a built-in name), for the
	// commands the results print.
	Command string
	// NoShrink skips shrinking (reproducers are then the failing runs as they were).
	NoShrink bool
	// MaxShrinkRuns bounds the runs shrinking one finding may take (default 300).
	MaxShrinkRuns int
	// Progress receives progress reports; nil for none.
	Progress      io.Writer
	ProgressStyle sweep.ProgressStyle
	// Now reads the wall clock for the ETA; nil for none.
	Now func() time.Time
	// Controllers are extra controllers every run starts (a test seam; see
	// cluster.Options.Controllers).
	Controllers []cluster.Controller
}

// DefaultMaxShrinkRuns is Options.MaxShrinkRuns when unset.
const DefaultMaxShrinkRuns = 300

// Search is one search over a scenario: its source, options and run list.
type Search struct {
	src    *source
	scn    *scenarios.Scenario
	opts   Options
	writes map[string]int
	runs   []PlannedRun
}

// Prepare parses the scenario (file names it in messages; data is its content; baseDir
// resolves its file references, "" for a built-in), checks the options, makes the reference
// run and lists the search's runs. A scenario problem is a scenarios.Errors; a scenario
// without an explore: section is an error too.
func Prepare(ctx context.Context, file string, data []byte, baseDir string, opts Options) (*Search, error) {
	if opts.Strategy == "" {
		opts.Strategy = StrategyRandom
	}
	if !slices.Contains(Strategies(), opts.Strategy) {
		return nil, &UsageError{fmt.Sprintf("unknown strategy %q (want %s)", opts.Strategy, strings.Join(Strategies(), ", "))}
	}
	if opts.Runs < 0 || opts.Runs > MaxRuns {
		return nil, &UsageError{fmt.Sprintf("--runs must be between 0 and %d, got %d", MaxRuns, opts.Runs)}
	}
	if opts.Jobs < 0 {
		return nil, &UsageError{fmt.Sprintf("--jobs must not be negative, got %d", opts.Jobs)}
	}
	if opts.MaxShrinkRuns <= 0 {
		opts.MaxShrinkRuns = DefaultMaxShrinkRuns
	}
	if opts.Command == "" {
		opts.Command = file
	}
	scn, _, err := scenarios.ParseWith(file, data, baseDir, scenarios.ParseOptions{Controllers: cluster.ControllerNames(opts.Controllers)})
	if err != nil {
		return nil, err
	}
	if scn.Explore == nil {
		return nil, &UsageError{fmt.Sprintf("%s has no explore: section; `sim explain explore` shows what it holds", file)}
	}
	src, err := newSource(file, data, baseDir)
	if err != nil {
		return nil, err
	}
	s := &Search{src: src, scn: scn, opts: opts}
	if _, err := s.runVariant(ctx, variant{seed: scn.Seed}, func(c map[string]int) { s.writes = c }); err != nil && s.writes == nil {
		return nil, fmt.Errorf("the reference run: %w", err)
	}
	if s.runs, err = plan(scn, opts.Strategy, opts.Runs, opts.Seed, s.writes); err != nil {
		return nil, &UsageError{err.Error()}
	}
	return s, nil
}

// UsageError is a problem with the options (an exit 2).
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Runs returns the planned runs.
func (s *Search) Runs() []PlannedRun { return s.runs }

// Scenario returns the parsed scenario.
func (s *Search) Scenario() *scenarios.Scenario { return s.scn }

// Failure is one invariant a run broke, with the message of its first violation.
type Failure struct {
	Invariant string `json:"invariant"`
	Message   string `json:"message"`
}

// Run is what the search keeps of one run.
type Run struct {
	Index    int       `json:"index"`
	ID       string    `json:"id"`
	Strategy string    `json:"strategy"`
	Seed     uint64    `json:"seed"`
	Faults   []Fault   `json:"faults"`
	Failures []Failure `json:"failures"`
	// Error says why the run did not complete normally (a panic, the event limit), if so.
	Error string `json:"error,omitempty"`
}

// Found reports whether the run broke an invariant.
func (r *Run) Found() bool { return len(r.Failures) > 0 }

// Execute runs the search's runs (a shard's, with Options.Shard) on Options.Jobs workers and
// returns them in run order. A cancelled context stops it (the error wraps context.Canceled).
func (s *Search) Execute(ctx context.Context) ([]Run, error) {
	var mine []PlannedRun
	for _, r := range s.runs {
		if s.opts.Shard.Owns(r.Index) {
			mine = append(mine, r)
		}
	}
	jobs := s.opts.Jobs
	if jobs == 0 {
		jobs = runtime.NumCPU()
	}
	jobs = min(jobs, max(len(mine), 1))
	prog := sweep.NewProgress(s.opts.Progress, s.opts.ProgressStyle, s.opts.Now, len(mine), 0)
	prog.CountAs("with findings")
	what := fmt.Sprintf("explore %s (%s, seed %d): %d runs", s.scn.Name, s.opts.Strategy, s.opts.Seed, len(mine))
	if s.opts.Shard.Sharded() {
		what = fmt.Sprintf("explore %s (%s, seed %d), shard %s: %d runs", s.scn.Name, s.opts.Strategy, s.opts.Seed, s.opts.Shard, len(mine))
	}
	prog.Start(what, jobs)
	out := make([]Run, len(mine))
	var (
		mu       sync.Mutex
		next     int
		wg       sync.WaitGroup
		reported = map[string]bool{}
	)
	worker := func() {
		defer wg.Done()
		for {
			mu.Lock()
			if next >= len(mine) || ctx.Err() != nil {
				mu.Unlock()
				return
			}
			i := next
			next++
			mu.Unlock()
			rec := s.execute(ctx, mine[i])
			// Progress names the first run to break each invariant (the order runs finish in
			// shows only here, never in the results).
			mu.Lock()
			out[i] = rec
			var fresh []string
			for _, f := range rec.Failures {
				if !reported[f.Invariant] {
					reported[f.Invariant] = true
					fresh = append(fresh, f.Invariant)
				}
			}
			mu.Unlock()
			report := ""
			if len(fresh) > 0 {
				report = fmt.Sprintf("run %s (seed %d) broke %s", rec.ID, rec.Seed, strings.Join(fresh, ", "))
			}
			prog.Finished(rec.Found(), report)
		}
	}
	wg.Add(jobs)
	for range jobs {
		go worker()
	}
	wg.Wait()
	prog.End()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("explore interrupted: %w", err)
	}
	return out, nil
}

// execute performs one planned run.
func (s *Search) execute(ctx context.Context, r PlannedRun) Run {
	rec := Run{Index: r.Index, ID: r.ID, Strategy: r.Strategy, Seed: r.Seed, Faults: r.Faults, Failures: []Failure{}}
	if rec.Faults == nil {
		rec.Faults = []Fault{}
	}
	res, err := s.runVariant(ctx, variant{seed: r.Seed, faults: r.Faults}, nil)
	rec.Failures, rec.Error = s.failures(res, err)
	return rec
}

// failures lists the invariants a run broke, in the scenario's order, panic first.
func (s *Search) failures(res *report.Result, err error) ([]Failure, string) {
	out := []Failure{}
	var errText string
	if err != nil {
		errText = err.Error()
		var pp *sim.ProcPanic
		if errors.As(err, &pp) || strings.HasPrefix(errText, "panic: ") {
			out = append(out, Failure{Invariant: InvariantPanic, Message: words.FirstLine(errText)})
		}
	}
	if res == nil {
		return out, errText
	}
	if res.StopReason == string(sim.StopEventLimit) && errText == "" {
		errText = fmt.Sprintf("the run hit its event limit (stop.maxEvents) after %d events", res.EventsProcessed)
	}
	for _, inv := range s.scn.Explore.Invariants {
		name := inv
		if slices.Contains(scenarios.Invariants(), inv) {
			name = cluster.InvariantPrefix + inv
		}
		for _, e := range res.Expectations {
			if e.Name == name && !e.Passed {
				out = append(out, Failure{Invariant: inv, Message: e.Message})
			}
		}
	}
	return out, errText
}

// runVariant renders, parses and runs one variant of the scenario, as `sim run` would run
// the rendered file. A panic outside the simulated processes becomes an error.
func (s *Search) runVariant(ctx context.Context, v variant, writes func(map[string]int)) (res *report.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("panic: %v", p)
		}
	}()
	data, err := s.src.render(v)
	if err != nil {
		return nil, fmt.Errorf("rendering the scenario: %w", err)
	}
	return s.runData(ctx, data, writes)
}

// runData parses and runs a rendered scenario.
func (s *Search) runData(ctx context.Context, data []byte, writes func(map[string]int)) (*report.Result, error) {
	scn, _, err := scenarios.ParseWith(s.src.file, data, s.src.baseDir, scenarios.ParseOptions{Controllers: cluster.ControllerNames(s.opts.Controllers)})
	if err != nil {
		return nil, fmt.Errorf("the rendered scenario does not load: %w", err)
	}
	return cluster.Run(ctx, scn, cluster.Options{Controllers: s.opts.Controllers, Writes: writes})
}
