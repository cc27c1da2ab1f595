package cronjob

import (
	"fmt"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

// epoch is the wall-clock time of virtual time 0 (Epoch returns it). Cron schedules are
// wall-clock schedules, so the simulator fixes where its clock starts: midnight UTC on
// 2026-01-01, a Thursday.
var epoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// LocalZone is the simulated kube-controller-manager's local time zone, used for a CronJob
// without spec.timeZone (upstream uses the process's zone; the simulator's is UTC so that a run
// does not depend on the host).
const LocalZone = "UTC"

// Epoch returns the wall-clock time of virtual time 0: 2026-01-01T00:00:00Z.
func Epoch() time.Time { return epoch }

// wall converts virtual time to wall-clock time.
func wall(t vtime.Time) time.Time { return epoch.Add(t.Duration()) }

// virtual converts wall-clock time to virtual time.
func virtual(t time.Time) vtime.Time { return vtime.Time(t.Sub(epoch)) }

// nextScheduleDelta pads a requeue for the next schedule (cronjob_controllerv2.go
// nextScheduleDelta = 100ms, "to avoid firing early because of NTP skew").
const nextScheduleDelta = 100 * time.Millisecond

// maxMissedIterations bounds the walk over missed schedule times in mostRecentScheduleTime.
const maxMissedIterations = 1000

// tooManyMissed is upstream's threshold for the TooManyMissedTimes warning.
const tooManyMissed = 100

// formatSchedule is upstream formatSchedule: a CronJob's timeZone becomes a TZ= prefix; one
// without gets the simulated controller manager's zone.
func formatSchedule(cj *model.CronJob) string {
	tz := LocalZone
	if cj.Spec.TimeZone != nil {
		tz = *cj.Spec.TimeZone
	}
	return fmt.Sprintf("TZ=%s %s", tz, cj.Spec.Schedule)
}

// parseSchedule is cron.ParseStandard (github.com/robfig/cron/v3, as upstream) of
// formatSchedule.
func parseSchedule(cj *model.CronJob) (cron.Schedule, error) {
	return cron.ParseStandard(formatSchedule(cj))
}

// missed classifies the schedule times missed since the earliest time (upstream
// missedSchedulesType).
type missed int

const (
	noneMissed missed = iota
	fewMissed
	manyMissed
)

// mostRecentScheduleTime is upstream mostRecentScheduleTime ([k8s] pkg/controller/cronjob/utils.go):
// the latest schedule time not after now since the earliest time (lastScheduleTime, else the
// CronJob's creation, else now - startingDeadlineSeconds if later), nil if none is due. More
// than 100 missed times is manyMissed; an interval under a second is an error.
func mostRecentScheduleTime(cj *model.CronJob, now time.Time, sched cron.Schedule, includeSDS bool) (time.Time, *time.Time, missed, error) {
	earliest := wall(cj.CreationTimestamp)
	if cj.Status.LastScheduleTime != nil {
		earliest = wall(*cj.Status.LastScheduleTime)
	}
	if includeSDS && cj.Spec.StartingDeadlineSeconds != nil {
		if d := now.Add(-time.Duration(*cj.Spec.StartingDeadlineSeconds) * time.Second); d.After(earliest) {
			earliest = d
		}
	}
	t1 := sched.Next(earliest)
	if t1.IsZero() || now.Before(t1) {
		return earliest, nil, noneMissed, nil
	}
	t2 := sched.Next(t1)
	if t2.IsZero() || now.Before(t2) {
		return earliest, &t1, fewMissed, nil
	}
	between := int64(t2.Sub(t1).Round(time.Second).Seconds())
	if between < 1 {
		return earliest, nil, noneMissed, fmt.Errorf("time difference between two schedules is less than 1 second")
	}
	count := int64(now.Sub(t1).Seconds())/between + 1
	// Jump close to the end arithmetically (regular schedules land exactly), then walk the
	// schedule forward from a point safely before it, so irregular schedules are exact too.
	start := earliest
	if count > 2 {
		start = t1.Add(time.Duration(count-2) * time.Duration(between) * time.Second).Add(-time.Second)
	}
	most := t1
	for i, t := 0, sched.Next(start); i < maxMissedIterations && !t.IsZero() && !t.After(now); i, t = i+1, sched.Next(t) {
		most = t
	}
	m := fewMissed
	if count > tooManyMissed {
		m = manyMissed
	}
	return earliest, &most, m, nil
}

// nextScheduleTimeDuration is upstream nextScheduleTimeDuration: how long until the schedule
// after the most recent one, plus nextScheduleDelta.
func nextScheduleTimeDuration(cj *model.CronJob, now time.Time, sched cron.Schedule) time.Duration {
	earliest, most, m, err := mostRecentScheduleTime(cj, now, sched, false)
	switch {
	case err != nil:
		most = &now
	case most == nil && m == noneMissed:
		most = &earliest
	case most == nil:
		most = &now
	}
	next := sched.Next(*most)
	if next.IsZero() {
		return 0
	}
	return next.Add(nextScheduleDelta).Sub(now)
}

// getJobName is upstream getJobName: the CronJob's name and the scheduled time in minutes
// since the Unix epoch (getTimeHashInMinutes), so that a schedule time makes one Job at most.
func getJobName(cj *model.CronJob, scheduled time.Time) string {
	return fmt.Sprintf("%s-%d", cj.Name, scheduled.Unix()/60)
}

// getJobFromTemplate2 is upstream getJobFromTemplate2: the template's labels, annotations and
// spec, the scheduled-timestamp annotation (in the CronJob's zone, RFC 3339), and a controller
// reference to the CronJob.
func getJobFromTemplate2(cj *model.CronJob, scheduled time.Time) *model.Job {
	j := &model.Job{}
	tmpl := cj.Spec.JobTemplate.DeepCopyForJob()
	j.Labels = tmpl.Labels
	j.Annotations = tmpl.Annotations
	if j.Annotations == nil {
		j.Annotations = map[string]string{}
	}
	loc := time.UTC
	if cj.Spec.TimeZone != nil {
		if l, err := time.LoadLocation(*cj.Spec.TimeZone); err == nil {
			loc = l
		}
	}
	j.Annotations[model.CronJobScheduledTimestamp] = scheduled.In(loc).Format(time.RFC3339)
	j.Name = getJobName(cj, scheduled)
	j.Namespace = cj.Namespace
	j.OwnerReferences = []model.OwnerReference{{
		APIVersion: "batch/v1", Kind: model.KindCronJob, Name: cj.Name, UID: cj.UID,
		Controller: model.Ptr(true), BlockOwnerDeletion: model.Ptr(true),
	}}
	j.Spec = tmpl.Spec
	return j
}
