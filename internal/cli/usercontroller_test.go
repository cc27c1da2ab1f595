package cli

import (
	"bytes"
	"context"
	_ "embed"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/reconsim/reconsim/operator"
	"github.com/reconsim/reconsim/sim/cluster"
)

//go:embed testdata/one-deployment.yaml
var oneDeployment string

// TestUserControllerPanicExits3: `sim run` with a user controller whose Reconcile panics
// exits 3 (an internal error, not the user's scenario) and names the controller's worker,
// the virtual time and the seed.
func TestUserControllerPanicExits3(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	require.NoError(t, os.WriteFile(file, []byte(oneDeployment), 0o644))
	var stdout, stderr bytes.Buffer
	c := newCLI(&stdout, &stderr)
	c.controllers = []cluster.Controller{operator.Controller("crasher", func(mgr operator.Manager) error {
		return operator.NewControllerManagedBy(mgr).For(&appsv1.Deployment{}).
			Complete(reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
				panic("crasher exploded")
			}))
	})}
	code := c.main([]string{"run", file, "--out", filepath.Join(dir, "out")})
	assert.Equal(t, 3, code, "stderr: %s", stderr.String())
	for _, want := range []string{"crasher-worker-0", "seed 3", "virtual time", "crasher exploded", `The controller "crasher" panicked`} {
		assert.Contains(t, stderr.String(), want)
	}
}
