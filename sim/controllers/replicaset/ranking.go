package replicaset

import (
	"math"
	"sort"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

// podPhaseOrdinal orders phases for scale-down (upstream podPhaseToOrdinal: Pending 0,
// Unknown 1, Running 2; any other phase, including "", looks up as 0 like a missing map key).
func podPhaseOrdinal(phase string) int {
	switch phase {
	case model.PodUnknown:
		return 1
	case model.PodRunning:
		return 2
	default:
		return 0
	}
}

// ActivePodsWithRanks orders pods for scale-down: after sort.Sort, the pods to delete first
// come first (upstream controller_utils.go ActivePodsWithRanks, with the PodDeletionCost and
// LogarithmicScaleDown gates on, as in current upstream).
//
// Rank[i] is the number of active related pods on the same node as Pods[i]; Now is the instant
// the ranking is made, used by the logarithmic comparisons.
type ActivePodsWithRanks struct {
	Pods []*model.Pod
	Rank []int
	Now  vtime.Time
}

func (s ActivePodsWithRanks) Len() int { return len(s.Pods) }

func (s ActivePodsWithRanks) Swap(i, j int) {
	s.Pods[i], s.Pods[j] = s.Pods[j], s.Pods[i]
	s.Rank[i], s.Rank[j] = s.Rank[j], s.Rank[i]
}

// Less reports whether Pods[i] should be deleted before Pods[j]. The rules, in order, each
// deciding only when the two pods differ on it:
//
//  1. unassigned (no nodeName) before assigned;
//  2. phase Pending < Unknown < Running;
//  3. not Ready before Ready;
//  4. lower pod-deletion-cost first;
//  5. higher rank (more related pods on the same node) first;
//  6. both Ready: Ready for a shorter time first, compared on a log2 scale of the time since
//     becoming Ready, ties on that scale broken by UID;
//  7. higher maximum container restart count first;
//  8. newer creationTimestamp first, on the same log2 scale, ties broken by UID.
//
// Upstream's special cases for an unset (zero) time do not arise: every vtime.Time, including
// 0, is a real instant of the run.
func (s ActivePodsWithRanks) Less(i, j int) bool {
	pi, pj := s.Pods[i], s.Pods[j]
	// 1.
	if pi.Spec.NodeName != pj.Spec.NodeName && (pi.Spec.NodeName == "" || pj.Spec.NodeName == "") {
		return pi.Spec.NodeName == ""
	}
	// 2.
	if oi, oj := podPhaseOrdinal(pi.Status.Phase), podPhaseOrdinal(pj.Status.Phase); oi != oj {
		return oi < oj
	}
	// 3.
	ri, rj := model.IsPodReady(pi), model.IsPodReady(pj)
	if ri != rj {
		return !ri
	}
	// 4.
	if ci, cj := deletionCost(pi), deletionCost(pj); ci != cj {
		return ci < cj
	}
	// 5.
	if s.Rank[i] != s.Rank[j] {
		return s.Rank[i] > s.Rank[j]
	}
	// 6.
	if ri && rj {
		ti, _ := podReadyTime(pi)
		tj, _ := podReadyTime(pj)
		if ti != tj {
			if d := logarithmicRankDiff(ti, tj, s.Now); d != 0 {
				return d < 0
			}
			return pi.UID < pj.UID
		}
	}
	// 7.
	if mi, mj := maxContainerRestarts(pi), maxContainerRestarts(pj); mi != mj {
		return mi > mj
	}
	// 8.
	if pi.CreationTimestamp != pj.CreationTimestamp {
		if d := logarithmicRankDiff(pi.CreationTimestamp, pj.CreationTimestamp, s.Now); d != 0 {
			return d < 0
		}
		return pi.UID < pj.UID
	}
	return false
}

// logarithmicRankDiff compares how long ago t1 and t2 were, on a base-2 logarithmic scale of
// nanoseconds (upstream logarithmicRankDiff): each age d > 0 ranks as floor(log2(d)), an age of
// zero or less as -1; the result is rank(t1) - rank(t2), so a negative value means t1 is more
// recent by at least one power of two.
func logarithmicRankDiff(t1, t2, now vtime.Time) int64 {
	rank := func(t vtime.Time) int64 {
		d := now.Sub(t)
		if d <= 0 {
			return -1
		}
		return int64(math.Log2(float64(d)))
	}
	return rank(t1) - rank(t2)
}

// getPodsRankedByRelatedPodsOnSameNode ranks each of podsToRank by the number of active pods
// in relatedPods on the same node (upstream function of the same name). Unassigned pods share
// the node name "" and so rank by the number of active unassigned related pods, as upstream.
func getPodsRankedByRelatedPodsOnSameNode(podsToRank, relatedPods []*model.Pod, now vtime.Time) ActivePodsWithRanks {
	podsOnNode := make(map[string]int)
	for _, p := range relatedPods {
		if model.IsPodActive(p) {
			podsOnNode[p.Spec.NodeName]++
		}
	}
	ranks := make([]int, len(podsToRank))
	for i, p := range podsToRank {
		ranks[i] = podsOnNode[p.Spec.NodeName]
	}
	return ActivePodsWithRanks{Pods: podsToRank, Rank: ranks, Now: now}
}

// getPodsToDelete returns the diff pods of filteredPods to delete first (upstream
// getPodsToDelete). It sorts filteredPods in place unless all of them go anyway; diff must not
// exceed len(filteredPods).
func getPodsToDelete(filteredPods, relatedPods []*model.Pod, diff int, now vtime.Time) []*model.Pod {
	if diff < len(filteredPods) {
		sort.Sort(getPodsRankedByRelatedPodsOnSameNode(filteredPods, relatedPods, now))
	}
	return filteredPods[:diff]
}
