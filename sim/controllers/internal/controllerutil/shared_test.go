package controllerutil

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/client"
)

// TestTraceClaims: an adoption and a release each write their trace line and count once.
func TestTraceClaims(t *testing.T) {
	w := newRefWorld()
	var trace bytes.Buffer
	w.k.Trace().SetWriter(&trace)
	var adoptions, releases uint64
	w.run(t, func(ctx context.Context) {
		rs, err := client.CreateAs(ctx, w.c, testRS("rs"))
		require.NoError(t, err)
		orphan, err := client.CreateAs(ctx, w.c, testPod("orphan", matching))
		require.NoError(t, err)
		stray := testPod("stray", notMatching)
		stray.OwnerReferences = []model.OwnerReference{NewControllerRef(rs, model.KindReplicaSet, "apps/v1")}
		stray, err = client.CreateAs(ctx, w.c, stray)
		require.NoError(t, err)

		m := NewControllerRefManager(w.c, rs, NewControllerRef(rs, model.KindReplicaSet, "apps/v1"), labels.SelectorFromSet(matching))
		m.TraceClaims(w.k, "test-controller", "ReplicaSet default/rs", &adoptions, &releases)
		claimed, err := m.ClaimPods(ctx, []*model.Pod{orphan, stray})
		require.NoError(t, err)
		require.Len(t, claimed, 1)
	})
	assert.Equal(t, uint64(1), adoptions)
	assert.Equal(t, uint64(1), releases)
	assert.Contains(t, trace.String(), "adopt Pod default/orphan")
	assert.Contains(t, trace.String(), "by ReplicaSet default/rs")
	assert.Contains(t, trace.String(), "release Pod default/stray")
	assert.Contains(t, trace.String(), "from ReplicaSet default/rs")
}

func TestPodFromTemplate(t *testing.T) {
	rs := testRS("web")
	rs.UID = "uid-web"
	ref := NewControllerRef(rs, model.KindReplicaSet, "apps/v1")
	pod := PodFromTemplate(&rs.Spec.Template, rs, ref)
	assert.Equal(t, "default", pod.Namespace)
	assert.Equal(t, "web-", pod.GenerateName)
	assert.Empty(t, pod.Name, "the API server names the pod")
	assert.Equal(t, rs.Spec.Template.Labels, pod.Labels)
	assert.Equal(t, rs.Spec.Template.Spec, pod.Spec)
	assert.Equal(t, []model.OwnerReference{ref}, pod.OwnerReferences)
}

// TestClaimCandidatePods: an owner's candidates are its own pods and the orphans of its
// namespace, sorted by name; pods of other owners are not.
func TestClaimCandidatePods(t *testing.T) {
	w := newRefWorld()
	inf := client.NewInformer(w.c, model.KindPod, model.ListOptions{}, 0)
	require.NoError(t, AddClaimCandidatesIndex(inf, "test-claim-candidates"))
	var names []string
	w.run(t, func(ctx context.Context) {
		rs, err := client.CreateAs(ctx, w.c, testRS("rs"))
		require.NoError(t, err)
		other, err := client.CreateAs(ctx, w.c, testRS("other"))
		require.NoError(t, err)
		for _, pc := range []struct {
			name  string
			owner *model.ReplicaSet
		}{{"c-mine", rs}, {"b-orphan", nil}, {"a-other", other}} {
			p := testPod(pc.name, matching)
			if pc.owner != nil {
				p.OwnerReferences = []model.OwnerReference{NewControllerRef(pc.owner, model.KindReplicaSet, "apps/v1")}
			}
			_, err := client.CreateAs(ctx, w.c, p)
			require.NoError(t, err)
		}
		inf.Run(w.k)
		inf.WaitForSync(ctx)
		for _, p := range ClaimCandidatePods(inf, "test-claim-candidates", rs) {
			names = append(names, p.Name)
		}
		inf.Stop()
	})
	assert.Equal(t, []string{"b-orphan", "c-mine"}, names)
}

// TestListerGetKeyed: GetKeyed gives what Get gives, with the object's key, and no key when
// Get finds nothing (no object, or one that is not a T); ByIndexKeyed gives ByIndex's objects
// with their keys.
func TestListerGetKeyed(t *testing.T) {
	w := newRefWorld()
	inf := client.NewInformer(w.c, model.KindPod, model.ListOptions{}, 0)
	w.run(t, func(ctx context.Context) {
		_, err := client.CreateAs(ctx, w.c, testPod("a", matching))
		require.NoError(t, err)
		inf.Run(w.k)
		inf.WaitForSync(ctx)
		pods := Lister[*model.Pod]{Informer: inf}
		for _, name := range []string{"a", "missing"} {
			want, wantOK := pods.Get("default", name)
			got, key, ok := pods.GetKeyed("default", name)
			assert.Equal(t, wantOK, ok, name)
			assert.Same(t, want, got, name)
			if ok {
				assert.Equal(t, model.Key(want), key, name)
			} else {
				assert.Empty(t, key, name)
			}
		}
		_, key, ok := Lister[*model.ReplicaSet]{Informer: inf}.GetKeyed("default", "a")
		assert.False(t, ok, "a pod is not a ReplicaSet")
		assert.Empty(t, key)
		objs, keys := pods.ByIndexKeyed(client.IndexNamespace, "default")
		assert.Equal(t, pods.ByIndex(client.IndexNamespace, "default"), objs)
		assert.Equal(t, []string{"default/a"}, keys)
		rss, keys := Lister[*model.ReplicaSet]{Informer: inf}.ByIndexKeyed(client.IndexNamespace, "default")
		assert.Empty(t, rss, "a pod is not a ReplicaSet")
		assert.Empty(t, keys, "and has no key among them")
		inf.Stop()
	})
}
