package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/scenarios"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/cluster"
)

// Shard selects a deterministic slice of the run list: the runs whose index i has
// i % Count == Index-1. The zero Shard is the whole sweep.
type Shard struct {
	// Index is 1-based: shards are 1/n to n/n.
	Index, Count int
}

// ParseShard reads "i/n" (1 ≤ i ≤ n ≤ 100000). It returns an error saying what is wrong.
func ParseShard(s string) (Shard, error) {
	is, ns, ok := strings.Cut(strings.TrimSpace(s), "/")
	i, errI := strconv.Atoi(is)
	n, errN := strconv.Atoi(ns)
	if !ok || errI != nil || errN != nil {
		return Shard{}, fmt.Errorf("shard %q: want i/n, e.g. 2/8 (the second of 8 shards)", s)
	}
	sh := Shard{Index: i, Count: n}
	if sh == (Shard{}) {
		// 0/0 is the zero Shard, which means "not sharded" inside the program; written on the
		// command line it is as out of range as 0/2.
		return Shard{}, fmt.Errorf("shard 0/0: want i/n with 1 ≤ i ≤ n ≤ %d", maxShards)
	}
	if err := sh.check(); err != nil {
		return Shard{}, err
	}
	return sh, nil
}

// maxShards bounds the shard count.
const maxShards = 100_000

func (s Shard) check() error {
	if s == (Shard{}) {
		return nil
	}
	if s.Count < 1 || s.Count > maxShards || s.Index < 1 || s.Index > s.Count {
		return fmt.Errorf("shard %d/%d: want i/n with 1 ≤ i ≤ n ≤ %d", s.Index, s.Count, maxShards)
	}
	return nil
}

// Sharded reports whether s selects a slice (it is not the zero Shard).
func (s Shard) Sharded() bool { return s != Shard{} }

// String writes the shard as "i/n".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Dir is the directory a shard writes into, inside Options.OutDir: "shard-i-of-n".
func (s Shard) Dir() string { return fmt.Sprintf("shard-%d-of-%d", s.Index, s.Count) }

// owns reports whether the shard runs the run with index i.
func (s Shard) owns(i int) bool { return !s.Sharded() || i%s.Count == s.Index-1 }

// Owns reports whether the shard runs the run with index i (every run, for the zero Shard).
func (s Shard) Owns(i int) bool { return s.owns(i) }

// ProgressStyle says how Run reports progress.
type ProgressStyle int

const (
	// ProgressLines prints a plain line now and then (every 10% of the runs and every failed
	// run): for CI logs and anything that is not a terminal.
	ProgressLines ProgressStyle = iota
	// ProgressBar redraws one line with a bar (runs done, failures, ETA): for a terminal.
	ProgressBar
)

// Options are the caller's choices for Run.
type Options struct {
	// Jobs is how many runs execute at once, each on its own goroutine; 0 means
	// runtime.NumCPU(). The outputs do not depend on it.
	Jobs int
	// Shard, when set, runs only that slice of the run list and writes partial results to
	// OutDir/shard-i-of-n/ for Merge.
	Shard Shard
	// OutDir is the output directory (required).
	OutDir string
	// Resume skips runs whose run.json exists and belongs to this sweep.
	Resume bool
	// KeepResults also writes each run's result.json and events.jsonl beside its run.json.
	KeepResults bool
	// Progress receives progress reports; nil for none.
	Progress      io.Writer
	ProgressStyle ProgressStyle
	// RunScenario runs one scenario; nil means cluster.Run. It is a test seam (tests
	// substitute a fake simulator to check the sweep's bookkeeping without real runs).
	RunScenario func(ctx context.Context, scn *scenarios.Scenario, opts cluster.Options) (*report.Result, error)
	// Controllers are the caller's own controllers (reconsim.WithController), started in
	// every run as in `sim run`. The spec must have been parsed with their names
	// (scenarios.ParseOptions.Controllers) for fault filters to name them.
	Controllers []cluster.Controller
}

// RunRecord is what a sweep keeps of one run: its point, seed, metric values and outcome.
type RunRecord struct {
	Index      int          `json:"index"`
	ID         string       `json:"id"`
	Point      string       `json:"point"`
	Parameters []ParamValue `json:"parameters"`
	Seed       uint64       `json:"seed"`
	// Metrics maps each metric's name to its value, null when the run has none (and for
	// every metric of a failed run).
	Metrics map[string]*float64 `json:"metrics"`
	// Passed is true when every expectation of the scenario held and the run did not fail.
	Passed bool `json:"passed"`
	// FailedExpectations names the scenario's expectations that did not hold.
	FailedExpectations []string `json:"failedExpectations"`
	StopReason         string   `json:"stopReason"`
	// Error is why the run failed (a panic, a limit, a refused scenario); empty if it did not.
	Error string `json:"error,omitempty"`
	// Reproduce is the `sim run` command that reruns exactly this run.
	Reproduce string `json:"reproduce"`
}

// Failed reports whether the run failed (as opposed to completing, passing or not).
func (r *RunRecord) Failed() bool { return r.Error != "" }

// runFile is the content of runs/<id>/run.json.
type runFile struct {
	SchemaVersion string    `json:"schemaVersion"`
	RunHash       string    `json:"runHash"`
	Run           RunRecord `json:"run"`
	// WallSeconds is the run's wall time; it is not carried into sweep.json.
	WallSeconds float64 `json:"wallSeconds"`
}

// File and directory names of a sweep's output.
const (
	RunsDir     = "runs"
	RunFile     = "run.json"
	ShardFile   = "shard.json"
	SweepJSON   = "sweep.json"
	SweepCSV    = "sweep.csv"
	JUnitFile   = "junit.xml"
	SweepHTML   = "sweep.html"
	SweepPlots  = "plots"
	maxRunBytes = 16 << 20
)

// Outcome is what Run or Merge did.
type Outcome struct {
	// Result is the sweep's result; nil for a shard (see Merge).
	Result *Result
	// Dir is where the files were written.
	Dir string
	// Runs are the runs this call covered (the shard's runs, for a shard), in run order,
	// including the ones skipped by Resume.
	Runs []RunRecord
	// Executed is how many runs this call executed; Resumed how many it skipped.
	Executed, Resumed int
	// Files are the paths of the summary files written (sweep.json, ...); empty for a shard.
	Files []string
}

// Failed returns the failed runs among o.Runs.
func (o *Outcome) Failed() []RunRecord {
	var out []RunRecord
	for _, r := range o.Runs {
		if r.Failed() {
			out = append(out, r)
		}
	}
	return out
}

// ErrInterrupted is returned (wrapped) by Run when its context is cancelled: the runs that
// finished are saved, and a second Run with Resume continues from there.
var ErrInterrupted = errors.New("sweep interrupted")

// Run executes the sweep's runs (a shard's, with Options.Shard) on Options.Jobs workers and
// writes the results to Options.OutDir: runs/<id>/run.json for every run, then for the whole
// sweep sweep.json, sweep.csv, junit.xml, plots/ and sweep.html (WriteResults), or for a
// shard shard-i-of-n/runs/... and shard-i-of-n/shard.json. A run that fails is recorded,
// not returned as an error. Run returns an error for bad options, a spec that does not hold
// its scenario (one not from Parse or Load), files it cannot write, and a cancelled context
// (wrapping ErrInterrupted; finished runs are kept for Resume).
func Run(ctx context.Context, spec *Spec, opts Options) (*Outcome, error) {
	if !spec.runnable() {
		return nil, errors.New("sweep: the spec holds no scenario to run; load it with sweep.Load or sweep.Parse")
	}
	if err := opts.Shard.check(); err != nil {
		return nil, err
	}
	if opts.OutDir == "" {
		return nil, errors.New("sweep: no output directory")
	}
	if opts.Jobs < 0 {
		return nil, fmt.Errorf("sweep: jobs must not be negative, got %d", opts.Jobs)
	}
	jobs := opts.Jobs
	if jobs == 0 {
		jobs = runtime.NumCPU()
	}
	dir := opts.OutDir
	if opts.Shard.Sharded() {
		dir = filepath.Join(dir, opts.Shard.Dir())
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("sweep: creating the output directory: %w", err)
	}

	plan := spec.Plan()
	hash := spec.runHash()
	var mine []PlannedRun
	for _, r := range plan.Runs {
		if opts.Shard.owns(r.Index) {
			mine = append(mine, r)
		}
	}
	out := &Outcome{Dir: dir, Runs: make([]RunRecord, len(mine))}
	done := make([]bool, len(mine))
	var todo []int
	for i, r := range mine {
		if opts.Resume {
			if rec, ok := readRunFile(runFilePath(dir, r.ID), hash, r); ok {
				rec.Reproduce = spec.reproduce(plan.Points[r.Point].Values, r.Seed)
				out.Runs[i], done[i] = rec, true
				out.Resumed++
				continue
			}
		}
		todo = append(todo, i)
	}

	jobs = min(jobs, max(len(todo), 1))
	prog := newProgress(opts.Progress, opts.ProgressStyle, time.Now, len(mine), out.Resumed)
	prog.start(spec.Name, opts.Shard, jobs)
	var (
		mu       sync.Mutex
		next     int
		firstErr error
		wg       sync.WaitGroup
	)
	worker := func() {
		defer wg.Done()
		for {
			mu.Lock()
			if next >= len(todo) || firstErr != nil || ctx.Err() != nil {
				mu.Unlock()
				return
			}
			i := todo[next]
			next++
			mu.Unlock()

			r := mine[i]
			rec, wall, res, interrupted := execute(ctx, spec, plan, r, opts)
			if interrupted {
				return
			}
			err := writeRun(dir, hash, rec, wall, res, opts.KeepResults)
			mu.Lock()
			if err != nil && firstErr == nil {
				firstErr = err
			}
			out.Runs[i], done[i] = rec, err == nil
			out.Executed++
			mu.Unlock()
			prog.finished(&rec)
		}
	}
	wg.Add(jobs)
	for range jobs - 1 {
		go worker()
	}
	worker()
	wg.Wait()
	prog.end()

	if firstErr != nil {
		return out, firstErr
	}
	for _, d := range done {
		if !d {
			n := 0
			for _, d := range done {
				if d {
					n++
				}
			}
			return out, fmt.Errorf("%w: %d of %d runs are done; run again with --resume to continue", ErrInterrupted, n, len(done))
		}
	}

	if opts.Shard.Sharded() {
		if err := writeShard(dir, spec, opts.Shard, hash, mine); err != nil {
			return out, err
		}
		return out, nil
	}
	res := assemble(spec, plan, out.Runs)
	files, err := WriteResults(dir, res)
	out.Result, out.Files = res, files
	return out, err
}

// runFilePath is where a run's run.json lives inside a sweep or shard directory.
func runFilePath(dir, id string) string { return filepath.Join(dir, RunsDir, id, RunFile) }

// execute performs one run and records it. interrupted is true when the context ended the
// run before it finished; the run is then not recorded.
func execute(ctx context.Context, spec *Spec, plan *Plan, r PlannedRun, opts Options) (rec RunRecord, wallSeconds float64, res *report.Result, interrupted bool) {
	pt := plan.Points[r.Point]
	rec = RunRecord{
		Index: r.Index, ID: r.ID, Point: pt.ID, Parameters: spec.paramValues(pt.Values), Seed: r.Seed,
		Metrics: map[string]*float64{}, FailedExpectations: []string{},
		Reproduce: spec.reproduce(pt.Values, r.Seed),
	}
	for _, m := range spec.Metrics {
		rec.Metrics[m.Name] = nil
	}
	start := time.Now()
	res, err := runOne(ctx, spec, pt, r, opts)
	wallSeconds = time.Since(start).Seconds()
	if ctx.Err() != nil || (res != nil && res.StopReason == report.StopInterrupted) {
		return rec, wallSeconds, nil, true
	}
	if res != nil {
		rec.StopReason = res.StopReason
	}
	switch {
	case err != nil:
		rec.Error = err.Error()
		if rec.StopReason == "" {
			rec.StopReason = string(sim.StopError)
		}
	case res == nil:
		rec.Error = "the simulator returned no result"
	case res.StopReason == string(sim.StopEventLimit):
		rec.Error = fmt.Sprintf("the run hit its event limit (stop.maxEvents) after %d events, at virtual time %s",
			res.EventsProcessed, formatIn("seconds", res.VirtualSeconds))
	}
	if rec.Failed() {
		return rec, wallSeconds, res, false
	}
	rec.Passed = res.Passed
	for _, e := range res.FailedExpectations() {
		rec.FailedExpectations = append(rec.FailedExpectations, e.Name)
	}
	for _, m := range spec.Metrics {
		if v, ok := m.value(res); ok {
			rec.Metrics[m.Name] = finitePtr(v)
		}
	}
	return rec, wallSeconds, res, false
}

// runOne parses the scenario afresh, applies the point's overrides and runs it with the
// run's seed. A panic outside the simulated processes (which cluster.Run reports itself)
// becomes an error, so one run cannot take the sweep down.
func runOne(ctx context.Context, spec *Spec, pt Point, r PlannedRun, opts Options) (res *report.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("panic: %v", p)
		}
	}()
	scn, _, err := scenarios.ParseWith(spec.scenarioFile, spec.scenarioData, spec.scenarioBaseDir, spec.scenarioOpts)
	if err != nil {
		return nil, fmt.Errorf("loading the scenario: %w", err)
	}
	ovs := spec.overrides(pt.Values)
	if err := scn.Apply(ovs); err != nil {
		return nil, fmt.Errorf("applying the overrides: %w", err)
	}
	copts := cluster.Options{Seed: r.Seed, SeedSet: true, Overrides: ovs, Controllers: opts.Controllers}
	run := opts.RunScenario
	if run == nil {
		run = cluster.Run
	}
	return run(ctx, scn, copts)
}
