package operator_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/reconsim/reconsim"
	"github.com/reconsim/reconsim/operator"
)

// annotator is a kubebuilder-style Reconciler: it makes every Deployment carry an annotation
// and an env var on its first container (a field the simulator does not model), updating only
// when what it reads differs from what it wants.
type annotator struct {
	client.Client
	reconciles, updates, conflicts int
}

func (r *annotator) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	r.reconciles++
	var d appsv1.Deployment
	if err := r.Get(ctx, req.NamespacedName, &d); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	want := corev1.EnvVar{Name: "MANAGED_BY", Value: "annotator"}
	c := &d.Spec.Template.Spec.Containers[0]
	if d.Annotations["example.com/managed"] == "true" && len(c.Env) == 1 && c.Env[0] == want {
		return reconcile.Result{}, nil
	}
	if d.Annotations == nil {
		d.Annotations = map[string]string{}
	}
	d.Annotations["example.com/managed"] = "true"
	c.Env = []corev1.EnvVar{want}
	if err := r.Update(ctx, &d); err != nil {
		if apierrors.IsConflict(err) {
			r.conflicts++
		}
		return reconcile.Result{}, err
	}
	r.updates++
	return reconcile.Result{}, nil
}

func (r *annotator) SetupWithManager(mgr operator.Manager) error {
	return operator.NewControllerManagedBy(mgr).For(&appsv1.Deployment{}).Complete(r)
}

// TestUserControllerConverges runs a user controller in a built-in scenario: each Deployment
// is updated once (the env var it wrote reads back, so it does not update forever), and the
// run passes.
func TestUserControllerConverges(t *testing.T) {
	var r *annotator
	var trace strings.Builder
	res, err := reconsim.Run(context.Background(), reconsim.Builtin("rolling-update"), reconsim.WithTrace(&trace),
		reconsim.WithController("annotator", func(mgr operator.Manager) error {
			r = &annotator{Client: mgr.GetClient()}
			return r.SetupWithManager(mgr)
		}))
	require.NoError(t, err)
	assert.True(t, res.Passed)
	assert.Equal(t, 2, r.updates, "one update per Deployment")
	assert.Greater(t, r.reconciles, 2)
	assert.Contains(t, trace.String(), " annotator reconcile ")
	var depth bool
	for _, s := range res.Series {
		depth = depth || s.Name == "workqueue.annotator.depth"
	}
	assert.True(t, depth, "the work-queue series of the user controller")
	t.Logf("reconciles=%d updates=%d conflicts=%d", r.reconciles, r.updates, r.conflicts)
}

// TestSameSeedSameEvents: two runs with a user controller inside write identical events.jsonl.
func TestSameSeedSameEvents(t *testing.T) {
	var outs []string
	for i := range 2 {
		dir := filepath.Join(t.TempDir(), "out")
		_, err := reconsim.Run(context.Background(), reconsim.Builtin("rolling-update"), reconsim.WithOut(dir), reconsim.WithSeed(7),
			reconsim.WithController("annotator", func(mgr operator.Manager) error {
				return (&annotator{Client: mgr.GetClient()}).SetupWithManager(mgr)
			}))
		require.NoError(t, err, "run %d", i)
		data, err := os.ReadFile(filepath.Join(dir, "events.jsonl"))
		require.NoError(t, err)
		outs = append(outs, string(data))
	}
	assert.NotEmpty(t, outs[0])
	assert.Equal(t, outs[0], outs[1])
}
