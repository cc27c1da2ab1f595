package testworld

import (
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
	"github.com/stretchr/testify/assert"
)

func TestShowFilters(t *testing.T) {
	show := StatusOnRequest("rs", Sources("rs", "test"))
	run := &datadriven.TestData{Cmd: "run"}
	withShow := &datadriven.TestData{Cmd: "run", CmdArgs: []datadriven.CmdArg{{Key: "show"}}}
	cases := []struct {
		line string
		d    *datadriven.TestData
		want bool
	}{
		{"1s rs create Pod", run, true},
		{"1s test kill-node Node", run, true},
		{"1s kube-apiserver create Pod", run, false},
		{"1s rs update-status ReplicaSet", run, false},
		{"1s rs update-status ReplicaSet", withShow, true},
		{"1s other update-status ReplicaSet", withShow, false},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, show(tc.d, strings.Fields(tc.line)), "%s (show=%t)", tc.line, tc.d.HasArg("show"))
	}
}

func TestPodColumns(t *testing.T) {
	p := newPod("a")
	assert.Equal(t, "<none>", PodNode(p))
	assert.Equal(t, "-", OwnerText(p))
	assert.Equal(t, "", PodState(p), "no phase yet")
	p.Spec.NodeName = "n1"
	p.OwnerReferences = []model.OwnerReference{{Kind: model.KindReplicaSet, Name: "web", Controller: model.Ptr(true)}}
	p.Status.Phase = model.PodRunning
	SetReady(p, true, 0)
	p.DeletionTimestamp = model.Ptr(vtime.Time(1))
	assert.Equal(t, "n1", PodNode(p))
	assert.Equal(t, "ReplicaSet/web", OwnerText(p))
	assert.Equal(t, "Running,Ready,Terminating", PodState(p))
}
