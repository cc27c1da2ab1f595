package operator_test

import (
	"context"
	_ "embed"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
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

// restartScenario runs a Deployment and restarts the annotator at 30s for 10s.
//
//go:embed testdata/annotator-restart.yaml
var restartScenario string

// TestUserControllerRestarts: controller-restart of a user controller stops it and builds it
// again after the downtime (setup runs twice); the new one relists and, since the env var it
// wrote reads back from the run's memory of it, makes no further update.
func TestUserControllerRestarts(t *testing.T) {
	setups := 0
	var all []*annotator
	var trace strings.Builder
	_, err := reconsim.Run(context.Background(), reconsim.Bytes("restart.yaml", []byte(restartScenario)), reconsim.WithTrace(&trace),
		reconsim.WithController("annotator", func(mgr operator.Manager) error {
			setups++
			r := &annotator{Client: mgr.GetClient()}
			all = append(all, r)
			return r.SetupWithManager(mgr)
		}))
	require.NoError(t, err)
	require.Equal(t, 2, setups, "built at start and after the restart")
	assert.Equal(t, 1, all[0].updates)
	assert.Equal(t, 0, all[1].updates, "after the restart the object already is as wanted")
	assert.Greater(t, all[1].reconciles, 0, "the restarted controller reconciles its initial list")
	assert.Contains(t, trace.String(), "component-stop annotator")
}

// panicker's Reconcile panics.
type panicker struct{}

func (panicker) Reconcile(context.Context, reconcile.Request) (reconcile.Result, error) {
	panic("boom in reconcile")
}

// TestUserControllerPanicEndsRun: a panic in Reconcile ends the run as an internal error
// (exit 3 from sim) naming the controller's worker, the virtual time and the seed.
func TestUserControllerPanicEndsRun(t *testing.T) {
	_, err := reconsim.Run(context.Background(), reconsim.Bytes("restart.yaml", []byte(restartScenario)), reconsim.WithSeed(42),
		reconsim.WithController("annotator", func(mgr operator.Manager) error {
			return operator.NewControllerManagedBy(mgr).For(&appsv1.Deployment{}).Complete(panicker{})
		}))
	require.Error(t, err)
	var in *reconsim.InputError
	assert.False(t, errors.As(err, &in), "a panicking controller is not bad input")
	for _, want := range []string{"annotator-worker-0", "seed 42", "boom in reconcile", "virtual time"} {
		assert.Contains(t, err.Error(), want)
	}
}

// recorder records the Requests it is given.
type recorder struct{ reqs map[string]int }

func (r *recorder) Reconcile(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
	r.reqs[req.String()]++
	return reconcile.Result{}, nil
}

// TestOwnsEnqueuesTheController: with the For kind's own events filtered out, Requests come
// only from Owns: each ReplicaSet event enqueues the Deployment its controller reference
// names (handler.EnqueueRequestForOwner with OnlyControllerOwner), never the ReplicaSet.
func TestOwnsEnqueuesTheController(t *testing.T) {
	r := &recorder{reqs: map[string]int{}}
	never := predicate.Funcs{
		CreateFunc: func(event.CreateEvent) bool { return false },
		UpdateFunc: func(event.UpdateEvent) bool { return false },
		DeleteFunc: func(event.DeleteEvent) bool { return false },
	}
	_, err := reconsim.Run(context.Background(), reconsim.Bytes("owns.yaml", []byte(restartScenario[:strings.Index(restartScenario, "timeline:")])),
		reconsim.WithController("owner-watcher", func(mgr operator.Manager) error {
			return operator.NewControllerManagedBy(mgr).
				For(&appsv1.Deployment{}, operator.WithPredicates(never)).
				Owns(&appsv1.ReplicaSet{}).
				Complete(r)
		}))
	require.NoError(t, err)
	assert.Equal(t, []string{"default/web"}, keys(r.reqs), "only the owning Deployment is reconciled")
}

func keys(m map[string]int) []string {
	var out []string
	for k := range m { //detlint:ordered sorted below
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
