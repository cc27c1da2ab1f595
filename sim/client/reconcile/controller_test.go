package reconcile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client/workqueue"
	"github.com/reconsim/reconsim/vtime"
)

// scripted is a Reconciler whose outcomes per key are given by the test, one line per call:
// "[took=<duration>] ok|error|terminal|requeue|after=<duration>|panic". A key with no lines left is ok.
type scripted struct {
	outcomes map[string][]string
	running  map[string]bool
	t        testing.TB
}

func (s *scripted) Reconcile(ctx context.Context, req Request) (Result, error) {
	key := req.String()
	if s.running[key] {
		s.t.Errorf("%s reconciled by two workers at once", key)
	}
	s.running[key] = true
	defer delete(s.running, key)
	line := "ok"
	if rest := s.outcomes[key]; len(rest) > 0 {
		line, s.outcomes[key] = rest[0], rest[1:]
	}
	var result Result
	var err error
	for _, field := range strings.Fields(line) {
		name, value, _ := strings.Cut(field, "=")
		switch name {
		case "took":
			sim.ProcFromContext(ctx).Sleep(mustDuration(s.t, value))
		case "ok":
		case "error":
			err = errors.New("boom")
		case "terminal":
			err = TerminalError(errors.New("bad spec"))
		case "requeue":
			result.Requeue = true
		case "after":
			result.RequeueAfter = mustDuration(s.t, value)
		case "panic":
			panic("reconcile exploded")
		default:
			s.t.Fatalf("unknown outcome %q", field)
		}
	}
	return result, err
}

func mustDuration(t testing.TB, s string) time.Duration {
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Fatalf("bad duration %q: %v", s, err)
	}
	return d
}

func splitKey(key string) Request {
	if ns, name, ok := strings.Cut(key, "/"); ok {
		return Request{Namespace: ns, Name: name}
	}
	return Request{Name: key}
}

// TestControllerScript runs the scripts in testdata: behaviour over time of the work queue and
// the worker loop, printed as the kernel trace.
func TestControllerScript(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var (
			k     *sim.Kernel
			trace bytes.Buffer
			rec   *scripted
			c     *Controller
		)
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "new":
				workers := 1
				d.MaybeScanArgs(t, "workers", &workers)
				k = sim.New(1)
				trace.Reset()
				k.Trace().SetWriter(&trace)
				rec = &scripted{outcomes: map[string][]string{}, running: map[string]bool{}, t: t}
				c = New("ctl", workers, rec, nil)
				c.Start(k)
				return ""
			case "outcomes":
				var key string
				d.ScanArgs(t, "key", &key)
				rec.outcomes[key] = append(rec.outcomes[key], strings.Split(strings.TrimSpace(d.Input), "\n")...)
				return ""
			case "add":
				var key, after string
				d.ScanArgs(t, "key", &key)
				if d.MaybeScanArgs(t, "after", &after) {
					c.EnqueueAfter(splitKey(key), mustDuration(t, after))
				} else {
					c.Enqueue(splitKey(key))
				}
				return ""
			case "run":
				var forStr string
				d.ScanArgs(t, "for", &forStr)
				until := k.Now().Add(mustDuration(t, forStr))
				// A no-op event at the end moves the clock there even if the world drains first.
				k.Schedule(until, sim.HandlerFunc(func(uint64) {}), 0, false)
				out := k.Run(sim.Limits{MaxTime: until})
				s := trace.String()
				trace.Reset()
				if out.Reason == sim.StopError {
					s += fmt.Sprintf("run stopped: %v\n", out.Err)
				}
				return s + fmt.Sprintf("now %s\n", k.Now())
			case "stop":
				c.Stop()
				return ""
			case "start":
				c.Start(k)
				return ""
			case "stats":
				s := c.Stats()
				return fmt.Sprintf("reconciles=%d errors=%d requeues=%d requeue-afters=%d busy=%s depth=%d waiting=%d adds=%d retries=%d\n",
					s.Reconciles, s.Errors, s.Requeues, s.RequeueAfters, s.ReconcileDurationTotal, s.Queue.Depth, s.Queue.Waiting, s.Queue.Adds, s.Queue.Retries)
			default:
				t.Fatalf("unknown command %q", d.Cmd)
				return ""
			}
		})
	})
}

// TestErrorBacksOffExponentially: a Request that keeps failing is retried after 5ms, 10ms,
// 20ms, ... (the default controller limiter), and a success resets the backoff.
func TestErrorBacksOffExponentially(t *testing.T) {
	k := sim.New(1)
	var at []vtime.Time
	fails := 6
	c := New("backoff", 1, Func(func(ctx context.Context, req Request) (Result, error) {
		at = append(at, k.Now())
		if len(at) <= fails {
			return Result{}, errors.New("not yet")
		}
		return Result{}, nil
	}), nil)
	c.Start(k)
	c.Enqueue(Request{Namespace: "ns", Name: "a"})
	k.Run(sim.Limits{MaxTime: vtime.FromDuration(time.Minute)})
	require.Len(t, at, fails+1)
	for i := 1; i < len(at); i++ {
		assert.Equal(t, 5*time.Millisecond<<(i-1), at[i].Sub(at[i-1]), "gap before attempt %d", i+1)
	}
	assert.Equal(t, 0, c.Queue().NumRequeues(Request{Namespace: "ns", Name: "a"}), "success forgets")
	s := c.Stats()
	assert.Equal(t, uint64(7), s.Reconciles)
	assert.Equal(t, uint64(6), s.Errors)
}

// TestRequeueAfterForgetsBackoff: RequeueAfter resets the backoff and reconciles again after
// exactly the asked delay.
func TestRequeueAfterForgetsBackoff(t *testing.T) {
	k := sim.New(1)
	var at []vtime.Time
	req := Request{Name: "a"}
	c := New("after", 1, Func(func(ctx context.Context, _ Request) (Result, error) {
		at = append(at, k.Now())
		switch len(at) {
		case 1, 2:
			return Result{}, errors.New("fail")
		case 3:
			return Result{RequeueAfter: 30 * time.Second}, nil
		default:
			return Result{}, nil
		}
	}), nil)
	c.Start(k)
	c.Enqueue(req)
	var requeuesAfterThird int
	k.After(time.Second, func() { requeuesAfterThird = c.Queue().NumRequeues(req) })
	k.Run(sim.Limits{MaxTime: vtime.FromDuration(time.Hour)})
	require.Len(t, at, 4)
	assert.Equal(t, 30*time.Second, at[3].Sub(at[2]))
	assert.Equal(t, 0, requeuesAfterThird)
}

// TestPanicInReconcileEndsRun: a panic is not swallowed; the run ends with an error naming
// the worker process.
func TestPanicInReconcileEndsRun(t *testing.T) {
	k := sim.New(42)
	c := New("boom", 2, Func(func(ctx context.Context, _ Request) (Result, error) {
		sim.ProcFromContext(ctx).Sleep(time.Second)
		panic("bad state")
	}), nil)
	c.Start(k)
	c.Enqueue(Request{Name: "x"})
	out := k.Run(sim.Limits{MaxTime: vtime.FromDuration(time.Hour)})
	require.Equal(t, sim.StopError, out.Reason)
	var pp *sim.ProcPanic
	require.ErrorAs(t, out.Err, &pp)
	assert.Equal(t, "boom-worker-0", pp.Proc)
	assert.Equal(t, vtime.FromDuration(time.Second), pp.At)
	assert.Equal(t, uint64(42), pp.Seed)
	assert.Equal(t, "bad state", pp.Value)
}

// TestStopKillsWorkersAndRestart: Stop abandons a reconcile in progress and drops the queue;
// Start runs the controller again with a fresh queue.
func TestStopKillsWorkersAndRestart(t *testing.T) {
	k := sim.New(1)
	var finished []string
	c := New("restart", 2, Func(func(ctx context.Context, req Request) (Result, error) {
		sim.ProcFromContext(ctx).Sleep(10 * time.Second)
		finished = append(finished, fmt.Sprintf("%s@%s", req, k.Now()))
		return Result{}, nil
	}), workqueue.DefaultControllerRateLimiter[Request]())
	c.Start(k)
	c.Enqueue(Request{Name: "a"})
	k.After(5*time.Second, func() {
		c.Stop()
		require.False(t, c.Running())
		c.Enqueue(Request{Name: "dropped"})
	})
	k.After(20*time.Second, func() {
		c.Start(k)
		c.Enqueue(Request{Name: "b"})
	})
	out := k.Run(sim.Limits{MaxTime: vtime.FromDuration(time.Hour)})
	require.Equal(t, sim.StopDrained, out.Reason, "parked workers are not pending work")
	assert.Equal(t, []string{"b@t=30.000s"}, finished)
	assert.Equal(t, 0, k.Holds(), "killed workers must leave no pending work")
}

// TestRequestString covers the key format.
func TestRequestString(t *testing.T) {
	assert.Equal(t, "ns/a", Request{Namespace: "ns", Name: "a"}.String())
	assert.Equal(t, "node-1", Request{Name: "node-1"}.String())
	assert.True(t, Result{}.IsZero())
	assert.False(t, Result{Requeue: true}.IsZero())
}
