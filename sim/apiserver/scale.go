package apiserver

import (
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/reconsim/reconsim/model"
)

// The scale subresource of Deployments, ReplicaSets and StatefulSets, after upstream's
// ScaleREST ([k8s] pkg/registry/apps/deployment/storage/storage.go,
// pkg/registry/apps/replicaset/storage/storage.go, pkg/registry/apps/statefulset/storage/
// storage.go): a view of spec.replicas, status.replicas and the selector, read and written
// through the parent object.

// SubresourceScale is the Request.Subresource of the scale subresource: Verb get or update
// on Kind Deployment, ReplicaSet or StatefulSet; an update's Object is a *model.Scale.
const SubresourceScale = "scale"

// scaleGroupKind is autoscaling.Kind("Scale"), the kind a 422 on a scale update names.
var scaleGroupKind = schema.GroupKind{Group: "autoscaling", Kind: "Scale"}

// scaleTarget reads the scale-relevant fields of a parent object.
type scaleTarget struct {
	specReplicas   func(model.Object) int32
	statusReplicas func(model.Object) int32
	selector       func(model.Object) *metav1.LabelSelector
	// withReplicas returns a deep copy of the object with spec.replicas set.
	withReplicas func(model.Object, int32) model.Object
	// selectorString, when set, gives status.selector directly (custom resources keep the
	// selector as a string at the CRD's labelSelectorPath); selector is not called then.
	selectorString func(model.Object) string
}

var scaleTargets = map[model.Kind]scaleTarget{
	model.KindDeployment: workloadScale(func(d *model.Deployment) (**int32, int32) {
		return &d.Spec.Replicas, d.Status.Replicas
	}),
	model.KindReplicaSet: workloadScale(func(rs *model.ReplicaSet) (**int32, int32) {
		return &rs.Spec.Replicas, rs.Status.Replicas
	}),
	model.KindStatefulSet: workloadScale(func(ss *model.StatefulSet) (**int32, int32) {
		return &ss.Spec.Replicas, ss.Status.Replicas
	}),
}

// workloadScale is the scaleTarget of an apps/v1 workload kind T, whose fields reads
// returns: where spec.replicas is kept, and status.replicas; its selector is spec.selector
// (model.WorkloadSelector).
func workloadScale[T model.Object](fields func(T) (replicas **int32, statusReplicas int32)) scaleTarget {
	return scaleTarget{
		specReplicas: func(o model.Object) int32 {
			r, _ := fields(o.(T))
			return derefReplicas(*r)
		},
		statusReplicas: func(o model.Object) int32 {
			_, n := fields(o.(T))
			return n
		},
		selector: model.WorkloadSelector,
		withReplicas: func(o model.Object, n int32) model.Object {
			c := o.DeepCopyObject().(T)
			r, _ := fields(c)
			*r = &n
			return c
		},
	}
}

// derefReplicas reads an optional replica count; defaulting makes it non-nil on stored
// objects, so nil (never stored) reads as upstream's default 1.
func derefReplicas(p *int32) int32 {
	if p == nil {
		return 1
	}
	return *p
}

// scaleKind returns the store and accessors of a kind with a scale subresource; any other
// kind is 404, as upstream serves no such subresource.
func (s *Store) scaleKind(kind model.Kind) (*kindStore, scaleTarget, error) {
	t, ok := scaleTargets[kind]
	if !ok {
		if ks := s.kinds[kind]; ks != nil && ks.strat.scale != nil {
			return ks, *ks.strat.scale, nil
		}
		return nil, scaleTarget{}, errUnknownResource(kind)
	}
	ks, err := s.kind(kind)
	return ks, t, err
}

// scaleOf is upstream scaleFromDeployment (and its ReplicaSet and StatefulSet twins): the
// parent's name, namespace, uid, resourceVersion and creation time, spec.replicas,
// status.replicas and the selector in its string form.
func scaleOf(t scaleTarget, obj model.Object) (*model.Scale, error) {
	var selectorString string
	if t.selectorString != nil {
		selectorString = t.selectorString(obj)
	} else {
		selector, err := metav1.LabelSelectorAsSelector(t.selector(obj))
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		selectorString = selector.String()
	}
	m := obj.Meta()
	return &model.Scale{
		ObjectMeta: model.ObjectMeta{
			Name:              m.Name,
			Namespace:         m.Namespace,
			UID:               m.UID,
			ResourceVersion:   m.ResourceVersion,
			CreationTimestamp: m.CreationTimestamp,
		},
		Spec:   model.ScaleSpec{Replicas: t.specReplicas(obj)},
		Status: model.ScaleStatus{Replicas: t.statusReplicas(obj), Selector: selectorString},
	}, nil
}

// GetScale reads the scale subresource of a Deployment, ReplicaSet or StatefulSet: a new
// *model.Scale the caller owns. Errors: 404 for another kind or a missing object.
func (s *Store) GetScale(kind model.Kind, namespace, name string) (*model.Scale, error) {
	ks, t, err := s.scaleKind(kind)
	if err != nil {
		return nil, err
	}
	obj := ks.objects[ks.keyOf(namespace, name)]
	if obj == nil {
		return nil, apierrors.NewNotFound(ks.gr, name)
	}
	return scaleOf(t, obj)
}

// UpdateScale writes the scale subresource of a Deployment, ReplicaSet or StatefulSet: the
// parent's spec.replicas becomes scale.Spec.Replicas through a main-resource update, so its
// generation moves when the count changes and an unchanged count writes nothing. As upstream's
// scaleUpdatedObjectInfo, the scale's resourceVersion becomes the parent's: a stale one is 409
// Conflict on the parent's resource, none (0) updates unconditionally. It returns the scale of
// the stored parent (a new object). Errors: 400 for a nil scale or one naming another object
// or namespace, 404 for another kind or a missing object, 422 (kind autoscaling Scale) for a
// negative replica count, and the parent's update errors.
func (s *Store) UpdateScale(kind model.Kind, namespace, name string, scale *model.Scale) (*model.Scale, error) {
	if scale == nil {
		return nil, apierrors.NewBadRequest("update needs a Scale object")
	}
	ks, t, err := s.scaleKind(kind)
	if err != nil {
		return nil, err
	}
	if scale.Name != "" && scale.Name != name {
		return nil, apierrors.NewBadRequest("the name of the object (" + scale.Name + ") does not match the name on the URL (" + name + ")")
	}
	if scale.Namespace != "" && scale.Namespace != namespace {
		return nil, apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	old := ks.objects[ks.keyOf(namespace, name)]
	if old == nil {
		return nil, apierrors.NewNotFound(ks.gr, name)
	}
	if errs := model.ValidateScale(scale); len(errs) > 0 {
		return nil, apierrors.NewInvalid(scaleGroupKind, name, errs)
	}
	updated := t.withReplicas(old, scale.Spec.Replicas)
	updated.Meta().ResourceVersion = scale.ResourceVersion
	stored, err := s.update(ks, updated, false, "update-scale")
	if err != nil {
		return nil, err
	}
	return scaleOf(t, stored)
}
