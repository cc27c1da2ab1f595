package leaderelection

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/record"
	"github.com/reconsim/reconsim/vtime"
)

// world is a kernel, an API server and N candidates for the Lease kube-system/test.
type world struct {
	t       testing.TB
	k       *sim.Kernel
	srv     *apiserver.Server
	trace   bytes.Buffer
	printed int
	cands   []*cand
	sink    record.FakeSink
}

type cand struct {
	e       *Elector
	p       *sim.Proc
	started []vtime.Time // when each term started
	stopped bool
	crashed bool
	fault   *cutFault
}

// cutFault is a network partition of one client: every request fails after timeout.
type cutFault struct {
	client  string
	timeout time.Duration
}

func (f *cutFault) Intercept(_ vtime.Time, req *apiserver.Request) (time.Duration, error) {
	if req.Client != f.client {
		return 0, nil
	}
	return f.timeout, errors.New("unreachable")
}

func newWorld(t testing.TB, seed uint64, n int, release bool) *world {
	w := &world{t: t, k: sim.New(seed)}
	w.k.Trace().SetWriter(&w.trace)
	w.srv = apiserver.NewServer(w.k, apiserver.DefaultConfig())
	for i := 0; i < n; i++ {
		cfg := Config{Namespace: "kube-system", Name: "test", Identity: fmt.Sprintf("cand-%d", i),
			LeaseDuration: DefaultLeaseDuration, RenewDeadline: DefaultRenewDeadline, RetryPeriod: DefaultRetryPeriod,
			ReleaseOnCancel: release}
		c := client.New(w.srv, "leader-election/"+cfg.Identity, client.Config{QPS: -1})
		cd := &cand{}
		e, err := New(w.k, c, record.New(w.k, &w.sink, "test", ""), cfg, Callbacks{
			OnStartedLeading: func() { cd.started = append(cd.started, w.k.Now()) },
			OnStoppedLeading: func() { cd.stopped = true },
		}, w.k.Rand("leader-election/"+cfg.Identity))
		require.NoError(t, err)
		cd.e = e
		cd.p = w.k.Spawn("candidate/"+cfg.Identity, e.Run)
		w.cands = append(w.cands, cd)
	}
	return w
}

func (w *world) run(d time.Duration) {
	if out := w.k.Run(sim.Limits{MaxTime: w.k.Now().Add(d)}); out.Reason == sim.StopError {
		w.t.Fatalf("run failed: %v", out.Err)
	}
}

func (w *world) newTrace() string {
	all := w.trace.String()[w.printed:]
	w.printed = w.trace.Len()
	var b strings.Builder
	for _, line := range strings.Split(all, "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && (f[1] == "leaderelection" || f[1] == "test") {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

func (w *world) crash(i int) {
	w.cands[i].p.Kill()
	w.cands[i].crashed = true
	w.k.Emit("test", "crash", w.cands[i].e.Identity(), 0, "")
}

func (w *world) partition(i int) {
	f := &cutFault{client: "leader-election/" + w.cands[i].e.Identity(), timeout: DefaultRetryPeriod}
	w.cands[i].fault = f
	w.srv.AddFault(f)
	w.k.Emit("test", "partition", w.cands[i].e.Identity(), 0, "")
}

func (w *world) leaderIndex() int {
	for i, c := range w.cands {
		if c.e.IsLeading() && !c.crashed {
			return i
		}
	}
	return -1
}

// TestTraces runs the datadriven scripts in testdata/ (rewrite with -rewrite). Commands:
//
//	init candidates=N [release=B] [seed=N]   N candidates start at t=0 (ReleaseOnCancel=B)
//	run for=D                                 run D of virtual time; print the election trace
//	crash|partition|cancel [i=N]              candidate N (default: the current leader)
//	lease                                     the Lease as stored
func TestTraces(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var w *world
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "init":
				n, seed, release := 2, uint64(1), false
				d.ScanArgs(t, "candidates", &n)
				d.MaybeScanArgs(t, "seed", &seed)
				d.MaybeScanArgs(t, "release", &release)
				w = newWorld(t, seed, n, release)
				return ""
			case "run":
				var s string
				d.ScanArgs(t, "for", &s)
				dur, err := time.ParseDuration(s)
				require.NoError(t, err)
				w.run(dur)
				return w.newTrace()
			case "crash", "partition", "cancel":
				i := w.leaderIndex()
				d.MaybeScanArgs(t, "i", &i)
				require.GreaterOrEqual(t, i, 0, "no leader")
				switch d.Cmd {
				case "crash":
					w.crash(i)
				case "partition":
					w.partition(i)
				default:
					w.k.Emit("test", "cancel", w.cands[i].e.Identity(), 0, "")
					w.cands[i].e.Cancel()
				}
				return w.newTrace()
			case "lease":
				obj, err := w.srv.Store().Get(model.KindLease, "kube-system", "test")
				require.NoError(t, err)
				l := obj.(*model.Lease)
				return fmt.Sprintf("holder=%q duration=%d acquired=%s renewed=%s transitions=%d\n", l.Spec.HolderIdentity,
					deref(l.Spec.LeaseDurationSeconds), deref(l.Spec.AcquireTime), deref(l.Spec.RenewTime), deref(l.Spec.LeaseTransitions))
			}
			t.Fatalf("unknown command %s", d.Cmd)
			return ""
		})
	})
}

// TestFailoverBounds checks the failover window of LeaderElector.acquire/tryAcquireOrRenew
// (client-go tools/leaderelection/leaderelection.go) over many seeds: after the leader
// crashes at T, a standby leads at a time in [T + LeaseDuration - RetryPeriod,
// T + LeaseDuration + 2*RetryPeriod*(1+JitterFactor)]: the leader last renewed at most one
// RetryPeriod before T; the standby saw that renewal at most one jittered retry later and
// takes over at its first attempt after that observation plus LeaseDuration, itself at most
// one jittered retry late. With ReleaseOnCancel a cancelled leader's successor leads within
// one jittered retry (RetryPeriod*(1+JitterFactor)); without it, as after a crash.
func TestFailoverBounds(t *testing.T) {
	const seeds = 200
	maxJit := time.Duration(float64(DefaultRetryPeriod) * (1 + JitterFactor))
	slack := 100 * time.Millisecond // API round trips (service times of a few ms each)
	cases := []struct {
		name    string
		release bool
		act     func(w *world, i int)
		lo, hi  time.Duration
	}{
		{"crash", false, func(w *world, i int) { w.crash(i) }, DefaultLeaseDuration - DefaultRetryPeriod, DefaultLeaseDuration + 2*maxJit},
		{"cancel without release", false, func(w *world, i int) { w.cands[i].e.Cancel() }, DefaultLeaseDuration - DefaultRetryPeriod, DefaultLeaseDuration + 2*maxJit},
		{"cancel with release", true, func(w *world, i int) { w.cands[i].e.Cancel() }, 0, maxJit},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var lo, hi, sum time.Duration
			for seed := uint64(1); seed <= seeds; seed++ {
				w := newWorld(t, seed, 3, tc.release)
				w.run(30 * time.Second)
				old := w.leaderIndex()
				require.GreaterOrEqual(t, old, 0)
				at := w.k.Now()
				tc.act(w, old)
				w.run(60 * time.Second)
				next := w.leaderIndex()
				require.GreaterOrEqual(t, next, 0, "seed %d: no new leader", seed)
				require.NotEqual(t, old, next)
				gap := w.cands[next].started[0].Sub(at)
				require.GreaterOrEqual(t, gap, tc.lo, "seed %d", seed)
				require.LessOrEqual(t, gap, tc.hi+slack, "seed %d", seed)
				if seed == 1 || gap < lo {
					lo = gap
				}
				hi = max(hi, gap)
				sum += gap
			}
			t.Logf("%s: failover over %d seeds: min %s mean %s max %s", tc.name, seeds, lo, sum/seeds, hi)
		})
	}
}

// TestPartitionedLeaderStepsDown checks LeaderElector.renew: a leader cut off from the API
// server gives up at the end of its renewal round (RenewDeadline after the round started),
// before its lease expires for the others (RenewDeadline < LeaseDuration), so two candidates
// never lead at once.
func TestPartitionedLeaderStepsDown(t *testing.T) {
	for seed := uint64(1); seed <= 100; seed++ {
		w := newWorld(t, seed, 2, false)
		w.run(30 * time.Second)
		old := w.leaderIndex()
		at := w.k.Now()
		w.partition(old)
		for step := 0; step < 600; step++ {
			w.run(100 * time.Millisecond)
			leaders := 0
			for _, c := range w.cands {
				if c.e.IsLeading() {
					leaders++
				}
			}
			require.LessOrEqual(t, leaders, 1, "seed %d at %s: two leaders", seed, w.k.Now())
		}
		require.True(t, w.cands[old].stopped, "seed %d: the partitioned leader did not step down", seed)
		next := w.leaderIndex()
		require.Equal(t, 1-old, next, "seed %d", seed)
		require.Greater(t, w.cands[next].started[0].Sub(at), DefaultRenewDeadline-DefaultRetryPeriod)
	}
}

func TestConfigValidate(t *testing.T) {
	ok := Config{Namespace: "kube-system", Name: "x", Identity: "a", LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second}
	require.NoError(t, ok.Validate())
	for name, mut := range map[string]func(*Config){
		"lease not above deadline": func(c *Config) { c.LeaseDuration = c.RenewDeadline },
		"deadline under jittered":  func(c *Config) { c.RenewDeadline = 2400 * time.Millisecond },
		"zero retry":               func(c *Config) { c.RetryPeriod = 0 },
		"no identity":              func(c *Config) { c.Identity = "" },
		"no lock name":             func(c *Config) { c.Name = "" },
	} {
		c := ok
		mut(&c)
		require.Error(t, c.Validate(), name)
	}
}
