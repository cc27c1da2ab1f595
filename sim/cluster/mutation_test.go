package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
)

// cacheMutator is a planted bug: at 3m it takes a pod from its informer's cache (an object the
// API server shares with every reader) and changes its labels in place, as a controller that
// forgets to DeepCopy before editing does.
var cacheMutator = Controller{Name: "cache-mutator", Build: func(k *sim.Kernel, _ *client.Client, f *client.SharedInformerFactory) (Runnable, error) {
	pods := f.For(model.KindPod)
	return &oneShot{k: k, at: 3 * time.Minute, act: func(*sim.Proc) {
		if cached := pods.List(labels.Everything()); len(cached) > 0 {
			p := cached[0].(*model.Pod)
			if p.Labels == nil {
				p.Labels = map[string]string{}
			}
			p.Labels["mutated"] = "yes"
		}
	}}, nil
}}

// TestCheckMutationsCatchesAPlantedMutation: with Options.CheckMutations a run in which a
// component modified a shared stored object fails the invariant stored-objects-unmodified, naming
// the object and the field; the same run without the planted mutation holds it.
func TestCheckMutationsCatchesAPlantedMutation(t *testing.T) {
	tests := []struct {
		name        string
		controllers []Controller
		wantPassed  bool
		wantMessage string
	}{
		{name: "no mutation", wantPassed: true, wantMessage: "held"},
		{name: "planted mutation", controllers: []Controller{cacheMutator}, wantPassed: false,
			wantMessage: `Pod default/db-\d \(resourceVersion \d+\) was modified after the API server stored it, .*: ObjectMeta.Labels\[mutated\] was added`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Run(context.Background(), parseScenario(t, statefulSetScenario), Options{Controllers: tt.controllers, CheckMutations: true})
			require.NoError(t, err)
			r := invariantResult(t, res, StoredObjectsUnmodified)
			assert.Equal(t, tt.wantPassed, r.Passed)
			assert.Regexp(t, tt.wantMessage, r.Message)
			if !tt.wantPassed {
				assert.False(t, res.Passed, "a modified stored object fails the run")
			}
		})
	}
}
