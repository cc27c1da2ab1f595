package cluster

import (
	"io"

	"github.com/reconsim/reconsim/scenarios"
	"github.com/reconsim/reconsim/vtime"
)

// Options are the caller's choices for one run. Cancelling the context given to Run stops the
// run at the next check (every few thousand events); the result then has StopReason
// "interrupted" and holds what was recorded so far.
type Options struct {
	// Seed is the run's seed when SeedSet is true; otherwise the scenario's seed is used.
	Seed    uint64
	SeedSet bool
	// Trace, when non-nil, receives the trace as it is produced (sim run --trace).
	Trace io.Writer
	// Overrides are the --set overrides already applied to the scenario; they are recorded in
	// the result so that it names how to reproduce the run.
	Overrides []scenarios.Override
	// Controllers are the caller's own controllers, run in kube-controller-manager beside the
	// built-in ones (a test seam: `sim explore`'s tests plant a buggy controller this way).
	Controllers []Controller
	// Writes, when set, receives at the end of the run how many acknowledged writes each
	// component made (by component name: a controller, kube-controller-manager for all of
	// them, kube-scheduler): `sim explore`'s targeted strategies enumerate these writes.
	Writes func(counts map[string]int)

	// CheckMutations turns on the API server's ownership check (apiserver.StoreConfig
	// CheckMutations): every stored object is shared with its readers and immutable, and a run
	// in which a component modified one fails with the invariant stored-objects-unmodified,
	// naming the object and the first changed field. A test mode (it doubles the store's
	// allocations), on for every run of this package's tests and of the built-in scenarios in
	// `make test`, the way client-go's KUBE_CACHE_MUTATION_DETECTOR is on in upstream's e2e.
	CheckMutations bool

	// invariantViolations, when set, receives the world's invariant violations at the end of
	// the run (this package's tests fail a test whose run broke one; see checkedRun).
	invariantViolations func([]string)
	// built, when set, is called once the world is built, its objects created and its
	// components started, just before the kernel runs its first event, with the events
	// processed so far: the benchmarks time the run without the build.
	built func(eventsProcessed uint64)
	// warmed, when set, is called at virtual time warmAt, with the events processed by then
	// (that of the call's own kernel event included): BenchmarkIdleThunderingHerdCluster
	// times the steady state from there, past the informers' first lists and the components'
	// first syncs. The call is one kernel event that is not pending work and writes no trace.
	warmed func(eventsProcessed uint64)
	warmAt vtime.Time

	// simulated, when set, is called once the simulation has stopped, while the whole world
	// is still reachable (BenchmarkScale5kHeap measures the live heap there).
	simulated func()
}
