package job

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"k8s.io/utils/ptr"

	"github.com/reconsim/reconsim/model"
)

// Indexed Jobs ([k8s] pkg/controller/job/indexed_job_utils.go).

// unknownCompletionIndex is a pod without a valid index.
const unknownCompletionIndex = -1

// interval is [First, Last] of indexes.
type interval struct{ First, Last int }

// orderedIntervals is upstream orderedIntervals: sorted, non-overlapping, non-adjacent.
type orderedIntervals []interval

// String formats the intervals as status.completedIndexes does: "1,3-5".
func (oi orderedIntervals) String() string {
	var b strings.Builder
	for i, v := range oi {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(v.First))
		if v.Last > v.First {
			sep := "-"
			if v.Last == v.First+1 {
				sep = ","
			}
			b.WriteString(sep)
			b.WriteString(strconv.Itoa(v.Last))
		}
	}
	return b.String()
}

// has reports whether ix is in the intervals.
func (oi orderedIntervals) has(ix int) bool {
	for _, v := range oi {
		if ix < v.First {
			return false
		}
		if ix <= v.Last {
			return true
		}
	}
	return false
}

// total is the number of indexes.
func (oi orderedIntervals) total() int {
	n := 0
	for _, v := range oi {
		n += v.Last - v.First + 1
	}
	return n
}

// withIndexes returns oi plus the given indexes (upstream orderedIntervals.withOrderedIndexes),
// merging overlapping and adjacent intervals; memory is linear in the intervals, not the
// indexes.
func (oi orderedIntervals) withIndexes(ixs []int) orderedIntervals {
	all := make(orderedIntervals, 0, len(oi)+len(ixs))
	all = append(all, oi...)
	for _, i := range ixs {
		all = append(all, interval{i, i})
	}
	slices.SortStableFunc(all, func(a, b interval) int { return cmp.Compare(a.First, b.First) })
	var out orderedIntervals
	for _, v := range all {
		if n := len(out); n > 0 && v.First <= out[n-1].Last+1 {
			out[n-1].Last = max(out[n-1].Last, v.Last)
			continue
		}
		out = append(out, v)
	}
	return out
}

// parseIndexesFromString is upstream parseIndexesFromString: it reads "1,3-5", dropping what
// is malformed or at or beyond completions.
func parseIndexesFromString(s string, completions int) orderedIntervals {
	iv, err := model.ParseIndexesFromString(s, int32(completions))
	if err != nil {
		return nil
	}
	var out orderedIntervals
	for _, x := range iv {
		if n := len(out); n > 0 && out[n-1].Last+1 == int(x[0]) {
			out[n-1].Last = int(x[1])
			continue
		}
		out = append(out, interval{int(x[0]), int(x[1])})
	}
	return out
}

// getCompletionIndex is upstream getCompletionIndex: the pod's completion-index annotation, or
// unknownCompletionIndex.
func getCompletionIndex(p *model.Pod) int {
	v, ok := p.Annotations[model.JobCompletionIndexAnnot]
	if !ok {
		return unknownCompletionIndex
	}
	i, err := strconv.Atoi(v)
	if err != nil || i < 0 {
		return unknownCompletionIndex
	}
	return i
}

// firstPendingIndexes is upstream firstPendingIndexes: the first count indexes below
// completions that neither succeeded nor have an active pod.
func firstPendingIndexes(active []*model.Pod, succeeded orderedIntervals, count, completions int) []int {
	if count == 0 {
		return nil
	}
	busy := map[int]bool{}
	for _, p := range active {
		if ix := getCompletionIndex(p); ix != unknownCompletionIndex {
			busy[ix] = true
		}
	}
	var out []int
	for ix := 0; ix < completions && len(out) < count; ix++ {
		if !busy[ix] && !succeeded.has(ix) {
			out = append(out, ix)
		}
	}
	return out
}

// podGenerateNameWithIndex is upstream podGenerateNameWithIndex: "<job>-<index>-", the job name
// cut so that the generated name stays within 63 characters (MaxGeneratedNameLength 58 for the
// prefix).
func podGenerateNameWithIndex(jobName string, index int) string {
	appendix := "-" + strconv.Itoa(index) + "-"
	const maxGeneratedNameLength = 58
	if len(jobName)+len(appendix) > maxGeneratedNameLength {
		return jobName[:maxGeneratedNameLength-len(appendix)] + appendix
	}
	return jobName + appendix
}

// Per-index back-off (backoffLimitPerIndex; upstream indexed_job_utils.go and
// backoff_utils.go getRemainingTimePerIndex).

// getIndexFailureCount is upstream getIndexFailureCount: the failures of the pod's index
// before this pod, from its batch.kubernetes.io/job-index-failure-count annotation.
func getIndexFailureCount(p *model.Pod) int {
	n, err := strconv.Atoi(p.Annotations[model.JobIndexFailureCountAnnot])
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// isIndexFailed is upstream isIndexFailed: a FailIndex rule matched, or a counted failure when
// the index already failed backoffLimitPerIndex times.
func isIndexFailed(j *model.Job, p *model.Pod) bool {
	if !isPodFailed(p, j) {
		return false
	}
	counted := true
	if j.Spec.PodFailurePolicy != nil {
		_, count, action := matchPodFailurePolicy(j.Spec.PodFailurePolicy, p)
		if action == model.PodFailurePolicyActionFailIndex {
			return true
		}
		counted = count
	}
	return counted && getIndexFailureCount(p) >= int(*j.Spec.BackoffLimitPerIndex)
}

// failedIndexesOf is upstream calculateFailedIndexes: the indexes in status.failedIndexes plus
// those of failed pods whose index failed; also the latest failed pod of each index.
func failedIndexesOf(j *model.Job, pods []*model.Pod) (orderedIntervals, map[int]*model.Pod) {
	completions := int(ptr.Deref(j.Spec.Completions, 0))
	prev := orderedIntervals(nil)
	if j.Status.FailedIndexes != nil {
		prev = parseIndexesFromString(*j.Status.FailedIndexes, completions)
	}
	last := map[int]*model.Pod{}
	var ixs []int
	for _, p := range pods {
		ix := getCompletionIndex(p)
		if ix == unknownCompletionIndex || ix >= completions || !isPodFailed(p, j) {
			continue
		}
		if q := last[ix]; q == nil || getFinishedTime(q) < getFinishedTime(p) {
			last[ix] = p
		}
		if isIndexFailed(j, p) {
			ixs = append(ixs, ix)
		}
	}
	return prev.withIndexes(ixs), last
}

// nextIndexFailureCount is upstream getNewIndexFailureCounts: the failure count the next pod of
// the index starts with, one more than its latest failed pod's if that failure counts.
func nextIndexFailureCount(j *model.Job, last *model.Pod) int {
	if last == nil {
		return 0
	}
	n := getIndexFailureCount(last)
	if j.Spec.PodFailurePolicy != nil {
		if _, count, _ := matchPodFailurePolicy(j.Spec.PodFailurePolicy, last); !count {
			return n
		}
	}
	return n + 1
}
