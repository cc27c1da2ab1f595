package daemonset

import (
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/controllers/internal/nodeaffinity"
	"github.com/reconsim/reconsim/sim/internal/testworld"
)

const testNS = testworld.Namespace

// world is the shared test world with the DaemonSet controller on its own client and
// informers, and the test-played scheduler and kubelets (testworld.FakeNodes): an unscheduled
// pod is bound to the node its required node affinity names (matchFields metadata.name) if
// that node exists, is alive and has no NoSchedule/NoExecute taint the pod does not tolerate;
// a bound pod is started (Running and Ready) 2s later; a graceful deletion is finished 1s
// later by the kubelet's final delete. A dead node's kubelet does nothing.
type world struct {
	*testworld.World
	dsc *Controller
	inv invariants
}

func newWorld(t testing.TB, cfg Config) *world {
	w := &world{}
	w.inv = invariants{pods: map[string]*model.Pod{}, surge: map[string]bool{}}
	w.World = testworld.New(t, testworld.Options{Check: w.inv.commit})
	w.startController(cfg)
	return w
}

// startController starts the DaemonSet controller with cfg, the fake nodes and the trace's
// display in w.
func (w *world) startController(cfg Config) {
	dsc, f := testworld.NewController(w.World, Component, Component, New, cfg)
	w.dsc = dsc
	w.StartFakeNodes().Place = w.place
	w.PodOrder = byTargetNode
	w.PodLine = func(_ int, p *model.Pod) string { return podLine(p) }
	w.Show = testworld.StatusOnRequest(Component, testworld.Sources(Component, "test"))
	f.Start(w.K)
	dsc.Start()
	w.Settle(100 * time.Millisecond)
}

// byTargetNode orders pods by target node, then name: one line per node reads like a
// DaemonSet.
func byTargetNode(a, b *model.Pod) int {
	na, _ := getTargetNodeName(a)
	nb, _ := getTargetNodeName(b)
	if c := strings.Compare(na, nb); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

func (w *world) ds(name string) *model.DaemonSet {
	return testworld.Get[*model.DaemonSet](w.World, model.KindDaemonSet, testNS, name)
}

func podLine(p *model.Pod) string {
	target, err := getTargetNodeName(p)
	if err != nil {
		target = "?"
	}
	img := "-"
	if len(p.Spec.Containers) > 0 {
		img = p.Spec.Containers[0].Image
	}
	return fmt.Sprintf("%s for=%s node=%s %s hash=%s image=%s", p.Name, target, testworld.PodNode(p), testworld.PodState(p), p.Labels[DefaultDaemonSetUniqueLabelKey], img)
}

// newDaemonSet builds a DaemonSet with one container.
func newDaemonSet(name, img string) *model.DaemonSet {
	ds := &model.DaemonSet{}
	ds.Name, ds.Namespace = name, testNS
	ds.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}
	ds.Spec.Template.Labels = map[string]string{"app": name}
	ds.Spec.Template.Spec.Containers = []model.Container{{Name: "agent", Image: img}}
	return ds
}

// place plays the scheduler for a daemon pod: the node its affinity names, if that node fits.
func (w *world) place(p *model.Pod) (string, string) {
	target, err := getTargetNodeName(p)
	if err != nil {
		return "", err.Error()
	}
	obj, err := w.Store.Get(model.KindNode, "", target)
	if err != nil || w.Nodes.Dead[target] {
		return "", "node " + target + " is not available"
	}
	node := obj.(*model.Node)
	if required := nodeaffinity.GetRequiredNodeAffinity(&p.Spec); !required.Match(node) {
		return "", "node affinity does not match " + target
	}
	if taint, bad := model.FindMatchingUntoleratedTaint(node.Spec.Taints, p.Spec.Tolerations, func(t *model.Taint) bool {
		return t.Effect == model.TaintEffectNoSchedule || t.Effect == model.TaintEffectNoExecute
	}); bad {
		return "", "untolerated taint " + taint.Key
	}
	return target, ""
}

// ---- invariants, checked at every write the API server commits ----

// invariants follows every committed write and reports the first violation of (on top of
// the shared world's): a daemon pod is bound only to the node its affinity names; a DaemonSet
// without surge never has two pods for one node that are not being deleted (with surge:
// never three).
type invariants struct {
	pods  map[string]*model.Pod // by name
	surge map[string]bool       // DaemonSet UID -> maxSurge > 0
}

func (inv *invariants) commit(kind model.Kind, old, new model.Object) string {
	switch kind {
	case model.KindDaemonSet:
		if ds, ok := new.(*model.DaemonSet); ok {
			inv.surge[ds.UID] = allowsSurge(ds)
		}
	case model.KindPod:
		if new == nil {
			delete(inv.pods, old.Meta().Name)
			return ""
		}
		p := new.(*model.Pod)
		inv.pods[p.Name] = p
		if p.Spec.NodeName != "" {
			if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
				cp := p.DeepCopy()
				cp.Spec.NodeName = ""
				if target, err := getTargetNodeName(cp); err == nil && target != p.Spec.NodeName {
					return fmt.Sprintf("daemon pod %s is for node %s but bound to %s", p.Name, target, p.Spec.NodeName)
				}
			}
		}
		return inv.checkPerNode(p)
	}
	return ""
}

func (inv *invariants) checkPerNode(p *model.Pod) string {
	ref := model.ControllerOf(p)
	if ref == nil || ref.Kind != model.KindDaemonSet || p.DeletionTimestamp != nil {
		return ""
	}
	target, err := getTargetNodeName(p)
	if err != nil {
		return ""
	}
	count := 0
	for _, q := range inv.pods { //detlint:ordered counting
		qref := model.ControllerOf(q)
		if qref == nil || qref.UID != ref.UID || q.DeletionTimestamp != nil || model.IsPodTerminal(q) {
			continue
		}
		if t, err := getTargetNodeName(q); err == nil && t == target {
			count++
		}
	}
	limit := 1
	if inv.surge[ref.UID] {
		limit = 2
	}
	if count > limit {
		return fmt.Sprintf("DaemonSet %s has %d live pods for node %s (limit %d)", ref.Name, count, target, limit)
	}
	return ""
}
