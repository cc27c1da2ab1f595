package apiserver

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

// testUsers maps the test clients to identities: kubelet/<n> is a node, sa/<ns>/<name> a
// service account, kcm and scheduler the control plane's users, admin a system:masters
// member, anything else a plain authenticated user.
func testUsers(client string) UserInfo {
	switch {
	case strings.HasPrefix(client, "kubelet/"):
		return NodeUser(strings.TrimPrefix(client, "kubelet/"))
	case strings.HasPrefix(client, "sa/"):
		ns, name, _ := strings.Cut(strings.TrimPrefix(client, "sa/"), "/")
		return ServiceAccountUser(ns, name)
	case client == "kcm":
		return UserInfo{Name: UserKubeControllerManager, Groups: []string{GroupAuthenticated}}
	case client == "scheduler":
		return UserInfo{Name: UserKubeScheduler, Groups: []string{GroupAuthenticated}}
	case client == "admin":
		return UserInfo{Name: "admin", Groups: []string{GroupSystemMasters, GroupAuthenticated}}
	}
	return UserInfo{Name: client, Groups: []string{GroupAuthenticated}}
}

// apfWorld is a server with API Priority and Fairness and the outcomes of the requests the
// script sent.
type apfWorld struct {
	k   *sim.Kernel
	srv *Server
	// sent are the requests in send order with their outcomes.
	sent []*sentRequest
}

type sentRequest struct {
	client string
	done   bool
	at     vtime.Time
	err    error
}

// TestAPFTraces runs the datadriven scripts in testdata/apf (regenerate with -rewrite and read
// the diff). Commands:
//
//	server inflight=N mutating=M [service=D] [timeout=D] [objects=K]   a new server; every verb takes D
//	levels                                       the priority levels' limits and state
//	classify client=C verb=V kind=K [ns=N] [sub=S]
//	send client=C n=K [verb=list] [kind=Pod] [ns=default]   K requests at once, each its own process
//	apply                                        create or update the manifests of the input
//	delete kind=K name=N                         delete a cluster-scoped object
//	run for=D                                    advance time; print each client's outcomes
func TestAPFTraces(t *testing.T) {
	datadriven.Walk(t, "testdata/apf", func(t *testing.T, path string) {
		var w *apfWorld
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "server":
				var inflight, mutating, objects int
				service, timeout := "0s", "60s"
				d.ScanArgs(t, "inflight", &inflight)
				d.ScanArgs(t, "mutating", &mutating)
				d.MaybeScanArgs(t, "service", &service)
				d.MaybeScanArgs(t, "timeout", &timeout)
				d.MaybeScanArgs(t, "objects", &objects)
				st, err := time.ParseDuration(service)
				require.NoError(t, err)
				to, err := time.ParseDuration(timeout)
				require.NoError(t, err)
				w = newAPFWorld(t, inflight, mutating, st, to, objects)
				return ""
			case "levels":
				return w.levels()
			case "classify":
				var client, verb, kind, ns, sub string
				d.ScanArgs(t, "client", &client)
				d.ScanArgs(t, "verb", &verb)
				d.ScanArgs(t, "kind", &kind)
				d.MaybeScanArgs(t, "ns", &ns)
				d.MaybeScanArgs(t, "sub", &sub)
				fs, pl := w.srv.APFClassify(&Request{Client: client, Verb: model.Verb(verb), Kind: model.Kind(kind), Namespace: ns, Subresource: sub})
				return fmt.Sprintf("%s -> %s", fs, pl)
			case "send":
				var client string
				n := 1
				verb, kind, ns := "list", "Pod", "default"
				d.ScanArgs(t, "client", &client)
				d.MaybeScanArgs(t, "n", &n)
				d.MaybeScanArgs(t, "verb", &verb)
				d.MaybeScanArgs(t, "kind", &kind)
				d.MaybeScanArgs(t, "ns", &ns)
				for range n {
					w.send(client, model.Verb(verb), model.Kind(kind), ns)
				}
				return ""
			case "apply":
				return w.apply(t, d.Input)
			case "delete":
				var kind, name string
				d.ScanArgs(t, "kind", &kind)
				d.ScanArgs(t, "name", &name)
				_, err := w.srv.Store().Delete(model.Kind(kind), "", name, model.DeleteOptions{})
				require.NoError(t, err)
				return ""
			case "run":
				var dur string
				d.ScanArgs(t, "for", &dur)
				dd, err := time.ParseDuration(dur)
				require.NoError(t, err)
				run(w.k, dd)
				return w.report()
			}
			t.Fatalf("unknown command %q", d.Cmd)
			return ""
		})
	})
}

func newAPFWorld(t testing.TB, inflight, mutating int, service, timeout time.Duration, objects int) *apfWorld {
	k := sim.New(1)
	cfg := DefaultConfig()
	cfg.MaxRequestsInflight, cfg.MaxMutatingRequestsInflight = inflight, mutating
	for v := range cfg.ServiceTime { //detlint:ordered every entry gets the same value
		cfg.ServiceTime[v] = sim.Constant(service)
	}
	cfg.ListItemCost = 0
	cfg.APF = APFConfig{Enabled: true, RequestTimeout: timeout, SizeBasedListCost: true, Users: testUsers}
	require.NoError(t, cfg.Validate())
	srv := NewServer(k, cfg)
	for i := range objects {
		_, err := srv.Store().Create(newPod(fmt.Sprintf("p%d", i)))
		require.NoError(t, err)
	}
	return &apfWorld{k: k, srv: srv}
}

func (w *apfWorld) send(client string, verb model.Verb, kind model.Kind, ns string) {
	s := &sentRequest{client: client}
	w.sent = append(w.sent, s)
	w.k.Spawn(client, func(p *sim.Proc) {
		req := &Request{Client: client, Verb: verb, Kind: kind, Namespace: ns}
		if verb == model.VerbCreate {
			req.Object = newPod(fmt.Sprintf("%s-%d", strings.ReplaceAll(client, "/", "-"), len(w.sent)))
		}
		resp := w.srv.Do(p, req)
		s.done, s.at, s.err = true, w.k.Now(), resp.Err
	})
}

// apply creates each manifest of input in the store, or updates the stored object of its
// name, as kubectl apply would (the config controller sees the writes after the watch delay).
func (w *apfWorld) apply(t *testing.T, input string) string {
	objs, _, err := model.DecodeManifests("input.yaml", []byte(input))
	require.NoError(t, err)
	var b strings.Builder
	for _, obj := range objs {
		m := obj.Meta()
		if cur, err := w.srv.Store().Get(obj.GetKind(), m.Namespace, m.Name); err == nil {
			m.ResourceVersion = cur.Meta().ResourceVersion
			_, err = w.srv.Store().Update(obj)
			require.NoError(t, err)
			fmt.Fprintf(&b, "updated %s %s\n", obj.GetKind(), m.Name)
			continue
		}
		_, err := w.srv.Store().Create(obj)
		require.NoError(t, err)
		fmt.Fprintf(&b, "created %s %s\n", obj.GetKind(), m.Name)
	}
	return b.String()
}

func (w *apfWorld) levels() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-16s %7s %5s %5s %7s %8s %5s %9s\n", "level", "nominal", "min", "max", "current", "inqueue", "seats", "rejected")
	for _, l := range w.srv.APFLevels() {
		fmt.Fprintf(&b, "%-16s %7d %5d %5d %7d %8d %5d %9d\n", l.Name, l.NominalCL, l.MinCL, l.MaxCL, l.CurrentCL, l.InQueue, l.ExecutingSeats, l.Rejected())
	}
	return b.String()
}

// report prints, per client in order of first send: served (with the first and last
// completion), 429 by reason, still waiting.
func (w *apfWorld) report() string {
	type agg struct {
		ok, tooMany, other, pending int
		first, last                 vtime.Time
		firstSet                    bool
		retryAfter                  string
	}
	var order []string
	byClient := map[string]*agg{}
	for _, s := range w.sent {
		a := byClient[s.client]
		if a == nil {
			a = &agg{}
			byClient[s.client] = a
			order = append(order, s.client)
		}
		switch {
		case !s.done:
			a.pending++
		case s.err == nil:
			a.ok++
			if !a.firstSet {
				a.first, a.firstSet = s.at, true
			}
			a.last = max(a.last, s.at)
		case strings.Contains(s.err.Error(), "Too many requests"):
			a.tooMany++
			if d, ok := retryAfterOf(s.err); ok {
				a.retryAfter = fmt.Sprintf(" (Retry-After %ds)", d)
			}
		default:
			a.other++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", w.k.Now())
	for _, c := range order {
		a := byClient[c]
		fmt.Fprintf(&b, "%s: served %d", c, a.ok)
		if a.ok > 0 {
			fmt.Fprintf(&b, " (first %s, last %s)", a.first, a.last)
		}
		if a.tooMany > 0 {
			fmt.Fprintf(&b, ", 429 %d%s", a.tooMany, a.retryAfter)
		}
		if a.other > 0 {
			fmt.Fprintf(&b, ", failed %d", a.other)
		}
		if a.pending > 0 {
			fmt.Fprintf(&b, ", waiting %d", a.pending)
		}
		b.WriteString("\n")
	}
	for _, l := range w.srv.APFLevels() {
		if l.Dispatched == 0 && l.Rejected() == 0 {
			continue
		}
		fmt.Fprintf(&b, "level %s: current %d, dispatched %d, queue-full %d, time-out %d, concurrency-limit %d, in queue %d, seats %d, max wait %s\n",
			l.Name, l.CurrentCL, l.Dispatched, l.RejectedQueueFull, l.RejectedTimeOut, l.RejectedConcurrencyLimit, l.InQueue, l.ExecutingSeats, l.WaitMax)
	}
	return b.String()
}

func retryAfterOf(err error) (int, bool) { return apierrors.SuggestsClientDelay(err) }

// TestAPFDerivedLimits: at ServerCL 600 the bootstrap levels get apf_controller.go's derived
// limits (finishQueueSetReconfigsLocked).
func TestAPFDerivedLimits(t *testing.T) {
	w := newAPFWorld(t, 400, 200, time.Millisecond, time.Minute, 0)
	want := map[string][4]int{ // nominal, min, max, initial current
		"exempt":          {0, 0, 600, 0},
		"catch-all":       {13, 13, 613, 13},
		"system":          {74, 50, 674, 62},
		"node-high":       {98, 73, 698, 86},
		"leader-election": {25, 25, 625, 25},
		"workload-high":   {98, 49, 698, 74},
		"workload-low":    {245, 24, 845, 135},
		"global-default":  {49, 24, 649, 37},
	}
	for _, l := range w.srv.APFLevels() {
		assert.Equal(t, want[l.Name], [4]int{l.NominalCL, l.MinCL, l.MaxCL, l.CurrentCL}, l.Name)
	}
	maxSeats := map[string]int{"system": 12, "node-high": 15, "leader-election": 4, "workload-high": 15, "workload-low": 37, "global-default": 8}
	for _, l := range w.srv.apf.levels {
		assert.Equal(t, maxSeats[l.name], l.maxSeats, l.name)
	}
}

// TestDealer: shufflesharding.Dealer deals distinct cards in [0, deck) (table of hash values).
func TestDealer(t *testing.T) {
	for _, tc := range []struct {
		deck, hand int
		hash       uint64
		want       []int
	}{
		{4, 2, 10, []int{2, 3}},
		{128, 6, 0, []int{0, 1, 2, 3, 4, 5}},
		{64, 6, hashFlowID("system-nodes", "system:node:n1"), nil},
	} {
		got := dealer{deckSize: tc.deck, handSize: tc.hand}.deal(tc.hash, nil)
		require.Len(t, got, tc.hand)
		seen := map[int]bool{}
		for _, c := range got {
			assert.True(t, c >= 0 && c < tc.deck)
			assert.False(t, seen[c], "card %d dealt twice", c)
			seen[c] = true
		}
		if tc.want != nil {
			assert.Equal(t, tc.want, got)
		}
	}
}

// TestComputeConcurrencyAllocation: the allocation sums to the pool and respects the bounds.
func TestComputeConcurrencyAllocation(t *testing.T) {
	for _, tc := range []struct {
		name     string
		required float64
		items    []allocItem
		want     []float64
	}{
		{"lower bounds fill the pool", 10, []allocItem{{5, 20, 30}, {5, 20, 1}}, []float64{5, 5}},
		{"upper bounds short of it", 100, []allocItem{{1, 20, 30}, {1, 20, 1}}, []float64{20, 20}},
		{"proportional to targets", 30, []allocItem{{0, 100, 20}, {0, 100, 10}}, []float64{20, 10}},
		{"one clamped at its upper bound", 30, []allocItem{{0, 5, 20}, {0, 100, 10}}, []float64{5, 25}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := computeConcurrencyAllocation(tc.required, tc.items)
			assert.InDeltaSlice(t, tc.want, got, 1e-9)
		})
	}
}

// TestReusedRequestTimesOutByItsOwnWait: a request that waited in its queue leaves its
// timeout's event in the kernel's heap when it is dispatched; once it finishes, its
// apfRequest serves a later request. A later request that waits in that apfRequest is
// rejected when its own wait runs out, not at the finished request's old deadline.
func TestReusedRequestTimesOutByItsOwnWait(t *testing.T) {
	// global-default has 2 seats; a wait runs out after 2s (a quarter of the 8s timeout),
	// before the first borrowing adjustment (10s) could lend the level more seats.
	w := newAPFWorld(t, 24, 0, 500*time.Millisecond, 8*time.Second, 0)
	w.srv.serviceTime[verbIndex(model.VerbList)] = sim.Constant(30 * time.Second).Sampler()
	at := func(d time.Duration, f func()) { w.k.After(d-w.k.Now().Sub(0), f) }
	// Two gets take the seats until 0.5s; the third waits, its timeout armed for 2s, and runs
	// from 0.5s to 1s.
	for range 3 {
		w.send("alice", model.VerbGet, model.KindPod, "default")
	}
	run(w.k, 1100*time.Millisecond)
	// (A get of no name is answered by the store with an error, after its service time.)
	require.True(t, w.sent[2].done && !apierrors.IsTooManyRequests(w.sent[2].err) && w.sent[2].at == vtime.FromDuration(time.Second),
		"the third get waited, then ran: %s", w.report())
	// The three apfRequests are spare, the waited one on top: put it at the bottom, for the
	// request that will wait.
	qs := w.srv.apf.byName["global-default"].qs
	var spare []*apfRequest
	for r := qs.spare.Take(); r != nil; r = qs.spare.Take() {
		spare = append(spare, r)
	}
	require.Len(t, spare, 3)
	for _, r := range spare {
		qs.spare.Put(r)
	}
	waited := spare[0]
	// Two lists take the seats from 1.1s to 31.1s; a get at 1.2s waits in the waited one's
	// apfRequest until its own wait runs out at 3.2s.
	at(1100*time.Millisecond, func() {
		w.send("alice", model.VerbList, model.KindPod, "default")
		w.send("alice", model.VerbList, model.KindPod, "default")
	})
	at(1200*time.Millisecond, func() {
		w.send("bob", model.VerbGet, model.KindPod, "default")
	})
	run(w.k, 150*time.Millisecond)
	require.Len(t, w.sent, 6)
	get := w.sent[5]
	require.Len(t, qs.waitingQueues, 1)
	require.Same(t, waited, qs.waitingQueues[0].peek(), "the get waits in the apfRequest that waited before")
	run(w.k, 5*time.Second)
	require.True(t, get.done, "the get is answered")
	require.True(t, apierrors.IsTooManyRequests(get.err), "the get is rejected: %v", get.err)
	assert.Equal(t, vtime.FromDuration(3200*time.Millisecond), get.at, "rejected when its own wait ran out")
}
