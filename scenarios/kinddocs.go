package scenarios

import (
	"maps"
	"slices"
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
	"FlowSchema":                 apfKindDoc,
	"PriorityLevelConfiguration": apfKindDoc,
}

// apfKindDoc documents the two kinds that configure API Priority and Fairness.
const apfKindDoc = `FlowSchema and PriorityLevelConfiguration (flowcontrol.apiserver.k8s.io/v1): the
configuration of API Priority and Fairness (kube-apiserver.enable-priority-and-fairness, on by
default). A FlowSchema sends the requests it matches (by user, group or service account, verb,
API group, resource and namespace; the lowest matchingPrecedence wins) to a priority level; a
PriorityLevelConfiguration gives a level its share of the server's seats
(max-requests-inflight + max-mutating-requests-inflight) and its queues.

Defaults (pkg/apis/flowcontrol/v1/defaults.go):
  matchingPrecedence           1000
  nominalConcurrencyShares     30 (limited), 0 (exempt)
  lendablePercent              0
  borrowingLimitPercent        unset: no limit
  queuing                      queues 64, handSize 8, queueLengthLimit 50
Validation is kube-apiserver's (pkg/apis/flowcontrol/validation): a bad field is an error at
its line and column, with the API server's field path and message.

The configuration the dispatcher uses (apf_controller.go digestConfigObjects, and the
bootstrap ensurer of pkg/registry/flowcontrol/ensurer):
  bootstrap objects            the suggested and mandatory objects of
                               k8s.io/apiserver pkg/apis/flowcontrol/bootstrap are in force; they
                               are not stored, so kubectl-style lists show only your objects
  your objects                 a scenario's objects are the configuration the run starts with;
                               objects applied or deleted by the timeline take effect one watch
                               delay later (the config controller's informer)
  same name as a suggested one replaces it only with apf.kubernetes.io/autoupdate-spec: "false"
                               (or, unannotated, once updated to generation 2 or more): the
                               ensurer resets the others (shouldUpdateSpec)
  exempt, catch-all            mandatory: always the bootstrap spec; a FlowSchema of either
                               name must equal it (validation)
  autoupdate-spec "true"       on an object with another name: the ensurer deletes it, so it
                               is ignored
  dangling schema              a FlowSchema naming a missing level is ignored
A scenario's object the ensurer would reset or delete loads with a warning at its name. In a
kubectl dump, the bootstrap objects (annotated "true") are skipped.
Requests of a level that is removed or changed finish under its old limit.
Not modelled: the status conditions (Dangling), non-resource requests.
Series: apf.<level>.inqueue, executing_seats, current_limit_seats, rejected_per_second,
wait_seconds. Identities of the simulated components: docs/upstream.md.
`

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
func kindTopics() []string { return slices.Sorted(maps.Keys(kindDocs)) }
