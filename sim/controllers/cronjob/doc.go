// Package cronjob is the CronJob controller v2 (upstream kubernetes
// pkg/controller/cronjob/cronjob_controllerv2.go and utils.go), run as blocking Go on the
// simulated client, with the standard cron parser upstream uses (github.com/robfig/cron/v3,
// cron.ParseStandard).
//
// What it promises:
//
//   - Clock: virtual time 0 is Epoch() (2026-01-01T00:00:00Z); the simulated
//     kube-controller-manager's local zone is UTC, so a CronJob without spec.timeZone runs on
//     UTC and one with it on that IANA zone (the embedded tz database: results do not depend
//     on the host).
//   - Queue "cronjob" with the default controller rate limiter, --concurrent-cron-job-syncs
//     workers (5). A sync returns when to look again (100ms after the next schedule time,
//     nextScheduleDelta); errors are rate limited. Job events requeue their CronJob; a changed
//     schedule or time zone requeues for its next time.
//   - Each sync: history cleanup (successfulJobsHistoryLimit 3, failedJobsHistoryLimit 1,
//     oldest start time first), then syncCronJob: status.active reconciled with the Jobs
//     (SawCompletedJob, MissingJob, UnexpectedJob after a fresh GET), lastSuccessfulTime; then,
//     unless suspended or being deleted, the most recent unmet schedule time since
//     lastScheduleTime (or creation; not before now - startingDeadlineSeconds): more than 100
//     missed times warn TooManyMissedTimes and still start the latest; a time past its
//     deadline is MissSchedule; Forbid skips while a Job is active (JobAlreadyActive); Replace
//     deletes the active Jobs first; the Job is named <cronjob>-<minutes since the Unix epoch>
//     and annotated with batch.kubernetes.io/cronjob-scheduled-timestamp.
//   - Events in upstream's words: SuccessfulCreate "Created job <name>", SuccessfulDelete
//     "Deleted job <name>", FailedCreate, FailedDelete, SawCompletedJob, MissingJob,
//     UnexpectedJob, JobAlreadyActive, MissSchedule, TooManyMissedTimes, UnknownTimeZone,
//     UnparseableSchedule, InvalidSchedule.
//
// Limits: the walk over missed times is bounded (1000 steps after an arithmetic jump), so a
// CronJob resumed after years costs the same as one resumed after minutes.
package cronjob
