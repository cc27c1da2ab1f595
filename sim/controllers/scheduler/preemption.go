package scheduler

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/vtime"
)

// DefaultPreemption, the PostFilter plugin of the default profile: when a pod fits no node,
// it looks for a node where evicting pods of lower priority makes room, nominates the pod to
// it and deletes those victims gracefully. Upstream: kubernetes/kubernetes
// pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go (PostFilter,
// PodEligibleToPreemptOthers, SelectVictimsOnNode, calculateNumCandidates,
// filterPodsWithPDBViolation) and pkg/scheduler/framework/preemption/preemption.go
// (Evaluator.Preempt, findCandidates, DryRunPreemption, SelectCandidate,
// pickOneNodeForPreemption, prepareCandidate, PreemptPod), release 1.37.

// DefaultPreemptionArgs defaults (pkg/scheduler/apis/config/v1/defaults.go
// SetDefaults_DefaultPreemptionArgs): the dry run stops once it has found
// max(numNodes·10%, 100) candidates (capped at the number of nodes) and one of them violates
// no PodDisruptionBudget.
const (
	minCandidateNodesPercentage int32 = 10
	minCandidateNodesAbsolute   int32 = 100
)

// Messages and reasons of preemption (default_preemption.go PodEligibleToPreemptOthers;
// preemption.go NewEvaluator's PreemptPod).
const (
	// ReasonPreempted is the reason of the Normal event on each victim.
	ReasonPreempted = "Preempted"
	// preemptedMessageFormat is the victim's event message: the preemptor's UID and the node.
	// Releases up to 1.35 print it literally; 1.36 builds "Preempted by <type> <UID> on node
	// <node>" with type "pod" for a single pod, the same text.
	preemptedMessageFormat = "Preempted by pod %v on node %v"
	// preemptingConditionFormat is the DisruptionTarget message put on each victim, with the
	// preemptor's schedulerName.
	preemptingConditionFormat = "%s: preempting to accommodate a higher priority pod"
	errNotEligibleNever       = "not eligible due to preemptionPolicy=Never."
	errNotEligibleTerminating = "not eligible due to a terminating pod on the nominated node."
)

// candidate is a node where the preemptor fits once victims are gone (preemption.candidate
// with extenderv1.Victims): the victims, most important first, and how many of them violate
// a PodDisruptionBudget.
type candidate struct {
	node             string
	victims          []*model.Pod
	numPDBViolations int
}

// postFilterResult is what DefaultPreemption's PostFilter tells the scheduling cycle: the
// PostFilter message for the FitError (empty on success), how to change the pod's
// nominatedNodeName (NominatingInfo: nominate false is ModeNoop, true is ModeOverride with
// node, where "" clears it), and the candidate whose victims are to be preempted.
type postFilterResult struct {
	msg      string
	nominate bool
	node     string
	cand     *candidate
}

// ---- nominated pods in the filters ----

// nominatedPodsFor returns, per node, the nominated pods that the filters count for pod:
// those of equal or higher priority, other than pod itself (framework addGENominatedPods).
// Nil when there are none, the common case.
func (n *nominator) nominatedPodsFor(pod *model.Pod) map[string][]*model.Pod {
	if n.count() == 0 {
		return nil
	}
	key, priority := model.Key(pod), podPriority(pod)
	var out map[string][]*model.Pod
	for node, pods := range n.byNode { //detlint:ordered builds a map keyed by node; each node's pods keep their order
		for _, p := range pods {
			if model.Key(p) == key || podPriority(p) < priority {
				continue
			}
			if out == nil {
				out = map[string][]*model.Pod{}
			}
			out[node] = append(out[node], p)
		}
	}
	return out
}

// runFilterPluginsWithNominatedPods is framework RunFilterPluginsWithNominatedPods: on a node
// with nominated pods of equal or higher priority the filters run twice, first as if those
// pods ran there, then without them (a pod's affinity must hold either way); both must pass.
// Elsewhere it is runFilterPlugins. The first pass adds the pods to copies of the NodeInfo
// and of the cycle state (addGENominatedPods with RunPreFilterExtensionAddPod), so that
// PodTopologySpread and InterPodAffinity count them too.
func runFilterPluginsWithNominatedPods(s *cycleState, ni *NodeInfo) *Status {
	// Most cycles have no nominated pods: then the node object, which the filters otherwise
	// leave alone (NodeInfo keeps what they read), is not followed for its name.
	if len(s.nominated) == 0 {
		return runFilterPlugins(s, ni)
	}
	pods := s.nominated[ni.node.Name]
	if len(pods) == 0 {
		return runFilterPlugins(s, ni)
	}
	with, withState := ni.clone(), s
	if s.hasPreFilterExtensions() {
		withState = s.clone()
	}
	for _, p := range pods {
		addPodWithState(withState, with, p)
	}
	if st := runFilterPlugins(withState, with); !st.IsSuccess() {
		return st
	}
	return runFilterPlugins(s, ni)
}

// addPodWithState adds pod to ni and then to the PreFilter states of s (NodeInfo.AddPodInfo
// followed by RunPreFilterExtensionAddPod).
func addPodWithState(s *cycleState, ni *NodeInfo, pod *model.Pod) {
	key := model.Key(pod)
	ni.addPod(key, pod)
	if s.hasPreFilterExtensions() {
		s.addPod(pod, ni.pods[key].aff, ni)
	}
}

// removePodWithState removes the pod with key from ni and then from the PreFilter states of
// s (NodeInfo.RemovePod followed by RunPreFilterExtensionRemovePod).
func removePodWithState(s *cycleState, ni *NodeInfo, key string) {
	p, ok := ni.pods[key]
	if !ok {
		return
	}
	ni.removePod(key)
	if s.hasPreFilterExtensions() {
		s.removePod(p.pod, p.aff, ni)
	}
}

// clone returns a copy of ni whose pods and sums can change without changing ni
// (NodeInfo.Snapshot). The node object, taints and statuses are shared, read-only as always;
// the label counts are copied, and the live selector counts start afresh on the copy (ni's
// are kept under ni in the keys, and its pods keep them up to date).
func (ni *NodeInfo) clone() *NodeInfo {
	c := *ni
	c.pods = make(map[string]*podOnNode, len(ni.pods))
	for k, p := range ni.pods { //detlint:ordered copies a map into a map
		c.pods[k] = p
	}
	c.requested = ni.requested.clone()
	c.nonZeroRequested = ni.nonZeroRequested.clone()
	c.labelCounts = maps.Clone(ni.labelCounts)
	c.matchKeys = nil
	return &c
}

// evaluateNominatedNode is schedule_one.go evaluateNominatedNode: a pod with
// status.nominatedNodeName (set when it preempted) first tries that node alone, and takes it
// if the filters pass. Like upstream, the filter pass over that one node resets the rotating
// start index. Nil when the pod has no nominated node, the node is gone, or it does not fit.
func evaluateNominatedNode(s *cycleState, nodes []*NodeInfo, percentage int32, nextStart *int, diag *diagnosis) *NodeInfo {
	name := s.pod.Status.NominatedNodeName
	if name == "" {
		return nil
	}
	i := sort.Search(len(nodes), func(i int) bool { return nodes[i].node.Name >= name })
	if i == len(nodes) || nodes[i].node.Name != name {
		return nil
	}
	feasible := findNodesThatPassFilters(s, nodes[i:i+1], percentage, nextStart, diag)
	if len(feasible) == 0 {
		return nil
	}
	return feasible[0]
}

// ---- the PostFilter: eligibility, dry run, choice ----

// postFilter is DefaultPreemption.PostFilter (Evaluator.Preempt) for a pod that fits none of
// nodes, on the cycle's view of the cache. It decides; prepareCandidate, at the end of the
// cycle, acts.
func (s *Scheduler) postFilter(state *cycleState, nodes []*NodeInfo, nodeToStatus map[string]*Status) postFilterResult {
	// 0) The latest version of the pod (its nominatedNodeName may be newer than the queue's).
	pod := state.pod
	if obj, ok := s.podInformer.Get(pod.Namespace, pod.Name); ok {
		if latest, ok := client.ObjectAs[*model.Pod](obj); ok && latest.UID == pod.UID {
			pod = latest
		}
	}
	// 1) PodEligibleToPreemptOthers. A node absent from the statuses counts as
	// UnschedulableAndUnresolvable (NodeToStatus's absent status).
	nominatedCode := UnschedulableAndUnresolvable
	if st, ok := nodeToStatus[pod.Status.NominatedNodeName]; ok {
		nominatedCode = st.Code()
	}
	if ok, msg := s.podEligibleToPreemptOthers(pod, nominatedCode); !ok {
		return postFilterResult{msg: "preemption: " + msg}
	}
	return preempt(state, nodes, nodeToStatus, s.preemptRnd.Int32N, s.podDisruptionBudgets, s.k.Now())
}

// preempt is the rest of Evaluator.Preempt for an eligible pod: findCandidates (the nodes
// whose rejection removing pods might resolve, dry-run from offset(n)), then SelectCandidate.
// With no candidate, the message is a FitError over every node, the nodes not dry-run being
// "not helpful", and the pod's nomination is cleared. pdbs lists the PodDisruptionBudgets
// (getPodDisruptionBudgets), called once when there are nodes to dry-run.
func preempt(state *cycleState, nodes []*NodeInfo, nodeToStatus map[string]*Status, offset func(n int32) int32,
	pdbs func() []*model.PodDisruptionBudget, now vtime.Time) postFilterResult {
	var potential []*NodeInfo
	for _, ni := range nodes {
		if nodeToStatus[ni.node.Name].Code() == Unschedulable {
			potential = append(potential, ni)
		}
	}
	statuses := map[string]*Status{}
	var candidates []*candidate
	if len(potential) > 0 {
		n := int32(len(potential))
		var budgets []*model.PodDisruptionBudget
		if pdbs != nil {
			budgets = pdbs()
		}
		candidates = dryRunPreemption(state, potential, offset(n), calculateNumCandidates(n), budgets, now, statuses)
	}
	if len(candidates) == 0 {
		for _, ni := range nodes {
			if _, ok := statuses[ni.node.Name]; !ok {
				statuses[ni.node.Name] = newStatus(UnschedulableAndUnresolvable, PluginDefaultPreemption, ErrReasonPreemptionNotHelpful)
			}
		}
		inner := FitError{NumAllNodes: len(nodes), NodeToStatus: statuses}
		return postFilterResult{msg: "preemption: " + inner.Error(), nominate: true}
	}
	best := candidates[0]
	if len(candidates) > 1 {
		best = pickOneNodeForPreemption(candidates, now)
	}
	return postFilterResult{nominate: true, node: best.node, cand: best}
}

// podEligibleToPreemptOthers is PodEligibleToPreemptOthers: not with preemptionPolicy Never;
// and not while a pod of lower priority on its nominated node is terminating because of a
// preemption (the victims of its earlier preemption are still leaving), unless that node is
// now UnschedulableAndUnresolvable.
func (s *Scheduler) podEligibleToPreemptOthers(pod *model.Pod, nominatedCode Code) (bool, string) {
	if pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy == model.PreemptNever {
		return false, errNotEligibleNever
	}
	nnn := pod.Status.NominatedNodeName
	if nnn == "" || nominatedCode == UnschedulableAndUnresolvable {
		return true, ""
	}
	ni, ok := s.cache.nodeInfo(nnn)
	if !ok || ni.node == nil {
		return true, ""
	}
	priority := podPriority(pod)
	for _, p := range ni.pods { //detlint:ordered an existence check
		if podPriority(p.pod) < priority && podTerminatingByPreemption(p.pod) {
			return false, errNotEligibleTerminating
		}
	}
	return true, ""
}

// podTerminatingByPreemption is podTerminatingByPreemption: being deleted, with
// DisruptionTarget=True for reason PreemptionByScheduler.
func podTerminatingByPreemption(pod *model.Pod) bool {
	if pod.DeletionTimestamp == nil {
		return false
	}
	c := model.GetPodCondition(pod, model.PodDisruptionTarget)
	return c != nil && c.Status == model.ConditionTrue && c.Reason == model.PodReasonPreemptionByScheduler
}

// calculateNumCandidates is DefaultPreemption.calculateNumCandidates.
func calculateNumCandidates(numNodes int32) int32 {
	n := numNodes * minCandidateNodesPercentage / 100
	if n < minCandidateNodesAbsolute {
		n = minCandidateNodesAbsolute
	}
	if n > numNodes {
		n = numNodes
	}
	return n
}

// dryRunPreemption is Evaluator.DryRunPreemption, sequential: from offset, each potential node
// is checked with selectVictimsOnNode until at least one candidate violates no PDB and
// numCandidates are found (upstream's parallel workers stop at the same condition, in an order
// that varies). Each list keeps at most numCandidates. The nodes without victims get their
// status in statuses. The candidates violating no PDB come first.
func dryRunPreemption(state *cycleState, potential []*NodeInfo, offset, numCandidates int32,
	pdbs []*model.PodDisruptionBudget, now vtime.Time, statuses map[string]*Status) []*candidate {
	var nonViolating, violating []*candidate
	for i := range potential {
		ni := potential[(int(offset)+i)%len(potential)]
		victims, numViolations, st := selectVictimsOnNode(state, ni, pdbs, now)
		if st.IsSuccess() && len(victims) == 0 {
			st = newStatus(Unschedulable, PluginDefaultPreemption, fmt.Sprintf("expected at least one victim pod on node %q", ni.node.Name))
		}
		if !st.IsSuccess() {
			statuses[ni.node.Name] = st
			continue
		}
		c := &candidate{node: ni.node.Name, victims: victims, numPDBViolations: numViolations}
		switch {
		case numViolations == 0 && int32(len(nonViolating)) < numCandidates:
			nonViolating = append(nonViolating, c)
		case numViolations > 0 && int32(len(violating)) < numCandidates:
			violating = append(violating, c)
		}
		if len(nonViolating) > 0 && int32(len(nonViolating)+len(violating)) >= numCandidates {
			break
		}
	}
	return append(nonViolating, violating...)
}

// podDisruptionBudgets lists the PodDisruptionBudgets (getPodDisruptionBudgets) from the
// scheduler's informer, synced before the first cycle. Sorted by key.
func (s *Scheduler) podDisruptionBudgets() []*model.PodDisruptionBudget {
	objs := s.pdbInformer.List(nil)
	out := make([]*model.PodDisruptionBudget, 0, len(objs))
	for _, o := range objs {
		if pdb, ok := client.ObjectAs[*model.PodDisruptionBudget](o); ok {
			out = append(out, pdb)
		}
	}
	sort.Slice(out, func(i, j int) bool { return model.Key(out[i]) < model.Key(out[j]) })
	return out
}

// selectVictimsOnNode is DefaultPreemption.SelectVictimsOnNode on copies of ni and of state
// (DryRunPreemption's state.Clone, made only for a node with potential victims: a copy holds
// every spread and affinity count, one per node for a hostname constraint): remove every pod of lower priority, from the NodeInfo
// and from the PreFilter states (RunPreFilterExtensionRemovePod, so that PodTopologySpread's
// counts and InterPodAffinity's see them gone); if the pod then fails the filters, the node
// is no candidate (that status is returned; affinity to the victims is not considered, as
// upstream). Otherwise the potential victims, most important first, are added back one by one
// (RunPreFilterExtensionAddPod) while the pod still fits: first those whose eviction would
// violate a PDB, then the others. Those that cannot be added back are the victims, returned
// most important first, with the number that violate a PDB.
func selectVictimsOnNode(state *cycleState, ni *NodeInfo, pdbs []*model.PodDisruptionBudget, now vtime.Time) ([]*model.Pod, int, *Status) {
	potential := ni.podsBelowPriority(state.priority)
	if len(potential) == 0 {
		return nil, 0, newStatus(UnschedulableAndUnresolvable, PluginDefaultPreemption, ErrReasonNoVictims)
	}
	state = state.clone() // changed below as pods are removed and added back
	c := ni.clone()
	for _, v := range potential {
		removePodWithState(state, c, model.Key(v.pod))
	}
	if st := runFilterPluginsWithNominatedPods(state, c); !st.IsSuccess() {
		return nil, 0, st
	}
	pods := make([]*model.Pod, len(potential))
	for i, v := range potential {
		pods[i] = v.pod
	}
	// podsBelowPriority sorted by key: the stable sort keeps that order among equals, where
	// upstream's sort.Slice leaves it unspecified.
	sort.SliceStable(pods, func(i, j int) bool { return moreImportantPod(pods[i], pods[j], now) })
	violatingPods, nonViolatingPods := filterPodsWithPDBViolation(pods, pdbs)
	var victims []*model.Pod
	numViolating := 0
	reprieve := func(pod *model.Pod) bool {
		addPodWithState(state, c, pod)
		if runFilterPluginsWithNominatedPods(state, c).IsSuccess() {
			return true
		}
		removePodWithState(state, c, model.Key(pod))
		victims = append(victims, pod)
		return false
	}
	for _, pod := range violatingPods {
		if !reprieve(pod) {
			numViolating++
		}
	}
	for _, pod := range nonViolatingPods {
		reprieve(pod)
	}
	if len(violatingPods) != 0 && len(nonViolatingPods) != 0 {
		sort.SliceStable(victims, func(i, j int) bool { return moreImportantPod(victims[i], victims[j], now) })
	}
	return victims, numViolating, nil
}

// moreImportantPod is pkg/scheduler/util MoreImportantPod: higher priority first, then the
// earlier start time (GetPodStartTime: a pod not started yet counts as starting now).
func moreImportantPod(a, b *model.Pod, now vtime.Time) bool {
	pa, pb := podPriority(a), podPriority(b)
	if pa != pb {
		return pa > pb
	}
	return podStartTime(a, now) < podStartTime(b, now)
}

// podStartTime is GetPodStartTime: status.startTime, or now for a pod not started.
func podStartTime(pod *model.Pod, now vtime.Time) vtime.Time {
	if pod.Status.StartTime != nil {
		return *pod.Status.StartTime
	}
	return now
}

// filterPodsWithPDBViolation splits pods (kept in order) into those whose eviction would
// violate a PodDisruptionBudget and the others: each matching budget of the pod's namespace
// that does not list the pod in disruptedPods loses one of its disruptionsAllowed, and a pod
// that takes one below zero violates it. A pod without labels and a budget with an empty or
// invalid selector match nothing.
func filterPodsWithPDBViolation(pods []*model.Pod, pdbs []*model.PodDisruptionBudget) (violating, nonViolating []*model.Pod) {
	allowed := make([]int32, len(pdbs))
	selectors := make([]labels.Selector, len(pdbs))
	for i, pdb := range pdbs {
		allowed[i] = pdb.Status.DisruptionsAllowed
		if sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector); err == nil && !sel.Empty() {
			selectors[i] = sel
		}
	}
	for _, pod := range pods {
		violated := false
		if len(pod.Labels) != 0 {
			for i, pdb := range pdbs {
				if pdb.Namespace != pod.Namespace || selectors[i] == nil || !selectors[i].Matches(labels.Set(pod.Labels)) {
					continue
				}
				if _, ok := pdb.Status.DisruptedPods[pod.Name]; ok {
					continue
				}
				allowed[i]--
				if allowed[i] < 0 {
					violated = true
				}
			}
		}
		if violated {
			violating = append(violating, pod)
		} else {
			nonViolating = append(nonViolating, pod)
		}
	}
	return violating, nonViolating
}

// pickOneNodeForPreemption is pickOneNodeForPreemption with the default score functions, each
// applied to the nodes still tied: the fewest PDB violations; the lowest priority of the most
// important victim; the smallest sum of victim priorities (each shifted by MaxInt32+1 so that
// negative priorities count); the fewest victims; the latest start time of the most important
// victims; then the first candidate (upstream's first is in map order; here in dry-run order).
func pickOneNodeForPreemption(candidates []*candidate, now vtime.Time) *candidate {
	scoreFuncs := []func(c *candidate) int64{
		func(c *candidate) int64 { return -int64(c.numPDBViolations) },
		func(c *candidate) int64 { return -int64(podPriority(c.victims[0])) },
		func(c *candidate) int64 {
			var sum int64
			for _, v := range c.victims {
				sum += int64(podPriority(v)) + int64(math.MaxInt32) + 1
			}
			return -sum
		},
		func(c *candidate) int64 { return -int64(len(c.victims)) },
		func(c *candidate) int64 { return int64(earliestPodStartTime(c.victims, now)) },
	}
	all := candidates
	for _, f := range scoreFuncs {
		var selected []*candidate
		best := int64(math.MinInt64)
		for _, c := range all {
			score := f(c)
			if score > best {
				best, selected = score, selected[:0]
			}
			if score == best {
				selected = append(selected, c)
			}
		}
		if len(selected) == 1 {
			return selected[0]
		}
		all = selected
	}
	return all[0]
}

// earliestPodStartTime is GetEarliestPodStartTime: the earliest start time among the victims
// of the highest priority (victims are sorted most important first).
func earliestPodStartTime(victims []*model.Pod, now vtime.Time) vtime.Time {
	highest := podPriority(victims[0])
	earliest := podStartTime(victims[0], now)
	for _, v := range victims[1:] {
		if podPriority(v) == highest {
			earliest = min(earliest, podStartTime(v, now))
		}
	}
	return earliest
}

// ---- execution ----

// prepareCandidate is Evaluator.prepareCandidate with PreemptPod: each victim not already
// being deleted gets DisruptionTarget=True (reason PreemptionByScheduler) through a status
// patch, is deleted with its own grace period, and gets the Normal event Preempted; then the
// pods of lower priority nominated to the same node lose their nomination (clearNominatedNodeName),
// since they may no longer fit there. The calls are made in the scheduling cycle, as upstream
// before SchedulerAsyncPreemption (beta and on since v1.33, where a goroutine makes the same
// calls while the preemptor waits in PreEnqueue). A failing call stops the preemption; the
// pod is then handled as an error.
func (s *Scheduler) prepareCandidate(ctx context.Context, c *candidate, preemptor *model.Pod) error {
	names := make([]string, len(c.victims))
	for i, v := range c.victims {
		names[i] = model.Key(v)
	}
	s.k.Emit(component, "preempt", "Pod "+model.Key(preemptor), preemptor.ResourceVersion,
		fmt.Sprintf("node=%s victims=%s pdbViolations=%d", c.node, strings.Join(names, ","), c.numPDBViolations))
	s.stats.Preemptions++
	for _, v := range c.victims {
		if v.DeletionTimestamp != nil {
			continue
		}
		if err := s.preemptPod(ctx, c.node, preemptor, v); err != nil {
			return err
		}
	}
	priority := podPriority(preemptor)
	for _, np := range append([]*model.Pod(nil), s.queue.nominator.podsForNode(c.node)...) {
		if podPriority(np) >= priority || np.Status.NominatedNodeName == "" {
			continue
		}
		patch := []byte(`{"status":{"nominatedNodeName":null}}`)
		if _, err := s.c.PatchStatus(ctx, model.KindPod, np.Namespace, np.Name, patch); err != nil {
			s.k.Emit(component, "status-error", "Pod "+model.Key(np), np.ResourceVersion, err.Error())
		}
	}
	return nil
}

// preemptPod is the Evaluator's PreemptPod for a victim that is not a waiting pod: the
// DisruptionTarget condition, the deletion (DeleteOptions left empty: the pod's own
// terminationGracePeriodSeconds), and the event. A victim already gone is not an error.
func (s *Scheduler) preemptPod(ctx context.Context, node string, preemptor, victim *model.Pod) error {
	key := model.Key(victim)
	cond := model.PodCondition{Type: model.PodDisruptionTarget, Status: model.ConditionTrue,
		Reason: model.PodReasonPreemptionByScheduler, Message: fmt.Sprintf(preemptingConditionFormat, preemptor.Spec.SchedulerName)}
	var status model.PodStatus
	victim.Status.DeepCopyInto(&status)
	if model.UpdatePodCondition(&status, cond, s.k.Now()) {
		patch, err := json.Marshal(map[string]any{"status": map[string]any{"conditions": status.Conditions}})
		if err != nil {
			return err
		}
		if _, err := s.c.PatchStatus(ctx, model.KindPod, victim.Namespace, victim.Name, patch); err != nil {
			if apierrors.IsNotFound(err) {
				return nil
			}
			return err
		}
	}
	if err := s.c.Delete(ctx, model.KindPod, victim.Namespace, victim.Name, model.DeleteOptions{}); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	}
	s.stats.PreemptionVictims++
	s.k.Emit(component, "victim", "Pod "+key, victim.ResourceVersion, "preemptor="+model.Key(preemptor)+" node="+node)
	s.rec.Eventf(victim, model.EventTypeNormal, ReasonPreempted, preemptedMessageFormat, preemptor.UID, node)
	return nil
}
