package cluster

import (
	"context"
	"fmt"
	"github.com/reconsim/reconsim/internal/tracefold"
	"math/rand/v2"
	"strings"

	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/scenarios"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

// interruptCheckEvents is how many events run between two looks at the context.
const interruptCheckEvents = 20_000

// Run simulates scn and reports what happened. It returns an *InputError for scenario content
// the API server refuses, and a *sim.ProcPanic (with a partial result) when a process panics;
// a run that merely fails its expectations is not an error (Result.Passed is false).
func Run(ctx context.Context, scn *scenarios.Scenario, opts Options) (*report.Result, error) {
	seed := scn.Seed
	if opts.SeedSet {
		seed = opts.Seed
	}
	w, err := build(scn, seed, opts)
	if err != nil {
		return nil, &InputError{Err: err}
	}
	// The processes left blocked would otherwise keep the whole world reachable after Run
	// returns: while the caller writes the outputs, and after every run of a sweep.
	defer w.k.Close()
	// The trace's hash is folded on another goroutine while the run goes (internal/tracefold):
	// some 100 ns a line that the simulation's goroutine no longer waits for. It is detached,
	// with the hash up to date, before the kernel's Close (deferred above, so run after this).
	folder := tracefold.New()
	w.k.Trace().SetFolder(folder)
	defer func() {
		w.k.Trace().SetFolder(nil)
		folder.Close()
	}()
	if opts.Trace != nil {
		w.k.Trace().SetWriter(opts.Trace)
	}
	if err := w.createObjects(); err != nil {
		return nil, err
	}
	tl := newTimeline(w)
	w.onWrite = tl.wrote
	ex := newExpectations(w, tl)
	w.obs.onChange = func() {
		tl.onChange()
		ex.onChange()
	}
	w.start()
	w.startSampler()
	tl.schedule()
	w.obs.changed()
	if opts.warmed != nil {
		w.k.Schedule(opts.warmAt, sim.HandlerFunc(func(uint64) { opts.warmed(w.k.EventsProcessed()) }), 0, false)
	}
	if opts.built != nil {
		opts.built(w.k.EventsProcessed())
	}

	limits := sim.Limits{
		MaxTime:          vtime.FromDuration(scn.Duration),
		QuiescenceWindow: scn.Stop.Quiescence,
	}
	var out sim.Outcome
	interrupted := false
	for {
		next := w.k.EventsProcessed() + interruptCheckEvents
		lim := limits
		lim.MaxEvents = min(next, scn.Stop.MaxEvents)
		out = w.k.Run(lim)
		if out.Reason != sim.StopEventLimit || w.k.EventsProcessed() >= scn.Stop.MaxEvents {
			break
		}
		if ctx.Err() != nil {
			interrupted = true
			break
		}
	}
	if opts.simulated != nil {
		opts.simulated()
	}

	res := &report.Result{
		Scenario: scn.Name, Description: scn.Description, Seed: seed,
		SimulatorVersion: report.SimulatorVersion, UpstreamVersion: scn.Components.UpstreamVersion(),
		VirtualSeconds: w.k.Now().Seconds(), EventsProcessed: w.k.EventsProcessed(),
		StopReason: string(out.Reason), StopDetail: out.Detail,
		TraceHash: report.TraceHashHex(w.k.Trace().Hash()),
	}
	if interrupted {
		res.StopReason, res.StopDetail = report.StopInterrupted, "interrupted by the user"
	}
	for _, o := range opts.Overrides {
		res.Overrides = append(res.Overrides, report.Override{Key: o.Key, Value: o.Value})
	}
	res.Convergence = tl.convergence()
	if !w.conv.converged() {
		res.Verdicts = w.verdicts()
	}
	res.Verdicts = append(res.Verdicts, w.drainVerdicts()...)
	res.Verdicts = append(res.Verdicts, tl.failedVerdicts()...)
	res.Verdicts = append(res.Verdicts, w.gitopsVerdict()...)
	res.Verdicts = append(res.Verdicts, w.jobVerdicts()...)
	res.Series = w.obs.finish(w.k.Now())
	res.Leadership = w.leadership()
	res.Expectations = ex.results(res.Verdicts, res.Series, w.k.Now())
	stop := res.StopReason
	res.Expectations = append(res.Expectations, w.inv.finish(tl, stop)...)
	mutations := w.srv.Store().MutationViolations()
	if opts.CheckMutations {
		r := report.ExpectationResult{Name: InvariantPrefix + StoredObjectsUnmodified, Passed: len(mutations) == 0, Message: "held"}
		if !r.Passed {
			r.Message = strings.Join(mutations, "; ")
		}
		res.Expectations = append(res.Expectations, r)
	}
	if opts.Writes != nil {
		opts.Writes(w.writes)
	}
	res.Passed = out.Reason != sim.StopError && !interrupted
	for _, e := range res.Expectations {
		res.Passed = res.Passed && e.Passed
	}
	res.Events = w.events.slice()
	if opts.invariantViolations != nil {
		opts.invariantViolations(append(w.obs.violations, mutations...))
	}
	if out.Reason == sim.StopError {
		return res, out.Err
	}
	if err := w.k.Trace().Err(); err != nil {
		return res, fmt.Errorf("writing the trace: %w", err)
	}
	return res, nil
}

// timelineRand is the stream node targets with `random:` draw from.
func (w *world) timelineRand() *rand.Rand {
	if w.rand == nil {
		w.rand = w.k.Rand("timeline")
	}
	return w.rand
}
