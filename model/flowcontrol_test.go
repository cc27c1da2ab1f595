package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestFlowcontrolValidation: FlowSchemas and PriorityLevelConfigurations are checked with
// the field paths and messages of [k8s] pkg/apis/flowcontrol/validation/validation.go; the
// bootstrap objects are valid.
func TestFlowcontrolValidation(t *testing.T) {
	for _, pl := range BootstrapPriorityLevels() {
		assert.Empty(t, Validate(pl), pl.Name)
	}
	for _, fs := range BootstrapFlowSchemas() {
		assert.Empty(t, Validate(fs), fs.Name)
	}
	pl := func(edit func(*PriorityLevelConfiguration)) Object {
		o := BootstrapPriorityLevels()[2] // system
		edit(o)
		return o
	}
	fs := func(edit func(*FlowSchema)) Object {
		o := BootstrapFlowSchemas()[7] // kube-controller-manager
		edit(o)
		return o
	}
	for _, tc := range []struct {
		name string
		obj  Object
		want []string
	}{
		{"hand size over queues", pl(func(o *PriorityLevelConfiguration) { o.Spec.Limited.LimitResponse.Queuing.HandSize = 100 }),
			[]string{"spec.limited.limitResponse.queuing.handSize: Invalid value: 100: should not be greater than queues (64)"}},
		{"too much entropy", pl(func(o *PriorityLevelConfiguration) { o.Spec.Limited.LimitResponse.Queuing.HandSize = 20 }),
			[]string{"spec.limited.limitResponse.queuing.handSize: Invalid value: 20: required entropy bits of deckSize 64 and handSize 20 should not be greater than 60"}},
		{"lendable percent", pl(func(o *PriorityLevelConfiguration) { o.Spec.Limited.LendablePercent = Ptr[int32](101) }),
			[]string{"spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive"}},
		{"exempt type needs the name exempt", pl(func(o *PriorityLevelConfiguration) {
			o.Spec = PriorityLevelConfigurationSpec{Type: PriorityLevelEnablementExempt}
		}), []string{`spec.type: Invalid value: "Exempt": type must be 'Exempt' if and only if name is 'exempt'`}},
		{"unknown limit response", pl(func(o *PriorityLevelConfiguration) { o.Spec.Limited.LimitResponse.Type = "Drop" }),
			[]string{`spec.limited.limitResponse.type: Unsupported value: "Drop": supported values: "Queue", "Reject"`}},
		{"precedence 0", fs(func(o *FlowSchema) { o.Spec.MatchingPrecedence = 0 }),
			[]string{"spec.matchingPrecedence: Invalid value: 0: must be a positive value"}},
		{"precedence 1 is exempt's", fs(func(o *FlowSchema) { o.Spec.MatchingPrecedence = 1 }),
			[]string{"spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1"}},
		{"service account without namespace", fs(func(o *FlowSchema) {
			o.Spec.Rules[0].Subjects = []Subject{{Kind: SubjectKindServiceAccount, ServiceAccount: &ServiceAccountSubject{Name: "x"}}}
		}), []string{"spec.rules[0].subjects[0].serviceAccount.namespace: Required value: must specify namespace for service account"}},
		{"unknown verb", fs(func(o *FlowSchema) { o.Spec.Rules[0].ResourceRules[0].Verbs = []string{"get", "fetch"} }),
			[]string{`spec.rules[0].resourceRules[0].verbs: Unsupported value: ["get","fetch"]: supported values: "create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"`}},
		{"mandatory spec is fixed", func() Object {
			o := BootstrapFlowSchemas()[12] // catch-all
			o.Spec.DistinguisherMethod = nil
			return o
		}(), []string{"spec: Invalid value: spec of 'catch-all' must equal the fixed value"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range Validate(tc.obj) {
				got = append(got, e.Error())
			}
			assert.Equal(t, tc.want, got)
		})
	}
}
