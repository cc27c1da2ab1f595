package apiserver

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
)

func webTemplate() model.PodTemplateSpec {
	return model.PodTemplateSpec{
		ObjectMeta: model.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec:       model.PodSpec{Containers: []model.Container{{Name: "app", Image: "nginx:1.27"}}},
	}
}

func webSelector() *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
}

func newDeployment(name string, replicas int32) *model.Deployment {
	return &model.Deployment{
		ObjectMeta: model.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       model.DeploymentSpec{Replicas: model.Ptr(replicas), Selector: webSelector(), Template: webTemplate()},
	}
}

func newStatefulSet(name string, replicas int32) *model.StatefulSet {
	return &model.StatefulSet{
		ObjectMeta: model.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       model.StatefulSetSpec{Replicas: model.Ptr(replicas), Selector: webSelector(), Template: webTemplate(), ServiceName: name},
	}
}

// scaleParent creates a parent of the given kind with 3 replicas and status.replicas 2.
func scaleParent(t *testing.T, s *Store, kind model.Kind) model.Object {
	t.Helper()
	var obj model.Object
	switch kind {
	case model.KindDeployment:
		d := mustCreate(t, s, newDeployment("web", 3))
		d = copyOf(d)
		d.Status.Replicas = 2
		obj = d
	case model.KindReplicaSet:
		rs := mustCreate(t, s, newReplicaSet("web", 3))
		rs = copyOf(rs)
		rs.Status.Replicas = 2
		obj = rs
	case model.KindStatefulSet:
		ss := mustCreate(t, s, newStatefulSet("web", 3))
		ss = copyOf(ss)
		ss.Status.Replicas = 2
		obj = ss
	}
	out, err := s.UpdateStatus(obj)
	require.NoError(t, err)
	return out
}

func TestScaleSubresource(t *testing.T) {
	for _, kind := range []model.Kind{model.KindDeployment, model.KindReplicaSet, model.KindStatefulSet} {
		t.Run(string(kind), func(t *testing.T) {
			_, s := newTestStore(t, nil)
			parent := scaleParent(t, s, kind)
			pm := parent.Meta()
			require.Equal(t, int64(1), pm.Generation)

			sc, err := s.GetScale(kind, "default", pm.Name)
			require.NoError(t, err)
			assert.Equal(t, model.ObjectMeta{Name: pm.Name, Namespace: "default", UID: pm.UID, ResourceVersion: pm.ResourceVersion, CreationTimestamp: pm.CreationTimestamp}, sc.ObjectMeta)
			assert.Equal(t, int32(3), sc.Spec.Replicas)
			assert.Equal(t, model.ScaleStatus{Replicas: 2, Selector: "app=web"}, sc.Status)

			// Update with the current resourceVersion: spec.replicas moves, generation bumps.
			stale := sc.ResourceVersion
			sc.Spec.Replicas = 5
			got, err := s.UpdateScale(kind, "default", pm.Name, sc)
			require.NoError(t, err)
			assert.Equal(t, int32(5), got.Spec.Replicas)
			assert.Greater(t, got.ResourceVersion, stale)
			stored, err := s.Get(kind, "default", pm.Name)
			require.NoError(t, err)
			assert.Equal(t, int64(2), stored.Meta().Generation, "a replica change is a spec change")
			assert.Equal(t, got.ResourceVersion, stored.Meta().ResourceVersion)
			reread, err := s.GetScale(kind, "default", pm.Name)
			require.NoError(t, err)
			assert.Equal(t, got, reread)
			assert.Equal(t, int32(2), reread.Status.Replicas, "status is the parent's, untouched")

			// A stale resourceVersion is a conflict on the parent.
			_, err = s.UpdateScale(kind, "default", pm.Name, &model.Scale{ObjectMeta: model.ObjectMeta{ResourceVersion: stale}, Spec: model.ScaleSpec{Replicas: 1}})
			require.Error(t, err)
			assert.True(t, apierrors.IsConflict(err), "%v", err)
			assert.Contains(t, err.Error(), "the object has been modified")

			// No resourceVersion: unconditional, as the apps strategies allow.
			rev := s.Revision()
			got, err = s.UpdateScale(kind, "default", pm.Name, &model.Scale{Spec: model.ScaleSpec{Replicas: 5}})
			require.NoError(t, err)
			assert.Equal(t, rev, s.Revision(), "the same count writes nothing")
			assert.Equal(t, int32(5), got.Spec.Replicas)
			got, err = s.UpdateScale(kind, "default", pm.Name, &model.Scale{Spec: model.ScaleSpec{Replicas: 0}})
			require.NoError(t, err)
			assert.Equal(t, int32(0), got.Spec.Replicas)
			stored, err = s.Get(kind, "default", pm.Name)
			require.NoError(t, err)
			assert.Equal(t, int64(3), stored.Meta().Generation)

			// Negative replicas: 422 naming autoscaling Scale and the field.
			_, err = s.UpdateScale(kind, "default", pm.Name, &model.Scale{Spec: model.ScaleSpec{Replicas: -1}})
			require.Error(t, err)
			assert.True(t, apierrors.IsInvalid(err), "%v", err)
			assert.Equal(t, `Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`, err.Error())
		})
	}
}

func TestScaleSubresourceErrors(t *testing.T) {
	_, s := newTestStore(t, nil)
	mustCreate(t, s, newDeployment("web", 1))
	for _, tc := range []struct {
		name string
		do   func() error
		is   func(error) bool
	}{
		{"get, kind without scale", func() error { _, err := s.GetScale(model.KindPod, "default", "web"); return err }, apierrors.IsNotFound},
		{"get, missing object", func() error { _, err := s.GetScale(model.KindDeployment, "default", "nope"); return err }, apierrors.IsNotFound},
		{"update, nil scale", func() error { _, err := s.UpdateScale(model.KindDeployment, "default", "web", nil); return err }, apierrors.IsBadRequest},
		{"update, name mismatch", func() error {
			_, err := s.UpdateScale(model.KindDeployment, "default", "web", &model.Scale{ObjectMeta: model.ObjectMeta{Name: "other"}})
			return err
		}, apierrors.IsBadRequest},
		{"update, missing object", func() error {
			_, err := s.UpdateScale(model.KindStatefulSet, "default", "web", &model.Scale{})
			return err
		}, apierrors.IsNotFound},
		{"update, kind without scale", func() error {
			_, err := s.UpdateScale(model.KindDaemonSet, "default", "web", &model.Scale{})
			return err
		}, apierrors.IsNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.do()
			require.Error(t, err)
			assert.True(t, tc.is(err), "%v", err)
		})
	}
}

func TestServerScaleSubresource(t *testing.T) {
	k, srv := newTestServer(t, nil)
	mustCreate(t, srv.Store(), newDeployment("web", 2))
	var get, update, patch Response
	k.Spawn("hpa", func(p *sim.Proc) {
		get = srv.Do(p, &Request{Verb: model.VerbGet, Kind: model.KindDeployment, Subresource: SubresourceScale, Namespace: "default", Name: "web"})
		if get.Err != nil {
			return
		}
		sc := get.Object.(*model.Scale).DeepCopy()
		sc.Spec.Replicas = 4
		update = srv.Do(p, &Request{Verb: model.VerbUpdate, Kind: model.KindDeployment, Subresource: SubresourceScale, Namespace: "default", Object: sc})
		patch = srv.Do(p, &Request{Verb: model.VerbPatch, Kind: model.KindDeployment, Subresource: SubresourceScale, Namespace: "default", Name: "web", Patch: []byte(`{}`)})
	})
	k.Run(sim.Limits{})
	require.NoError(t, get.Err)
	assert.Equal(t, int32(2), get.Object.(*model.Scale).Spec.Replicas)
	require.NoError(t, update.Err)
	assert.Equal(t, int32(4), update.Object.(*model.Scale).Spec.Replicas)
	assert.Equal(t, update.Object.Meta().ResourceVersion, update.ResourceVersion)
	assert.True(t, apierrors.IsMethodNotSupported(patch.Err), "%v", patch.Err)
	d, err := srv.Store().Get(model.KindDeployment, "default", "web")
	require.NoError(t, err)
	assert.Equal(t, int32(4), *d.(*model.Deployment).Spec.Replicas)
}
