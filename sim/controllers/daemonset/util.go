package daemonset

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/controllers/internal/history"
	"github.com/reconsim/reconsim/sim/controllers/internal/nodeaffinity"
)

// Labels and annotations ([api@HEAD] apps/v1/types.go).
const (
	// DefaultDaemonSetUniqueLabelKey is the label carrying the hash of the revision a pod (or
	// a ControllerRevision) belongs to (apps.DefaultDaemonSetUniqueLabelKey =
	// ControllerRevisionHashLabelKey), the label every ControllerRevision carries.
	DefaultDaemonSetUniqueLabelKey = history.ControllerRevisionHashLabel
	// DaemonSetTemplateGenerationKey is the legacy label with the template generation
	// (apps.DaemonSetTemplateGenerationKey).
	DaemonSetTemplateGenerationKey = "pod-template-generation"
	// DeprecatedTemplateGeneration is the annotation the API server kept the template
	// generation in (apps.DeprecatedTemplateGeneration).
	DeprecatedTemplateGeneration = "deprecated.daemonset.template.generation"
)

// Toleration operators (model.TolerationOpExists, model.TolerationOpEqual).
const (
	TolerationOpExists = model.TolerationOpExists
	TolerationOpEqual  = model.TolerationOpEqual
)

// addOrUpdateTolerationInPodSpec replaces the toleration that matches t (if any) with t, or
// appends t (core/v1 helper AddOrUpdateTolerationInPodSpec). It reports whether spec changed.
func addOrUpdateTolerationInPodSpec(spec *model.PodSpec, t model.Toleration) bool {
	var out []model.Toleration
	updated := false
	for i := range spec.Tolerations {
		if t.MatchToleration(&spec.Tolerations[i]) {
			if model.TolerationEqual(&t, &spec.Tolerations[i]) {
				return false
			}
			out = append(out, t)
			updated = true
			continue
		}
		out = append(out, spec.Tolerations[i])
	}
	if !updated {
		out = append(out, t)
	}
	spec.Tolerations = out
	return true
}

// addOrUpdateDaemonPodTolerations gives a daemon pod the tolerations every DaemonSet pod gets
// ([k8s:pkg/controller/daemon/util/daemonset_util.go] AddOrUpdateDaemonPodTolerations):
// not-ready and unreachable NoExecute with no tolerationSeconds (daemon pods are never evicted
// for node problems), and disk-pressure, memory-pressure, pid-pressure and unschedulable
// NoSchedule (TaintNodesByCondition); network-unavailable NoSchedule only for hostNetwork pods.
// The model has no spec.hostNetwork, so the controller passes false.
func addOrUpdateDaemonPodTolerations(spec *model.PodSpec, hostNetwork bool) {
	add := func(key string, effect model.TaintEffect) {
		addOrUpdateTolerationInPodSpec(spec, model.Toleration{Key: key, Operator: TolerationOpExists, Effect: effect})
	}
	add(model.TaintNodeNotReady, model.TaintEffectNoExecute)
	add(model.TaintNodeUnreachable, model.TaintEffectNoExecute)
	add(model.TaintNodeDiskPressure, model.TaintEffectNoSchedule)
	add(model.TaintNodeMemoryPressure, model.TaintEffectNoSchedule)
	add(model.TaintNodePIDPressure, model.TaintEffectNoSchedule)
	add(model.TaintNodeUnschedulable, model.TaintEffectNoSchedule)
	if hostNetwork {
		add(model.TaintNodeNetworkUnavailable, model.TaintEffectNoSchedule)
	}
}

// newPod is the pod a DaemonSet would run on nodeName: the template, the node name and the
// daemon tolerations (upstream NewPod). It is only used to decide placement.
func newPod(ds *model.DaemonSet, nodeName string) *model.Pod {
	pod := &model.Pod{}
	ds.Spec.Template.ObjectMeta.DeepCopyInto(&pod.ObjectMeta)
	ds.Spec.Template.Spec.DeepCopyInto(&pod.Spec)
	pod.Namespace = ds.Namespace
	pod.Spec.NodeName = nodeName
	addOrUpdateDaemonPodTolerations(&pod.Spec, false)
	return pod
}

// nodeShouldRunDaemonPod is upstream NodeShouldRunDaemonPod. shouldRun: a daemon pod should be
// started on the node (it has none); shouldContinueRunning: a daemon pod already there may stay.
// A node fails both if the template names another node or the node affinity (nodeSelector,
// required node affinity) rejects it; a node with a taint the pod does not tolerate (effect
// NoSchedule or NoExecute) gets no new pod, and keeps an existing one only unless an
// untolerated taint has effect NoExecute.
func nodeShouldRunDaemonPod(node *model.Node, ds *model.DaemonSet) (shouldRun, shouldContinueRunning bool) {
	return nodeShouldRunWithSpec(node, ds, &newPod(ds, node.Name).Spec)
}

// nodeShouldRunWithSpec is nodeShouldRunDaemonPod given the daemon pod's spec (the template's
// with the daemon tolerations; its nodeName is not read), which it does not modify.
func nodeShouldRunWithSpec(node *model.Node, ds *model.DaemonSet, spec *model.PodSpec) (shouldRun, shouldContinueRunning bool) {
	if !(ds.Spec.Template.Spec.NodeName == "" || ds.Spec.Template.Spec.NodeName == node.Name) {
		return false, false
	}
	// The pod upstream builds has spec.nodeName = node.Name, so the NodeName predicate holds.
	if required := nodeaffinity.GetRequiredNodeAffinity(spec); !required.Match(node) {
		return false, false
	}
	_, untolerated := model.FindMatchingUntoleratedTaint(node.Spec.Taints, spec.Tolerations, func(t *model.Taint) bool {
		return t.Effect == model.TaintEffectNoExecute || t.Effect == model.TaintEffectNoSchedule
	})
	if untolerated {
		_, untoleratedNoExecute := model.FindMatchingUntoleratedTaint(node.Spec.Taints, spec.Tolerations, func(t *model.Taint) bool {
			return t.Effect == model.TaintEffectNoExecute
		})
		return false, !untoleratedNoExecute
	}
	return true, true
}

// replaceDaemonSetPodNodeNameNodeAffinity makes the required node affinity select exactly
// nodeName through matchFields metadata.name, replacing any required terms (upstream
// ReplaceDaemonSetPodNodeNameNodeAffinity): the scheduler then binds the pod to that node. The
// template's other affinity (preferred terms) is kept.
func replaceDaemonSetPodNodeNameNodeAffinity(affinity *model.Affinity, nodeName string) *model.Affinity {
	sel := &model.NodeSelector{NodeSelectorTerms: []model.NodeSelectorTerm{{
		MatchFields: []model.NodeSelectorRequirement{{Key: model.ObjectNameField, Operator: model.NodeSelectorOpIn, Values: []string{nodeName}}},
	}}}
	if affinity == nil {
		return &model.Affinity{NodeAffinity: &model.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: sel}}
	}
	if affinity.NodeAffinity == nil {
		affinity.NodeAffinity = &model.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: sel}
		return affinity
	}
	affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = sel
	return affinity
}

// getTargetNodeName is the node a daemon pod is for: spec.nodeName once bound, else the
// metadata.name In matchFields value of its required node affinity (upstream
// GetTargetNodeName). It returns an error if the pod names no node.
func getTargetNodeName(pod *model.Pod) (string, error) {
	if pod.Spec.NodeName != "" {
		return pod.Spec.NodeName, nil
	}
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return "", fmt.Errorf("no spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution for pod %s/%s", pod.Namespace, pod.Name)
	}
	terms := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	if len(terms) < 1 {
		return "", fmt.Errorf("no nodeSelectorTerms in requiredDuringSchedulingIgnoredDuringExecution of pod %s/%s", pod.Namespace, pod.Name)
	}
	for _, term := range terms {
		for _, f := range term.MatchFields {
			if f.Key == model.ObjectNameField && f.Operator == model.NodeSelectorOpIn {
				if len(f.Values) != 1 {
					return "", fmt.Errorf("the matchFields value of '%s' is not unique for pod %s/%s", model.ObjectNameField, pod.Namespace, pod.Name)
				}
				return f.Values[0], nil
			}
		}
	}
	return "", fmt.Errorf("no node name found for pod %s/%s", pod.Namespace, pod.Name)
}

// getTemplateGeneration reads the deprecated template-generation annotation (upstream
// GetTemplateGeneration): nil when absent, an error when it does not parse.
func getTemplateGeneration(ds *model.DaemonSet) (*int64, error) {
	v, ok := ds.Annotations[DeprecatedTemplateGeneration]
	if !ok {
		return nil, nil
	}
	g, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return nil, err
	}
	return &g, nil
}

// createPodTemplate is the template daemon pods are made from: the DaemonSet's, with the daemon
// tolerations, the template-generation label (when the annotation is set) and the revision hash
// label (upstream CreatePodTemplate).
func createPodTemplate(template *model.PodTemplateSpec, generation *int64, hash string) model.PodTemplateSpec {
	var t model.PodTemplateSpec
	template.DeepCopyInto(&t)
	addOrUpdateDaemonPodTolerations(&t.Spec, false)
	if t.Labels == nil {
		t.Labels = map[string]string{}
	}
	if generation != nil {
		t.Labels[DaemonSetTemplateGenerationKey] = strconv.FormatInt(*generation, 10)
	}
	if hash != "" {
		t.Labels[DefaultDaemonSetUniqueLabelKey] = hash
	}
	return t
}

// isPodUpdated reports whether the pod belongs to the current revision: its hash label equals
// hash, or its template-generation label equals the generation (upstream IsPodUpdated).
func isPodUpdated(pod *model.Pod, hash string, generation *int64) bool {
	templateMatches := generation != nil && pod.Labels[DaemonSetTemplateGenerationKey] == strconv.FormatInt(*generation, 10)
	hashMatches := hash != "" && pod.Labels[DefaultDaemonSetUniqueLabelKey] == hash
	return hashMatches || templateMatches
}

// ---- spec accessors, applying the API server's defaults when a field is unset
// ([k8s:pkg/apis/apps/v1/defaults.go] SetDefaults_DaemonSet) ----

// updateStrategyType is spec.updateStrategy.type (default RollingUpdate).
func updateStrategyType(ds *model.DaemonSet) string {
	if ds.Spec.UpdateStrategy.Type == "" {
		return model.RollingUpdateDaemonSetStrategyType
	}
	return ds.Spec.UpdateStrategy.Type
}

// rollingUpdateParams returns maxUnavailable and maxSurge as the API server defaults them:
// 1 and 0 when unset.
func rollingUpdateParams(ds *model.DaemonSet) (maxUnavailable, maxSurge intstr.IntOrString) {
	maxUnavailable, maxSurge = intstr.FromInt32(1), intstr.FromInt32(0)
	if ru := ds.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		if ru.MaxUnavailable != nil {
			maxUnavailable = *ru.MaxUnavailable
		}
		if ru.MaxSurge != nil {
			maxSurge = *ru.MaxSurge
		}
	}
	return maxUnavailable, maxSurge
}

// surgeCount is maxSurge scaled to numberToSchedule, rounding up; 0 unless the strategy is
// RollingUpdate (upstream SurgeCount).
func surgeCount(ds *model.DaemonSet, numberToSchedule int) (int, error) {
	if updateStrategyType(ds) != model.RollingUpdateDaemonSetStrategyType {
		return 0, nil
	}
	_, surge := rollingUpdateParams(ds)
	return intstr.GetScaledValueFromIntOrPercent(&surge, numberToSchedule, true)
}

// unavailableCount is maxUnavailable scaled to numberToSchedule, rounding up; 0 unless the
// strategy is RollingUpdate (upstream UnavailableCount).
func unavailableCount(ds *model.DaemonSet, numberToSchedule int) (int, error) {
	if updateStrategyType(ds) != model.RollingUpdateDaemonSetStrategyType {
		return 0, nil
	}
	unavailable, _ := rollingUpdateParams(ds)
	return intstr.GetScaledValueFromIntOrPercent(&unavailable, numberToSchedule, true)
}

// allowsSurge reports whether the update strategy lets a node run an old and a new pod at once
// (upstream AllowsSurge).
func allowsSurge(ds *model.DaemonSet) bool {
	n, err := surgeCount(ds, 1)
	return err == nil && n > 0
}

// revisionHistoryLimit is spec.revisionHistoryLimit (default 10).
func revisionHistoryLimit(ds *model.DaemonSet) int {
	if ds.Spec.RevisionHistoryLimit == nil {
		return DefaultRevisionHistoryLimit
	}
	return int(*ds.Spec.RevisionHistoryLimit)
}

// ---- pod state (podutil) ----

// sortByCreationTimestampAndPhase orders pods as upstream podByCreationTimestampAndPhase:
// scheduled pods first, then older first, then by name.
func sortByCreationTimestampAndPhase(pods []*model.Pod) {
	slices.SortStableFunc(pods, func(a, b *model.Pod) int {
		as, bs := a.Spec.NodeName != "", b.Spec.NodeName != ""
		if as != bs {
			if as {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(a.CreationTimestamp, b.CreationTimestamp); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
}

func dsRef(ds *model.DaemonSet) string { return "DaemonSet " + model.Key(ds) }

func podRef(pod *model.Pod) string { return "Pod " + model.KeyOf(pod.Namespace, pod.Name) }
