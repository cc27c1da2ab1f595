package controllerutil

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/record"
)

// TestPodControl: each outcome of a create and a delete, its event, its error and its count.
func TestPodControl(t *testing.T) {
	for _, shared := range []bool{false, true} {
		w := newRefWorld()
		sink := &record.FakeSink{}
		var counts PodWrites
		pc := PodControl{Client: w.c, Recorder: record.New(w.k, sink, "test-controller", ""), Shared: shared, Counts: &counts}
		w.run(t, func(ctx context.Context) {
			rs, err := client.CreateAs(ctx, w.c, testRS("rs"))
			require.NoError(t, err)
			ref := NewControllerRef(rs, model.KindReplicaSet, "apps/v1")

			require.NoError(t, pc.CreatePod(ctx, rs, PodFromTemplate(&rs.Spec.Template, rs, ref)))
			bare := PodFromTemplate(&model.PodTemplateSpec{}, rs, ref)
			assert.EqualError(t, pc.CreatePod(ctx, rs, bare), "unable to create pods, no labels")
			dup := testPod("dup", matching)
			require.NoError(t, pc.CreatePod(ctx, rs, dup.DeepCopy()))
			err = pc.CreatePod(ctx, rs, dup)
			assert.True(t, apierrors.IsAlreadyExists(err), "the API error comes back as it is: %v", err)

			require.NoError(t, pc.DeletePod(ctx, rs, "default", "dup"))
			err = pc.DeletePod(ctx, rs, "default", "gone")
			assert.True(t, apierrors.IsNotFound(err), "NotFound comes back as it is: %v", err)
		})
		assert.Equal(t, PodWrites{PodsCreated: 2, CreateErrors: 1, PodsDeleted: 1}, counts, "shared=%t", shared)
		assert.Equal(t, []string{"Normal " + SuccessfulCreatePodReason, "Normal " + SuccessfulCreatePodReason, "Warning " + FailedCreatePodReason, "Normal " + SuccessfulDeletePodReason}, sink.Reasons(), "shared=%t", shared)
	}
}
