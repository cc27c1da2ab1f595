package node

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/utils/ptr"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

// Container waiting and terminated reasons, as the kubelet and the container runtime write
// them (pkg/kubelet/kubelet_pods.go, pkg/kubelet/container/sync_result.go, CRI runtimes).
const (
	reasonContainerCreating = "ContainerCreating"
	reasonCrashLoopBackOff  = "CrashLoopBackOff"
	reasonPodInitializing   = "PodInitializing"
	// reasonErrImagePull and reasonImagePullBackOff are images.ErrImagePull and
	// images.ErrImagePullBackOff (pkg/kubelet/images/types.go).
	reasonErrImagePull     = "ErrImagePull"
	reasonImagePullBackOff = "ImagePullBackOff"
	reasonCompleted        = "Completed"
	reasonError            = "Error"
	// reasonUnknown is what a runtime reports for a container that died with its machine;
	// the exit code is then 255.
	reasonUnknown   = "Unknown"
	exitCodeUnknown = 255
	// exitCodeSIGKILL is 128+9, a container killed at the end of its grace period.
	exitCodeSIGKILL = 137
)

// Pod condition reasons (pkg/kubelet/status/generate.go).
const (
	reasonContainersNotReady = "ContainersNotReady"
	// reasonContainersNotInitialized: an init container has not completed.
	reasonContainersNotInitialized = "ContainersNotInitialized"
	reasonPodCompleted             = "PodCompleted"
)

// isKubeletCondition reports whether the kubelet owns a pod condition type (pkg/kubelet/types
// PodConditionsByKubelet); mergePodStatus keeps every other condition as the API has it.
func isKubeletCondition(conditionType string) bool {
	switch conditionType {
	case model.PodScheduled, model.PodReady, model.PodInitialized, model.PodContainersReady, model.PodReadyToStartContainers:
		return true
	}
	return false
}

func isTerminalPhase(phase string) bool {
	return phase == model.PodSucceeded || phase == model.PodFailed
}

// formatPod is pkg/kubelet/util/format.Pod: "name_namespace(uid)", used in messages.
func formatPod(pod *model.Pod) string {
	return fmt.Sprintf("%s_%s(%s)", pod.Name, pod.Namespace, pod.UID)
}

// getPhase is pkg/kubelet/kubelet_pods.go getPhase for regular containers: Pending while a
// container waits for its first start, Running while one runs (or, under restartPolicy
// Always, while all are restarting), and once all have stopped Succeeded or Failed by their
// exit codes and the restart policy. podIsTerminal is true when the kubelet has stopped the
// pod for good (deletion): a restarting pod is then finished.
func getPhase(restartPolicy string, statuses []model.ContainerStatus, podIsTerminal bool) string {
	var waiting, running, stopped, succeeded, unknown int
	for i := range statuses {
		s := &statuses[i]
		switch {
		case s.State.Running != nil:
			running++
		case s.State.Terminated != nil:
			stopped++
			if s.State.Terminated.ExitCode == 0 {
				succeeded++
			}
		case s.State.Waiting != nil:
			if s.LastState.Terminated != nil {
				stopped++
			} else {
				waiting++
			}
		default:
			unknown++
		}
	}
	switch {
	case waiting > 0:
		return model.PodPending
	case running > 0 && unknown == 0:
		return model.PodRunning
	case running == 0 && stopped > 0 && unknown == 0:
		if restartPolicy == model.RestartPolicyAlways && !podIsTerminal {
			return model.PodRunning
		}
		if stopped == succeeded {
			return model.PodSucceeded
		}
		if restartPolicy == model.RestartPolicyNever {
			return model.PodFailed
		}
		if !podIsTerminal {
			return model.PodRunning
		}
		return model.PodFailed
	default:
		return model.PodPending
	}
}

// readyConditions builds the ContainersReady and Ready conditions (status/generate.go
// GenerateContainersReadyCondition and GeneratePodReadyCondition without readiness gates):
// True when every container is ready; otherwise False with the unready containers named,
// or reason PodCompleted once the pod succeeded.
func readyConditions(statuses []model.ContainerStatus, phase string) (containersReady, ready model.PodCondition) {
	c := model.PodCondition{Type: model.PodContainersReady, Status: model.ConditionTrue}
	switch {
	case phase == model.PodSucceeded:
		c.Status, c.Reason = model.ConditionFalse, reasonPodCompleted
	default:
		if msg := unreadyMessage(statuses); msg != "" {
			c.Status, c.Reason = model.ConditionFalse, reasonContainersNotReady
			c.Message = msg
		}
	}
	r := c
	r.Type = model.PodReady
	return c, r
}

// unreadyMessage is the ContainersReady condition's message naming the unready containers,
// fmt.Sprintf("containers with unready status: [%s]", strings.Join(names, " ")), or "" when
// all are ready. It is built in one allocation: readyConditions runs at every status the
// kubelet generates (TestTraceDetailsAreSprintf).
func unreadyMessage(statuses []model.ContainerStatus) string {
	const prefix = "containers with unready status: ["
	n := 0
	for i := range statuses {
		if !statuses[i].Ready {
			n += len(statuses[i].Name) + 1
		}
	}
	if n == 0 {
		return ""
	}
	var b strings.Builder
	b.Grow(len(prefix) + n)
	b.WriteString(prefix)
	first := true
	for i := range statuses {
		if !statuses[i].Ready {
			if !first {
				b.WriteByte(' ')
			}
			first = false
			b.WriteString(statuses[i].Name)
		}
	}
	b.WriteByte(']')
	return b.String()
}

// normalizeStatus fixes the times of a freshly generated status against old, the status the
// kubelet last knew (status_manager.go updateStatusInternal): a condition whose status did
// not change keeps its lastTransitionTime, a changed one gets now; startTime, once set, never
// changes; and a pod whose phase was terminal stays terminal.
func normalizeStatus(s *model.PodStatus, old *model.PodStatus, now vtime.Time) {
	for i := range s.Conditions {
		c := &s.Conditions[i]
		c.LastTransitionTime = now
		if oc := findCondition(old.Conditions, c.Type); oc != nil && oc.Status == c.Status {
			c.LastTransitionTime = oc.LastTransitionTime
		}
	}
	switch {
	case old.StartTime != nil:
		// Shared, as statuses are read-only and replaced whole, never changed in place.
		s.StartTime = old.StartTime
	case s.StartTime == nil:
		s.StartTime = model.Ptr(now)
	}
	if isTerminalPhase(old.Phase) && !isTerminalPhase(s.Phase) {
		s.Phase = old.Phase
	}
}

func findCondition(cs []model.PodCondition, typ string) *model.PodCondition {
	for i := range cs {
		if cs[i].Type == typ {
			return &cs[i]
		}
	}
	return nil
}

// mergePodStatus is status_manager.go mergePodStatus: the kubelet's status, with the
// conditions the kubelet does not own kept as the API server has them (first, in their
// order) followed by the kubelet's own.
//
// The merged status is written and stored, so it may share what it takes unchanged from
// kubeletStatus, which is read-only (a status manager entry's): its container statuses, and
// its conditions when they are the merge's whole list (the API has no condition other than
// the kubelet's, the usual case). A stored pod then shares them with the entry instead of
// holding copies of its own. Shared slices are at full capacity (setPodStatus and
// readinessChanged clip them), so that nobody appending to the stored pod's lists writes into
// the entry's memory. Nil and empty lists come out as the copies would: the conditions as a
// non-nil list, the container statuses nil when empty (TestMergePodStatusIsCopyingMerge).
func mergePodStatus(apiStatus, kubeletStatus *model.PodStatus) model.PodStatus {
	merged := *kubeletStatus
	apiOwn, kubeletOwn := 0, 0
	for i := range apiStatus.Conditions {
		if !isKubeletCondition(apiStatus.Conditions[i].Type) {
			apiOwn++
		}
	}
	for i := range kubeletStatus.Conditions {
		if isKubeletCondition(kubeletStatus.Conditions[i].Type) {
			kubeletOwn++
		}
	}
	if apiOwn == 0 && kubeletOwn > 0 && kubeletOwn == len(kubeletStatus.Conditions) {
		merged.Conditions = kubeletStatus.Conditions
	} else {
		merged.Conditions = make([]model.PodCondition, 0, apiOwn+kubeletOwn)
		for _, c := range apiStatus.Conditions {
			if !isKubeletCondition(c.Type) {
				merged.Conditions = append(merged.Conditions, c)
			}
		}
		for _, c := range kubeletStatus.Conditions {
			if isKubeletCondition(c.Type) {
				merged.Conditions = append(merged.Conditions, c)
			}
		}
	}
	// nominatedNodeName is kube-scheduler's (preemption), not the kubelet's: keep the API's.
	merged.NominatedNodeName = apiStatus.NominatedNodeName
	merged.ContainerStatuses = nonEmptyOrNil(kubeletStatus.ContainerStatuses)
	merged.InitContainerStatuses = nonEmptyOrNil(kubeletStatus.InitContainerStatuses)
	return merged
}

// nonEmptyOrNil is s, or nil for an empty s: what copying it with append(nil, s...) gives,
// without the copy.
func nonEmptyOrNil[S ~[]E, E any](s S) S {
	if len(s) == 0 {
		return nil
	}
	return s
}

// mergedStatusUnchanged is statusEqual(&merged, apiStatus) for merged :=
// mergePodStatus(apiStatus, kubeletStatus), without building merged: whether writing the
// kubelet's status over apiStatus would change nothing, the status manager's question before
// every write and at every check of a pod someone else wrote. Most answers are yes, and
// merged is built only to be written (TestMergedStatusUnchangedIsMergeThenCompare).
func mergedStatusUnchanged(apiStatus, kubeletStatus *model.PodStatus) bool {
	a, k := apiStatus, kubeletStatus
	// merged has kubeletStatus's fields but for the conditions and nominatedNodeName, which
	// it takes from the API's status.
	if k.Phase != a.Phase || k.Message != a.Message || k.Reason != a.Reason ||
		k.HostIP != a.HostIP || k.PodIP != a.PodIP || !ptr.Equal(k.StartTime, a.StartTime) {
		return false
	}
	// merged's conditions, position by position against the API's: first the API's own that
	// are not the kubelet's, then the kubelet's.
	j := 0
	for i := range a.Conditions {
		if !isKubeletCondition(a.Conditions[i].Type) {
			if a.Conditions[j] != a.Conditions[i] {
				return false
			}
			j++
		}
	}
	for i := range k.Conditions {
		if isKubeletCondition(k.Conditions[i].Type) {
			if j == len(a.Conditions) || a.Conditions[j] != k.Conditions[i] {
				return false
			}
			j++
		}
	}
	return j == len(a.Conditions) &&
		containerStatusesEqual(k.ContainerStatuses, a.ContainerStatuses) &&
		containerStatusesEqual(k.InitContainerStatuses, a.InitContainerStatuses)
}

// statusEqual compares two pod statuses field by field, nil and empty slices alike
// (TestStatusEqualMatchesDeepEqual holds it to reflect.DeepEqual, so a field added to the
// status types cannot be missed silently).
func statusEqual(a, b *model.PodStatus) bool {
	if a.Phase != b.Phase || a.Message != b.Message || a.Reason != b.Reason ||
		a.HostIP != b.HostIP || a.PodIP != b.PodIP || !ptr.Equal(a.StartTime, b.StartTime) ||
		a.NominatedNodeName != b.NominatedNodeName ||
		!slices.Equal(a.Conditions, b.Conditions) {
		return false
	}
	return containerStatusesEqual(a.ContainerStatuses, b.ContainerStatuses) &&
		containerStatusesEqual(a.InitContainerStatuses, b.InitContainerStatuses)
}

func containerStatusesEqual(a, b []model.ContainerStatus) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !containerStatusEqual(&a[i], &b[i]) {
			return false
		}
	}
	return true
}

func containerStatusEqual(a, b *model.ContainerStatus) bool {
	return a.Name == b.Name && a.Ready == b.Ready && a.RestartCount == b.RestartCount &&
		a.Image == b.Image && ptr.Equal(a.Started, b.Started) &&
		containerStateEqual(&a.State, &b.State) && containerStateEqual(&a.LastState, &b.LastState)
}

func containerStateEqual(a, b *model.ContainerState) bool {
	return ptr.Equal(a.Waiting, b.Waiting) && ptr.Equal(a.Running, b.Running) && ptr.Equal(a.Terminated, b.Terminated)
}

// podReady reports whether a status carries Ready=True.
func podReady(s *model.PodStatus) bool {
	c := findCondition(s.Conditions, model.PodReady)
	return c != nil && c.Status == model.ConditionTrue
}
