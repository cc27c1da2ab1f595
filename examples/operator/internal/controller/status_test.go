package controller_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	webappv1alpha1 "github.com/reconsim/reconsim/examples/operator/api/v1alpha1"
	"github.com/reconsim/reconsim/examples/operator/internal/controller"
)

// TestStatus: the status a WebApp should report. The Available condition's
// lastTransitionTime moves only when its status flips (meta.SetStatusCondition), and it is
// the time given, never the wall clock.
func TestStatus(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Minute))
	available := func(status metav1.ConditionStatus, reason, msg string, gen int64, at metav1.Time) []metav1.Condition {
		return []metav1.Condition{{Type: controller.ConditionAvailable, Status: status, Reason: reason, Message: msg, ObservedGeneration: gen, LastTransitionTime: at}}
	}
	for _, tc := range []struct {
		name     string
		old      webappv1alpha1.WebAppStatus
		gen      int64
		replicas *int32
		ready    int32
		want     webappv1alpha1.WebAppStatus
	}{
		{name: "first status, not ready", gen: 1, replicas: ptr.To[int32](3), ready: 0,
			want: webappv1alpha1.WebAppStatus{ObservedGeneration: 1, Conditions: available(metav1.ConditionFalse, "ReplicasNotReady", "0 of 3 replicas ready", 1, t1)}},
		{name: "becomes ready: the transition time moves", gen: 1, replicas: ptr.To[int32](3), ready: 3,
			old:  webappv1alpha1.WebAppStatus{ObservedGeneration: 1, Conditions: available(metav1.ConditionFalse, "ReplicasNotReady", "0 of 3 replicas ready", 1, t0)},
			want: webappv1alpha1.WebAppStatus{ObservedGeneration: 1, ReadyReplicas: 3, Conditions: available(metav1.ConditionTrue, "ReplicasReady", "3 of 3 replicas ready", 1, t1)}},
		{name: "still not ready: the transition time stays", gen: 1, replicas: ptr.To[int32](3), ready: 2,
			old:  webappv1alpha1.WebAppStatus{ObservedGeneration: 1, Conditions: available(metav1.ConditionFalse, "ReplicasNotReady", "0 of 3 replicas ready", 1, t0)},
			want: webappv1alpha1.WebAppStatus{ObservedGeneration: 1, ReadyReplicas: 2, Conditions: available(metav1.ConditionFalse, "ReplicasNotReady", "2 of 3 replicas ready", 1, t0)}},
		{name: "new generation observed", gen: 2, replicas: ptr.To[int32](5), ready: 3,
			old:  webappv1alpha1.WebAppStatus{ObservedGeneration: 1, ReadyReplicas: 3, Conditions: available(metav1.ConditionTrue, "ReplicasReady", "3 of 3 replicas ready", 1, t0)},
			want: webappv1alpha1.WebAppStatus{ObservedGeneration: 2, ReadyReplicas: 3, Conditions: available(metav1.ConditionFalse, "ReplicasNotReady", "3 of 5 replicas ready", 2, t1)}},
		{name: "replicas left out means 1 (the CRD default)", gen: 1, ready: 1,
			want: webappv1alpha1.WebAppStatus{ObservedGeneration: 1, ReadyReplicas: 1, Conditions: available(metav1.ConditionTrue, "ReplicasReady", "1 of 1 replicas ready", 1, t1)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := &webappv1alpha1.WebApp{ObjectMeta: metav1.ObjectMeta{Generation: tc.gen}, Spec: webappv1alpha1.WebAppSpec{Image: "nginx", Replicas: tc.replicas}}
			old := tc.old.DeepCopy()
			got := controller.Status(tc.old, app, tc.ready, t1)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, *old, tc.old, "Status does not modify the status it is given")
			assert.NotNil(t, meta.FindStatusCondition(got.Conditions, controller.ConditionAvailable))
		})
	}
}
