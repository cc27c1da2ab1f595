package testworld

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

// ParseLabels reads "k=v,k2=v2"; an item without "=" fails the test.
func ParseLabels(t testing.TB, s string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			t.Fatalf("bad label %q", kv)
		}
		out[k] = v
	}
	return out
}

// LabelString prints labels as "k=v,k2=v2", sorted by key.
func LabelString(l map[string]string) string {
	keys := make([]string, 0, len(l))
	for k := range l { //detlint:ordered sorted below
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + l[k]
	}
	return strings.Join(parts, ",")
}

// ParseTaints reads "key=value:Effect,key:Effect"; an item without ":Effect" fails the test.
func ParseTaints(t testing.TB, s string) []model.Taint {
	t.Helper()
	var out []model.Taint
	for _, item := range strings.Split(s, ",") {
		kv, effect, ok := strings.Cut(item, ":")
		if !ok {
			t.Fatalf("bad taint %q (want key[=value]:Effect)", item)
		}
		k, v, _ := strings.Cut(kv, "=")
		out = append(out, model.Taint{Key: k, Value: v, Effect: model.TaintEffect(effect)})
	}
	return out
}

// ReadyNode builds a node with a Ready=True condition.
func ReadyNode(name string, labels map[string]string, taints []model.Taint) *model.Node {
	n := &model.Node{}
	n.Name = name
	n.Labels = labels
	n.Spec.Taints = taints
	n.Status.Conditions = []model.NodeCondition{{Type: model.NodeReady, Status: model.ConditionTrue}}
	return n
}

// NodeDetail prints a node's labels (sorted) and taints for a trace line.
func NodeDetail(n *model.Node) string {
	var parts []string
	keys := make([]string, 0, len(n.Labels))
	for k := range n.Labels { //detlint:ordered sorted below
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		parts = append(parts, "label "+k+"="+n.Labels[k])
	}
	for _, tt := range n.Spec.Taints {
		parts = append(parts, fmt.Sprintf("taint %s=%s:%s", tt.Key, tt.Value, tt.Effect))
	}
	return strings.Join(parts, " ")
}

// SetPodCondition sets condition typ of p to st, moving LastTransitionTime only when the
// status changes (as the kubelet's status manager does).
func SetPodCondition(p *model.Pod, typ string, st model.ConditionStatus, now vtime.Time) {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == typ {
			if p.Status.Conditions[i].Status != st {
				p.Status.Conditions[i].Status = st
				p.Status.Conditions[i].LastTransitionTime = now
			}
			return
		}
	}
	p.Status.Conditions = append(p.Status.Conditions, model.PodCondition{Type: typ, Status: st, LastTransitionTime: now})
}

// SetReady sets p's Ready condition (see SetPodCondition).
func SetReady(p *model.Pod, ready bool, now vtime.Time) {
	st := model.ConditionFalse
	if ready {
		st = model.ConditionTrue
	}
	SetPodCondition(p, model.PodReady, st, now)
}

// IsReady reports whether p's Ready condition is True.
func IsReady(p *model.Pod) bool { return model.IsPodReady(p) }

// OrDash returns s, or "-" when s is empty.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// PodState is the state column of the pod listings: the pod's phase, then ",Ready" while its
// Ready condition is True and ",Terminating" once it is being deleted.
func PodState(p *model.Pod) string {
	state := string(p.Status.Phase)
	if IsReady(p) {
		state += ",Ready"
	}
	if p.DeletionTimestamp != nil {
		state += ",Terminating"
	}
	return state
}

// PodNode is the node p is bound to, or "<none>".
func PodNode(p *model.Pod) string {
	if p.Spec.NodeName == "" {
		return "<none>"
	}
	return p.Spec.NodeName
}

// OwnerText is o's controller as Kind/Name, or "-" when it has none.
func OwnerText(o model.Object) string {
	if ref := model.ControllerOf(o); ref != nil {
		return string(ref.Kind) + "/" + ref.Name
	}
	return "-"
}
