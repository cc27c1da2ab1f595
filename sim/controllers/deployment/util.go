package deployment

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

// The helpers of upstream pkg/controller/deployment/util/deployment_util.go and the ReplicaSet
// helpers of pkg/controller/controller_utils.go, written for the model types. Functions keep
// their upstream names so that readers can compare them. A nil *model.ReplicaSet in a list is
// skipped wherever upstream skips it (callers append a newRS that may be nil).

// Labels and annotations the controller writes (upstream deployment_util.go constants and
// apps/v1 DefaultDeploymentUniqueLabelKey).
const (
	// DefaultDeploymentUniqueLabelKey is the label that tells the pods of two ReplicaSets of one
	// Deployment apart: its value is the hash of the pod template (apps/v1
	// DefaultDeploymentUniqueLabelKey).
	DefaultDeploymentUniqueLabelKey = "pod-template-hash"
	// RevisionAnnotation records a ReplicaSet's place in the rollout sequence, and on the
	// Deployment the revision of its newest ReplicaSet.
	RevisionAnnotation = "deployment.kubernetes.io/revision"
	// RevisionHistoryAnnotation keeps the revisions a ReplicaSet served before it was rolled
	// back to, comma separated.
	RevisionHistoryAnnotation = "deployment.kubernetes.io/revision-history"
	// DesiredReplicasAnnotation is spec.replicas of the Deployment when it last sized the
	// ReplicaSet; it tells scaling events from rollouts.
	DesiredReplicasAnnotation = "deployment.kubernetes.io/desired-replicas"
	// MaxReplicasAnnotation is spec.replicas + maxSurge of the Deployment when it last sized the
	// ReplicaSet; proportional scaling divides by it.
	MaxReplicasAnnotation = "deployment.kubernetes.io/max-replicas"

	// lastAppliedConfigAnnotation is v1.LastAppliedConfigAnnotation (kubectl apply).
	lastAppliedConfigAnnotation = "kubectl.kubernetes.io/last-applied-configuration"
	// deprecatedRollbackToAnnotation is apps.DeprecatedRollbackTo, the annotation the
	// extensions/v1beta1 rollbackTo field converts to.
	deprecatedRollbackToAnnotation = "deprecated.deployment.rollback.to"

	// maxRevHistoryLengthInChars bounds RevisionHistoryAnnotation (upstream sync.go: "limit
	// revision history length to 100 element (~2000 chars)").
	maxRevHistoryLengthInChars = 2000
)

// Condition reasons (upstream deployment_util.go), and the event reasons the controller uses.
const (
	// ReplicaSetUpdatedReason: a ReplicaSet of the Deployment changed as part of the rollout.
	ReplicaSetUpdatedReason = "ReplicaSetUpdated"
	// FailedRSCreateReason: the new ReplicaSet could not be created.
	FailedRSCreateReason = "ReplicaSetCreateError"
	// NewReplicaSetReason: the controller created the new ReplicaSet.
	NewReplicaSetReason = "NewReplicaSetCreated"
	// FoundNewRSReason: the controller found (adopted) an existing new ReplicaSet.
	FoundNewRSReason = "FoundNewReplicaSet"
	// NewRSAvailableReason: the rollout completed.
	NewRSAvailableReason = "NewReplicaSetAvailable"
	// TimedOutReason: no progress for progressDeadlineSeconds.
	TimedOutReason = "ProgressDeadlineExceeded"
	// PausedDeployReason: the Deployment is paused; progress is not estimated.
	PausedDeployReason = "DeploymentPaused"
	// ResumedDeployReason: the Deployment was resumed; the deadline counts from now.
	ResumedDeployReason = "DeploymentResumed"
	// MinimumReplicasAvailable: available >= replicas - maxUnavailable.
	MinimumReplicasAvailable = "MinimumReplicasAvailable"
	// MinimumReplicasUnavailable: available < replicas - maxUnavailable.
	MinimumReplicasUnavailable = "MinimumReplicasUnavailable"

	// ScalingReplicaSetReason is the reason of the events recording every resize of a
	// ReplicaSet (upstream sync.go scaleReplicaSet and getNewReplicaSet).
	ScalingReplicaSetReason = "ScalingReplicaSet"
	// SelectingAllReason is the warning for a Deployment with an empty selector.
	SelectingAllReason = "SelectingAll"
)

// annotationsToSkip are the annotations never copied between a Deployment and its ReplicaSets
// (upstream deployment_util.go annotationsToSkip).
var annotationsToSkip = map[string]bool{
	lastAppliedConfigAnnotation:    true,
	RevisionAnnotation:             true,
	RevisionHistoryAnnotation:      true,
	DesiredReplicasAnnotation:      true,
	MaxReplicasAnnotation:          true,
	deprecatedRollbackToAnnotation: true,
}

// ---- sizes ----

// deploymentReplicas is *spec.replicas; nil reads as the apps/v1 default (1), which the API
// server fills in on every write (SetDefaults_Deployment).
func deploymentReplicas(d *model.Deployment) int32 {
	if d.Spec.Replicas == nil {
		return model.DefaultDeploymentReplicas
	}
	return *d.Spec.Replicas
}

// rsReplicas is *spec.replicas of a ReplicaSet; nil reads as the apps/v1 default (1).
func rsReplicas(rs *model.ReplicaSet) int32 {
	if rs.Spec.Replicas == nil {
		return model.DefaultReplicaSetReplicas
	}
	return *rs.Spec.Replicas
}

// IsRollingUpdate reports whether the Deployment's strategy is RollingUpdate.
func IsRollingUpdate(d *model.Deployment) bool {
	return d.Spec.Strategy.Type == model.RollingUpdateDeploymentStrategyType
}

// ResolveFenceposts resolves maxSurge and maxUnavailable against desired replicas in one step
// (upstream ResolveFenceposts): a percentage of maxSurge rounds up, of maxUnavailable down (both
// through intstr.GetScaledValueFromIntOrPercent), nil counts as 0, and when both resolve to 0
// maxUnavailable becomes 1 so that the rollout can make progress (validation forbids two
// explicit zeros, but rounding down can produce them). It returns an error, and zeros, when a
// value is a string that is not a percentage.
func ResolveFenceposts(maxSurge, maxUnavailable *intstr.IntOrString, desired int32) (surge, unavailable int32, err error) {
	zero := intstr.FromInt32(0)
	s, err := intstr.GetScaledValueFromIntOrPercent(intstr.ValueOrDefault(maxSurge, zero), int(desired), true)
	if err != nil {
		return 0, 0, err
	}
	u, err := intstr.GetScaledValueFromIntOrPercent(intstr.ValueOrDefault(maxUnavailable, zero), int(desired), false)
	if err != nil {
		return 0, 0, err
	}
	if s == 0 && u == 0 {
		u = 1
	}
	return clampInt32(s), clampInt32(u), nil
}

func clampInt32(v int) int32 {
	switch {
	case v > math.MaxInt32:
		return math.MaxInt32
	case v < math.MinInt32:
		return math.MinInt32
	}
	return int32(v)
}

// rollingParams returns the strategy's maxSurge and maxUnavailable, nil for a Deployment
// without rollingUpdate parameters.
func rollingParams(d *model.Deployment) (maxSurge, maxUnavailable *intstr.IntOrString) {
	if ru := d.Spec.Strategy.RollingUpdate; ru != nil {
		return ru.MaxSurge, ru.MaxUnavailable
	}
	return nil, nil
}

// MaxUnavailable returns how many pods a rolling Deployment may have unavailable: 0 for
// Recreate or zero replicas, never more than spec.replicas (upstream MaxUnavailable). An
// invalid value counts as 0 (validation rejects it before it is stored).
func MaxUnavailable(d *model.Deployment) int32 {
	replicas := deploymentReplicas(d)
	if !IsRollingUpdate(d) || replicas == 0 {
		return 0
	}
	surge, unavailable := rollingParams(d)
	_, maxUnavailable, _ := ResolveFenceposts(surge, unavailable, replicas)
	return min(maxUnavailable, replicas)
}

// MaxSurge returns how many pods a rolling Deployment may run above spec.replicas: 0 for
// Recreate (upstream MaxSurge). An invalid value counts as 0.
func MaxSurge(d *model.Deployment) int32 {
	if !IsRollingUpdate(d) {
		return 0
	}
	surge, unavailable := rollingParams(d)
	maxSurge, _, _ := ResolveFenceposts(surge, unavailable, deploymentReplicas(d))
	return maxSurge
}

// NewRSNewReplicas returns the size the new ReplicaSet should have now (upstream
// NewRSNewReplicas). RollingUpdate: if the ReplicaSets together already ask for replicas +
// maxSurge pods, the new one keeps its size; otherwise it grows by the room left, but not past
// spec.replicas. Recreate: spec.replicas. It returns an error for an unknown strategy or an
// invalid maxSurge.
func NewRSNewReplicas(d *model.Deployment, allRSs []*model.ReplicaSet, newRS *model.ReplicaSet) (int32, error) {
	replicas := deploymentReplicas(d)
	switch d.Spec.Strategy.Type {
	case model.RollingUpdateDeploymentStrategyType:
		surgeParam, _ := rollingParams(d)
		maxSurge, err := intstr.GetScaledValueFromIntOrPercent(intstr.ValueOrDefault(surgeParam, intstr.FromInt32(0)), int(replicas), true)
		if err != nil {
			return 0, err
		}
		currentPodCount := GetReplicaCountForReplicaSets(allRSs)
		maxTotalPods := replicas + clampInt32(maxSurge)
		if currentPodCount >= maxTotalPods {
			return rsReplicas(newRS), nil
		}
		scaleUpCount := min(maxTotalPods-currentPodCount, replicas-rsReplicas(newRS))
		return rsReplicas(newRS) + scaleUpCount, nil
	case model.RecreateDeploymentStrategyType:
		return replicas, nil
	default:
		return 0, fmt.Errorf("deployment type %v isn't supported", d.Spec.Strategy.Type)
	}
}

// maxScaledDown is the number of old pods reconcileOldReplicaSets may remove in one step
// (upstream rolling.go): all pods asked for, minus the pods that must stay available, minus the
// new ReplicaSet's pods that are not available yet. The last term keeps a rollout whose new
// pods never become available from eating into the old ones.
func maxScaledDown(allPodsCount, minAvailable, newRSUnavailable int32) int32 {
	return allPodsCount - minAvailable - newRSUnavailable
}

// GetReplicaCountForReplicaSets sums spec.replicas.
func GetReplicaCountForReplicaSets(rss []*model.ReplicaSet) int32 {
	return sumReplicaSets(rss, rsReplicas)
}

// sumReplicaSets sums count over the ReplicaSets of rss, skipping nil ones (the loop of
// upstream's Get*ReplicaCountForReplicaSets).
func sumReplicaSets(rss []*model.ReplicaSet, count func(*model.ReplicaSet) int32) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += count(rs)
		}
	}
	return n
}

// GetActualReplicaCountForReplicaSets sums status.replicas.
func GetActualReplicaCountForReplicaSets(rss []*model.ReplicaSet) int32 {
	return sumReplicaSets(rss, func(rs *model.ReplicaSet) int32 { return rs.Status.Replicas })
}

// GetReadyReplicaCountForReplicaSets sums status.readyReplicas.
func GetReadyReplicaCountForReplicaSets(rss []*model.ReplicaSet) int32 {
	return sumReplicaSets(rss, func(rs *model.ReplicaSet) int32 { return rs.Status.ReadyReplicas })
}

// GetAvailableReplicaCountForReplicaSets sums status.availableReplicas.
func GetAvailableReplicaCountForReplicaSets(rss []*model.ReplicaSet) int32 {
	return sumReplicaSets(rss, func(rs *model.ReplicaSet) int32 { return rs.Status.AvailableReplicas })
}

// GetTerminatingReplicaCountForReplicaSets sums status.terminatingReplicas, or returns nil if
// any ReplicaSet does not report it (upstream, under the DeploymentReplicaSetTerminatingReplicas
// gate).
func GetTerminatingReplicaCountForReplicaSets(rss []*model.ReplicaSet) *int32 {
	var n int32
	for _, rs := range rss {
		switch {
		case rs == nil:
		case rs.Status.TerminatingReplicas == nil:
			return nil
		default:
			n += *rs.Status.TerminatingReplicas
		}
	}
	return &n
}

// FilterActiveReplicaSets returns the ReplicaSets with spec.replicas > 0, in order (upstream
// controller.FilterActiveReplicaSets).
func FilterActiveReplicaSets(rss []*model.ReplicaSet) []*model.ReplicaSet {
	var out []*model.ReplicaSet
	for _, rs := range rss {
		if rs != nil && rsReplicas(rs) > 0 {
			out = append(out, rs)
		}
	}
	return out
}

// ---- proportional scaling ----

// GetProportion returns how many replicas to add to (or, negative, remove from) rs when
// replicasToAdd are distributed over the active ReplicaSets and replicasAdded of them have been
// given out already (upstream GetProportion): rs's fraction, capped by what is left.
func GetProportion(rs *model.ReplicaSet, d *model.Deployment, replicasToAdd, replicasAdded int32) int32 {
	if rs == nil || rsReplicas(rs) == 0 || replicasToAdd == 0 || replicasToAdd == replicasAdded {
		return 0
	}
	fraction := getReplicaSetFraction(rs, d)
	allowed := replicasToAdd - replicasAdded
	if replicasToAdd > 0 {
		return min(fraction, allowed)
	}
	return max(fraction, allowed)
}

// getReplicaSetFraction estimates rs's share of a resize (upstream getReplicaSetFraction):
// round(rs.replicas * (d.replicas + maxSurge) / max-replicas annotation) - rs.replicas, where a
// missing annotation falls back to status.replicas of the Deployment. Scaling to zero removes
// the whole ReplicaSet. The product is taken in 64 bits (upstream multiplies in int32); a zero
// or negative divisor, which upstream never expects, gives 0 so that the leftover goes to the
// largest ReplicaSet instead of a division by zero.
func getReplicaSetFraction(rs *model.ReplicaSet, d *model.Deployment) int32 {
	replicas := deploymentReplicas(d)
	if replicas == 0 {
		return -rsReplicas(rs)
	}
	deploymentMax := int64(replicas) + int64(MaxSurge(d))
	annotated, ok := getMaxReplicasAnnotation(rs)
	if !ok {
		annotated = d.Status.Replicas
	}
	if annotated <= 0 {
		return 0
	}
	newSize := float64(int64(rsReplicas(rs))*deploymentMax) / float64(annotated)
	return clampInt32(int(math.Round(newSize))) - rsReplicas(rs)
}

// proportionalSizes computes the sizes scale() gives the active ReplicaSets of a rolling
// Deployment whose replicas changed during a rollout (upstream sync.go scale, the
// RollingUpdate branch): allowed = replicas + maxSurge (0 when scaling to 0), toAdd = allowed -
// sum of active sizes, distributed by GetProportion over the active sets ordered by
// ReplicaSetsBySizeNewer when growing and ReplicaSetsBySizeOlder when shrinking, with the
// leftover given to the first (largest) one, floored at 0. It returns the sets in the order
// they are to be written, their new sizes, and "up", "down" or "" (nothing to add).
func proportionalSizes(d *model.Deployment, allRSs []*model.ReplicaSet) (ordered []*model.ReplicaSet, sizes []int32, operation string) {
	ordered = FilterActiveReplicaSets(allRSs)
	allRSsReplicas := GetReplicaCountForReplicaSets(ordered)
	var allowedSize int32
	if deploymentReplicas(d) > 0 {
		allowedSize = deploymentReplicas(d) + MaxSurge(d)
	}
	toAdd := allowedSize - allRSsReplicas
	switch {
	case toAdd > 0:
		slices.SortStableFunc(ordered, compareBySizeNewer)
		operation = "up"
	case toAdd < 0:
		slices.SortStableFunc(ordered, compareBySizeOlder)
		operation = "down"
	}
	sizes = make([]int32, len(ordered))
	var added int32
	for i, rs := range ordered {
		sizes[i] = rsReplicas(rs)
		if toAdd != 0 {
			proportion := GetProportion(rs, d, toAdd, added)
			sizes[i] += proportion
			added += proportion
		}
	}
	if len(ordered) > 0 && toAdd != 0 {
		sizes[0] = max(sizes[0]+toAdd-added, 0)
	}
	return ordered, sizes, operation
}

// IsSaturated reports whether rs alone serves the Deployment: its size and its
// desired-replicas annotation equal spec.replicas and all its pods are available (upstream
// IsSaturated).
func IsSaturated(d *model.Deployment, rs *model.ReplicaSet) bool {
	if rs == nil {
		return false
	}
	desired, err := strconv.Atoi(rs.Annotations[DesiredReplicasAnnotation])
	if err != nil {
		return false
	}
	replicas := deploymentReplicas(d)
	return rsReplicas(rs) == replicas && int64(desired) == int64(replicas) && rs.Status.AvailableReplicas == replicas
}

// FindActiveOrLatest returns the only active ReplicaSet, or the newest one when none is active,
// or nil when several are active (then sizes are shared proportionally). Like upstream it sorts
// oldRSs in place, newest first.
func FindActiveOrLatest(newRS *model.ReplicaSet, oldRSs []*model.ReplicaSet) *model.ReplicaSet {
	if newRS == nil && len(oldRSs) == 0 {
		return nil
	}
	slices.SortStableFunc(oldRSs, func(a, b *model.ReplicaSet) int { return compareByCreationTimestamp(b, a) })
	active := FilterActiveReplicaSets(append(slices.Clip(oldRSs), newRS))
	switch len(active) {
	case 0:
		if newRS != nil {
			return newRS
		}
		return oldRSs[0]
	case 1:
		return active[0]
	}
	return nil
}

// ---- ordering (upstream controller_utils.go and deployment_util.go sort types) ----

// compareByCreationTimestamp orders older first, then by name (ReplicaSetsByCreationTimestamp).
// nil sorts last.
func compareByCreationTimestamp(a, b *model.ReplicaSet) int {
	switch {
	case a == nil || b == nil:
		return boolCompare(a == nil, b == nil)
	case a.CreationTimestamp != b.CreationTimestamp:
		if a.CreationTimestamp < b.CreationTimestamp {
			return -1
		}
		return 1
	}
	return strings.Compare(a.Name, b.Name)
}

func boolCompare(aNil, bNil bool) int {
	switch {
	case aNil == bNil:
		return 0
	case aNil:
		return 1
	}
	return -1
}

// compareBySizeOlder orders larger first, equal sizes older first (ReplicaSetsBySizeOlder).
func compareBySizeOlder(a, b *model.ReplicaSet) int {
	if ra, rb := rsReplicas(a), rsReplicas(b); ra != rb {
		if ra > rb {
			return -1
		}
		return 1
	}
	return compareByCreationTimestamp(a, b)
}

// compareBySizeNewer orders larger first, equal sizes newer first (ReplicaSetsBySizeNewer).
func compareBySizeNewer(a, b *model.ReplicaSet) int {
	if ra, rb := rsReplicas(a), rsReplicas(b); ra != rb {
		if ra > rb {
			return -1
		}
		return 1
	}
	return compareByCreationTimestamp(b, a)
}

// compareByRevision orders lower revisions first, falling back to creation order when either
// revision is unreadable or they are equal (ReplicaSetsByRevision).
func compareByRevision(a, b *model.ReplicaSet) int {
	ra, errA := Revision(a)
	rb, errB := Revision(b)
	if errA != nil || errB != nil || ra == rb {
		return compareByCreationTimestamp(a, b)
	}
	if ra < rb {
		return -1
	}
	return 1
}

// ---- revisions and annotations ----

// Revision returns the ReplicaSet's revision annotation as a number, 0 when it has none, and
// the parse error when it is not an integer.
func Revision(rs *model.ReplicaSet) (int64, error) {
	v, ok := rs.Annotations[RevisionAnnotation]
	if !ok {
		return 0, nil
	}
	return strconv.ParseInt(v, 10, 64)
}

// MaxRevision returns the highest readable revision among rss (0 if none).
func MaxRevision(rss []*model.ReplicaSet) int64 {
	var m int64
	for _, rs := range rss {
		if rs == nil {
			continue
		}
		if v, err := Revision(rs); err == nil && v > m {
			m = v
		}
	}
	return m
}

// SetDeploymentRevision sets the Deployment's revision annotation and reports whether it
// changed.
func SetDeploymentRevision(d *model.Deployment, revision string) bool {
	if d.Annotations == nil {
		d.Annotations = map[string]string{}
	}
	if d.Annotations[RevisionAnnotation] == revision {
		return false
	}
	d.Annotations[RevisionAnnotation] = revision
	return true
}

// copyDeploymentAnnotationsToReplicaSet copies the Deployment's annotations, except the skipped
// ones, to rs and reports whether any changed.
func copyDeploymentAnnotationsToReplicaSet(d *model.Deployment, rs *model.ReplicaSet) bool {
	changed := false
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	//detlint:ordered each key is copied independently; the result is a set
	for k, v := range d.Annotations {
		if annotationsToSkip[k] || rs.Annotations[k] == v {
			continue
		}
		rs.Annotations[k] = v
		changed = true
	}
	return changed
}

// SetNewReplicaSetAnnotations gives the new ReplicaSet the Deployment's annotations, raises its
// revision to newRevision if that is higher (remembering the old one in the revision history,
// which is a rollback to this ReplicaSet), and for a ReplicaSet about to be created sets the
// replicas annotations. It reports whether an annotation changed; an unreadable revision on
// the ReplicaSet leaves it alone and reports false (upstream SetNewReplicaSetAnnotations).
func SetNewReplicaSetAnnotations(d *model.Deployment, newRS *model.ReplicaSet, newRevision string, exists bool, revHistoryLimitInChars int) bool {
	changed := copyDeploymentAnnotationsToReplicaSet(d, newRS)
	oldRevision, hadRevision := newRS.Annotations[RevisionAnnotation]
	oldRevisionInt, err := strconv.ParseInt(oldRevision, 10, 64)
	if err != nil {
		if oldRevision != "" {
			return false
		}
		oldRevisionInt = 0
	}
	newRevisionInt, err := strconv.ParseInt(newRevision, 10, 64)
	if err != nil {
		return false
	}
	if oldRevisionInt < newRevisionInt {
		newRS.Annotations[RevisionAnnotation] = newRevision
		changed = true
	}
	if hadRevision && oldRevisionInt < newRevisionInt {
		history := newRS.Annotations[RevisionHistoryAnnotation]
		oldRevisions := strings.Split(history, ",")
		if len(oldRevisions[0]) == 0 {
			newRS.Annotations[RevisionHistoryAnnotation] = oldRevision
		} else {
			totalLen := len(history) + len(oldRevision) + 1
			start := 0
			for totalLen > revHistoryLimitInChars && start < len(oldRevisions) {
				totalLen -= len(oldRevisions[start]) + 1
				start++
			}
			if totalLen <= revHistoryLimitInChars {
				newRS.Annotations[RevisionHistoryAnnotation] = strings.Join(append(oldRevisions[start:], oldRevision), ",")
			}
		}
	}
	if !exists {
		replicas := deploymentReplicas(d)
		if SetReplicasAnnotations(newRS, replicas, replicas+MaxSurge(d)) {
			changed = true
		}
	}
	return changed
}

// SetReplicasAnnotations sets the desired-replicas and max-replicas annotations and reports
// whether either changed.
func SetReplicasAnnotations(rs *model.ReplicaSet, desiredReplicas, maxReplicas int32) bool {
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	changed := false
	if s := strconv.FormatInt(int64(desiredReplicas), 10); rs.Annotations[DesiredReplicasAnnotation] != s {
		rs.Annotations[DesiredReplicasAnnotation] = s
		changed = true
	}
	if s := strconv.FormatInt(int64(maxReplicas), 10); rs.Annotations[MaxReplicasAnnotation] != s {
		rs.Annotations[MaxReplicasAnnotation] = s
		changed = true
	}
	return changed
}

// ReplicasAnnotationsNeedUpdate reports whether SetReplicasAnnotations would change rs.
func ReplicasAnnotationsNeedUpdate(rs *model.ReplicaSet, desiredReplicas, maxReplicas int32) bool {
	return rs.Annotations[DesiredReplicasAnnotation] != strconv.FormatInt(int64(desiredReplicas), 10) ||
		rs.Annotations[MaxReplicasAnnotation] != strconv.FormatInt(int64(maxReplicas), 10)
}

// GetDesiredReplicasAnnotation returns the desired-replicas annotation, ok false when it is
// missing or not an int32.
func GetDesiredReplicasAnnotation(rs *model.ReplicaSet) (int32, bool) {
	return int32Annotation(rs, DesiredReplicasAnnotation)
}

func getMaxReplicasAnnotation(rs *model.ReplicaSet) (int32, bool) {
	return int32Annotation(rs, MaxReplicasAnnotation)
}

func int32Annotation(rs *model.ReplicaSet, key string) (int32, bool) {
	v, ok := rs.Annotations[key]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0, false
	}
	return int32(n), true
}

// ---- templates: new and old ReplicaSets ----

// EqualIgnoreHash reports whether two pod templates are semantically equal (nil and empty maps
// and slices alike, quantities by value) apart from the pod-template-hash label (upstream
// EqualIgnoreHash with apiequality.Semantic.DeepEqual).
func EqualIgnoreHash(a, b *model.PodTemplateSpec) bool {
	var ac, bc model.PodTemplateSpec
	a.DeepCopyInto(&ac)
	b.DeepCopyInto(&bc)
	delete(ac.Labels, DefaultDeploymentUniqueLabelKey)
	delete(bc.Labels, DefaultDeploymentUniqueLabelKey)
	return equality.Semantic.DeepEqual(ac, bc)
}

// FindNewReplicaSet returns the oldest ReplicaSet whose template equals the Deployment's (apart
// from the hash label), or nil. It sorts rsList in place by creation time (upstream
// FindNewReplicaSet, which picks the oldest when there are several, issue 40415).
func FindNewReplicaSet(d *model.Deployment, rsList []*model.ReplicaSet) *model.ReplicaSet {
	slices.SortStableFunc(rsList, compareByCreationTimestamp)
	for _, rs := range rsList {
		if rs != nil && EqualIgnoreHash(&rs.Spec.Template, &d.Spec.Template) {
			return rs
		}
	}
	return nil
}

// FindOldReplicaSets returns the ReplicaSets other than the new one that have replicas, and all
// of them (upstream FindOldReplicaSets).
func FindOldReplicaSets(d *model.Deployment, rsList []*model.ReplicaSet) (withReplicas, all []*model.ReplicaSet) {
	newRS := FindNewReplicaSet(d, rsList)
	for _, rs := range rsList {
		if rs == nil || (newRS != nil && rs.UID == newRS.UID) {
			continue
		}
		all = append(all, rs)
		if rsReplicas(rs) != 0 {
			withReplicas = append(withReplicas, rs)
		}
	}
	return withReplicas, all
}

// ---- progress and completeness ----

// HasProgressDeadline reports whether progressDeadlineSeconds is set and not MaxInt32 (which
// means "no deadline").
func HasProgressDeadline(d *model.Deployment) bool {
	return d.Spec.ProgressDeadlineSeconds != nil && *d.Spec.ProgressDeadlineSeconds != math.MaxInt32
}

// HasRevisionHistoryLimit reports whether revisionHistoryLimit is set and not MaxInt32 (which
// means "keep every revision").
func HasRevisionHistoryLimit(d *model.Deployment) bool {
	return d.Spec.RevisionHistoryLimit != nil && *d.Spec.RevisionHistoryLimit != math.MaxInt32
}

// DeploymentComplete reports whether every desired replica is updated and available, no old
// replica is left, and the status describes the current generation.
func DeploymentComplete(d *model.Deployment, s *model.DeploymentStatus) bool {
	replicas := deploymentReplicas(d)
	return s.UpdatedReplicas == replicas && s.Replicas == replicas && s.AvailableReplicas == replicas &&
		s.ObservedGeneration >= d.Generation
}

// DeploymentProgressing reports whether newStatus shows progress against the Deployment's
// current status: more updated, ready or available replicas, or fewer old ones.
func DeploymentProgressing(d *model.Deployment, newStatus *model.DeploymentStatus) bool {
	old := d.Status
	oldOldReplicas := old.Replicas - old.UpdatedReplicas
	newOldReplicas := newStatus.Replicas - newStatus.UpdatedReplicas
	return newStatus.UpdatedReplicas > old.UpdatedReplicas ||
		newOldReplicas < oldOldReplicas ||
		newStatus.ReadyReplicas > old.ReadyReplicas ||
		newStatus.AvailableReplicas > old.AvailableReplicas
}

// DeploymentTimedOut reports whether the Progressing condition in newStatus is older than
// progressDeadlineSeconds at now, or already says ProgressDeadlineExceeded. A completed rollout
// (NewReplicaSetAvailable) or a missing condition never times out.
func DeploymentTimedOut(d *model.Deployment, newStatus *model.DeploymentStatus, now vtime.Time) bool {
	if !HasProgressDeadline(d) {
		return false
	}
	c := GetDeploymentCondition(*newStatus, model.DeploymentProgressing)
	if c == nil || c.Reason == NewRSAvailableReason {
		return false
	}
	if c.Reason == TimedOutReason {
		return true
	}
	deadline := c.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second)
	return deadline.Before(now)
}

// ---- conditions ----

// NewDeploymentCondition returns a condition whose update and transition times are now.
func NewDeploymentCondition(condType string, status model.ConditionStatus, reason, message string, now vtime.Time) model.DeploymentCondition {
	return model.DeploymentCondition{Type: condType, Status: status, LastUpdateTime: now, LastTransitionTime: now, Reason: reason, Message: message}
}

// GetDeploymentCondition returns a copy of the condition of the given type, or nil.
func GetDeploymentCondition(s model.DeploymentStatus, condType string) *model.DeploymentCondition {
	for i := range s.Conditions {
		if s.Conditions[i].Type == condType {
			c := s.Conditions[i]
			return &c
		}
	}
	return nil
}

// SetDeploymentCondition puts c into the status, replacing the condition of its type (moved to
// the end). A condition with the same status and reason is left as it is; one with the same
// status keeps its lastTransitionTime.
func SetDeploymentCondition(s *model.DeploymentStatus, c model.DeploymentCondition) {
	cur := GetDeploymentCondition(*s, c.Type)
	if cur != nil && cur.Status == c.Status && cur.Reason == c.Reason {
		return
	}
	if cur != nil && cur.Status == c.Status {
		c.LastTransitionTime = cur.LastTransitionTime
	}
	s.Conditions = append(filterOutCondition(s.Conditions, c.Type), c)
}

// RemoveDeploymentCondition removes the condition of the given type.
func RemoveDeploymentCondition(s *model.DeploymentStatus, condType string) {
	s.Conditions = filterOutCondition(s.Conditions, condType)
}

func filterOutCondition(conds []model.DeploymentCondition, condType string) []model.DeploymentCondition {
	var out []model.DeploymentCondition
	for _, c := range conds {
		if c.Type != condType {
			out = append(out, c)
		}
	}
	return out
}

// replicaSetToDeploymentCondition promotes a ReplicaSet's ReplicaFailure condition.
func replicaSetToDeploymentCondition(c model.ReplicaSetCondition) model.DeploymentCondition {
	return model.DeploymentCondition{
		Type: c.Type, Status: c.Status, LastTransitionTime: c.LastTransitionTime, LastUpdateTime: c.LastTransitionTime,
		Reason: c.Reason, Message: c.Message,
	}
}
