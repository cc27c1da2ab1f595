package apiserver

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

// newTestServer returns a kernel and a server with the default configuration, changed by edit.
func newTestServer(t testing.TB, edit func(*Config)) (*sim.Kernel, *Server) {
	t.Helper()
	k := sim.New(1)
	cfg := DefaultConfig()
	if edit != nil {
		edit(&cfg)
	}
	return k, NewServer(k, cfg)
}

// result is what one process got from Do, and when.
type result struct {
	at   vtime.Time
	resp Response
}

func TestInflightLimitAnswers429(t *testing.T) {
	k, srv := newTestServer(t, func(c *Config) {
		c.MaxMutatingRequestsInflight = 1
		c.MaxRequestsInflight = 1
	})
	results := make([]result, 4)
	for i := range 3 {
		k.Spawn(fmt.Sprintf("writer-%d", i), func(p *sim.Proc) {
			resp := srv.Do(p, &Request{Client: "writer", Verb: model.VerbCreate, Kind: model.KindPod, Namespace: "default", Object: newPod(fmt.Sprintf("p%d", i))})
			results[i] = result{at: p.Now(), resp: resp}
		})
	}
	// A read takes a slot from the other pool and is not refused.
	k.Spawn("reader", func(p *sim.Proc) {
		resp := srv.Do(p, &Request{Verb: model.VerbList, Kind: model.KindNamespace})
		results[3] = result{at: p.Now(), resp: resp}
	})
	k.Run(sim.Limits{})

	require.NoError(t, results[0].resp.Err)
	assert.Equal(t, vtime.FromDuration(5*time.Millisecond), results[0].at, "the first writer pays the service time")
	for _, r := range results[1:3] {
		require.Error(t, r.resp.Err)
		assert.True(t, apierrors.IsTooManyRequests(r.resp.Err), "%v", r.resp.Err)
		assert.Equal(t, "Too many requests, please try again later.", r.resp.Err.Error())
		delay, ok := apierrors.SuggestsClientDelay(r.resp.Err)
		assert.True(t, ok)
		assert.Equal(t, 1, delay, "Retry-After: 1 as upstream's max-in-flight filter")
		assert.Equal(t, vtime.Time(0), r.at, "a refusal costs no service time")
	}
	require.NoError(t, results[3].resp.Err)
	assert.Len(t, results[3].resp.Items, len(SystemNamespaces))

	st := srv.Stats()
	assert.Equal(t, uint64(2), st.TooManyRequests())
	ro, mut := st.PeakInflight()
	assert.Equal(t, 1, ro)
	assert.Equal(t, 1, mut)
	ro, mut = st.Inflight()
	assert.Equal(t, 0, ro)
	assert.Equal(t, 0, mut)
	assert.Equal(t, 1, srv.Store().Count(model.KindPod))
}

func TestInflightSlotsAreReleasedInOrder(t *testing.T) {
	k, srv := newTestServer(t, func(c *Config) { c.MaxMutatingRequestsInflight = 2 })
	var at []vtime.Time
	var refused int
	for i := range 5 {
		k.Spawn(fmt.Sprintf("w%d", i), func(p *sim.Proc) {
			// Writers that are refused retry after the Retry-After, as a client would.
			for {
				resp := srv.Do(p, &Request{Verb: model.VerbCreate, Kind: model.KindPod, Object: newPod(fmt.Sprintf("p%d", i))})
				if apierrors.IsTooManyRequests(resp.Err) {
					refused++
					p.Sleep(time.Second)
					continue
				}
				require.NoError(t, resp.Err)
				at = append(at, p.Now())
				return
			}
		})
	}
	k.Run(sim.Limits{})
	assert.Equal(t, 5, srv.Store().Count(model.KindPod))
	assert.Equal(t, 3+1, refused, "3 refused at t=0, 1 again at t=1s")
	_, peak := srv.Stats().PeakInflight()
	assert.Equal(t, 2, peak)
	assert.Equal(t, vtime.FromDuration(5*time.Millisecond), at[0])
	assert.Equal(t, vtime.FromDuration(2*time.Second+5*time.Millisecond), at[4])
}

func TestServiceTimeAndListItemCost(t *testing.T) {
	k, srv := newTestServer(t, nil)
	for i := range 10 {
		mustCreate(t, srv.Store(), newPod(fmt.Sprintf("p%d", i)))
	}
	var getAt, listAt vtime.Time
	k.Spawn("client", func(p *sim.Proc) {
		resp := srv.Do(p, &Request{Verb: model.VerbGet, Kind: model.KindPod, Namespace: "default", Name: "p3"})
		require.NoError(t, resp.Err)
		assert.Equal(t, "p3", resp.Object.Meta().Name)
		assert.Equal(t, resp.Object.Meta().ResourceVersion, resp.ResourceVersion)
		getAt = p.Now()
		resp = srv.Do(p, &Request{Verb: model.VerbList, Kind: model.KindPod, Namespace: "default"})
		require.NoError(t, resp.Err)
		assert.Len(t, resp.Items, 10)
		assert.Equal(t, srv.Store().Revision(), resp.ResourceVersion)
		listAt = p.Now()
	})
	k.Run(sim.Limits{})
	assert.Equal(t, vtime.FromDuration(time.Millisecond), getAt)
	assert.Equal(t, vtime.FromDuration(time.Millisecond+5*time.Millisecond+10*DefaultListItemCost), listAt)
	lat := srv.Stats().Latency(model.VerbList)
	assert.Equal(t, uint64(1), lat.Count)
	assert.Equal(t, 5*time.Millisecond+10*DefaultListItemCost, lat.Max)
}

// slowFor is a test fault: extra latency (and optionally an error) for one client.
type slowFor struct {
	client string
	extra  time.Duration
	err    error
	seen   int
}

func (f *slowFor) Intercept(now vtime.Time, req *Request) (time.Duration, error) {
	if req.Client != f.client {
		return 0, nil
	}
	f.seen++
	return f.extra, f.err
}

func TestFaultHooks(t *testing.T) {
	k, srv := newTestServer(t, nil)
	slow := &slowFor{client: "kubelet", extra: 200 * time.Millisecond}
	broken := &slowFor{client: "scheduler", extra: 50 * time.Millisecond, err: apierrors.NewServiceUnavailable("injected")}
	srv.AddFault(slow)
	srv.AddFault(broken)
	var kubeletAt, schedulerAt, otherAt vtime.Time
	var schedulerErr error
	k.Spawn("kubelet", func(p *sim.Proc) {
		resp := srv.Do(p, &Request{Client: "kubelet", Verb: model.VerbCreate, Kind: model.KindPod, Object: newPod("a")})
		require.NoError(t, resp.Err)
		kubeletAt = p.Now()
	})
	k.Spawn("scheduler", func(p *sim.Proc) {
		resp := srv.Do(p, &Request{Client: "scheduler", Verb: model.VerbCreate, Kind: model.KindPod, Object: newPod("b")})
		schedulerErr = resp.Err
		schedulerAt = p.Now()
	})
	k.Spawn("other", func(p *sim.Proc) {
		resp := srv.Do(p, &Request{Client: "other", Verb: model.VerbGet, Kind: model.KindNamespace, Name: "default"})
		require.NoError(t, resp.Err)
		otherAt = p.Now()
	})
	k.Run(sim.Limits{})
	assert.Equal(t, vtime.FromDuration(205*time.Millisecond), kubeletAt, "fault latency, then service time")
	assert.Equal(t, vtime.FromDuration(50*time.Millisecond), schedulerAt)
	assert.True(t, apierrors.IsServiceUnavailable(schedulerErr), "%v", schedulerErr)
	assert.Equal(t, vtime.FromDuration(time.Millisecond), otherAt)
	_, err := srv.Store().Get(model.KindPod, "default", "b")
	assert.True(t, apierrors.IsNotFound(err), "a failed request never reaches the store")

	srv.RemoveFault(broken)
	srv.RemoveFault(broken)
	var after Response
	k.Spawn("scheduler-again", func(p *sim.Proc) {
		after = srv.Do(p, &Request{Client: "scheduler", Verb: model.VerbCreate, Kind: model.KindPod, Object: newPod("b")})
	})
	k.Run(sim.Limits{})
	require.NoError(t, after.Err)
	assert.Equal(t, 1, broken.seen)

	// Watches go through the hooks too.
	var watchErr error
	srv.AddFault(&slowFor{client: "informer", err: errors.New("connection refused")})
	k.Spawn("informer", func(p *sim.Proc) {
		_, watchErr = srv.Watch(p, "informer", model.KindPod, model.ListOptions{}, 0, &recorder{k: k})
	})
	k.Run(sim.Limits{})
	assert.EqualError(t, watchErr, "connection refused")
}

func TestServerWatchAndStats(t *testing.T) {
	k, srv := newTestServer(t, nil)
	rec := &recorder{k: k}
	k.Spawn("informer", func(p *sim.Proc) {
		w, err := srv.Watch(p, "informer", model.KindPod, model.ListOptions{}, 0, rec)
		require.NoError(t, err)
		assert.Equal(t, "informer", w.Client())
		assert.Equal(t, model.KindPod, w.Kind())
	})
	k.Spawn("writer", func(p *sim.Proc) {
		p.Sleep(10 * time.Millisecond)
		resp := srv.Do(p, &Request{Client: "rs-controller", Verb: model.VerbCreate, Kind: model.KindPod, Object: newPod("a")})
		require.NoError(t, resp.Err)
		stale := copyOf(resp.Object.(*model.Pod))
		upd := copyOf(stale)
		upd.Labels = map[string]string{"v": "1"}
		require.NoError(t, srv.Do(p, &Request{Verb: model.VerbUpdate, Kind: model.KindPod, Namespace: "default", Name: "a", Object: upd}).Err)
		stale.Labels = map[string]string{"v": "2"}
		conflict := srv.Do(p, &Request{Verb: model.VerbUpdate, Kind: model.KindPod, Namespace: "default", Name: "a", Object: stale})
		assert.True(t, apierrors.IsConflict(conflict.Err), "%v", conflict.Err)
		patched := srv.Do(p, &Request{Verb: model.VerbPatch, Subresource: "status", Kind: model.KindPod, Namespace: "default", Name: "a", Patch: []byte(`{"status":{"phase":"Running"}}`)})
		require.NoError(t, patched.Err)
		assert.Equal(t, model.PodRunning, patched.Object.(*model.Pod).Status.Phase)
		del := srv.Do(p, &Request{Verb: model.VerbDelete, Kind: model.KindPod, Namespace: "default", Name: "a"})
		require.NoError(t, del.Err)
	})
	k.Run(sim.Limits{MaxTime: vtime.FromDuration(time.Second)})
	assert.Equal(t, []string{"ADDED default/a@5", "MODIFIED default/a@6", "MODIFIED default/a@7", "MODIFIED default/a@8", "DELETED default/a@9"}, summary(rec.nonBookmarks()))

	st := srv.Stats()
	assert.Equal(t, []RequestCount{
		{Verb: model.VerbWatch, Resource: "pods", Total: 1},
		{Verb: model.VerbCreate, Resource: "pods", Total: 1},
		{Verb: model.VerbUpdate, Resource: "pods", Total: 2, Errors: 1, Conflicts: 1},
		{Verb: model.VerbPatch, Resource: "pods", Total: 1},
		{Verb: model.VerbDelete, Resource: "pods", Total: 1},
	}, st.Requests())
	assert.Equal(t, uint64(6), st.TotalRequests())
	assert.Equal(t, uint64(1), st.Conflicts())
	assert.Equal(t, uint64(1), st.Errors())
	lat := st.Latency(model.VerbUpdate)
	assert.Equal(t, uint64(2), lat.Count)
	assert.Equal(t, 5*time.Millisecond, lat.Mean())
	assert.Equal(t, uint64(2), lat.Counts[0], "both in the 5ms bucket")
	assert.InDelta(t, float64(5*time.Millisecond), float64(lat.Quantile(0.99)), float64(100*time.Microsecond))
	assert.Equal(t, uint64(1), st.Watch().Opened)
	assert.Equal(t, uint64(5), st.Watch().Delivered)
}

func TestDoRejectsMalformedRequests(t *testing.T) {
	k, srv := newTestServer(t, nil)
	pod := mustCreate(t, srv.Store(), newPod("a"))
	tests := []struct {
		name  string
		req   *Request
		check func(error) bool
		msg   string
	}{
		{"watch through Do", &Request{Verb: model.VerbWatch, Kind: model.KindPod}, apierrors.IsBadRequest, "watches use Server.Watch"},
		{"unknown verb", &Request{Verb: "explode", Kind: model.KindPod}, apierrors.IsBadRequest, "unsupported verb"},
		{"create without object", &Request{Verb: model.VerbCreate, Kind: model.KindPod}, apierrors.IsBadRequest, "create needs an object"},
		{"namespace mismatch", &Request{Verb: model.VerbCreate, Kind: model.KindPod, Namespace: "kube-system", Object: newPod("b")}, apierrors.IsBadRequest, "does not match the namespace"},
		{"name mismatch", &Request{Verb: model.VerbUpdate, Kind: model.KindPod, Namespace: "default", Name: "zzz", Object: copyOf(pod)}, apierrors.IsBadRequest, "does not match the name on the URL"},
		{"kind mismatch", &Request{Verb: model.VerbCreate, Kind: model.KindNode, Object: newPod("c")}, apierrors.IsBadRequest, "does not match the request's kind"},
		{"unknown subresource", &Request{Verb: model.VerbGet, Kind: model.KindPod, Subresource: "exec", Namespace: "default", Name: "a"}, apierrors.IsNotFound, "could not find the requested resource"},
		{"delete status", &Request{Verb: model.VerbDelete, Kind: model.KindPod, Subresource: "status", Namespace: "default", Name: "a"}, apierrors.IsMethodNotSupported, "not supported"},
		{"status of a lease", &Request{Verb: model.VerbGet, Kind: model.KindLease, Subresource: "status", Namespace: "kube-node-lease", Name: "x"}, apierrors.IsNotFound, "could not find the requested resource"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var resp Response
			k.Spawn("client", func(p *sim.Proc) { resp = srv.Do(p, tc.req) })
			k.Run(sim.Limits{})
			require.Error(t, resp.Err)
			assert.True(t, tc.check(resp.Err), "%v", resp.Err)
			assert.Contains(t, resp.Err.Error(), tc.msg)
		})
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Config)
		msg  string
	}{
		{"defaults are valid", func(*Config) {}, ""},
		{"unknown verb", func(c *Config) { c.ServiceTime["zap"] = sim.Constant(time.Millisecond) }, `unknown verb "zap"`},
		{"bad distribution", func(c *Config) { c.ServiceTime[model.VerbGet] = sim.Dist{Kind: "weird"} }, "service time for get"},
		{"negative list cost", func(c *Config) { c.ListItemCost = -1 }, "list item cost"},
		{"history bounds", func(c *Config) { c.Store.HistoryLowerBound, c.Store.HistoryUpperBound = 10, 5 }, "lower bound 10 is above the upper bound 5"},
		{"negative toleration", func(c *Config) { c.Store.DefaultUnreachableTolerationSeconds = model.Ptr(int64(-1)) }, "default-unreachable-toleration-seconds"},
		{"watch delay", func(c *Config) { c.Store.WatchDelay = sim.Dist{Kind: sim.DistUniform} }, "watch delay"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tc.edit(&cfg)
			err := cfg.Validate()
			if tc.msg == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.msg)
			assert.PanicsWithValue(t, "apiserver: invalid configuration: "+err.Error(), func() { NewServer(sim.New(1), cfg) })
		})
	}
	// A zero store configuration means the upstream defaults where zero is meaningless.
	s := NewStore(sim.New(1), StoreConfig{})
	_, capacity := s.HistorySize(model.KindPod)
	assert.Equal(t, DefaultHistoryLowerBound, capacity)
	assert.Equal(t, uint64(0), s.Revision(), "no system namespaces unless configured")
}

func TestLatencyHistogramQuantiles(t *testing.T) {
	h := newLatencyHistogram()
	assert.Equal(t, time.Duration(0), h.Quantile(0.99))
	assert.Equal(t, time.Duration(0), h.Mean())
	for range 90 {
		h.observe(3 * time.Millisecond) // bucket (0, 5ms]
	}
	for range 9 {
		h.observe(300 * time.Millisecond) // bucket (200ms, 400ms]
	}
	h.observe(2 * time.Minute) // above every bound
	assert.Equal(t, uint64(100), h.Count)
	assert.Equal(t, uint64(90), h.Counts[0])
	assert.Equal(t, uint64(1), h.Counts[len(h.Counts)-1])
	assert.Equal(t, 2500*time.Microsecond, h.Quantile(0.45), "linear inside the first bucket")
	p95 := h.Quantile(0.95)
	assert.Greater(t, p95, 200*time.Millisecond)
	assert.LessOrEqual(t, p95, 400*time.Millisecond)
	assert.Equal(t, 2*time.Minute, h.Quantile(1), "the overflow bucket answers with the maximum")
	assert.Equal(t, 2*time.Minute, h.Max)
	c := h.clone()
	c.observe(time.Millisecond)
	assert.Equal(t, uint64(100), h.Count, "a clone is independent")
}
