package scenarios

import (
	"sort"
	"strings"
)

// kindDocs documents, for `sim explain KIND`, the manifest kinds whose behaviour in the
// simulator needs more than "as upstream": their defaults with upstream sources, the
// controller that acts on them, and the simulator's own knobs. Keys are matched without
// regard to case.
var kindDocs = map[string]string{
	"Job": `Job (batch/v1): run pods to completion. Reconciled by job-controller (sim/controllers/job,
upstream pkg/controller/job/job_controller.go).

Defaults (pkg/apis/batch/v1/defaults.go SetDefaults_Job):
  completions, parallelism   1 and 1 when both are unset; parallelism 1 when only it is unset
  backoffLimit               6 (math.MaxInt32 when backoffLimitPerIndex is set)
  completionMode             NonIndexed
  suspend                    false
  podReplacementPolicy       TerminatingOrFailed; Failed when podFailurePolicy is set
  selector                   generated from the Job's UID (pkg/registry/batch/job/strategy.go)
  template.restartPolicy     must be Never or OnFailure (no default; Always is rejected)

Controller behaviour (job_controller.go, backoff_utils.go, pod_failure_policy.go):
  pod-failure back-off       10s, doubling per failure since the last success, capped at 10m
                             (6m with simulator.feature-gates=JobPodFailureBackOffMax10m=false: MaxJobBackOff 360s)
  backoffLimit               the Job fails (BackoffLimitExceeded) when failed pods exceed it
  activeDeadlineSeconds      the Job fails (DeadlineExceeded) that long after startTime
  podFailurePolicy           FailJob, Ignore, Count, FailIndex on exit codes and pod conditions; a pod that
                             pod GC or taint eviction failed carries DisruptionTarget=True
  conditions                 FailureTarget then Failed; SuccessCriteriaMet then Complete
  spec.managedBy             honoured (JobManagedBy: beta from 1.32, GA and locked from 1.35)
  ttlSecondsAfterFinished    ttl-after-finished-controller deletes the finished Job (Foreground)
  flags                      kube-controller-manager.concurrent-job-syncs (5),
                             kube-controller-manager.concurrent-ttl-after-finished-syncs (5)
  backoffLimitPerIndex         per-index failure counts and back-off; FailedIndexes, MaxFailedIndexesExceeded
Not modelled: pod adoption.

Pods run to completion when the template's annotations say so (sim explain sim.reconsim.dev):
  template:
    metadata:
      annotations:
        sim.reconsim.dev/exit-after: 20s..40s
        sim.reconsim.dev/exit-code: "1"
`,
	"CronJob": `CronJob (batch/v1): create Jobs on a cron schedule. Reconciled by cronjob-controller
(sim/controllers/cronjob, upstream pkg/controller/cronjob/cronjob_controllerv2.go and utils.go;
schedules parsed with github.com/robfig/cron/v3 cron.ParseStandard, as upstream).

Defaults (pkg/apis/batch/v1/defaults.go SetDefaults_CronJob):
  concurrencyPolicy            Allow (also Forbid, Replace)
  suspend                      false
  successfulJobsHistoryLimit   3
  failedJobsHistoryLimit       1
  startingDeadlineSeconds      unset: no deadline
  timeZone                     unset: the controller manager's zone, UTC in the simulator

Clock: virtual time 0 is 2026-01-01T00:00:00Z (a Thursday). A schedule time is due at the
most recent unmet time since lastScheduleTime (or creation, or now - startingDeadlineSeconds);
more than 100 missed times warn TooManyMissedTimes and still start the latest. Jobs are named
<cronjob>-<scheduled time in minutes since 1970>. The name may have at most 52 characters.
Flag: kube-controller-manager.concurrent-cron-job-syncs (5).
`,
}

// explainKind returns the documentation of a kind topic, matched without regard to case.
func explainKind(key string) (string, bool) {
	for name, doc := range kindDocs { //detlint:ordered at most one name matches
		if strings.EqualFold(name, key) {
			return doc, true
		}
	}
	return "", false
}

// kindTopics returns the kind topics, sorted.
func kindTopics() []string {
	out := make([]string, 0, len(kindDocs))
	for name := range kindDocs { //detlint:ordered sorted below
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}
