package client

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/vtime"
)

// newServer returns a server with default settings changed by mutate.
func newServer(k *sim.Kernel, mutate func(*apiserver.Config)) *apiserver.Server {
	cfg := apiserver.DefaultConfig()
	if mutate != nil {
		mutate(&cfg)
	}
	return apiserver.NewServer(k, cfg)
}

func newPod(name string, labels map[string]string) *model.Pod {
	return &model.Pod{
		ObjectMeta: model.ObjectMeta{Name: name, Namespace: "default", Labels: labels},
		Spec:       model.PodSpec{Containers: []model.Container{{Name: "app", Image: "app:1"}}},
	}
}

// run spawns body as a process and runs the kernel until it drains or an hour passes.
func run(t *testing.T, k *sim.Kernel, body func(ctx context.Context)) sim.Outcome {
	t.Helper()
	k.Spawn("test", func(p *sim.Proc) { body(p) })
	out := k.Run(sim.Limits{MaxTime: vtime.FromDuration(time.Hour)})
	require.NotEqual(t, sim.StopError, out.Reason, "%v", out.Err)
	return out
}

// TestClientRetries429WithRetryAfter: with one mutating slot held by a long request, a second
// request gets 429 + Retry-After 1 and is retried every second until the slot frees up.
func TestClientRetries429WithRetryAfter(t *testing.T) {
	k := sim.New(1)
	srv := newServer(k, func(c *apiserver.Config) {
		c.MaxMutatingRequestsInflight = 1
		c.ServiceTime[model.VerbCreate] = sim.Constant(4500 * time.Millisecond)
	})
	c := New(srv, "test-client", Config{})
	var doneAt []string
	for _, name := range []string{"a", "b"} {
		k.Spawn("create-"+name, func(p *sim.Proc) {
			_, err := c.Create(p, newPod(name, nil))
			require.NoError(t, err)
			doneAt = append(doneAt, name+"@"+k.Now().String())
		})
	}
	out := k.Run(sim.Limits{MaxTime: vtime.FromDuration(time.Hour)})
	require.NotEqual(t, sim.StopError, out.Reason, "%v", out.Err)
	// b: 429 at 0, 1, 2, 3, 4; admitted at 5 and served for 4.5s.
	assert.Equal(t, []string{"a@t=4.500s", "b@t=9.500s"}, doneAt)
	s := c.Stats()
	assert.Equal(t, uint64(5), s.TooManyRequests)
	assert.Equal(t, uint64(5), s.Retries)
	assert.Equal(t, uint64(7), s.RequestsFor(VerbCreate))
	assert.Equal(t, 5*time.Second, s.RetryAfterTotal)
	assert.Equal(t, uint64(0), s.Errors)
}

// TestClientGivesUpAfterMaxRetries: once the retries are used up the 429 comes back.
func TestClientGivesUpAfterMaxRetries(t *testing.T) {
	k := sim.New(1)
	srv := newServer(k, func(c *apiserver.Config) {
		c.MaxMutatingRequestsInflight = 1
		c.ServiceTime[model.VerbCreate] = sim.Constant(time.Minute)
	})
	c := New(srv, "test-client", Config{MaxRetries: 2})
	var errB error
	var failedAt vtime.Time
	k.Spawn("create-a", func(p *sim.Proc) { _, _ = c.Create(p, newPod("a", nil)) })
	k.Spawn("create-b", func(p *sim.Proc) {
		_, errB = c.Create(p, newPod("b", nil))
		failedAt = k.Now()
	})
	k.Run(sim.Limits{MaxTime: vtime.FromDuration(time.Hour)})
	require.Error(t, errB)
	assert.True(t, apierrors.IsTooManyRequests(errB), "got %v", errB)
	assert.Equal(t, vtime.FromDuration(2*time.Second), failedAt, "attempts at 0s, 1s and 2s")
	assert.Equal(t, uint64(2), c.Stats().Retries)
	assert.Equal(t, uint64(1), c.Stats().Errors)
}

// TestClientConflictPassesThrough: an update with a stale resourceVersion returns the server's
// Conflict unchanged and is not retried.
func TestClientConflictPassesThrough(t *testing.T) {
	k := sim.New(1)
	c := New(newServer(k, nil), "test-client", Config{})
	run(t, k, func(ctx context.Context) {
		created, err := CreateAs(ctx, c, newPod("a", nil))
		require.NoError(t, err)
		first := created.DeepCopy()
		first.Labels = map[string]string{"v": "1"}
		_, err = UpdateAs(ctx, c, first)
		require.NoError(t, err)
		stale := created.DeepCopy()
		stale.Labels = map[string]string{"v": "2"}
		_, err = c.Update(ctx, stale)
		require.Error(t, err)
		assert.True(t, apierrors.IsConflict(err), "got %v", err)
	})
	s := c.Stats()
	assert.Equal(t, uint64(1), s.Conflicts)
	assert.Equal(t, uint64(0), s.Retries)
	assert.Equal(t, uint64(2), s.RequestsFor(VerbUpdate))
}

// TestClientCopiesObjects: the caller may mutate what it sent and what it got back without
// touching the server's copy.
func TestClientCopiesObjects(t *testing.T) {
	k := sim.New(1)
	c := New(newServer(k, nil), "test-client", Config{})
	run(t, k, func(ctx context.Context) {
		pod := newPod("a", map[string]string{"app": "web"})
		created, err := c.Create(ctx, pod)
		require.NoError(t, err)
		pod.Labels["app"] = "mutated-after-send"
		created.Meta().Labels["app"] = "mutated-result"
		got, err := GetAs[*model.Pod](ctx, c, "default", "a")
		require.NoError(t, err)
		assert.Equal(t, "web", got.Labels["app"])
		got.Labels["app"] = "mutated-get"
		pods, _, err := ListAs[*model.Pod](ctx, c, model.ListOptions{Namespace: "default"})
		require.NoError(t, err)
		require.Len(t, pods, 1)
		assert.Equal(t, "web", pods[0].Labels["app"])
		_, err = GetAs[*model.Pod](ctx, c, "default", "missing")
		assert.True(t, apierrors.IsNotFound(err), "got %v", err)
		require.NoError(t, c.Delete(ctx, model.KindPod, "default", "a", model.DeleteOptions{GracePeriodSeconds: model.Ptr[int64](0)}))
	})
}

// TestClientThrottlesEveryRequest: with QPS 5 and burst 10, the 11th and 12th requests wait
// 200ms each; the wait is recorded.
func TestClientThrottlesEveryRequest(t *testing.T) {
	k := sim.New(1)
	srv := newServer(k, func(c *apiserver.Config) { c.ServiceTime = map[model.Verb]sim.Dist{} })
	c := New(srv, "test-client", Config{})
	require.Equal(t, Config{QPS: DefaultQPS, Burst: DefaultBurst, MaxRetries: DefaultMaxRetries}, c.Config())
	var finished vtime.Time
	run(t, k, func(ctx context.Context) {
		for range 12 {
			_, _ = c.Get(ctx, model.KindPod, "default", "none")
		}
		finished = k.Now()
	})
	assert.Equal(t, vtime.FromDuration(400*time.Millisecond), finished)
	th := c.Stats().Throttle
	assert.Equal(t, uint64(12), th.Waits)
	assert.Equal(t, uint64(2), th.Throttled)
	assert.Equal(t, 400*time.Millisecond, th.ThrottledTotal)
	assert.Equal(t, uint64(2), th.LongThrottles)
	assert.Equal(t, uint64(12), c.Stats().RequestsFor(VerbGet))
}

func TestConfigDefaults(t *testing.T) {
	tests := []struct {
		in, want Config
	}{
		{Config{}, Config{QPS: 5, Burst: 10, MaxRetries: 10}},
		{Config{QPS: 20, Burst: 30, MaxRetries: 3}, Config{QPS: 20, Burst: 30, MaxRetries: 3}},
		{Config{QPS: -1, MaxRetries: -1}, Config{QPS: -1, Burst: 10, MaxRetries: 0}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.in.withDefaults(), "%+v", tt.in)
	}
}

// TestClientCallsInFlightKeepTheirRequests: processes sharing a client, with their calls in
// flight at once, each get the answer to their own request (the client's own request serves
// one call at a time, spare ones the others), and a finished call leaves nothing behind in
// the client's request.
func TestClientCallsInFlightKeepTheirRequests(t *testing.T) {
	k := sim.New(1)
	srv := newServer(k, func(c *apiserver.Config) {
		c.ServiceTime[model.VerbGet] = sim.Constant(time.Second)
	})
	c := New(srv, "shared", Config{QPS: -1})
	names := []string{"a", "b", "c"}
	for _, name := range names {
		_, err := srv.Store().Create(newPod(name, nil))
		require.NoError(t, err)
	}
	got := map[string]string{}
	for round := 0; round < 2; round++ {
		for _, name := range names {
			k.Spawn("get-"+name, func(p *sim.Proc) {
				obj, err := c.GetShared(p, model.KindPod, "default", name)
				require.NoError(t, err)
				got[name] = obj.Meta().Name
			})
		}
		k.Run(sim.Limits{MaxTime: k.Now().Add(time.Hour)})
		for _, name := range names {
			assert.Equal(t, name, got[name], "round %d", round)
		}
		assert.False(t, c.ownBusy, "round %d", round)
		assert.Equal(t, apiserver.Request{}, c.own, "round %d", round)
	}
}

// seenRequests is a fault hook that records a copy of every request the server sees.
type seenRequests struct{ reqs []apiserver.Request }

func (s *seenRequests) Intercept(_ vtime.Time, req *apiserver.Request) (time.Duration, error) {
	s.reqs = append(s.reqs, *req)
	return 0, nil
}

// TestRequestsFilledInPlaceCarryNothingOfEarlierCalls: the hot calls fill the client's own
// request in place; after a patch and a list through the same request, a get and a shared
// update carry only their own fields and the client's name and record.
func TestRequestsFilledInPlaceCarryNothingOfEarlierCalls(t *testing.T) {
	k := sim.New(1)
	srv := newServer(k, nil)
	seen := &seenRequests{}
	srv.AddFault(seen)
	c := New(srv, "in-place", Config{QPS: -1})
	run(t, k, func(ctx context.Context) {
		_, err := c.Create(ctx, newPod("p", nil))
		require.NoError(t, err)
		_, err = c.PatchAs(ctx, model.KindPod, "default", "p", model.MergePatchType, []byte(`{"metadata":{"labels":{"a":"b"}}}`))
		require.NoError(t, err)
		_, _, err = c.List(ctx, model.KindPod, model.ListOptions{Namespace: "default", LabelSelector: labels.SelectorFromSet(labels.Set{"a": "b"})})
		require.NoError(t, err)
		obj, err := c.GetShared(ctx, model.KindPod, "default", "p")
		require.NoError(t, err)
		upd := obj.(*model.Pod).DeepCopy()
		upd.Labels = map[string]string{"a": "c"}
		_, err = c.UpdateShared(ctx, upd)
		require.NoError(t, err)
	})
	require.Len(t, seen.reqs, 5)
	caller := srv.Caller("in-place")
	get, update := seen.reqs[3], seen.reqs[4]
	assert.Equal(t, apiserver.Request{Client: "in-place", Caller: caller, Verb: VerbGet, Kind: model.KindPod, Namespace: "default", Name: "p"}, get)
	assert.Equal(t, apiserver.Request{Client: "in-place", Caller: caller, Verb: VerbUpdate, Kind: model.KindPod, Namespace: "default", Name: "p", Object: update.Object}, update)
}

// TestVerbIndexIsThePlaceInVerbs: every verb is found at its place in verbs, which orders the
// per-verb counters, and anything else at none.
func TestVerbIndexIsThePlaceInVerbs(t *testing.T) {
	for i, v := range verbs {
		assert.Equal(t, i, verbIndex(v), string(v))
	}
	assert.Equal(t, -1, verbIndex("escalate"))
	assert.Equal(t, -1, verbIndex(""))
}

// TestStatusCodeIsErrorsAs holds statusCode's type assertion to errors.As over direct,
// wrapped and non-API errors, and requires the direct case to allocate nothing.
func TestStatusCodeIsErrorsAs(t *testing.T) {
	gr := schema.GroupResource{Resource: "pods"}
	conflict := apierrors.NewConflict(gr, "p", errors.New("changed"))
	for _, err := range []error{
		nil,
		errors.New("plain"),
		conflict,
		apierrors.NewNotFound(gr, "p"),
		apierrors.NewTooManyRequests("busy", 1),
		fmt.Errorf("wrapped: %w", conflict),
		fmt.Errorf("twice: %w", fmt.Errorf("wrapped: %w", apierrors.NewInternalError(errors.New("x")))),
		// 409s with other reasons: an unknown reason is a conflict by its code, a known one not.
		&apierrors.StatusError{ErrStatus: metav1.Status{Code: 409, Reason: "SomethingNew"}},
		&apierrors.StatusError{ErrStatus: metav1.Status{Code: 409, Reason: metav1.StatusReasonAlreadyExists}},
		&apierrors.StatusError{ErrStatus: metav1.Status{Code: 500, Reason: metav1.StatusReasonConflict}},
		apierrors.NewAlreadyExists(gr, "p"),
	} {
		var want int32
		var status apierrors.APIStatus
		if errors.As(err, &status) {
			want = status.Status().Code
		}
		assert.Equal(t, want, statusCode(err), "%v", err)
		assert.Equal(t, apierrors.IsConflict(err), isConflict(err), "%v", err)
	}
	assert.Equal(t, int32(409), statusCode(conflict))
	assert.True(t, isConflict(conflict))
	assert.Zero(t, testing.AllocsPerRun(100, func() { statusCode(conflict) }))
	assert.Zero(t, testing.AllocsPerRun(100, func() { isConflict(conflict) }))
}
