package job

import (
	"slices"
	"time"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

// backoffRecord is upstream backoffRecord ([k8s] pkg/controller/job/backoff_utils.go): the
// failures since the last success and when the latest of them finished.
type backoffRecord struct {
	key                      string
	failuresAfterLastSuccess int32
	lastFailureTime          *vtime.Time
}

// backoffStore holds a backoffRecord per Job key (upstream backoffStore, in memory: a restarted
// controller starts with none).
type backoffStore struct{ records map[string]backoffRecord }

func newBackoffStore() *backoffStore { return &backoffStore{records: map[string]backoffRecord{}} }

func (s *backoffStore) update(r backoffRecord) { s.records[r.key] = r }

func (s *backoffStore) remove(key string) { delete(s.records, key) }

// newBackoffRecord is upstream backoffStore.newBackoffRecord: from the pods that finished since
// the last sync, sorted by finish time, a success resets the count to the failures after the
// latest success; otherwise the new failures add up.
func (s *backoffStore) newBackoffRecord(key string, newSucceeded, newFailed []*model.Pod) backoffRecord {
	rec, ok := s.records[key]
	if !ok {
		rec = backoffRecord{key: key}
	}
	sortByFinishedTime(newSucceeded)
	sortByFinishedTime(newFailed)
	if len(newSucceeded) == 0 {
		if len(newFailed) == 0 {
			return rec
		}
		rec.failuresAfterLastSuccess += int32(len(newFailed))
		t := getFinishedTime(newFailed[len(newFailed)-1])
		rec.lastFailureTime = &t
		return rec
	}
	if len(newFailed) == 0 {
		return backoffRecord{key: key}
	}
	lastSuccess := getFinishedTime(newSucceeded[len(newSucceeded)-1])
	i := slices.IndexFunc(newFailed, func(p *model.Pod) bool { return getFinishedTime(p).After(lastSuccess) })
	if i < 0 {
		return backoffRecord{key: key}
	}
	t := getFinishedTime(newFailed[len(newFailed)-1])
	return backoffRecord{key: key, failuresAfterLastSuccess: int32(len(newFailed) - i), lastFailureTime: &t}
}

// remainingTime is upstream backoffRecord.getRemainingTime and getRemainingTimeForFailuresCount:
// the back-off is defaultBackoff doubled per failure after the first, capped at maxBackoff,
// counted from the latest failure; 0 once it passed or with no failures.
func (r backoffRecord) remainingTime(now vtime.Time, defaultBackoff, maxBackoff time.Duration) time.Duration {
	if r.failuresAfterLastSuccess == 0 || r.lastFailureTime == nil {
		return 0
	}
	d := backoffDelay(r.failuresAfterLastSuccess, defaultBackoff, maxBackoff)
	elapsed := now.Sub(*r.lastFailureTime)
	if elapsed < 0 {
		return d
	}
	if elapsed >= d {
		return 0
	}
	return d - elapsed
}

// backoffDelay is the back-off after failures consecutive failures: defaultBackoff times
// 2^(failures-1), capped at maxBackoff.
func backoffDelay(failures int32, defaultBackoff, maxBackoff time.Duration) time.Duration {
	d := defaultBackoff
	for i := int32(1); i < failures; i++ {
		d *= 2
		if d >= maxBackoff {
			return maxBackoff
		}
	}
	return min(d, maxBackoff)
}

// getFinishedTime is upstream getFinishedTime: the latest container finish time; else the
// Ready=False transition; else the deletion time less the grace period; else the creation time.
func getFinishedTime(p *model.Pod) vtime.Time {
	var latest vtime.Time
	found := false
	for _, cs := range p.Status.ContainerStatuses {
		if t := cs.State.Terminated; t != nil && (!found || t.FinishedAt.After(latest)) {
			latest, found = t.FinishedAt, true
		}
	}
	if found {
		return latest
	}
	for _, c := range p.Status.Conditions {
		if c.Type == model.PodReady && c.Status == model.ConditionFalse {
			return c.LastTransitionTime
		}
	}
	if p.DeletionTimestamp != nil {
		grace := int64(0)
		if p.DeletionGracePeriodSeconds != nil {
			grace = *p.DeletionGracePeriodSeconds
		}
		return p.DeletionTimestamp.Add(-time.Duration(grace) * time.Second)
	}
	return p.CreationTimestamp
}

func sortByFinishedTime(pods []*model.Pod) {
	slices.SortStableFunc(pods, func(a, b *model.Pod) int {
		ta, tb := getFinishedTime(a), getFinishedTime(b)
		switch {
		case ta < tb:
			return -1
		case ta > tb:
			return 1
		}
		return 0
	})
}
