package model

import (
	"maps"

	"github.com/reconsim/reconsim/vtime"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// GetKind and DeepCopyObject for every type (Meta is ObjectMeta's, promoted). Deep copies are
// written out by hand: they run on every write through the client (they stand in for
// serialisation) and reflection would cost several times as much. deepcopy_test.go fills every field and checks that no
// memory is shared, so a field added to a type without a copy here fails a test. Maps are
// cloned whole (maps.Clone copies the table instead of inserting entry by entry), and the
// small values that optional fields point to are allocated together where a type has several
// (one array for the copies of a slice's pointers): fewer allocations, and each pointer still
// has a value of its own.

func (o *Namespace) GetKind() Kind  { return KindNamespace }
func (o *Node) GetKind() Kind       { return KindNode }
func (o *Lease) GetKind() Kind      { return KindLease }
func (o *Pod) GetKind() Kind        { return KindPod }
func (o *ReplicaSet) GetKind() Kind { return KindReplicaSet }
func (o *Event) GetKind() Kind      { return KindEvent }

func (o *Namespace) DeepCopyObject() Object  { return o.DeepCopy() }
func (o *Node) DeepCopyObject() Object       { return o.DeepCopy() }
func (o *Lease) DeepCopyObject() Object      { return o.DeepCopy() }
func (o *Pod) DeepCopyObject() Object        { return o.DeepCopy() }
func (o *ReplicaSet) DeepCopyObject() Object { return o.DeepCopy() }
func (o *Event) DeepCopyObject() Object      { return o.DeepCopy() }

// copyWithMeta returns a new shallow copy of *o whose metadata is copied deep: the first step
// of a type's DeepCopy, which then copies the rest of what the copy still shares.
func copyWithMeta[T any, P interface {
	*T
	Object
}](o P) P {
	out := P(new(T))
	*out = *o
	o.Meta().DeepCopyInto(out.Meta())
	return out
}

// CopyPtr returns a pointer to a shallow copy of *p, or nil when p is nil: a deep copy for
// a T without pointers, slices or maps inside.
func CopyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// copyMap copies a map of values that hold no pointers (nil stays nil).
func copyMap[K comparable, V any](m map[K]V) map[K]V { return maps.Clone(m) }

func copySlice[T any](s []T) []T {
	if s == nil {
		return nil
	}
	out := make([]T, len(s))
	copy(out, s)
	return out
}

// copyEach copies a slice whose elements hold pointers, slices or maps: each element is
// copied by deep (nil stays nil). It is the one loop behind every such slice of the model.
func copyEach[T any](s []T, deep func(T) T) []T {
	if s == nil {
		return nil
	}
	out := make([]T, len(s))
	for i, x := range s {
		out[i] = deep(x)
	}
	return out
}

// DeepCopyInto copies m into out.
func (m *ObjectMeta) DeepCopyInto(out *ObjectMeta) {
	*out = *m
	out.DeletionTimestamp = CopyPtr(m.DeletionTimestamp)
	out.DeletionGracePeriodSeconds = CopyPtr(m.DeletionGracePeriodSeconds)
	out.Labels = copyMap(m.Labels)
	out.Annotations = copyMap(m.Annotations)
	if m.OwnerReferences != nil {
		out.OwnerReferences = make([]OwnerReference, len(m.OwnerReferences))
		var flags []bool // the copied Controller and BlockOwnerDeletion values
		for i := range m.OwnerReferences {
			r := m.OwnerReferences[i]
			if r.Controller != nil || r.BlockOwnerDeletion != nil {
				if flags == nil {
					flags = make([]bool, 0, 2*len(m.OwnerReferences))
				}
				r.Controller = slabPtr(&flags, r.Controller)
				r.BlockOwnerDeletion = slabPtr(&flags, r.BlockOwnerDeletion)
			}
			out.OwnerReferences[i] = r
		}
	}
	out.Finalizers = copySlice(m.Finalizers)
}

// slabPtr returns a pointer to a copy of *p kept in *slab, nil for nil. *slab must have been
// made with room for every value put in it: appending never moves the values already pointed
// to.
func slabPtr[T any](slab *[]T, p *T) *T {
	if p == nil {
		return nil
	}
	*slab = append(*slab, *p)
	return &(*slab)[len(*slab)-1]
}

// DeepCopy returns a deep copy of l (quantities are copied with DeepCopy).
func (l ResourceList) DeepCopy() ResourceList {
	out := maps.Clone(l)
	// Only a quantity in the inf.Dec form holds a pointer; its DeepCopy differs from it.
	for k, v := range l { //detlint:ordered each entry is fixed on its own; order cannot matter
		if c := v.DeepCopy(); c != v {
			out[k] = c
		}
	}
	return out
}

// DeepCopy returns a deep copy.
func (o *Namespace) DeepCopy() *Namespace {
	out := copyWithMeta(o)
	return out
}

// DeepCopy returns a deep copy.
func (o *Node) DeepCopy() *Node {
	out := copyWithMeta(o)
	out.Spec.Taints = copyEach(o.Spec.Taints, func(t Taint) Taint {
		t.TimeAdded = CopyPtr(t.TimeAdded)
		return t
	})
	out.Status.Capacity = o.Status.Capacity.DeepCopy()
	out.Status.Allocatable = o.Status.Allocatable.DeepCopy()
	out.Status.Conditions = copySlice(o.Status.Conditions)
	return out
}

// DeepCopy returns a deep copy.
func (o *Lease) DeepCopy() *Lease {
	// The lease and the values its optional fields point to, in one allocation.
	block := new(struct {
		lease                  Lease
		duration, transitions  int32
		acquireTime, renewTime vtime.Time
	})
	out := &block.lease
	*out = *o
	o.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if p := o.Spec.LeaseDurationSeconds; p != nil {
		block.duration = *p
		out.Spec.LeaseDurationSeconds = &block.duration
	}
	if p := o.Spec.AcquireTime; p != nil {
		block.acquireTime = *p
		out.Spec.AcquireTime = &block.acquireTime
	}
	if p := o.Spec.RenewTime; p != nil {
		block.renewTime = *p
		out.Spec.RenewTime = &block.renewTime
	}
	if p := o.Spec.LeaseTransitions; p != nil {
		block.transitions = *p
		out.Spec.LeaseTransitions = &block.transitions
	}
	return out
}

// DeepCopy returns a deep copy.
func (o *Pod) DeepCopy() *Pod {
	out := copyWithMeta(o)
	o.Spec.DeepCopyInto(&out.Spec)
	o.Status.DeepCopyInto(&out.Status)
	return out
}

// DeepCopyInto copies s into out.
func (s *PodSpec) DeepCopyInto(out *PodSpec) {
	*out = *s
	out.Containers = copyEach(s.Containers, Container.deepCopy)
	out.InitContainers = copyEach(s.InitContainers, Container.deepCopy)
	out.TerminationGracePeriodSeconds = CopyPtr(s.TerminationGracePeriodSeconds)
	out.NodeSelector = copyMap(s.NodeSelector)
	if s.Affinity != nil {
		a := &Affinity{}
		if na := s.Affinity.NodeAffinity; na != nil {
			a.NodeAffinity = &NodeAffinity{}
			if req := na.RequiredDuringSchedulingIgnoredDuringExecution; req != nil {
				a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = &NodeSelector{NodeSelectorTerms: copyEach(req.NodeSelectorTerms, copyTerm)}
			}
			a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = copyEach(na.PreferredDuringSchedulingIgnoredDuringExecution, func(p PreferredSchedulingTerm) PreferredSchedulingTerm {
				return PreferredSchedulingTerm{Weight: p.Weight, Preference: copyTerm(p.Preference)}
			})
		}
		a.PodAffinity = copyPodAffinity(s.Affinity.PodAffinity)
		a.PodAntiAffinity = (*PodAntiAffinity)(copyPodAffinity((*PodAffinity)(s.Affinity.PodAntiAffinity)))
		out.Affinity = a
	}
	out.TopologySpreadConstraints = copyEach(s.TopologySpreadConstraints, func(c TopologySpreadConstraint) TopologySpreadConstraint {
		c.LabelSelector = copyLabelSelector(c.LabelSelector)
		c.MinDomains = CopyPtr(c.MinDomains)
		c.NodeAffinityPolicy = CopyPtr(c.NodeAffinityPolicy)
		c.NodeTaintsPolicy = CopyPtr(c.NodeTaintsPolicy)
		c.MatchLabelKeys = copySlice(c.MatchLabelKeys)
		return c
	})
	if s.Tolerations != nil {
		out.Tolerations = make([]Toleration, len(s.Tolerations))
		var seconds []int64 // the copied TolerationSeconds values
		for i, t := range s.Tolerations {
			if t.TolerationSeconds != nil && seconds == nil {
				seconds = make([]int64, 0, len(s.Tolerations))
			}
			t.TolerationSeconds = slabPtr(&seconds, t.TolerationSeconds)
			out.Tolerations[i] = t
		}
	}
	out.Priority = CopyPtr(s.Priority)
	out.PreemptionPolicy = CopyPtr(s.PreemptionPolicy)
}

func copyTerm(t NodeSelectorTerm) NodeSelectorTerm {
	return NodeSelectorTerm{MatchExpressions: copyRequirements(t.MatchExpressions), MatchFields: copyRequirements(t.MatchFields)}
}

func copyRequirements(rs []NodeSelectorRequirement) []NodeSelectorRequirement {
	return copyEach(rs, func(r NodeSelectorRequirement) NodeSelectorRequirement {
		r.Values = copySlice(r.Values)
		return r
	})
}

func (c Container) deepCopy() Container {
	c.Resources.Requests = c.Resources.Requests.DeepCopy()
	c.Resources.Limits = c.Resources.Limits.DeepCopy()
	c.ReadinessProbe = CopyPtr(c.ReadinessProbe)
	c.LivenessProbe = CopyPtr(c.LivenessProbe)
	c.StartupProbe = CopyPtr(c.StartupProbe)
	c.RestartPolicy = CopyPtr(c.RestartPolicy)
	c.Env = copySlice(c.Env)
	return c
}

// DeepCopyInto copies s into out.
func (s *PodStatus) DeepCopyInto(out *PodStatus) {
	*out = *s
	out.Conditions = copySlice(s.Conditions)
	out.StartTime = CopyPtr(s.StartTime)
	out.ContainerStatuses = copyEach(s.ContainerStatuses, ContainerStatus.deepCopy)
	out.InitContainerStatuses = copyEach(s.InitContainerStatuses, ContainerStatus.deepCopy)
}

func (c ContainerStatus) deepCopy() ContainerStatus {
	c.State = c.State.deepCopy()
	c.LastState = c.LastState.deepCopy()
	c.Started = CopyPtr(c.Started)
	return c
}

func (s ContainerState) deepCopy() ContainerState {
	return ContainerState{Waiting: CopyPtr(s.Waiting), Running: CopyPtr(s.Running), Terminated: CopyPtr(s.Terminated)}
}

// DeepCopy returns a deep copy.
func (o *ReplicaSet) DeepCopy() *ReplicaSet {
	out := copyWithMeta(o)
	out.Spec.Replicas = CopyPtr(o.Spec.Replicas)
	out.Spec.Selector = copyLabelSelector(o.Spec.Selector)
	o.Spec.Template.DeepCopyInto(&out.Spec.Template)
	out.Status.TerminatingReplicas = CopyPtr(o.Status.TerminatingReplicas)
	out.Status.Conditions = copySlice(o.Status.Conditions)
	return out
}

// DeepCopyInto copies t into out.
func (t *PodTemplateSpec) DeepCopyInto(out *PodTemplateSpec) {
	t.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	t.Spec.DeepCopyInto(&out.Spec)
}

// copyPodAffinity deep-copies pod affinity terms (PodAntiAffinity has the same shape and is
// copied through a conversion).
func copyPodAffinity(pa *PodAffinity) *PodAffinity {
	if pa == nil {
		return nil
	}
	return &PodAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: copyEach(pa.RequiredDuringSchedulingIgnoredDuringExecution, copyPodAffinityTerm),
		PreferredDuringSchedulingIgnoredDuringExecution: copyEach(pa.PreferredDuringSchedulingIgnoredDuringExecution, func(w WeightedPodAffinityTerm) WeightedPodAffinityTerm {
			return WeightedPodAffinityTerm{Weight: w.Weight, PodAffinityTerm: copyPodAffinityTerm(w.PodAffinityTerm)}
		}),
	}
}

func copyPodAffinityTerm(t PodAffinityTerm) PodAffinityTerm {
	return PodAffinityTerm{
		LabelSelector:     copyLabelSelector(t.LabelSelector),
		Namespaces:        copySlice(t.Namespaces),
		TopologyKey:       t.TopologyKey,
		NamespaceSelector: copyLabelSelector(t.NamespaceSelector),
		MatchLabelKeys:    copySlice(t.MatchLabelKeys),
		MismatchLabelKeys: copySlice(t.MismatchLabelKeys),
	}
}

func copyLabelSelector(s *metav1.LabelSelector) *metav1.LabelSelector {
	if s == nil {
		return nil
	}
	return s.DeepCopy()
}

// DeepCopy returns a deep copy.
func (o *Event) DeepCopy() *Event {
	out := copyWithMeta(o)
	return out
}
