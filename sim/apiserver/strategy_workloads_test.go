package apiserver

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/reconsim/reconsim/model"
)

// TestWorkloadKindsGenerationAndStatus checks, per kind, what its upstream strategy does with
// metadata.generation and status: the generation on create, after a spec change, after an
// annotation change and after a label change; that create drops status; and that a status
// update keeps the spec and the generation.
func TestWorkloadKindsGenerationAndStatus(t *testing.T) {
	type gens struct{ create, spec, annotation, label int64 }
	tests := []struct {
		kind        model.Kind
		obj         func() model.Object
		changeSpec  func(model.Object)
		setStatus   func(model.Object) // nil: the kind has no status
		statusIsSet func(model.Object) bool
		want        gens
	}{
		{
			kind:        model.KindDeployment,
			obj:         func() model.Object { return newDeployment("web", 1) },
			changeSpec:  func(o model.Object) { o.(*model.Deployment).Spec.Paused = true },
			setStatus:   func(o model.Object) { o.(*model.Deployment).Status.Replicas = 7 },
			statusIsSet: func(o model.Object) bool { return o.(*model.Deployment).Status.Replicas == 7 },
			want:        gens{create: 1, spec: 2, annotation: 3, label: 3}, // annotations bump too
		},
		{
			kind:        model.KindStatefulSet,
			obj:         func() model.Object { return newStatefulSet("web", 1) },
			changeSpec:  func(o model.Object) { o.(*model.StatefulSet).Spec.Replicas = model.Ptr(int32(4)) },
			setStatus:   func(o model.Object) { o.(*model.StatefulSet).Status.Replicas = 7 },
			statusIsSet: func(o model.Object) bool { return o.(*model.StatefulSet).Status.Replicas == 7 },
			want:        gens{create: 1, spec: 2, annotation: 2, label: 2},
		},
		{
			kind: model.KindDaemonSet,
			obj: func() model.Object {
				return &model.DaemonSet{ObjectMeta: model.ObjectMeta{Name: "web", Namespace: "default"}, Spec: model.DaemonSetSpec{Selector: webSelector(), Template: webTemplate()}}
			},
			changeSpec:  func(o model.Object) { o.(*model.DaemonSet).Spec.MinReadySeconds = 5 },
			setStatus:   func(o model.Object) { o.(*model.DaemonSet).Status.NumberReady = 7 },
			statusIsSet: func(o model.Object) bool { return o.(*model.DaemonSet).Status.NumberReady == 7 },
			want:        gens{create: 1, spec: 2, annotation: 2, label: 2},
		},
		{
			kind: model.KindPodDisruptionBudget,
			obj: func() model.Object {
				return &model.PodDisruptionBudget{ObjectMeta: model.ObjectMeta{Name: "web", Namespace: "default"}, Spec: model.PodDisruptionBudgetSpec{Selector: webSelector(), MinAvailable: model.Ptr(intstr.FromInt32(1))}}
			},
			changeSpec: func(o model.Object) {
				o.(*model.PodDisruptionBudget).Spec.MinAvailable = model.Ptr(intstr.FromInt32(2))
			},
			setStatus:   func(o model.Object) { o.(*model.PodDisruptionBudget).Status.DisruptionsAllowed = 7 },
			statusIsSet: func(o model.Object) bool { return o.(*model.PodDisruptionBudget).Status.DisruptionsAllowed == 7 },
			want:        gens{create: 1, spec: 2, annotation: 2, label: 2},
		},
		{
			kind: model.KindHorizontalPodAutoscaler,
			obj: func() model.Object {
				return &model.HorizontalPodAutoscaler{ObjectMeta: model.ObjectMeta{Name: "web", Namespace: "default"}, Spec: model.HorizontalPodAutoscalerSpec{
					ScaleTargetRef: model.CrossVersionObjectReference{Kind: "Deployment", Name: "web", APIVersion: "apps/v1"}, MaxReplicas: 5}}
			},
			changeSpec:  func(o model.Object) { o.(*model.HorizontalPodAutoscaler).Spec.MaxReplicas = 9 },
			setStatus:   func(o model.Object) { o.(*model.HorizontalPodAutoscaler).Status.DesiredReplicas = 7 },
			statusIsSet: func(o model.Object) bool { return o.(*model.HorizontalPodAutoscaler).Status.DesiredReplicas == 7 },
			want:        gens{}, // the HPA strategy does not track generation
		},
		{
			kind: model.KindService,
			obj: func() model.Object {
				return &model.Service{ObjectMeta: model.ObjectMeta{Name: "web", Namespace: "default"}, Spec: model.ServiceSpec{Selector: map[string]string{"app": "web"}, Ports: []model.ServicePort{{Port: 80}}}}
			},
			changeSpec: func(o model.Object) { o.(*model.Service).Spec.Ports[0].Port = 8080 },
			want:       gens{},
		},
		{
			kind: model.KindEndpointSlice,
			obj: func() model.Object {
				return &model.EndpointSlice{ObjectMeta: model.ObjectMeta{Name: "web-abc", Namespace: "default"}, AddressType: model.AddressTypeIPv4,
					Endpoints: []model.Endpoint{{Addresses: []string{"10.0.0.1"}}}}
			},
			changeSpec: func(o model.Object) {
				o.(*model.EndpointSlice).Endpoints[0].Conditions.Ready = model.Ptr(true)
			},
			want: gens{create: 1, spec: 2, annotation: 2, label: 3}, // labels bump too
		},
		{
			kind: model.KindControllerRevision,
			obj: func() model.Object {
				return &model.ControllerRevision{ObjectMeta: model.ObjectMeta{Name: "web-1", Namespace: "default"}, Revision: 1, Data: model.ControllerRevisionData{Template: webTemplate()}}
			},
			changeSpec: func(o model.Object) { o.(*model.ControllerRevision).Revision = 2 },
			want:       gens{},
		},
	}
	for _, tc := range tests {
		t.Run(string(tc.kind), func(t *testing.T) {
			_, s := newTestStore(t, nil)
			obj := tc.obj()
			if tc.setStatus != nil {
				tc.setStatus(obj)
			}
			created, err := s.Create(obj)
			require.NoError(t, err)
			assert.Equal(t, tc.want.create, created.Meta().Generation, "create")
			if tc.statusIsSet != nil {
				assert.False(t, tc.statusIsSet(created), "create resets status")
			}

			next := created.DeepCopyObject()
			tc.changeSpec(next)
			updated, err := s.Update(next)
			require.NoError(t, err)
			assert.Equal(t, tc.want.spec, updated.Meta().Generation, "spec change")

			next = updated.DeepCopyObject()
			next.Meta().Annotations = map[string]string{"note": "x"}
			updated, err = s.Update(next)
			require.NoError(t, err)
			assert.Equal(t, tc.want.annotation, updated.Meta().Generation, "annotation change")

			next = updated.DeepCopyObject()
			next.Meta().Labels = map[string]string{"tier": "front"}
			updated, err = s.Update(next)
			require.NoError(t, err)
			assert.Equal(t, tc.want.label, updated.Meta().Generation, "label change")

			if tc.setStatus == nil {
				return
			}
			next = updated.DeepCopyObject()
			tc.setStatus(next)
			withStatus, err := s.UpdateStatus(next)
			require.NoError(t, err)
			assert.True(t, tc.statusIsSet(withStatus))
			assert.Equal(t, tc.want.label, withStatus.Meta().Generation, "a status update keeps generation")

			// A main-resource update keeps the stored status.
			next = withStatus.DeepCopyObject()
			next.Meta().Annotations = map[string]string{"note": "y"}
			reset := tc.obj()
			next.Meta().DeepCopyInto(reset.Meta())
			afterMain, err := s.Update(reset)
			require.NoError(t, err)
			assert.True(t, tc.statusIsSet(afterMain), "main update keeps status")
		})
	}
}
