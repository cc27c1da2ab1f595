package leaderelection

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/internal/testworld"
	"github.com/reconsim/reconsim/vtime"
)

// world is the shared test world with N candidates for the Lease kube-system/test.
type world struct {
	*testworld.World
	cands []*cand
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
	w := &world{World: testworld.New(t, testworld.Options{Seed: seed})}
	w.Show = testworld.Sources("leaderelection", "test")
	for i := 0; i < n; i++ {
		cfg := Config{Namespace: "kube-system", Name: "test", Identity: fmt.Sprintf("cand-%d", i),
			LeaseDuration: DefaultLeaseDuration, RenewDeadline: DefaultRenewDeadline, RetryPeriod: DefaultRetryPeriod,
			ReleaseOnCancel: release}
		c := client.New(w.Server, "leader-election/"+cfg.Identity, client.Config{QPS: -1})
		cd := &cand{}
		e, err := New(w.K, c, w.Recorder("test"), cfg, Callbacks{
			OnStartedLeading: func() { cd.started = append(cd.started, w.K.Now()) },
			OnStoppedLeading: func() { cd.stopped = true },
		}, w.K.Rand("leader-election/"+cfg.Identity))
		require.NoError(t, err)
		cd.e = e
		cd.p = w.K.Spawn("candidate/"+cfg.Identity, e.Run)
		w.cands = append(w.cands, cd)
	}
	return w
}

func (w *world) newTrace() string { return w.NewTrace(func(f []string) bool { return w.Show(nil, f) }) }

func (w *world) crash(i int) {
	w.cands[i].p.Kill()
	w.cands[i].crashed = true
	w.Emit("crash", w.cands[i].e.Identity(), "")
}

func (w *world) partition(i int) {
	f := &cutFault{client: "leader-election/" + w.cands[i].e.Identity(), timeout: DefaultRetryPeriod}
	w.cands[i].fault = f
	w.Server.AddFault(f)
	w.Emit("partition", w.cands[i].e.Identity(), "")
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
	testworld.Walk(t, "testdata", func(t *testing.T, d *datadriven.TestData) (*world, string) {
		n, seed, release := 2, uint64(1), false
		d.ScanArgs(t, "candidates", &n)
		d.MaybeScanArgs(t, "seed", &seed)
		d.MaybeScanArgs(t, "release", &release)
		return newWorld(t, seed, n, release), ""
	}, func(t *testing.T, w *world) testworld.Commands {
		leaderArg := func(d *datadriven.TestData) int {
			i := w.leaderIndex()
			d.MaybeScanArgs(t, "i", &i)
			require.GreaterOrEqual(t, i, 0, "no leader")
			return i
		}
		return testworld.Commands{
			"crash": func(d *datadriven.TestData) string {
				w.crash(leaderArg(d))
				return w.newTrace()
			},
			"partition": func(d *datadriven.TestData) string {
				w.partition(leaderArg(d))
				return w.newTrace()
			},
			"cancel": func(d *datadriven.TestData) string {
				i := leaderArg(d)
				w.Emit("cancel", w.cands[i].e.Identity(), "")
				w.cands[i].e.Cancel()
				return w.newTrace()
			},
			"lease": func(*datadriven.TestData) string {
				l := testworld.Get[*model.Lease](w.World, model.KindLease, "kube-system", "test")
				return fmt.Sprintf("holder=%q duration=%d acquired=%s renewed=%s transitions=%d\n", l.Spec.HolderIdentity,
					deref(l.Spec.LeaseDurationSeconds), deref(l.Spec.AcquireTime), deref(l.Spec.RenewTime), deref(l.Spec.LeaseTransitions))
			},
		}
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
				w.Run(30 * time.Second)
				old := w.leaderIndex()
				require.GreaterOrEqual(t, old, 0)
				at := w.K.Now()
				tc.act(w, old)
				w.Run(60 * time.Second)
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
		w.Run(30 * time.Second)
		old := w.leaderIndex()
		at := w.K.Now()
		w.partition(old)
		for step := 0; step < 600; step++ {
			w.Run(100 * time.Millisecond)
			leaders := 0
			for _, c := range w.cands {
				if c.e.IsLeading() {
					leaders++
				}
			}
			require.LessOrEqual(t, leaders, 1, "seed %d at %s: two leaders", seed, w.K.Now())
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
