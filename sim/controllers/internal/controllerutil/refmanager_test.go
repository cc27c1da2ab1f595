package controllerutil

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/vtime"
)

// refWorld is a kernel, an API server and one client: enough for the manager's patches and its
// uncached recheck.
type refWorld struct {
	k *sim.Kernel
	c *client.Client
}

func newRefWorld() *refWorld {
	k := sim.New(1)
	srv := apiserver.NewServer(k, apiserver.DefaultConfig())
	return &refWorld{k: k, c: client.New(srv, "test", client.Config{})}
}

// run runs body as a process until the kernel drains.
func (w *refWorld) run(t *testing.T, body func(ctx context.Context)) {
	t.Helper()
	w.k.Spawn("test", func(p *sim.Proc) { body(p) })
	out := w.k.Run(sim.Limits{MaxTime: vtime.FromDuration(time.Hour)})
	require.NotEqual(t, sim.StopError, out.Reason, "%v", out.Err)
}

func testRS(name string) *model.ReplicaSet {
	return &model.ReplicaSet{
		ObjectMeta: model.ObjectMeta{Name: name, Namespace: "default"},
		Spec: model.ReplicaSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"foo": "bar"}},
			Template: model.PodTemplateSpec{
				ObjectMeta: model.ObjectMeta{Labels: map[string]string{"foo": "bar"}},
				Spec:       model.PodSpec{Containers: []model.Container{{Name: "app", Image: "app:1"}}},
			},
		},
	}
}

func testPod(name string, lbls map[string]string) *model.Pod {
	return &model.Pod{
		ObjectMeta: model.ObjectMeta{Name: name, Namespace: "default", Labels: lbls},
		Spec:       model.PodSpec{Containers: []model.Container{{Name: "app", Image: "app:1"}}},
	}
}

var (
	matching    = map[string]string{"foo": "bar"}
	notMatching = map[string]string{"foo": "baz"}
)

// podCase is a pod of a TestClaimPods case: owner is "self", "other" or "" (an orphan);
// podDeleting gives the claimed copy a deletionTimestamp.
type podCase struct {
	name        string
	labels      map[string]string
	owner       string
	podDeleting bool
}

// TestClaimPods follows upstream controller_ref_manager_test.go TestClaimPods (release 1.33),
// case by case, against the simulated API server: the claim result, and what the server holds
// afterwards (the controller reference of every pod).
func TestClaimPods(t *testing.T) {
	now := vtime.FromDuration(time.Minute)
	tests := []struct {
		name string
		// deleting marks the controller (as the manager sees it) as being deleted.
		deleting bool
		// pods are created in the server.
		pods        []podCase
		wantClaimed []string
		// wantController is, per pod, the controller name the server holds afterwards.
		wantController map[string]string
	}{
		{
			name:           "Claim pods with correct label",
			pods:           []podCase{{"pod1", matching, "", false}, {"pod2", notMatching, "", false}},
			wantClaimed:    []string{"pod1"},
			wantController: map[string]string{"pod1": "rs", "pod2": ""},
		},
		{
			name:           "Controller marked for deletion can not claim pods",
			deleting:       true,
			pods:           []podCase{{"pod1", matching, "", false}, {"pod2", matching, "", false}},
			wantClaimed:    nil,
			wantController: map[string]string{"pod1": "", "pod2": ""},
		},
		{
			name:           "Controller marked for deletion can claim pods it already owns",
			deleting:       true,
			pods:           []podCase{{"pod1", matching, "self", false}, {"pod2", matching, "self", false}},
			wantClaimed:    []string{"pod1", "pod2"},
			wantController: map[string]string{"pod1": "rs", "pod2": "rs"},
		},
		{
			name:           "Controller can not claim pods owned by another controller",
			pods:           []podCase{{"pod1", matching, "other", false}},
			wantClaimed:    nil,
			wantController: map[string]string{"pod1": "other"},
		},
		{
			name:           "Controller releases claimed pods when selector doesn't match",
			pods:           []podCase{{"pod1", matching, "self", false}, {"pod2", notMatching, "self", false}},
			wantClaimed:    []string{"pod1"},
			wantController: map[string]string{"pod1": "rs", "pod2": ""},
		},
		{
			name:           "Controller does not claim orphaned pods marked for deletion",
			pods:           []podCase{{"pod1", matching, "", false}, {"pod2", matching, "", true}},
			wantClaimed:    []string{"pod1"},
			wantController: map[string]string{"pod1": "rs", "pod2": ""},
		},
		{
			name:           "Controller marked for deletion does not release pods it owns that stopped matching",
			deleting:       true,
			pods:           []podCase{{"pod1", notMatching, "self", false}},
			wantClaimed:    nil,
			wantController: map[string]string{"pod1": "rs"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newRefWorld()
			var claimed []string
			var adopted, released []string
			controllers := map[string]string{}
			w.run(t, func(ctx context.Context) {
				rs, err := client.CreateAs(ctx, w.c, testRS("rs"))
				require.NoError(t, err)
				other, err := client.CreateAs(ctx, w.c, testRS("other"))
				require.NoError(t, err)
				var pods []*model.Pod
				for _, p := range tc.pods {
					pod := testPod(p.name, p.labels)
					switch p.owner {
					case "self":
						pod.OwnerReferences = []model.OwnerReference{NewControllerRef(rs, model.KindReplicaSet, "apps/v1")}
					case "other":
						pod.OwnerReferences = []model.OwnerReference{NewControllerRef(other, model.KindReplicaSet, "apps/v1")}
					}
					created, err := client.CreateAs(ctx, w.c, pod)
					require.NoError(t, err)
					if p.podDeleting {
						created = created.DeepCopy()
						created.DeletionTimestamp = &now
					}
					pods = append(pods, created)
				}
				ctrl := rs
				if tc.deleting {
					ctrl = rs.DeepCopy()
					ctrl.DeletionTimestamp = &now
				}
				sel, err := metav1.LabelSelectorAsSelector(ctrl.Spec.Selector)
				require.NoError(t, err)
				m := NewControllerRefManager(w.c, ctrl, NewControllerRef(ctrl, model.KindReplicaSet, "apps/v1"), sel)
				m.OnAdopt = func(obj, _ model.Object) { adopted = append(adopted, obj.Meta().Name) }
				m.OnRelease = func(obj, _ model.Object) { released = append(released, obj.Meta().Name) }
				got, err := m.ClaimPods(ctx, pods)
				require.NoError(t, err)
				for _, p := range got {
					claimed = append(claimed, p.Name)
				}
				for _, p := range tc.pods {
					fresh, err := client.GetAs[*model.Pod](ctx, w.c, "default", p.name)
					require.NoError(t, err)
					name := ""
					if ref := model.ControllerOf(fresh); ref != nil {
						name = ref.Name
					}
					controllers[p.name] = name
				}
			})
			assert.Equal(t, tc.wantClaimed, claimed)
			assert.Equal(t, tc.wantController, controllers)
			for _, name := range adopted {
				assert.Equal(t, "rs", tc.wantController[name], "adopted %s", name)
			}
			for _, name := range released {
				assert.Equal(t, "", tc.wantController[name], "released %s", name)
			}
		})
	}
}

// TestCanAdoptRechecksOnce: the owner is re-read uncached once per manager, however many
// orphans it adopts (upstream canAdoptOnce).
func TestCanAdoptRechecksOnce(t *testing.T) {
	w := newRefWorld()
	w.run(t, func(ctx context.Context) {
		rs, err := client.CreateAs(ctx, w.c, testRS("rs"))
		require.NoError(t, err)
		var pods []*model.Pod
		for _, name := range []string{"a", "b", "c"} {
			p, err := client.CreateAs(ctx, w.c, testPod(name, matching))
			require.NoError(t, err)
			pods = append(pods, p)
		}
		gets := w.c.Stats().RequestsFor(client.VerbGet)
		m := NewControllerRefManager(w.c, rs, NewControllerRef(rs, model.KindReplicaSet, "apps/v1"), labels.SelectorFromSet(matching))
		got, err := m.ClaimPods(ctx, pods)
		require.NoError(t, err)
		assert.Len(t, got, 3)
		assert.Equal(t, gets+1, w.c.Stats().RequestsFor(client.VerbGet), "one uncached GET of the owner")
	})
}

// TestCanAdoptRefusesReplacedOwner: an owner deleted and recreated under the same name (a new
// UID) must not adopt (upstream RecheckDeletionTimestamp with the controllers' UID check,
// kubernetes issue 42639); the error names the pod and both UIDs, and the pod stays an orphan.
func TestCanAdoptRefusesReplacedOwner(t *testing.T) {
	w := newRefWorld()
	w.run(t, func(ctx context.Context) {
		stale, err := client.CreateAs(ctx, w.c, testRS("rs"))
		require.NoError(t, err)
		require.NoError(t, w.c.Delete(ctx, model.KindReplicaSet, "default", "rs", model.DeleteOptions{}))
		fresh, err := client.CreateAs(ctx, w.c, testRS("rs"))
		require.NoError(t, err)
		pod, err := client.CreateAs(ctx, w.c, testPod("p", matching))
		require.NoError(t, err)
		m := NewControllerRefManager(w.c, stale, NewControllerRef(stale, model.KindReplicaSet, "apps/v1"), labels.SelectorFromSet(matching))
		got, err := m.ClaimPods(ctx, []*model.Pod{pod})
		require.Error(t, err)
		assert.Empty(t, got)
		assert.Contains(t, err.Error(), "can't adopt Pod default/p ("+pod.UID+"): can't recheck DeletionTimestamp: original ReplicaSet default/rs is gone: got uid "+fresh.UID+", wanted "+stale.UID)
		after, err := client.GetAs[*model.Pod](ctx, w.c, "default", "p")
		require.NoError(t, err)
		assert.Nil(t, model.ControllerOf(after))
	})
}

// TestReleaseOfReplacedObjectIsNotAnError: the release patch carries the object's UID, so a
// pod deleted and recreated under the same name is not changed and the Invalid answer is not
// an error (upstream ReleasePod).
func TestReleaseOfReplacedObjectIsNotAnError(t *testing.T) {
	w := newRefWorld()
	w.run(t, func(ctx context.Context) {
		rs, err := client.CreateAs(ctx, w.c, testRS("rs"))
		require.NoError(t, err)
		ref := NewControllerRef(rs, model.KindReplicaSet, "apps/v1")
		old := testPod("p", notMatching)
		old.OwnerReferences = []model.OwnerReference{ref}
		cached, err := client.CreateAs(ctx, w.c, old)
		require.NoError(t, err)
		require.NoError(t, w.c.Delete(ctx, model.KindPod, "default", "p", model.DeleteOptions{GracePeriodSeconds: model.Ptr[int64](0)}))
		replacement := testPod("p", notMatching)
		replacement.OwnerReferences = []model.OwnerReference{ref}
		_, err = client.CreateAs(ctx, w.c, replacement)
		require.NoError(t, err)

		m := NewControllerRefManager(w.c, rs, ref, labels.SelectorFromSet(matching))
		got, err := m.ClaimPods(ctx, []*model.Pod{cached})
		require.NoError(t, err)
		assert.Empty(t, got)
		after, err := client.GetAs[*model.Pod](ctx, w.c, "default", "p")
		require.NoError(t, err)
		require.NotNil(t, model.ControllerOf(after), "the new pod keeps its reference")
	})
}

// TestClaimReplicaSetsAndRevisions: the ReplicaSet and ControllerRevision variants adopt a
// matching orphan and release an owned object that stopped matching, with patches that carry
// the object's UID and, on adoption, the owner's UID in the new reference.
func TestClaimReplicaSetsAndRevisions(t *testing.T) {
	w := newRefWorld()
	w.run(t, func(ctx context.Context) {
		d, err := client.CreateAs(ctx, w.c, &model.Deployment{
			ObjectMeta: model.ObjectMeta{Name: "d", Namespace: "default"},
			Spec: model.DeploymentSpec{
				Selector: &metav1.LabelSelector{MatchLabels: matching},
				Template: testRS("").Spec.Template,
			},
		})
		require.NoError(t, err)
		ref := NewControllerRef(d, model.KindDeployment, "apps/v1")
		orphan := testRS("orphan")
		orphan.Labels = matching
		orphanRS, err := client.CreateAs(ctx, w.c, orphan)
		require.NoError(t, err)
		stray := testRS("stray")
		stray.Labels = notMatching
		stray.OwnerReferences = []model.OwnerReference{ref}
		strayRS, err := client.CreateAs(ctx, w.c, stray)
		require.NoError(t, err)

		m := NewControllerRefManager(w.c, d, ref, labels.SelectorFromSet(matching))
		got, err := m.ClaimReplicaSets(ctx, []*model.ReplicaSet{orphanRS, strayRS})
		require.NoError(t, err)
		require.Len(t, got, 1)
		assert.Equal(t, "orphan", got[0].Name)
		a, err := client.GetAs[*model.ReplicaSet](ctx, w.c, "default", "orphan")
		require.NoError(t, err)
		require.NotNil(t, model.ControllerOf(a))
		assert.Equal(t, d.UID, model.ControllerOf(a).UID)
		s, err := client.GetAs[*model.ReplicaSet](ctx, w.c, "default", "stray")
		require.NoError(t, err)
		assert.Nil(t, model.ControllerOf(s))

		rev, err := client.CreateAs(ctx, w.c, &model.ControllerRevision{
			ObjectMeta: model.ObjectMeta{Name: "rev", Namespace: "default", Labels: matching},
			Revision:   1,
		})
		require.NoError(t, err)
		got2, err := NewControllerRefManager(w.c, d, ref, labels.SelectorFromSet(matching)).ClaimControllerRevisions(ctx, []*model.ControllerRevision{rev})
		require.NoError(t, err)
		assert.Len(t, got2, 1)
	})
}

// TestOwnerRefsPatch pins the patch's shape (upstream's adoption and release patches carry
// metadata.uid of the patched object).
func TestOwnerRefsPatch(t *testing.T) {
	ref := model.OwnerReference{APIVersion: "apps/v1", Kind: model.KindReplicaSet, Name: "rs", UID: "owner-uid", Controller: model.Ptr(true), BlockOwnerDeletion: model.Ptr(true)}
	tests := []struct {
		name string
		refs []model.OwnerReference
		want string
	}{
		{"adopt", []model.OwnerReference{ref}, `{"metadata":{"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"owner-uid","controller":true,"blockOwnerDeletion":true}],"uid":"pod-uid"}}`},
		{"release the only reference", nil, `{"metadata":{"ownerReferences":null,"uid":"pod-uid"}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := OwnerRefsPatch(tc.refs, "pod-uid")
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(b))
			assert.True(t, json.Valid(b))
		})
	}
}

func TestSplitKey(t *testing.T) {
	tests := []struct{ key, ns, name string }{
		{"default/web", "default", "web"},
		{"node-1", "", "node-1"},
		{"a/b/c", "a", "b/c"},
		{"", "", ""},
	}
	for _, tc := range tests {
		ns, name := SplitKey(tc.key)
		assert.Equal(t, tc.ns, ns, tc.key)
		assert.Equal(t, tc.name, name, tc.key)
	}
}
