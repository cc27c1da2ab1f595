package apiserver

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/reconsim/reconsim/model"
)

// The admission plugins reconsim models, by their upstream names
// ([k8s] pkg/kubeapiserver/options/plugins.go), all on by default as upstream's are.
const (
	PluginNamespaceLifecycle       = "NamespaceLifecycle"
	PluginTaintNodesByCondition    = "TaintNodesByCondition"
	PluginPriority                 = "Priority"
	PluginDefaultTolerationSeconds = "DefaultTolerationSeconds"
)

// admitNodeTaints is the TaintNodesByCondition admission plugin
// ([k8s] plugin/pkg/admission/nodetaint/admission.go Admit, addNotReadyTaint) on the create of
// a Node: the node gets node.kubernetes.io/not-ready:NoSchedule unless it already has a taint
// with that key and effect, so that no pod is scheduled to it before it is Ready. The node
// lifecycle controller's NoSchedule pass removes the taint once the node's Ready condition is
// True. Not inlined: its taint would take room in the frame of every create (Server.Do).
//
//go:noinline
func (s *Store) admitNodeTaints(obj model.Object) {
	node, ok := obj.(*model.Node)
	if !ok || !s.cfg.TaintNodesByCondition || s.skipNodeTaint {
		return
	}
	for _, t := range node.Spec.Taints {
		if t.Key == model.TaintNodeNotReady && t.Effect == model.TaintEffectNoSchedule { // Taint.MatchTaint
			return
		}
	}
	// A new backing array: the caller's slice must not be appended to in place.
	taints := make([]model.Taint, len(node.Spec.Taints), len(node.Spec.Taints)+1)
	copy(taints, node.Spec.Taints)
	node.Spec.Taints = append(taints, model.Taint{Key: model.TaintNodeNotReady, Effect: model.TaintEffectNoSchedule})
}

// CreateRunningNode creates a Node as it stands on a cluster that has been running for a
// while: registered long ago and Ready, so the not-ready taint TaintNodesByCondition gave it at
// registration was removed by the node lifecycle controller long before. It is Create without
// that one plugin; the scenario's nodes that exist from the start are created this way.
func (s *Store) CreateRunningNode(node *model.Node) (model.Object, error) {
	s.skipNodeTaint = true
	defer func() { s.skipNodeTaint = false }()
	return s.Create(node)
}

// admitPriority is the Priority admission plugin ([k8s] plugin/pkg/admission/priority/
// admission.go) on a create or update of a main resource:
//
//   - Pod create (admitPod): a pod without spec.priorityClassName gets the global-default
//     class (its name, value and preemption policy; the lowest value if several are marked),
//     or priority DefaultPriorityWhenNoDefaultClassExists (0) and PreemptLowerPriority when no
//     class is the default; a pod naming a class gets that class's value and policy, and a
//     class that does not exist is 403 Forbidden "no PriorityClass with name X was found". A
//     pod that sets spec.priority (or spec.preemptionPolicy) to anything but the computed value
//     is Forbidden.
//   - Pod update: a missing priority or policy is taken from the stored pod (validation then
//     forbids changing them).
//   - PriorityClass create or update (validatePriorityClass): only one class may be the
//     global default.
//
// The system classes (system-node-critical, system-cluster-critical) are known to the plugin
// without being stored: upstream's API server creates them at start-up; here they are not
// listed by the API, so that the revisions of every run stay as they were before the plugin
// was modelled (see docs/upstream.md#admission).
func (s *Store) admitPriority(obj, old model.Object) error {
	if !s.cfg.Priority {
		return nil
	}
	switch o := obj.(type) {
	case *model.Pod:
		if old != nil {
			oldPod := old.(*model.Pod)
			if o.Spec.Priority == nil && oldPod.Spec.Priority != nil {
				o.Spec.Priority = oldPod.Spec.Priority
			}
			if o.Spec.PreemptionPolicy == nil && oldPod.Spec.PreemptionPolicy != nil {
				o.Spec.PreemptionPolicy = oldPod.Spec.PreemptionPolicy
			}
			return nil
		}
		return s.admitPodPriority(o)
	case *model.PriorityClass:
		if !o.GlobalDefault {
			return nil
		}
		if dpc := s.defaultPriorityClass(); dpc != nil && (old == nil || dpc.Name != o.Name) {
			return apierrors.NewForbidden(s.kinds[model.KindPriorityClass].gr, o.Name,
				fmt.Errorf("PriorityClass %v is already marked as default. Only one default can exist", dpc.Name))
		}
	}
	return nil
}

func (s *Store) admitPodPriority(pod *model.Pod) error {
	var priority int32
	var policy *string
	if pod.Spec.PriorityClassName == "" {
		if dpc := s.defaultPriorityClass(); dpc != nil {
			pod.Spec.PriorityClassName = dpc.Name
			priority, policy = dpc.Value, dpc.PreemptionPolicy
		} else {
			lower := model.PreemptLowerPriority
			priority, policy = model.DefaultPriorityWhenNoDefaultClassExists, &lower
		}
	} else {
		pc := s.priorityClass(pod.Spec.PriorityClassName)
		if pc == nil {
			return apierrors.NewForbidden(s.kinds[model.KindPod].gr, pod.Name,
				fmt.Errorf("no PriorityClass with name %v was found", pod.Spec.PriorityClassName))
		}
		priority, policy = pc.Value, pc.PreemptionPolicy
	}
	if pod.Spec.Priority != nil && *pod.Spec.Priority != priority {
		return apierrors.NewForbidden(s.kinds[model.KindPod].gr, pod.Name,
			fmt.Errorf("the integer value of priority (%d) must not be provided in pod spec; priority admission controller computed %d from the given PriorityClass name", *pod.Spec.Priority, priority))
	}
	// Stored objects are immutable, so the pods given one priority and policy share the
	// values set last (a priority and a policy were two allocations per pod created).
	if s.admittedPriority == nil || *s.admittedPriority != priority {
		s.admittedPriority = model.Ptr(priority)
	}
	pod.Spec.Priority = s.admittedPriority
	if policy != nil {
		if pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy != *policy {
			return apierrors.NewForbidden(s.kinds[model.KindPod].gr, pod.Name,
				fmt.Errorf("the string value of PreemptionPolicy (%s) must not be provided in pod spec; priority admission controller computed %s from the given PriorityClass name", *pod.Spec.PreemptionPolicy, *policy))
		}
		if s.admittedPolicy == nil || *s.admittedPolicy != *policy {
			s.admittedPolicy = model.Ptr(*policy)
		}
		pod.Spec.PreemptionPolicy = s.admittedPolicy
	}
	return nil
}

// priorityClass returns the stored class called name, or the system class of that name; nil
// if there is neither.
func (s *Store) priorityClass(name string) *model.PriorityClass {
	if ks := s.kinds[model.KindPriorityClass]; ks != nil {
		if obj := ks.objects[objKey{name: name}]; obj != nil {
			return obj.(*model.PriorityClass)
		}
	}
	for _, pc := range model.SystemPriorityClasses() {
		if pc.Name == name {
			return pc
		}
	}
	return nil
}

// defaultPriorityClass is getDefaultPriorityClass: the stored class marked globalDefault with
// the lowest value (upstream lists them in cache order; here ties go to the first name, so
// that the answer does not depend on map order). The system classes are not defaults.
func (s *Store) defaultPriorityClass() *model.PriorityClass {
	ks := s.kinds[model.KindPriorityClass]
	if ks == nil {
		return nil
	}
	var best *model.PriorityClass
	for _, obj := range ks.objects { //detlint:ordered the minimum by (value, name) is order-independent
		pc := obj.(*model.PriorityClass)
		if !pc.GlobalDefault {
			continue
		}
		if best == nil || pc.Value < best.Value || (pc.Value == best.Value && pc.Name < best.Name) {
			best = pc
		}
	}
	return best
}
