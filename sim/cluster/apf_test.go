package cluster

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/apiserver"
)

// TestAPFClassifiesComponents: each component's client is classified by the bootstrap flow
// schemas ([apiserver@v0.37] pkg/apis/flowcontrol/bootstrap/default.go) into the priority
// level upstream gives it, from the identity a kubeadm cluster gives it (identity).
func TestAPFClassifiesComponents(t *testing.T) {
	w, err := build(loadBuiltin(t, "node-failure"), 1, Options{})
	require.NoError(t, err)
	require.True(t, w.srv.APFEnabled())
	for _, tc := range []struct {
		client        string
		verb          model.Verb
		kind          model.Kind
		ns, sub       string
		schema, level string
	}{
		{"kubelet/worker-0", model.VerbUpdate, model.KindLease, "kube-node-lease", "", "system-node-high", "node-high"},
		{"kubelet/worker-0", model.VerbPatch, model.KindNode, "", "status", "system-node-high", "node-high"},
		{"kubelet/worker-0", model.VerbPatch, model.KindPod, "default", "status", "system-nodes", "system"},
		{"replicaset-controller", model.VerbCreate, model.KindPod, "default", "", "kube-system-service-accounts", "workload-high"},
		{"node-controller", model.VerbUpdate, model.KindNode, "", "status", "kube-system-service-accounts", "workload-high"},
		{"kube-controller-manager/shared-informers", model.VerbList, model.KindPod, "", "", "kube-controller-manager", "workload-high"},
		{"default-scheduler", model.VerbList, model.KindNode, "", "", "kube-scheduler", "workload-high"},
		{"kube-controller-manager/leader-election/0", model.VerbUpdate, model.KindLease, "kube-system", "", "system-leader-election", "leader-election"},
		{"kubectl", model.VerbCreate, model.KindDeployment, "default", "", "global-default", "global-default"},
		{"rogue-operator", model.VerbList, model.KindPod, "", "", "global-default", "global-default"},
	} {
		fs, pl := w.srv.APFClassify(&apiserver.Request{Client: tc.client, Verb: tc.verb, Kind: tc.kind, Namespace: tc.ns, Subresource: tc.sub})
		assert.Equal(t, [2]string{tc.schema, tc.level}, [2]string{fs, pl}, "%s %s %s", tc.client, tc.verb, tc.kind)
	}
}

// TestAPFOffKeepsMaxInflight: with enable-priority-and-fairness=false the server runs the
// max-in-flight filter.
func TestAPFOffKeepsMaxInflight(t *testing.T) {
	scn := loadBuiltin(t, "node-failure")
	require.NoError(t, scn.Components.Set("kube-apiserver", "enable-priority-and-fairness", "false"))
	w, err := build(scn, 1, Options{})
	require.NoError(t, err)
	assert.False(t, w.srv.APFEnabled())
	assert.Nil(t, w.srv.APFLevels())
}
