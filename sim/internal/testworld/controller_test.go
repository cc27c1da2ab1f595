package testworld

import (
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
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
