package client

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client/workqueue"
)

// loopWorld is a SyncLoop over a pod informer whose sync takes one second and fails for the
// keys in fail, as many times as fail says.
type loopWorld struct {
	k      *sim.Kernel
	inf    *Informer
	queue  *workqueue.RateLimiting[string]
	loop   *SyncLoop
	trace  bytes.Buffer
	fail   map[string]int
	synced []string
}

func newLoopWorld(t *testing.T) *loopWorld {
	t.Helper()
	w := &loopWorld{k: sim.New(1), fail: map[string]int{}}
	w.k.Trace().SetWriter(&w.trace)
	c := New(instantServer(w.k, nil), "test", Config{QPS: -1})
	w.inf = NewInformer(c, model.KindPod, model.ListOptions{}, 0)
	w.queue = workqueue.NewRateLimiting[string](w.k, "test", workqueue.DefaultControllerRateLimiter[string]())
	w.loop = NewSyncLoop(w.k, "test-controller", "Pod", w.queue, func(ctx context.Context, key string) error {
		sim.ProcFromContext(ctx).Sleep(time.Second)
		w.synced = append(w.synced, key)
		if w.fail[key] > 0 {
			w.fail[key]--
			return errors.New("boom")
		}
		return nil
	})
	return w
}

// lines returns the trace lines of the loop's component, without their time.
func (w *loopWorld) lines() []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSuffix(w.trace.String(), "\n"), "\n") {
		if _, rest, ok := strings.Cut(l, " "); ok && strings.HasPrefix(rest, "test-controller ") {
			out = append(out, rest)
		}
	}
	return out
}

func (w *loopWorld) run(t *testing.T, d time.Duration) {
	t.Helper()
	out := w.k.Run(sim.Limits{MaxTime: w.k.Now().Add(d)})
	require.NotEqual(t, sim.StopError, out.Reason, "%v", out.Err)
}

// TestSyncLoopSuccessForgetsErrorRequeues: the main process waits for the informer, starts the
// workers in order, a successful sync forgets the key, and a failed one emits sync-error and
// comes back after the rate limiter's backoff, which grows per failure.
func TestSyncLoopSuccessForgetsErrorRequeues(t *testing.T) {
	w := newLoopWorld(t)
	w.fail["default/b"] = 2
	w.inf.Run(w.k)
	w.loop.Start(2, w.inf)
	w.queue.Add("default/a")
	w.queue.Add("default/b")
	w.run(t, time.Minute)

	main, workers := w.loop.Procs()
	require.NotNil(t, main)
	assert.Equal(t, "test-controller", main.Name())
	require.Len(t, workers, 2)
	assert.Equal(t, "test-controller/worker-0", workers[0].Name())
	assert.Equal(t, "test-controller/worker-1", workers[1].Name())
	assert.Equal(t, []string{
		"test-controller started  workers=2",
		"test-controller sync-error Pod default/b boom",
		"test-controller sync-error Pod default/b boom",
	}, w.lines())
	assert.Equal(t, []string{"default/a", "default/b", "default/b", "default/b"}, w.synced)
	assert.Equal(t, 0, w.queue.NumRequeues("default/a"))
	assert.Equal(t, 0, w.queue.NumRequeues("default/b"), "the final success forgets the backoff")

	s := w.loop.Stats()
	assert.Equal(t, uint64(4), s.Syncs)
	assert.Equal(t, uint64(2), s.SyncErrors)
	assert.Equal(t, 4*time.Second, s.SyncDurationTotal)
	assert.Equal(t, 0, s.Queue.Depth)
}

// TestSyncLoopHandleErrorReplacesTheRetry: a HandleError sees every failure, already counted,
// and the default sync-error line and requeue do not happen.
func TestSyncLoopHandleErrorReplacesTheRetry(t *testing.T) {
	w := newLoopWorld(t)
	w.fail["default/a"] = 5
	var handled []string
	w.loop.HandleError = func(key string, err error) {
		handled = append(handled, key+": "+err.Error())
		w.queue.Forget(key)
	}
	w.loop.Start(1)
	w.queue.Add("default/a")
	w.run(t, time.Minute)
	assert.Equal(t, []string{"default/a: boom"}, handled)
	assert.Equal(t, []string{"test-controller started  workers=1"}, w.lines())
	assert.Equal(t, uint64(1), w.loop.Stats().SyncErrors)
}

// TestSyncLoopSyncIsTheSeam: a test that wraps Sync after the loop is built (upstream's
// syncHandler seam) sees every key the workers sync, and what it returns is what the loop
// counts.
func TestSyncLoopSyncIsTheSeam(t *testing.T) {
	w := newLoopWorld(t)
	var seen []string
	inner := w.loop.Sync
	w.loop.Sync = func(ctx context.Context, key string) error {
		seen = append(seen, key)
		if key == "default/b" {
			return errors.New("wrapped")
		}
		return inner(ctx, key)
	}
	w.loop.HandleError = func(key string, _ error) { w.queue.Forget(key) } // no retry
	w.loop.Start(1)
	w.queue.Add("default/a")
	w.queue.Add("default/b")
	w.run(t, 1500*time.Millisecond)
	assert.Equal(t, []string{"default/a", "default/b"}, seen)
	assert.Equal(t, []string{"default/a"}, w.synced, "the wrapper decides whether the inner sync runs")
	assert.Equal(t, uint64(2), w.loop.Stats().Syncs)
	assert.Equal(t, uint64(1), w.loop.Stats().SyncErrors)
}

// TestSyncLoopStopEndsWorkers: Stop shuts the queue down and kills every process, a sync in
// progress is abandoned, later keys are not synced, and Start after Stop does nothing.
func TestSyncLoopStopEndsWorkers(t *testing.T) {
	w := newLoopWorld(t)
	w.loop.Start(1)
	w.queue.Add("default/a")
	w.k.After(500*time.Millisecond, w.loop.Stop)
	w.run(t, time.Minute)
	main, workers := w.loop.Procs()
	assert.True(t, main.Finished())
	require.Len(t, workers, 1)
	assert.True(t, workers[0].Finished())
	assert.True(t, w.loop.Stopped())
	assert.Empty(t, w.synced, "the sync in progress was abandoned")
	assert.Zero(t, w.loop.Stats().Syncs)
	assert.True(t, w.queue.ShuttingDown())

	w.loop.Start(1)
	w.loop.Stop()
	again, _ := w.loop.Procs()
	assert.Same(t, main, again, "Start after Stop does nothing")
}

// TestSyncLoopStopBeforeSync: stopped while its informer has not synced, the loop never emits
// started nor spawns a worker.
func TestSyncLoopStopBeforeSync(t *testing.T) {
	w := newLoopWorld(t)
	w.loop.Start(3, w.inf) // the informer is never run, so it never syncs
	w.queue.Add("default/a")
	w.k.After(time.Second, w.loop.Stop)
	w.run(t, time.Minute)
	main, workers := w.loop.Procs()
	assert.True(t, main.Finished())
	assert.Empty(t, workers)
	assert.Empty(t, w.lines())
	assert.Empty(t, w.synced)
}

// TestSyncLoopStartAfterStop: a loop stopped before it was started never starts.
func TestSyncLoopStartAfterStop(t *testing.T) {
	w := newLoopWorld(t)
	w.loop.Stop()
	w.loop.Start(1)
	w.queue.Add("default/a")
	w.run(t, time.Minute)
	main, workers := w.loop.Procs()
	assert.Nil(t, main)
	assert.Empty(t, workers)
	assert.Empty(t, w.lines())
	assert.Empty(t, w.synced)
}

// TestSyncLoopStartFunc: a controller with its own processes gets the started line with its
// detail, and its processes are killed by Stop in spawn order after the main process.
func TestSyncLoopStartFunc(t *testing.T) {
	w := newLoopWorld(t)
	var order []string
	w.loop.StartFunc(nil, "", func() {
		w.loop.Spawn("test-controller/worker", w.loop.Worker)
		w.loop.Spawn("test-controller/other", func(p *sim.Proc) {
			defer func() { order = append(order, "other") }()
			p.Park()
		})
	})
	w.queue.Add("default/a")
	w.k.After(2*time.Second, w.loop.Stop)
	w.run(t, time.Minute)
	assert.Equal(t, []string{"test-controller started "}, w.lines())
	assert.Equal(t, []string{"default/a"}, w.synced)
	assert.Equal(t, []string{"other"}, order)
	_, workers := w.loop.Procs()
	require.Len(t, workers, 2)
	assert.Equal(t, "test-controller/worker", workers[0].Name())
	assert.True(t, workers[0].Finished())
	assert.True(t, workers[1].Finished())
}
