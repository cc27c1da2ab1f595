package apiserver

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

func TestNewStoreCreatesSystemNamespaces(t *testing.T) {
	_, s := newTestStore(t, nil)
	assert.Equal(t, uint64(len(SystemNamespaces)), s.Revision())
	list, rv, err := s.List(model.KindNamespace, model.ListOptions{})
	require.NoError(t, err)
	assert.Equal(t, s.Revision(), rv)
	var names []string
	for _, o := range list {
		names = append(names, o.Meta().Name)
		assert.Equal(t, model.NamespaceActive, o.(*model.Namespace).Status.Phase)
	}
	assert.Equal(t, []string{"default", "kube-node-lease", "kube-public", "kube-system"}, names)
}

func TestCreateAssignsSystemFields(t *testing.T) {
	k, s := newTestStore(t, nil)
	k.After(3*time.Second, func() {
		pod := newPod("web")
		pod.UID = "client-chosen"
		pod.Generation = 7
		pod.Status.Phase = model.PodRunning
		pod.DeletionTimestamp = model.Ptr(vtime.Time(1))
		got := mustCreate(t, s, pod)
		assert.Equal(t, s.Revision(), got.ResourceVersion)
		assert.Equal(t, vtime.FromDuration(3*time.Second), got.CreationTimestamp)
		assert.Regexp(t, regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`), got.UID)
		assert.NotEqual(t, "client-chosen", got.UID)
		assert.Equal(t, int64(1), got.Generation, "pods start at generation 1")
		assert.Equal(t, model.PodPending, got.Status.Phase, "pod create resets status to Pending")
		assert.Nil(t, got.DeletionTimestamp)
		assert.Equal(t, model.DefaultSchedulerName, got.Spec.SchedulerName, "defaulting ran")

		node := newNode("n1")
		node.Status.Conditions = []model.NodeCondition{{Type: model.NodeReady, Status: model.ConditionTrue}}
		gotNode := mustCreate(t, s, node)
		assert.Len(t, gotNode.Status.Conditions, 1, "nodes may set status on create")
		assert.Equal(t, int64(0), gotNode.Generation, "nodes do not track generation")
		assert.NotEqual(t, got.UID, gotNode.UID)
	})
	run(k, 5*time.Second)
	assert.Equal(t, uint64(6), s.Revision())
}

// formatUID is the n-th uid's text on its own, as the texts a uidBlock shares are held to.
func formatUID(n uint64) string { return string(appendUID(nil, n)) }

func TestUIDsAreDeterministicAndUnique(t *testing.T) {
	seen := map[string]bool{}
	for n := uint64(1); n <= 10000; n++ {
		u := formatUID(n)
		require.False(t, seen[u], "duplicate uid %s", u)
		seen[u] = true
	}
	assert.Equal(t, formatUID(42), formatUID(42))
}

// TestUIDBlockTextsAreFormatUID holds the block-shared uid texts to formatUID, in creation
// order and out of it (a job's create asks for the next uid before it is taken).
func TestUIDBlockTextsAreFormatUID(t *testing.T) {
	var b uidBlock
	for n := uint64(1); n <= 3*uidsPerBlock+5; n++ {
		require.Equal(t, formatUID(n), b.text(n), "uid %d", n)
		require.Equal(t, formatUID(n+1), b.text(n+1), "uid %d ahead", n+1)
		require.Equal(t, formatUID(n), b.text(n), "uid %d again", n)
	}
	for _, n := range []uint64{7, 1 << 40, 3, uidsPerBlock, uidsPerBlock + 1, 1} {
		require.Equal(t, formatUID(n), b.text(n), "uid %d", n)
	}
	allocs := testing.AllocsPerRun(100, func() { b.text(2) })
	require.Zero(t, allocs, "a uid of the current block allocates nothing")
}

func TestCreateErrors(t *testing.T) {
	_, s := newTestStore(t, nil)
	mustCreate(t, s, newPod("taken"))
	withRV := newPod("rv")
	withRV.ResourceVersion = 3
	tests := []struct {
		name  string
		obj   model.Object
		check func(error) bool
		msg   string
	}{
		{"resourceVersion set", withRV, apierrors.IsBadRequest, "resourceVersion should not be set on objects to be created"},
		{"name taken", newPod("taken"), apierrors.IsAlreadyExists, `pods "taken" already exists`},
		{"unknown namespace", func() model.Object { p := newPod("x"); p.Namespace = "nope"; return p }(), apierrors.IsNotFound, `namespaces "nope" not found`},
		{"no name", func() model.Object { p := newPod(""); return p }(), apierrors.IsInvalid, "metadata.name: Required value: name or generateName is required"},
		{"no containers", func() model.Object { p := newPod("empty"); p.Spec.Containers = nil; return p }(), apierrors.IsInvalid, "spec.containers: Required value"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := s.Revision()
			_, err := s.Create(tc.obj)
			require.Error(t, err)
			assert.True(t, tc.check(err), "wrong error type: %v", err)
			assert.Contains(t, err.Error(), tc.msg)
			assert.Equal(t, before, s.Revision(), "a failed create writes nothing")
		})
	}
}

func TestValidationInvalidNamesFieldPaths(t *testing.T) {
	_, s := newTestStore(t, nil)
	rs := newReplicaSet("bad", -1)
	_, err := s.Create(rs)
	require.True(t, apierrors.IsInvalid(err), "%v", err)
	status := err.(apierrors.APIStatus).Status()
	assert.Equal(t, int32(422), status.Code)
	assert.Equal(t, "ReplicaSet", status.Details.Kind)
	assert.Equal(t, "apps", status.Details.Group)
	var paths []string
	for _, c := range status.Details.Causes {
		paths = append(paths, c.Field)
	}
	assert.Contains(t, paths, "spec.replicas")
	assert.Contains(t, err.Error(), `ReplicaSet.apps "bad" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`)
}

func TestUpdateWithStaleResourceVersionConflicts(t *testing.T) {
	_, s := newTestStore(t, nil)
	pod := mustCreate(t, s, newPod("x"))
	first := copyOf(pod)
	first.Labels = map[string]string{"v": "1"}
	_, err := s.Update(first)
	require.NoError(t, err)

	stale := copyOf(pod) // still carries the old resourceVersion
	stale.Labels = map[string]string{"v": "2"}
	before := s.Revision()
	_, err = s.Update(stale)
	require.True(t, apierrors.IsConflict(err), "%v", err)
	assert.Equal(t, `Operation cannot be fulfilled on pods "x": the object has been modified; please apply your changes to the latest version and try again`, err.Error())
	assert.Equal(t, before, s.Revision())
	got, _ := s.Get(model.KindPod, "default", "x")
	assert.Equal(t, "1", got.Meta().Labels["v"])
}

func TestUnconditionalUpdate(t *testing.T) {
	tests := []struct {
		name    string
		obj     func() model.Object
		allowed bool
	}{
		{"pod", func() model.Object { return newPod("p") }, true},
		{"replicaset", func() model.Object { return newReplicaSet("rs", 1) }, true},
		{"node", func() model.Object { return newNode("n") }, true},
		{"namespace", func() model.Object { return &model.Namespace{ObjectMeta: model.ObjectMeta{Name: "team"}} }, true},
		{"event", func() model.Object {
			return &model.Event{ObjectMeta: model.ObjectMeta{Name: "e", Namespace: "default"}, InvolvedObject: model.ObjectReference{Kind: model.KindPod, Name: "p", Namespace: "default"}, Reason: "Started", Message: "started"}
		}, true},
		{"lease", func() model.Object { return newLease("n") }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, s := newTestStore(t, nil)
			created, err := s.Create(tc.obj())
			require.NoError(t, err)
			upd := created.DeepCopyObject()
			upd.Meta().ResourceVersion = 0
			upd.Meta().Labels = map[string]string{"touched": "yes"}
			got, err := s.Update(upd)
			if tc.allowed {
				require.NoError(t, err)
				assert.Equal(t, "yes", got.Meta().Labels["touched"])
				assert.Equal(t, s.Revision(), got.Meta().ResourceVersion)
				return
			}
			require.True(t, apierrors.IsInvalid(err), "%v", err)
			assert.Contains(t, err.Error(), "metadata.resourceVersion: Invalid value: 0: must be specified for an update")
			assert.Contains(t, err.Error(), `leases.coordination.k8s.io "n" is invalid`)
		})
	}
}

func TestGenerationMovesOnlyOnSpecChange(t *testing.T) {
	_, s := newTestStore(t, nil)
	rs := mustCreate(t, s, newReplicaSet("rs", 1))
	require.Equal(t, int64(1), rs.Generation)

	steps := []struct {
		name    string
		status  bool
		mutate  func(*model.ReplicaSet)
		wantGen int64
	}{
		{"label change", false, func(r *model.ReplicaSet) { r.Labels = map[string]string{"a": "b"} }, 1},
		{"annotation change", false, func(r *model.ReplicaSet) { r.Annotations = map[string]string{"a": "b"} }, 1},
		{"scale", false, func(r *model.ReplicaSet) { r.Spec.Replicas = model.Ptr(int32(3)) }, 2},
		{"status", true, func(r *model.ReplicaSet) { r.Status.Replicas = 3; r.Status.ObservedGeneration = 2 }, 2},
		{"template image", false, func(r *model.ReplicaSet) { r.Spec.Template.Spec.Containers[0].Image = "nginx:1.28" }, 3},
		{"client tries to set generation", false, func(r *model.ReplicaSet) { r.Generation = 99; r.Labels = map[string]string{"a": "c"} }, 3},
	}
	for _, st := range steps {
		cur, err := s.Get(model.KindReplicaSet, "default", "rs")
		require.NoError(t, err)
		upd := copyOf(cur.(*model.ReplicaSet))
		st.mutate(upd)
		var got model.Object
		if st.status {
			got, err = s.UpdateStatus(upd)
		} else {
			got, err = s.Update(upd)
		}
		require.NoError(t, err, st.name)
		assert.Equal(t, st.wantGen, got.Meta().Generation, st.name)
	}
}

func TestStatusSubresourceIsolation(t *testing.T) {
	_, s := newTestStore(t, nil)
	rs := mustCreate(t, s, newReplicaSet("rs", 1))

	// A main-resource update cannot change status.
	upd := copyOf(rs)
	upd.Spec.Replicas = model.Ptr(int32(5))
	upd.Status.Replicas = 42
	got, err := s.Update(upd)
	require.NoError(t, err)
	gotRS := got.(*model.ReplicaSet)
	assert.Equal(t, int32(5), *gotRS.Spec.Replicas)
	assert.Equal(t, int32(0), gotRS.Status.Replicas)

	// A status update cannot change spec, and keeps metadata rules.
	upd = copyOf(gotRS)
	upd.Spec.Replicas = model.Ptr(int32(9))
	upd.Status.Replicas = 5
	got, err = s.UpdateStatus(upd)
	require.NoError(t, err)
	gotRS = got.(*model.ReplicaSet)
	assert.Equal(t, int32(5), *gotRS.Spec.Replicas)
	assert.Equal(t, int32(5), gotRS.Status.Replicas)
	assert.Equal(t, int64(2), gotRS.Generation)

	// Pods' status strategy also keeps ownerReferences.
	pod := newPod("owned")
	pod.OwnerReferences = []model.OwnerReference{{APIVersion: "apps/v1", Kind: model.KindReplicaSet, Name: "rs", UID: rs.UID, Controller: model.Ptr(true)}}
	created := mustCreate(t, s, pod)
	podUpd := copyOf(created)
	podUpd.OwnerReferences = nil
	podUpd.Status.Phase = model.PodRunning
	got, err = s.UpdateStatus(podUpd)
	require.NoError(t, err)
	assert.Len(t, got.Meta().OwnerReferences, 1)
	assert.Equal(t, model.PodRunning, got.(*model.Pod).Status.Phase)

	// Kinds without status have no status subresource.
	lease := mustCreate(t, s, newLease("n1"))
	_, err = s.UpdateStatus(copyOf(lease))
	assert.True(t, apierrors.IsNotFound(err), "%v", err)
}

func TestNoOpUpdateWritesNothing(t *testing.T) {
	k, s := newTestStore(t, nil)
	pod := mustCreate(t, s, newPod("x"))
	rec := &recorder{k: k}
	_, err := s.Watch(model.KindPod, model.ListOptions{}, 0, rec)
	require.NoError(t, err)
	before := s.Revision()
	got, err := s.Update(copyOf(pod))
	require.NoError(t, err)
	assert.Same(t, model.Object(pod), got, "a no-op update returns the stored object")
	assert.Equal(t, before, s.Revision())
	run(k, time.Second)
	assert.Empty(t, rec.nonBookmarks())
}

func TestFinalizersHoldDeletion(t *testing.T) {
	k, s := newTestStore(t, nil)
	rs := newReplicaSet("rs", 1)
	rs.Finalizers = []string{"example.com/cleanup"}
	created := mustCreate(t, s, rs)

	k.After(2*time.Second, func() {
		got, err := s.Delete(model.KindReplicaSet, "default", "rs", model.DeleteOptions{})
		require.NoError(t, err)
		m := got.Meta()
		require.NotNil(t, m.DeletionTimestamp)
		assert.Equal(t, vtime.FromDuration(2*time.Second), *m.DeletionTimestamp)
		assert.Equal(t, int64(0), *m.DeletionGracePeriodSeconds)
		assert.Equal(t, created.Generation+1, m.Generation, "marking bumps generation")
		assert.Equal(t, 1, s.Count(model.KindReplicaSet), "finalizers hold the object")

		// Deleting again changes nothing.
		rev := s.Revision()
		_, err = s.Delete(model.KindReplicaSet, "default", "rs", model.DeleteOptions{})
		require.NoError(t, err)
		assert.Equal(t, rev, s.Revision())

		// While deleting, finalizers may only be removed.
		add := copyOf(got.(*model.ReplicaSet))
		add.Finalizers = append(add.Finalizers, "example.com/another")
		_, err = s.Update(add)
		require.True(t, apierrors.IsInvalid(err), "%v", err)
		assert.Contains(t, err.Error(), "metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted")

		// The deletion timestamp cannot be removed by an update.
		clearTS := copyOf(got.(*model.ReplicaSet))
		clearTS.DeletionTimestamp = nil
		clearTS.Labels = map[string]string{"x": "y"}
		kept, err := s.Update(clearTS)
		require.NoError(t, err)
		assert.NotNil(t, kept.Meta().DeletionTimestamp)

		// Removing the last finalizer removes the object.
		remove := copyOf(kept.(*model.ReplicaSet))
		remove.Finalizers = nil
		_, err = s.Update(remove)
		require.NoError(t, err)
		assert.Equal(t, 0, s.Count(model.KindReplicaSet))
	})
	run(k, 3*time.Second)
	assert.Equal(t, 0, s.Count(model.KindReplicaSet))
}

func TestGracefulPodDeletion(t *testing.T) {
	bound := func(name string) *model.Pod {
		p := newPod(name)
		p.Spec.NodeName = "n1"
		return p
	}
	tests := []struct {
		name      string
		pod       *model.Pod
		status    string
		grace     *int64
		wantGrace int64 // -1: removed at once
	}{
		{"bound pod uses spec grace (defaulted 30)", bound("a"), "", nil, 30},
		{"bound pod with spec grace 45", func() *model.Pod {
			p := bound("b")
			p.Spec.TerminationGracePeriodSeconds = model.Ptr(int64(45))
			return p
		}(), "", nil, 45},
		{"option overrides spec", bound("c"), "", model.Ptr(int64(10)), 10},
		{"negative option means 1", bound("d"), "", model.Ptr(int64(-5)), 1},
		{"unscheduled pod goes at once", newPod("e"), "", nil, -1},
		{"succeeded pod goes at once", bound("f"), model.PodSucceeded, nil, -1},
		{"failed pod goes at once", bound("g"), model.PodFailed, nil, -1},
		{"grace 0 goes at once", bound("h"), "", model.Ptr(int64(0)), -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, s := newTestStore(t, nil)
			k.After(10*time.Second, func() {
				created := mustCreate(t, s, tc.pod)
				if tc.status != "" {
					st := copyOf(created)
					st.Status.Phase = tc.status
					_, err := s.UpdateStatus(st)
					require.NoError(t, err)
				}
				before := s.Revision()
				got, err := s.Delete(model.KindPod, "default", tc.pod.Name, model.DeleteOptions{GracePeriodSeconds: tc.grace})
				require.NoError(t, err)
				if tc.wantGrace < 0 {
					assert.Equal(t, 0, s.Count(model.KindPod))
					assert.Equal(t, before+2, s.Revision(), "marking with grace 0, then removal")
					return
				}
				assert.Equal(t, 1, s.Count(model.KindPod))
				assert.Equal(t, before+1, s.Revision())
				m := got.Meta()
				assert.Equal(t, tc.wantGrace, *m.DeletionGracePeriodSeconds)
				assert.Equal(t, vtime.FromDuration(10*time.Second+time.Duration(tc.wantGrace)*time.Second), *m.DeletionTimestamp)
				assert.Equal(t, created.Generation+1, m.Generation)
			})
			run(k, 11*time.Second)
		})
	}
}

func TestGracePeriodCanOnlyBeShortened(t *testing.T) {
	_, s := newTestStore(t, nil)
	pod := newPod("p")
	pod.Spec.NodeName = "n1"
	mustCreate(t, s, pod)
	marked, err := s.Delete(model.KindPod, "default", "p", model.DeleteOptions{})
	require.NoError(t, err)
	ts := *marked.Meta().DeletionTimestamp
	require.Equal(t, int64(30), *marked.Meta().DeletionGracePeriodSeconds)

	for _, longer := range []*int64{nil, model.Ptr(int64(30)), model.Ptr(int64(60))} {
		rev := s.Revision()
		got, err := s.Delete(model.KindPod, "default", "p", model.DeleteOptions{GracePeriodSeconds: longer})
		require.NoError(t, err)
		assert.Same(t, marked, got, "a delete that does not shorten the grace changes nothing")
		assert.Equal(t, rev, s.Revision())
	}

	got, err := s.Delete(model.KindPod, "default", "p", model.DeleteOptions{GracePeriodSeconds: model.Ptr(int64(5))})
	require.NoError(t, err)
	assert.Equal(t, int64(5), *got.Meta().DeletionGracePeriodSeconds)
	assert.Equal(t, ts.Add(-25*time.Second), *got.Meta().DeletionTimestamp)
	assert.Equal(t, 1, s.Count(model.KindPod))

	// The kubelet's final delete.
	_, err = s.Delete(model.KindPod, "default", "p", model.DeleteOptions{GracePeriodSeconds: model.Ptr(int64(0))})
	require.NoError(t, err)
	assert.Equal(t, 0, s.Count(model.KindPod))
}

func TestPodWithFinalizerOutlivesGraceUntilFinalizersGo(t *testing.T) {
	_, s := newTestStore(t, nil)
	pod := newPod("p")
	pod.Spec.NodeName = "n1"
	pod.Finalizers = []string{"example.com/hold"}
	mustCreate(t, s, pod)
	_, err := s.Delete(model.KindPod, "default", "p", model.DeleteOptions{})
	require.NoError(t, err)

	// Removing the finalizer while the grace period runs does not remove the pod.
	cur, _ := s.Get(model.KindPod, "default", "p")
	upd := copyOf(cur.(*model.Pod))
	upd.Finalizers = nil
	_, err = s.Update(upd)
	require.NoError(t, err)
	assert.Equal(t, 1, s.Count(model.KindPod))

	// With no finalizers left, the final delete removes it.
	_, err = s.Delete(model.KindPod, "default", "p", model.DeleteOptions{GracePeriodSeconds: model.Ptr(int64(0))})
	require.NoError(t, err)
	assert.Equal(t, 0, s.Count(model.KindPod))
}

func TestDeletePropagationFinalizers(t *testing.T) {
	policy := func(p model.DeletionPropagation) *model.DeletionPropagation { return &p }
	tests := []struct {
		name       string
		existing   []string
		policy     *model.DeletionPropagation
		kind       model.Kind
		wantGone   bool
		finalizers []string
	}{
		{"background default removes at once", nil, nil, model.KindReplicaSet, true, nil},
		{"explicit background", nil, policy(model.DeletePropagationBackground), model.KindReplicaSet, true, nil},
		{"foreground", nil, policy(model.DeletePropagationForeground), model.KindReplicaSet, false, []string{model.FinalizerDeleteDependents}},
		{"orphan", nil, policy(model.DeletePropagationOrphan), model.KindReplicaSet, false, []string{model.FinalizerOrphanDependents}},
		{"existing orphan finalizer decides", []string{model.FinalizerOrphanDependents}, nil, model.KindReplicaSet, false, []string{model.FinalizerOrphanDependents}},
		{"policy replaces existing GC finalizer", []string{"example.com/x", model.FinalizerOrphanDependents}, policy(model.DeletePropagationForeground), model.KindReplicaSet, false, []string{"example.com/x", model.FinalizerDeleteDependents}},
		{"events ignore propagation", nil, policy(model.DeletePropagationForeground), model.KindEvent, true, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, s := newTestStore(t, nil)
			var obj model.Object
			if tc.kind == model.KindEvent {
				obj = &model.Event{ObjectMeta: model.ObjectMeta{Name: "o", Namespace: "default"}, InvolvedObject: model.ObjectReference{Kind: model.KindPod, Name: "p", Namespace: "default"}, Reason: "R", Message: "m"}
			} else {
				obj = newReplicaSet("o", 1)
			}
			obj.Meta().Finalizers = tc.existing
			_, err := s.Create(obj)
			require.NoError(t, err)
			got, err := s.Delete(tc.kind, "default", "o", model.DeleteOptions{PropagationPolicy: tc.policy})
			require.NoError(t, err)
			if tc.wantGone {
				assert.Equal(t, 0, s.Count(tc.kind))
				return
			}
			assert.Equal(t, 1, s.Count(tc.kind))
			assert.Equal(t, tc.finalizers, got.Meta().Finalizers)
			assert.NotNil(t, got.Meta().DeletionTimestamp)
		})
	}

	_, s := newTestStore(t, nil)
	mustCreate(t, s, newReplicaSet("o", 1))
	_, err := s.Delete(model.KindReplicaSet, "default", "o", model.DeleteOptions{PropagationPolicy: policy("Sideways")})
	require.True(t, apierrors.IsInvalid(err), "%v", err)
	assert.Contains(t, err.Error(), "propagationPolicy: Unsupported value")
}

func TestDeletePreconditions(t *testing.T) {
	_, s := newTestStore(t, nil)
	rs := mustCreate(t, s, newReplicaSet("rs", 1))
	tests := []struct {
		name string
		pre  model.Preconditions
		msg  string
	}{
		{"uid", model.Preconditions{UID: model.Ptr("other")}, "the UID in the precondition (other) does not match the UID in record"},
		{"resourceVersion", model.Preconditions{ResourceVersion: model.Ptr(rs.ResourceVersion - 1)}, "the ResourceVersion in the precondition"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Delete(model.KindReplicaSet, "default", "rs", model.DeleteOptions{Preconditions: &tc.pre})
			require.True(t, apierrors.IsConflict(err), "%v", err)
			assert.Contains(t, err.Error(), tc.msg)
			assert.Equal(t, 1, s.Count(model.KindReplicaSet))
		})
	}
	_, err := s.Delete(model.KindReplicaSet, "default", "rs", model.DeleteOptions{Preconditions: &model.Preconditions{UID: model.Ptr(rs.UID), ResourceVersion: model.Ptr(rs.ResourceVersion)}})
	require.NoError(t, err)
	assert.Equal(t, 0, s.Count(model.KindReplicaSet))
	_, err = s.Delete(model.KindReplicaSet, "default", "rs", model.DeleteOptions{})
	assert.True(t, apierrors.IsNotFound(err), "%v", err)
}

func TestGenerateName(t *testing.T) {
	_, s := newTestStore(t, nil)
	pod := newPod("")
	pod.GenerateName = "web-"
	got := mustCreate(t, s, pod)
	assert.Regexp(t, regexp.MustCompile(`^web-[bcdfghjklmnpqrstvwxz2456789]{5}$`), got.Name)

	long := newPod("")
	long.GenerateName = strings.Repeat("a", 70)
	gotLong := mustCreate(t, s, long)
	assert.Len(t, gotLong.Name, 63)
	assert.True(t, strings.HasPrefix(gotLong.Name, strings.Repeat("a", 58)))

	// The same seed gives the same names.
	_, s2 := newTestStore(t, nil)
	again := newPod("")
	again.GenerateName = "web-"
	assert.Equal(t, got.Name, mustCreate(t, s2, again).Name)
}

func TestGenerateNameRetriesOnCollision(t *testing.T) {
	// A store with the same seed predicts the names the generator will draw.
	_, oracle := newTestStore(t, nil)
	var names []string
	for range maxNameGenerationCreateAttempts {
		p := newPod("")
		p.GenerateName = "gen-"
		names = append(names, mustCreate(t, oracle, p).Name)
	}

	t.Run("succeeds on the last attempt", func(t *testing.T) {
		_, s := newTestStore(t, nil)
		for _, n := range names[:maxNameGenerationCreateAttempts-1] {
			mustCreate(t, s, newPod(n))
		}
		p := newPod("")
		p.GenerateName = "gen-"
		assert.Equal(t, names[maxNameGenerationCreateAttempts-1], mustCreate(t, s, p).Name)
	})
	t.Run("gives up after 8 attempts", func(t *testing.T) {
		_, s := newTestStore(t, nil)
		for _, n := range names {
			mustCreate(t, s, newPod(n))
		}
		p := newPod("")
		p.GenerateName = "gen-"
		_, err := s.Create(p)
		require.True(t, apierrors.IsAlreadyExists(err), "%v", err)
		assert.Contains(t, err.Error(), "the server was not able to generate a unique name for the object")
	})
}

func TestNamespaceLifecycle(t *testing.T) {
	_, s := newTestStore(t, nil)
	mustCreate(t, s, &model.Namespace{ObjectMeta: model.ObjectMeta{Name: "team"}})
	inTeam := func(name string) *model.Pod { p := newPod(name); p.Namespace = "team"; return p }
	existing := mustCreate(t, s, inTeam("before"))

	marked, err := s.Delete(model.KindNamespace, "", "team", model.DeleteOptions{})
	require.NoError(t, err)
	assert.Equal(t, model.NamespaceTerminating, marked.(*model.Namespace).Status.Phase)
	assert.NotNil(t, marked.Meta().DeletionTimestamp)
	assert.Equal(t, 1+len(SystemNamespaces), s.Count(model.KindNamespace), "the first delete only marks the namespace")

	_, err = s.Create(inTeam("after"))
	require.True(t, apierrors.IsForbidden(err), "%v", err)
	assert.Contains(t, err.Error(), "unable to create new content in namespace team because it is being terminated")
	causes := err.(apierrors.APIStatus).Status().Details.Causes
	require.NotEmpty(t, causes)
	assert.Equal(t, "NamespaceTerminating", string(causes[len(causes)-1].Type))

	// Updates in a terminating namespace are still allowed.
	upd := copyOf(existing)
	upd.Labels = map[string]string{"a": "b"}
	_, err = s.Update(upd)
	require.NoError(t, err)

	_, err = s.Delete(model.KindNamespace, "", "team", model.DeleteOptions{})
	require.NoError(t, err)
	_, err = s.Get(model.KindNamespace, "", "team")
	assert.True(t, apierrors.IsNotFound(err))

	_, err = s.Create(inTeam("gone"))
	require.True(t, apierrors.IsNotFound(err), "%v", err)
	assert.Contains(t, err.Error(), `namespaces "team" not found`)

	_, err = s.Delete(model.KindNamespace, "", "kube-system", model.DeleteOptions{})
	require.True(t, apierrors.IsForbidden(err), "%v", err)
	assert.Contains(t, err.Error(), "this namespace may not be deleted")
}

func TestDefaultTolerationSeconds(t *testing.T) {
	notReady := model.Toleration{Key: model.TaintNodeNotReady, Operator: "Exists", Effect: model.TaintEffectNoExecute, TolerationSeconds: model.Ptr(int64(300))}
	unreachable := model.Toleration{Key: model.TaintNodeUnreachable, Operator: "Exists", Effect: model.TaintEffectNoExecute, TolerationSeconds: model.Ptr(int64(300))}
	own := model.Toleration{Key: model.TaintNodeNotReady, Operator: "Exists", Effect: model.TaintEffectNoExecute, TolerationSeconds: model.Ptr(int64(10))}
	wildcard := model.Toleration{Operator: "Exists"}
	noEffect := model.Toleration{Key: model.TaintNodeUnreachable, Operator: "Exists"}
	other := model.Toleration{Key: "example.com/gpu", Operator: "Exists", Effect: model.TaintEffectNoSchedule}
	tests := []struct {
		name   string
		edit   func(*StoreConfig)
		given  []model.Toleration
		wanted []model.Toleration
	}{
		{"both added", nil, nil, []model.Toleration{notReady, unreachable}},
		{"unrelated toleration kept", nil, []model.Toleration{other}, []model.Toleration{other, notReady, unreachable}},
		{"not duplicated", nil, []model.Toleration{own}, []model.Toleration{own, unreachable}},
		{"empty key tolerates both", nil, []model.Toleration{wildcard}, []model.Toleration{wildcard}},
		{"empty effect tolerates", nil, []model.Toleration{noEffect}, []model.Toleration{noEffect, notReady}},
		{"flags", func(c *StoreConfig) {
			c.DefaultNotReadyTolerationSeconds = model.Ptr(int64(60))
			c.DefaultUnreachableTolerationSeconds = model.Ptr(int64(90))
		}, nil, []model.Toleration{
			{Key: model.TaintNodeNotReady, Operator: "Exists", Effect: model.TaintEffectNoExecute, TolerationSeconds: model.Ptr(int64(60))},
			{Key: model.TaintNodeUnreachable, Operator: "Exists", Effect: model.TaintEffectNoExecute, TolerationSeconds: model.Ptr(int64(90))},
		}},
		{"plugin disabled", func(c *StoreConfig) { c.DisableDefaultTolerationSeconds = true }, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, s := newTestStore(t, tc.edit)
			pod := newPod("p")
			pod.Spec.Tolerations = tc.given
			got := mustCreate(t, s, pod)
			assert.Equal(t, tc.wanted, got.Spec.Tolerations)

			// An update runs the plugin again without adding anything twice.
			upd := copyOf(got)
			upd.Labels = map[string]string{"x": "y"}
			after, err := s.Update(upd)
			require.NoError(t, err)
			assert.Equal(t, tc.wanted, after.(*model.Pod).Spec.Tolerations)
		})
	}
}

func TestPodBindingThroughUpdate(t *testing.T) {
	k, s := newTestStore(t, nil)
	k.After(4*time.Second, func() {
		pod := mustCreate(t, s, newPod("p"))
		bind := copyOf(pod)
		bind.Spec.NodeName = "n1"
		got, err := s.Update(bind)
		require.NoError(t, err)
		gotPod := got.(*model.Pod)
		assert.Equal(t, "n1", gotPod.Spec.NodeName)
		require.Len(t, gotPod.Status.Conditions, 1)
		assert.Equal(t, model.PodCondition{Type: model.PodScheduled, Status: model.ConditionTrue, LastTransitionTime: vtime.FromDuration(4 * time.Second)}, gotPod.Status.Conditions[0])
		assert.Empty(t, pod.Status.Conditions, "the stored original is not modified")

		rebind := copyOf(gotPod)
		rebind.Spec.NodeName = "n2"
		_, err = s.Update(rebind)
		require.True(t, apierrors.IsConflict(err), "%v", err)
		assert.Equal(t, `Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "n1"`, err.Error())

		// Other spec changes stay forbidden by pod update validation.
		other := copyOf(gotPod)
		other.Spec.RestartPolicy = model.RestartPolicyNever
		_, err = s.Update(other)
		assert.True(t, apierrors.IsInvalid(err), "%v", err)

		// A pod being deleted cannot be bound.
		doomed := newPod("doomed")
		doomed.Finalizers = []string{"example.com/hold"}
		doomedPod := mustCreate(t, s, doomed)
		_, err = s.Delete(model.KindPod, "default", "doomed", model.DeleteOptions{})
		require.NoError(t, err)
		cur, _ := s.Get(model.KindPod, "default", "doomed")
		late := copyOf(cur.(*model.Pod))
		late.Spec.NodeName = "n1"
		_, err = s.Update(late)
		require.True(t, apierrors.IsConflict(err), "%v", err)
		assert.Contains(t, err.Error(), "pod doomed is being deleted, cannot be assigned to a host")
		assert.NotNil(t, doomedPod)
	})
	run(k, 5*time.Second)
}

func TestListSortedByKeyWithSelectors(t *testing.T) {
	_, s := newTestStore(t, nil)
	for _, ns := range []string{"a", "a-b"} {
		mustCreate(t, s, &model.Namespace{ObjectMeta: model.ObjectMeta{Name: ns}})
	}
	create := func(ns, name string, lbl map[string]string) {
		p := newPod(name)
		p.Namespace = ns
		p.Labels = lbl
		mustCreate(t, s, p)
	}
	create("a-b", "x", map[string]string{"tier": "web"})
	create("a", "z", map[string]string{"tier": "db"})
	create("a", "x", map[string]string{"tier": "web"})
	create("default", "m", nil)

	keys := func(objs []model.Object) []string {
		var out []string
		for _, o := range objs {
			out = append(out, model.Key(o))
		}
		return out
	}
	tests := []struct {
		name string
		opts model.ListOptions
		want []string
	}{
		// "a-b/x" < "a/x" as strings ('-' sorts before '/'): keys, not (namespace, name) pairs.
		{"all, sorted by key", model.ListOptions{}, []string{"a-b/x", "a/x", "a/z", "default/m"}},
		{"namespace", model.ListOptions{Namespace: "a"}, []string{"a/x", "a/z"}},
		{"label selector", model.ListOptions{LabelSelector: labels.SelectorFromSet(labels.Set{"tier": "web"})}, []string{"a-b/x", "a/x"}},
		{"field metadata.name", model.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", "x")}, []string{"a-b/x", "a/x"}},
		{"field metadata.namespace", model.ListOptions{FieldSelector: fields.OneTermNotEqualSelector("metadata.namespace", "a")}, []string{"a-b/x", "default/m"}},
		{"fields.Nothing", model.ListOptions{FieldSelector: fields.Nothing()}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, rv, err := s.List(model.KindPod, tc.opts)
			require.NoError(t, err)
			assert.Equal(t, s.Revision(), rv)
			assert.Equal(t, tc.want, keys(got))
		})
	}

	_, _, err := s.List(model.KindPod, model.ListOptions{FieldSelector: fields.OneTermEqualSelector("spec.hostNetwork", "true")})
	require.True(t, apierrors.IsBadRequest(err), "%v", err)
	assert.Contains(t, err.Error(), "field label not supported: spec.hostNetwork")
	_, _, err = s.List(model.KindNode, model.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.namespace", "x")})
	assert.True(t, apierrors.IsBadRequest(err), "cluster-scoped kinds have no metadata.namespace field: %v", err)
}

func TestFieldSelectorNodeNameAndPhase(t *testing.T) {
	_, s := newTestStore(t, nil)
	for i, node := range []string{"n1", "n2", "n1", ""} {
		p := newPod("p" + string(rune('0'+i)))
		p.Spec.NodeName = node
		created := mustCreate(t, s, p)
		if i == 2 {
			st := copyOf(created)
			st.Status.Phase = model.PodSucceeded
			_, err := s.UpdateStatus(st)
			require.NoError(t, err)
		}
	}
	names := func(sel fields.Selector) []string {
		got, _, err := s.List(model.KindPod, model.ListOptions{FieldSelector: sel})
		require.NoError(t, err)
		var out []string
		for _, o := range got {
			out = append(out, o.Meta().Name)
		}
		return out
	}
	assert.Equal(t, []string{"p0", "p2"}, names(fields.OneTermEqualSelector("spec.nodeName", "n1")))
	assert.Equal(t, []string{"p3"}, names(fields.OneTermEqualSelector("spec.nodeName", "")))
	sel, err := fields.ParseSelector("spec.nodeName=n1,status.phase!=Succeeded")
	require.NoError(t, err)
	assert.Equal(t, []string{"p0"}, names(sel))
}

func TestPatch(t *testing.T) {
	_, s := newTestStore(t, nil)
	pod := newPod("p")
	pod.Labels = map[string]string{"keep": "1", "drop": "1"}
	created := mustCreate(t, s, pod)

	got, err := s.Patch(model.KindPod, "default", "p", []byte(`{"metadata":{"labels":{"drop":null,"new":"2"}}}`))
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"keep": "1", "new": "2"}, got.Meta().Labels)
	assert.Equal(t, s.Revision(), got.Meta().ResourceVersion)
	assert.Equal(t, created.UID, got.Meta().UID)

	// A patch through the main resource cannot change status; through status it can.
	got, err = s.Patch(model.KindPod, "default", "p", []byte(`{"status":{"phase":"Running"}}`))
	require.NoError(t, err)
	assert.Equal(t, model.PodPending, got.(*model.Pod).Status.Phase)
	got, err = s.PatchStatus(model.KindPod, "default", "p", []byte(`{"status":{"phase":"Running"}}`))
	require.NoError(t, err)
	assert.Equal(t, model.PodRunning, got.(*model.Pod).Status.Phase)

	tests := []struct {
		name  string
		patch string
		check func(error) bool
		msg   string
	}{
		{"stale resourceVersion", `{"metadata":{"resourceVersion":1,"labels":{"x":"y"}}}`, apierrors.IsConflict, "the object has been modified"},
		{"not JSON", `{"metadata":`, apierrors.IsBadRequest, "invalid JSON merge patch"},
		{"rename", `{"metadata":{"name":"q"}}`, apierrors.IsBadRequest, "does not match the name on the URL"},
		{"wrong type", `{"spec":{"containers":"many"}}`, apierrors.IsInvalid, "patch: Invalid value"},
		{"too deep", strings.Repeat(`{"a":`, 100) + "1" + strings.Repeat("}", 100), apierrors.IsBadRequest, "nests deeper"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rev := s.Revision()
			_, err := s.Patch(model.KindPod, "default", "p", []byte(tc.patch))
			require.Error(t, err)
			assert.True(t, tc.check(err), "%v", err)
			assert.Contains(t, err.Error(), tc.msg)
			assert.Equal(t, rev, s.Revision())
		})
	}
	_, err = s.Patch(model.KindPod, "default", "missing", []byte(`{}`))
	assert.True(t, apierrors.IsNotFound(err))
}

func TestCreateOnUpdateForLeases(t *testing.T) {
	_, s := newTestStore(t, nil)
	lease := newLease("n1")
	lease.ResourceVersion = 17 // ignored on the create path
	got, err := s.Update(lease)
	require.NoError(t, err)
	assert.Equal(t, s.Revision(), got.Meta().ResourceVersion)
	assert.NotEmpty(t, got.Meta().UID)

	_, err = s.Update(newPod("missing"))
	assert.True(t, apierrors.IsNotFound(err), "pods cannot be created by update: %v", err)
}

func TestSignificantWritesMarkActivity(t *testing.T) {
	k, s := newTestStore(t, nil)
	node := newNode("n1")
	node.Status.Conditions = []model.NodeCondition{{Type: model.NodeReady, Status: model.ConditionTrue, LastHeartbeatTime: 0}}
	mustCreate(t, s, node)
	mustCreate(t, s, newLease("n1"))

	step := func(at time.Duration, write func()) {
		k.After(at-k.Now().Duration(), write)
		run(k, at-k.Now().Duration())
	}
	heartbeat := func(status model.ConditionStatus) func() {
		return func() {
			cur, _ := s.Get(model.KindNode, "", "n1")
			n := copyOf(cur.(*model.Node))
			n.Status.Conditions[0].LastHeartbeatTime = k.Now()
			n.Status.Conditions[0].Status = status
			_, err := s.UpdateStatus(n)
			require.NoError(t, err)
		}
	}
	step(10*time.Second, heartbeat(model.ConditionTrue))
	assert.Equal(t, vtime.Time(0), k.LastActivity(), "a heartbeat-only node status update is not significant")

	step(20*time.Second, func() {
		cur, _ := s.Get(model.KindLease, "kube-node-lease", "n1")
		l := copyOf(cur.(*model.Lease))
		l.Spec.RenewTime = model.Ptr(k.Now())
		_, err := s.Update(l)
		require.NoError(t, err)
	})
	assert.Equal(t, vtime.Time(0), k.LastActivity(), "lease renewals are not significant")

	step(30*time.Second, heartbeat(model.ConditionFalse))
	assert.Equal(t, vtime.FromDuration(30*time.Second), k.LastActivity(), "a condition change is significant")

	step(40*time.Second, func() { mustCreate(t, s, newPod("p")) })
	assert.Equal(t, vtime.FromDuration(40*time.Second), k.LastActivity())

	// The predicate is configurable.
	k2, s2 := newTestStore(t, func(c *StoreConfig) {
		c.IsSignificantWrite = func(kind model.Kind, old, new model.Object) bool { return kind == model.KindLease }
	})
	k2.After(5*time.Second, func() { mustCreate(t, s2, newPod("p")) })
	k2.After(7*time.Second, func() { mustCreate(t, s2, newLease("l")) })
	run(k2, 6*time.Second)
	assert.Equal(t, vtime.Time(0), k2.LastActivity())
	run(k2, 2*time.Second)
	assert.Equal(t, vtime.FromDuration(7*time.Second), k2.LastActivity())
}

func TestEveryWriteEmitsOneTraceLine(t *testing.T) {
	k := sim.New(1)
	var buf bytes.Buffer
	k.Trace().SetWriter(&buf)
	s := NewStore(k, DefaultStoreConfig())
	buf.Reset()
	pod := newPod("p")
	pod.Spec.NodeName = "n1"
	created := mustCreate(t, s, pod)
	_, err := s.Get(model.KindPod, "default", "p")
	require.NoError(t, err)
	upd := copyOf(created)
	upd.Labels = map[string]string{"a": "b"}
	_, err = s.Update(upd)
	require.NoError(t, err)
	_, err = s.Delete(model.KindPod, "default", "p", model.DeleteOptions{GracePeriodSeconds: model.Ptr(int64(0))})
	require.NoError(t, err)
	assert.Equal(t, strings.Join([]string{
		"0.000000 kube-apiserver create Pod default/p rv=5",
		"0.000000 kube-apiserver update Pod default/p rv=6",
		"0.000000 kube-apiserver delete Pod default/p rv=7 grace=0s",
		"0.000000 kube-apiserver deleted Pod default/p rv=8",
		"",
	}, "\n"), buf.String())
}

func TestUnknownKind(t *testing.T) {
	_, s := newTestStore(t, nil)
	_, err := s.Get("Widget", "default", "w")
	require.True(t, apierrors.IsNotFound(err))
	assert.Contains(t, err.Error(), "the server could not find the requested resource")
	_, _, err = s.List("Widget", model.ListOptions{})
	assert.True(t, apierrors.IsNotFound(err))
	assert.Equal(t, 0, s.Count("Widget"))
}

func TestFieldSelectorsPerKind(t *testing.T) {
	_, s := newTestStore(t, nil)
	node := newNode("n1")
	node.Spec.Unschedulable = true
	mustCreate(t, s, node)
	mustCreate(t, s, newNode("n2"))
	rs := mustCreate(t, s, newReplicaSet("rs", 2))
	st := copyOf(rs)
	st.Status.Replicas = 2
	_, err := s.UpdateStatus(st)
	require.NoError(t, err)
	mustCreate(t, s, &model.Event{
		ObjectMeta:     model.ObjectMeta{Name: "e1", Namespace: "default"},
		InvolvedObject: model.ObjectReference{Kind: model.KindPod, Namespace: "default", Name: "web", UID: "u1", APIVersion: "v1", ResourceVersion: 12},
		Reason:         "Scheduled", Message: "assigned", Source: model.EventSource{Component: "default-scheduler"}, Type: model.EventTypeNormal,
	})
	pod := newPod("p")
	pod.Spec.RestartPolicy = model.RestartPolicyNever
	created := mustCreate(t, s, pod)
	ps := copyOf(created)
	ps.Status.PodIP = "10.0.0.7"
	_, err = s.UpdateStatus(ps)
	require.NoError(t, err)

	tests := []struct {
		kind     model.Kind
		selector string
		want     int
	}{
		{model.KindNode, "spec.unschedulable=true", 1},
		{model.KindNode, "spec.unschedulable!=true", 1},
		{model.KindNamespace, "status.phase=Active", len(SystemNamespaces)},
		{model.KindReplicaSet, "status.replicas=2", 1},
		{model.KindReplicaSet, "status.replicas=3", 0},
		{model.KindEvent, "involvedObject.kind=Pod,involvedObject.name=web,involvedObject.namespace=default", 1},
		{model.KindEvent, "involvedObject.uid=u1,involvedObject.apiVersion=v1,involvedObject.resourceVersion=12", 1},
		{model.KindEvent, "reason=Scheduled,source=default-scheduler,type=Normal", 1},
		{model.KindEvent, "type=Warning", 0},
		{model.KindPod, "spec.restartPolicy=Never,spec.schedulerName=default-scheduler,status.podIP=10.0.0.7", 1},
		{model.KindLease, "metadata.namespace=kube-node-lease", 0},
	}
	for _, tc := range tests {
		t.Run(string(tc.kind)+" "+tc.selector, func(t *testing.T) {
			sel, err := fields.ParseSelector(tc.selector)
			require.NoError(t, err)
			got, _, err := s.List(tc.kind, model.ListOptions{FieldSelector: sel})
			require.NoError(t, err)
			assert.Len(t, got, tc.want)
		})
	}
	for _, bad := range []struct {
		kind  model.Kind
		field string
	}{{model.KindLease, "spec.holderIdentity"}, {model.KindNode, "status.phase"}, {model.KindReplicaSet, "spec.nodeName"}} {
		_, _, err := s.List(bad.kind, model.ListOptions{FieldSelector: fields.OneTermEqualSelector(bad.field, "x")})
		require.True(t, apierrors.IsBadRequest(err), "%s %s: %v", bad.kind, bad.field, err)
		assert.Contains(t, err.Error(), bad.field)
	}
}

func TestBindingReplacesAnUnschedulableCondition(t *testing.T) {
	k, s := newTestStore(t, nil)
	k.After(time.Second, func() {
		pod := mustCreate(t, s, newPod("p"))
		st := copyOf(pod)
		st.Status.Conditions = []model.PodCondition{{Type: model.PodScheduled, Status: model.ConditionFalse, Reason: model.PodReasonUnschedulable, Message: "0/3 nodes are available", LastTransitionTime: k.Now()}}
		_, err := s.UpdateStatus(st)
		require.NoError(t, err)
	})
	k.After(5*time.Second, func() {
		cur, _ := s.Get(model.KindPod, "default", "p")
		bind := copyOf(cur.(*model.Pod))
		bind.Spec.NodeName = "n1"
		got, err := s.Update(bind)
		require.NoError(t, err)
		assert.Equal(t, []model.PodCondition{{Type: model.PodScheduled, Status: model.ConditionTrue, LastTransitionTime: vtime.FromDuration(5 * time.Second)}}, got.(*model.Pod).Status.Conditions)
		assert.Equal(t, model.ConditionFalse, cur.(*model.Pod).Status.Conditions[0].Status, "the stored pod is not modified in place")
	})
	run(k, 6*time.Second)
}

func TestOnCommitSeesEveryWriteInOrder(t *testing.T) {
	k := sim.New(1)
	cfg := DefaultStoreConfig()
	type commit struct {
		kind     model.Kind
		old, new uint64
	}
	var got []commit
	rv := func(o model.Object) uint64 {
		if o == nil {
			return 0
		}
		return o.Meta().ResourceVersion
	}
	cfg.OnCommit = func(kind model.Kind, old, new model.Object) { got = append(got, commit{kind, rv(old), rv(new)}) }
	s := NewStore(k, cfg)
	before := len(got) // the system namespaces
	l := &model.Lease{ObjectMeta: model.ObjectMeta{Name: "n1", Namespace: "kube-node-lease"}}
	created, err := s.Create(l)
	require.NoError(t, err)
	upd := created.DeepCopyObject().(*model.Lease)
	upd.Spec.HolderIdentity = "n1"
	stale := upd.DeepCopy()
	stale.Spec.HolderIdentity = "n2"
	_, err = s.Update(upd)
	require.NoError(t, err)
	_, err = s.Update(stale) // a conflict commits nothing
	require.Error(t, err)
	_, err = s.Delete(model.KindLease, "kube-node-lease", "n1", model.DeleteOptions{})
	require.NoError(t, err)
	r := created.Meta().ResourceVersion
	assert.Equal(t, []commit{
		{model.KindLease, 0, r},
		{model.KindLease, r, r + 1},
		{model.KindLease, r + 1, 0},
	}, got[before:])
}

// TestSchedulingAdmissionOnlyChangesItsKinds holds kindStore.schedulingAdmission to what it
// spares: for every kind without it, the Priority and DefaultTolerationSeconds plugins and the
// pod binding leave a write alone (no error, the object unchanged, old validated against).
func TestSchedulingAdmissionOnlyChangesItsKinds(t *testing.T) {
	cfg := DefaultStoreConfig()
	cfg.Priority = true
	st := NewStore(sim.New(1), cfg)
	skipped := 0
	for _, info := range model.Kinds() {
		ks, err := st.kind(info.Kind)
		require.NoError(t, err)
		require.Equal(t, info.Kind == model.KindPod || info.Kind == model.KindPriorityClass, ks.schedulingAdmission, "%s", info.Kind)
		if ks.schedulingAdmission {
			continue
		}
		skipped++
		obj, old := info.New(), info.New()
		obj.Meta().Name, old.Meta().Name = "a", "a"
		before := obj.DeepCopyObject()
		require.NoError(t, st.admitPriority(obj, old), "%s", info.Kind)
		require.NoError(t, st.admitPriority(obj, nil), "%s", info.Kind)
		st.admitDefaultTolerations(obj)
		bound, err := st.bindPod(obj, old)
		require.NoError(t, err, "%s", info.Kind)
		require.Same(t, old, bound, "%s", info.Kind)
		require.Equal(t, before, obj, "%s", info.Kind)
	}
	require.Greater(t, skipped, 10)
}
