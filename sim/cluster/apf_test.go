package cluster

import (
	_ "embed"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/report"
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

// userAPFScenario: a rogue client's LIST storm, confined by the scenario's own FlowSchema to
// the scenario's own priority level (5 shares of 250: ceil(600 × 5 / 250) = 12 seats, no
// lending or borrowing, one short queue); at 25s the timeline widens the level to 50 shares
// (ceil(600 × 50 / 295) = 102 seats), and at 40s deletes the schema, and the storm falls back
// to global-default.
//
//go:embed testdata/user-apf.yaml
var userAPFScenario string

// TestAPFUserConfiguration: a scenario's FlowSchema and PriorityLevelConfiguration are the
// configuration API Priority and Fairness starts with (the user level is in the APF series
// with its own limit, the storm never takes more seats than it and is rejected when its
// queue is full), and an apply and a delete through the timeline reconfigure it once the
// config controller sees them ([apiserver@v0.37] pkg/util/flowcontrol/apf_controller.go).
func TestAPFUserConfiguration(t *testing.T) {
	res := runYAML(t, "user-apf", userAPFScenario)
	series := map[string][]report.Point{}
	for _, s := range res.Series {
		series[s.Name] = s.Points
	}
	maxIn := func(name string, from, to float64) float64 {
		m := -1.0
		for _, p := range series[name] {
			if p.T >= from && p.T < to {
				m = max(m, p.V)
			}
		}
		return m
	}
	require.Contains(t, series, "apf.rogue.executing_seats")
	assert.Equal(t, 12.0, maxIn("apf.rogue.current_limit_seats", 0, 25), "the level's own limit: no lending, no borrowing")
	assert.Equal(t, 12.0, maxIn("apf.rogue.executing_seats", 10, 25), "the storm fills exactly its own seats")
	assert.Positive(t, maxIn("apf.rogue.rejected_per_second", 10, 25), "its short queue overflows")
	assert.Equal(t, 102.0, maxIn("apf.rogue.current_limit_seats", 25, 40), "the applied update is the level's new configuration")
	assert.Greater(t, maxIn("apf.rogue.executing_seats", 25, 40), 12.0, "the storm takes the wider level's seats")
	assert.LessOrEqual(t, maxIn("apf.global-default.executing_seats", 10, 40), 1.0, "the storm stays out of global-default while the schema exists")
	assert.Greater(t, maxIn("apf.global-default.executing_seats", 41, 60), 12.0, "once the schema is deleted the storm runs in global-default, which borrows")
	// A series records a point when its value changes (and one at the end).
	assert.Equal(t, 0.0, maxIn("apf.rogue.executing_seats", 40, 70), "the user level is idle after the reroute")
}
