package cluster

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
)

func TestInvariantCheckerCatchesViolations(t *testing.T) {
	w := &world{k: sim.New(1), conv: newConvergence()}
	o := newObserver(w)
	w.obs = o
	pod := func(rv uint64, node string) *model.Pod {
		return &model.Pod{ObjectMeta: model.ObjectMeta{Name: "p", Namespace: "default", UID: "u1", ResourceVersion: rv}, Spec: model.PodSpec{NodeName: node}}
	}
	o.checkInvariants(model.KindPod, nil, pod(5, ""))
	o.checkInvariants(model.KindPod, nil, pod(6, "n1"))
	assert.Empty(t, o.violations)
	o.checkInvariants(model.KindPod, nil, pod(6, "n1"))
	o.checkInvariants(model.KindPod, nil, pod(7, "n2"))
	assert.Len(t, o.violations, 2)
	assert.True(t, strings.Contains(o.violations[0], "resourceVersion 6 after 6"), o.violations[0])
	assert.True(t, strings.Contains(o.violations[1], "moved from node n1 to n2"), o.violations[1])

	l := o.load("n1")
	l.allocCPU, l.allocMem = 1000, 1<<30
	l.cpu = 1500
	o.recheck(l)
	assert.Len(t, o.violations, 3)
	assert.Contains(t, o.violations[2], "request cpu 1500m of 1000m")
}
