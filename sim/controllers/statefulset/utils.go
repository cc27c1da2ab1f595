package statefulset

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
	"github.com/reconsim/reconsim/sim/controllers/internal/history"
	"github.com/reconsim/reconsim/vtime"
)

// Labels the controller puts on its pods and revisions ([api@HEAD] apps/v1/types.go).
const (
	// StatefulSetPodNameLabel carries the pod's own name, so that a Service can select one
	// member of the set (apps.StatefulSetPodNameLabel).
	StatefulSetPodNameLabel = "statefulset.kubernetes.io/pod-name"
	// PodIndexLabel carries the pod's ordinal (apps.PodIndexLabel, written under the
	// PodIndexLabel gate, GA and always on since 1.32).
	PodIndexLabel = "apps.kubernetes.io/pod-index"
	// StatefulSetRevisionLabel names the ControllerRevision a pod was made from
	// (apps.StatefulSetRevisionLabel = apps.ControllerRevisionHashLabelKey); for StatefulSet
	// pods its value is the revision's full name.
	StatefulSetRevisionLabel = history.ControllerRevisionHashLabel
)

// parentNameAndOrdinal splits a pod name "<parent>-<ordinal>" the way upstream's
// statefulPodRegex "(.*)-([0-9]+)$" does (stateful_set_utils.go getParentNameAndOrdinal): the
// parent is everything before the last '-' when all that follows it is digits. A name that does
// not match gives ("", -1); one that matches but whose ordinal does not fit an int32 keeps its
// parent and gives ordinal -1, as ParseInt(..., 10, 32) failing does upstream.
func parentNameAndOrdinal(name string) (string, int) {
	i := strings.LastIndexByte(name, '-')
	if i < 0 || i == len(name)-1 {
		return "", -1
	}
	// Parsed by hand: this runs for every pod in every sync.
	ord := 0
	overflow := false
	for j := i + 1; j < len(name); j++ {
		c := name[j]
		if c < '0' || c > '9' {
			return "", -1
		}
		if !overflow {
			ord = ord*10 + int(c-'0')
			overflow = ord > math.MaxInt32
		}
	}
	if overflow {
		return name[:i], -1
	}
	return name[:i], ord
}

// getOrdinal is the pod's ordinal, or -1 if its name has none.
func getOrdinal(pod *model.Pod) int {
	_, ord := parentNameAndOrdinal(pod.Name)
	return ord
}

// podName is the name of the set's pod with the given ordinal (upstream getPodName).
func podName(setName string, ordinal int) string { return setName + "-" + strconv.Itoa(ordinal) }

// isMemberOf reports whether the pod's name makes it one of the set's pods: the claim filter
// of upstream getPodsForStatefulSet.
func isMemberOf(set *model.StatefulSet, pod *model.Pod) bool {
	parent, _ := parentNameAndOrdinal(pod.Name)
	return parent == set.Name
}

// identityMatches reports whether the pod carries the identity of its ordinal: name,
// namespace and the pod-name and pod-index labels (upstream identityMatches; hostname and
// subdomain are not modelled).
func identityMatches(set *model.StatefulSet, pod *model.Pod) bool {
	parent, ord := parentNameAndOrdinal(pod.Name)
	return ord >= 0 &&
		parent == set.Name &&
		pod.Name == podName(set.Name, ord) &&
		pod.Namespace == set.Namespace &&
		pod.Labels[StatefulSetPodNameLabel] == pod.Name &&
		pod.Labels[PodIndexLabel] == strconv.Itoa(ord)
}

// updateIdentity gives the pod the identity of its ordinal (upstream updateIdentity).
func updateIdentity(set *model.StatefulSet, pod *model.Pod) {
	ord := getOrdinal(pod)
	pod.Name = podName(set.Name, ord)
	pod.Namespace = set.Namespace
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels[StatefulSetPodNameLabel] = pod.Name
	pod.Labels[PodIndexLabel] = strconv.Itoa(ord)
}

// controllerRef is the reference a StatefulSet's pods and revisions carry (upstream
// metav1.NewControllerRef(set, controllerKind)).
func controllerRef(set *model.StatefulSet) model.OwnerReference {
	return controllerutil.NewControllerRef(set, model.KindStatefulSet, "apps/v1")
}

// newStatefulSetPod builds the pod for ordinal from the set's template (upstream
// newStatefulSetPod with controller.GetPodFromTemplate and initIdentity): template labels,
// annotations, finalizers and spec; generateName "<set>-" as GetPodFromTemplate sets it; the
// name and identity labels of the ordinal; a controller reference to the set.
func newStatefulSetPod(set *model.StatefulSet, ordinal int) *model.Pod {
	var t model.PodTemplateSpec
	set.Spec.Template.DeepCopyInto(&t)
	pod := controllerutil.PodFromTemplate(&t, set, controllerRef(set))
	pod.Name = podName(set.Name, ordinal)
	updateIdentity(set, pod)
	return pod
}

// newVersionedStatefulSetPod builds the pod for ordinal at the revision it should have: the
// current revision below the partition (or, without a rollingUpdate block, below
// status.currentReplicas), the update revision otherwise (upstream newVersionedStatefulSetPod,
// keeping its operator precedence: (RollingUpdate && nil block && below currentReplicas) OR
// (block set && below partition)).
func newVersionedStatefulSetPod(currentSet, updateSet *model.StatefulSet, currentRevision, updateRevision string, ordinal int) *model.Pod {
	ru := currentSet.Spec.UpdateStrategy.RollingUpdate
	if (updateStrategyType(currentSet) == model.RollingUpdateStatefulSetStrategyType && ru == nil && ordinal < int(currentSet.Status.CurrentReplicas)) ||
		(ru != nil && ordinal < int(partition(currentSet))) {
		pod := newStatefulSetPod(currentSet, ordinal)
		setPodRevision(pod, currentRevision)
		return pod
	}
	pod := newStatefulSetPod(updateSet, ordinal)
	setPodRevision(pod, updateRevision)
	return pod
}

func setPodRevision(pod *model.Pod, revision string) {
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels[StatefulSetRevisionLabel] = revision
}

// getPodRevision is the revision label of the pod, "" if it has none.
func getPodRevision(pod *model.Pod) string { return pod.Labels[StatefulSetRevisionLabel] }

// ---- spec accessors, applying the API server's defaults when a field is unset ----

// specReplicas is spec.replicas (default 1).
func specReplicas(set *model.StatefulSet) int {
	if set.Spec.Replicas == nil {
		return 1
	}
	return int(*set.Spec.Replicas)
}

// updateStrategyType is spec.updateStrategy.type (default RollingUpdate).
func updateStrategyType(set *model.StatefulSet) string {
	if set.Spec.UpdateStrategy.Type == "" {
		return model.RollingUpdateStatefulSetStrategyType
	}
	return set.Spec.UpdateStrategy.Type
}

// partition is spec.updateStrategy.rollingUpdate.partition (default 0).
func partition(set *model.StatefulSet) int32 {
	if ru := set.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.Partition != nil {
		return *ru.Partition
	}
	return 0
}

// allowsBurst reports whether the set uses the Parallel pod management policy (upstream
// allowsBurst); everything else, the default OrderedReady included, is monotonic.
func allowsBurst(set *model.StatefulSet) bool {
	return set.Spec.PodManagementPolicy == model.ParallelPodManagement
}

// revisionHistoryLimit is spec.revisionHistoryLimit (default 10).
func revisionHistoryLimit(set *model.StatefulSet) int {
	if set.Spec.RevisionHistoryLimit == nil {
		return DefaultRevisionHistoryLimit
	}
	return int(*set.Spec.RevisionHistoryLimit)
}

// ---- pod state (upstream stateful_set_utils.go and podutil) ----

// isCreated: the API server has the pod (a pod built in memory has no phase yet).
func isCreated(pod *model.Pod) bool { return pod.Status.Phase != "" }

func isFailed(pod *model.Pod) bool    { return pod.Status.Phase == model.PodFailed }
func isSucceeded(pod *model.Pod) bool { return pod.Status.Phase == model.PodSucceeded }

// isTerminating: the pod has a deletionTimestamp. Such a pod keeps its ordinal until the
// object is gone.
func isTerminating(pod *model.Pod) bool { return pod.DeletionTimestamp != nil }

// isRunningAndReady: phase Running and Ready.
func isRunningAndReady(pod *model.Pod) bool {
	return pod.Status.Phase == model.PodRunning && model.IsPodReady(pod)
}

// isRunningAndAvailable is podutil.IsPodAvailable at now: Ready, for more than
// minReadySeconds when that is positive. Upstream treats a zero lastTransitionTime as unset;
// vtime.Time 0 is the first instant of a run, a real time, so it is not special here.
func isRunningAndAvailable(pod *model.Pod, minReadySeconds int32, now vtime.Time) bool {
	c := model.GetPodReadyCondition(pod)
	if c == nil || c.Status != model.ConditionTrue {
		return false
	}
	if minReadySeconds <= 0 {
		return true
	}
	return c.LastTransitionTime.Add(time.Duration(minReadySeconds) * time.Second).Before(now)
}

// isHealthy: Running, Ready and not terminating.
func isHealthy(pod *model.Pod) bool { return isRunningAndReady(pod) && !isTerminating(pod) }

// isUnavailable: not healthy, or not yet available (upstream isUnavailable).
func isUnavailable(pod *model.Pod, minReadySeconds int32, now vtime.Time) bool {
	return !isHealthy(pod) || !isRunningAndAvailable(pod, minReadySeconds, now)
}

// sortByOrdinal sorts pods by ordinal, ascending or descending; ties by name.
func sortByOrdinal(pods []*model.Pod, descending bool) {
	slices.SortStableFunc(pods, func(a, b *model.Pod) int {
		c := cmp.Compare(getOrdinal(a), getOrdinal(b))
		if descending {
			c = -c
		}
		if c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
}

// podState is a short description of a pod for messages: phase, readiness, node.
func podState(pod *model.Pod) string {
	phase := pod.Status.Phase
	if phase == "" {
		phase = "not created"
	}
	s := "phase " + phase
	if model.IsPodReady(pod) {
		s += ", Ready"
	} else if isCreated(pod) {
		s += ", not Ready"
	}
	if pod.Spec.NodeName != "" {
		s += ", node " + pod.Spec.NodeName
	} else if isCreated(pod) {
		s += ", not scheduled"
	}
	return s
}

func podKeyOf(pod *model.Pod) string { return model.KeyOf(pod.Namespace, pod.Name) }

func setRef(set *model.StatefulSet) string { return "StatefulSet " + model.Key(set) }

func podRef(pod *model.Pod) string { return "Pod " + podKeyOf(pod) }

func int32Ptr(v int32) *int32 { return &v }
