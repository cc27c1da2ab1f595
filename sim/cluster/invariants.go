package cluster

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/scenarios"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
)

// InvariantPrefix starts the name of the expectation result of a built-in invariant:
// "invariant pod-bound-once".
const InvariantPrefix = "invariant "

// StoredObjectsUnmodified names the ownership check's result (Options.CheckMutations): no
// component modified an object the API server stored and shares with its readers.
const StoredObjectsUnmodified = "stored-objects-unmodified"

// invariants checks the built-in invariants a scenario's explore: section names (docs/explore.md).
// Safety invariants are checked on every committed write (the observer's commit hook) and on
// every acknowledged eviction; no-lost-update and converges at the end. The first violation
// of each is kept, with the virtual time and the objects involved.
type invariants struct {
	w       *world
	on      map[string]bool
	names   []string          // the built-in invariants checked, in the scenario's order
	failed  map[string]string // invariant -> its first violation
	settle  time.Duration
	written map[string]uint64 // no-lost-update: kind/namespace/name -> rv of the last write, 0 deleted
}

func newInvariants(w *world) *invariants {
	inv := &invariants{w: w, on: map[string]bool{}, failed: map[string]string{}}
	x := w.scn.Explore
	if x == nil {
		return inv
	}
	for _, name := range x.Invariants {
		if slices.Contains(scenarios.Invariants(), name) {
			inv.on[name] = true
			inv.names = append(inv.names, name)
		}
	}
	inv.settle = x.Settle
	if inv.on[scenarios.InvariantNoLostUpdate] {
		inv.written = map[string]uint64{}
	}
	return inv
}

// fail records a violation of name (the first one is kept).
func (inv *invariants) fail(name, msg string) {
	if !inv.on[name] {
		return
	}
	if _, done := inv.failed[name]; !done {
		inv.failed[name] = fmt.Sprintf("%s: %s", inv.w.k.Now(), msg)
	}
}

// commit checks one committed write (the observer checks pod-bound-once,
// node-within-allocatable and resource-versions-grow and reports them through fail).
func (inv *invariants) commit(kind model.Kind, old, new model.Object) {
	if inv.written != nil {
		o := pick(old, new)
		m := o.Meta()
		key := string(kind) + "/" + m.Namespace + "/" + m.Name
		if new == nil {
			inv.written[key] = 0
		} else {
			inv.written[key] = m.ResourceVersion
		}
	}
	if inv.on[scenarios.InvariantStatefulSetOrdinalOnce] && kind == model.KindPod && new != nil {
		inv.checkOrdinal(new.(*model.Pod))
	}
}

// checkOrdinal: when a StatefulSet's pod is running, no other kubelet may run a pod of the
// same name (the same ordinal): a partitioned node's pod keeps running after the API server
// forgot it. The guarantee is upstream's "at most one semantics": "StatefulSet ensures that, at
// any time, there is at most one Pod with a given identity running in a cluster", which a force
// deletion can violate (kubernetes.io/docs/tasks/run-application/force-delete-stateful-set-pod/).
func (inv *invariants) checkOrdinal(p *model.Pod) {
	if p.Status.Phase != model.PodRunning || p.Spec.NodeName == "" {
		return
	}
	ref := model.ControllerOf(p)
	if ref == nil || ref.Kind != model.KindStatefulSet {
		return
	}
	key := model.Key(p)
	var on []string
	for i, kl := range inv.w.kubelets {
		if kl.RunsPod(key) {
			on = append(on, inv.w.nodes[i].Name)
		}
	}
	if len(on) > 1 {
		inv.fail(scenarios.InvariantStatefulSetOrdinalOnce, fmt.Sprintf("pod %s (StatefulSet %s) runs on %d nodes at once: %s", key, ref.Name, len(on), strings.Join(on, ", ")))
	}
}

// eviction checks an acknowledged eviction against the PodDisruptionBudgets that cover the
// pod: if the pod was healthy, the healthy pods left must not be fewer than the budget's
// desiredHealthy.
func (inv *invariants) eviction(req *apiserver.Request) {
	if !inv.on[scenarios.InvariantPDBRespected] {
		return
	}
	store := inv.w.srv.Store()
	obj, err := store.Get(model.KindPod, req.Namespace, req.Name)
	if err != nil {
		return // evicted and gone
	}
	pod := obj.(*model.Pod)
	if !model.IsPodReady(pod) {
		return // an unhealthy pod's eviction takes nothing from a budget
	}
	pdbs, _, err := store.List(model.KindPodDisruptionBudget, model.ListOptions{Namespace: req.Namespace})
	if err != nil {
		return
	}
	for _, o := range pdbs {
		pdb := o.(*model.PodDisruptionBudget)
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil || sel.Empty() || !sel.Matches(labels.Set(pod.Labels)) {
			continue
		}
		pods, _, err := store.List(model.KindPod, model.ListOptions{Namespace: req.Namespace, LabelSelector: sel})
		if err != nil {
			continue
		}
		healthy := 0
		for _, po := range pods {
			q := po.(*model.Pod)
			if q.DeletionTimestamp == nil && model.IsPodReady(q) {
				healthy++
			}
		}
		if int32(healthy) < pdb.Status.DesiredHealthy {
			inv.fail(scenarios.InvariantPDBRespected, fmt.Sprintf("evicting pod %s left %d healthy pods under PodDisruptionBudget %s, which wants %d",
				model.Key(pod), healthy, model.Key(pdb), pdb.Status.DesiredHealthy))
		}
	}
}

// finish checks the end-of-run invariants and returns one result per built-in invariant.
func (inv *invariants) finish(tl *timeline, stopReason string) []report.ExpectationResult {
	if inv.written != nil {
		inv.checkWritten()
	}
	if inv.on[scenarios.InvariantConverges] {
		inv.checkConverges(tl, stopReason)
	}
	out := make([]report.ExpectationResult, 0, len(inv.names))
	for _, name := range inv.names {
		r := report.ExpectationResult{Name: InvariantPrefix + name, Passed: true, Message: "held"}
		if msg, bad := inv.failed[name]; bad {
			r.Passed, r.Message = false, msg
		}
		out = append(out, r)
	}
	return out
}

// checkWritten: every object's last acknowledged write is what a read returns now.
func (inv *invariants) checkWritten() {
	keys := make([]string, 0, len(inv.written))
	for k := range inv.written { //detlint:ordered sorted below
		keys = append(keys, k)
	}
	sort.Strings(keys)
	store := inv.w.srv.Store()
	for _, k := range keys {
		kind, rest, _ := strings.Cut(k, "/")
		ns, name, _ := strings.Cut(rest, "/")
		want := inv.written[k]
		obj, err := store.Get(model.Kind(kind), ns, name)
		var got uint64
		if err == nil {
			got = obj.Meta().ResourceVersion
		}
		if got != want {
			inv.fail(scenarios.InvariantNoLostUpdate, fmt.Sprintf("%s %s: the last acknowledged write has resourceVersion %d, a read returns %d", kind, model.KeyOf(ns, name), want, got))
			return
		}
	}
}

// checkConverges: after the last timeline entry that ran, the world converged within settle.
// A run that ended sooner without converging fails only if it stopped for quiescence (nothing
// left to happen).
func (inv *invariants) checkConverges(tl *timeline, stopReason string) {
	var last *actionRecord
	for _, r := range tl.records[1:] {
		if r.ran && (last == nil || r.at >= last.at) {
			last = r
		}
	}
	if last == nil {
		last = tl.records[0]
	}
	now := inv.w.k.Now()
	switch {
	case last.converged && last.convergedAt.Sub(last.at) <= inv.settle:
		return
	case last.converged:
		inv.fail(scenarios.InvariantConverges, fmt.Sprintf("the world converged %.1fs after %s, later than settle (%s)",
			last.convergedAt.Sub(last.at).Seconds(), last.label(), inv.settle))
	case now.Sub(last.at) >= inv.settle || stopReason == string(sim.StopQuiescent) || stopReason == string(sim.StopDrained):
		inv.fail(scenarios.InvariantConverges, fmt.Sprintf("the world had not converged %.1fs after %s (settle %s)",
			now.Sub(last.at).Seconds(), last.label(), inv.settle))
	}
}
