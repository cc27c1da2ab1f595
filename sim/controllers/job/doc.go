// Package job is the Job controller (upstream kubernetes pkg/controller/job,
// job_controller.go, backoff_utils.go, pod_failure_policy.go, success_policy.go,
// indexed_job_utils.go), run as blocking Go on the simulated client.
//
// What it promises:
//
//   - Queue and workers: queue "job" with a per-item exponential limiter (1s to 1m, no token
//     bucket, newControllerWithClock); --concurrent-job-syncs workers (5) on client.SyncLoop.
//     A Job's spec change syncs at once, pod events and status-only updates after the 1s
//     batch period (syncJobBatchPeriod); activeDeadlineSeconds requeues for the deadline.
//   - Pods: created from the template with a controller reference and the
//     batch.kubernetes.io/job-tracking finalizer, in slow-start batches (1, 2, 4, ...), at most
//     500 per sync; too many active pods are deleted (unscheduled, pending, not ready first;
//     highest index first). Expectations gate manageJob as upstream.
//   - Completions and parallelism: NonIndexed (completions nil is a work queue) and Indexed
//     (index annotation and label batch.kubernetes.io/job-completion-index, hostname
//     <job>-<index>, JOB_COMPLETION_INDEX, pod names <job>-<index>-xxxxx,
//     status.completedIndexes as an interval list).
//   - Failures: backoffLimit (default 6) counted from Failed pods (and, unless only failed pods
//     are replaced, pods deleted before they succeeded), and for restartPolicy OnFailure from
//     container restarts; the pod-failure back-off 10s doubling per failure since the last
//     success, capped at 10m (6m before 1.28, a version gate), counted from the latest
//     failure's finish time; podFailurePolicy rules (FailJob, Ignore, Count, FailIndex) on exit
//     codes and pod conditions; backoffLimitPerIndex (each index with its own failure count,
//     carried by the batch.kubernetes.io/job-index-failure-count annotation, and its own
//     back-off; status.failedIndexes; FailedIndexes once every index finished,
//     MaxFailedIndexesExceeded past maxFailedIndexes);
//     activeDeadlineSeconds; successPolicy; podReplacementPolicy (replacements of terminating
//     pods wait for Failed when it is Failed or a podFailurePolicy is set); suspend.
//   - Status through the job-tracking finalizer: finished pods are recorded in
//     status.uncountedTerminatedPods, their finalizers removed, then counted in
//     succeeded/failed (at most 500 per sync). A failure first sets FailureTarget (success:
//     SuccessCriteriaMet), and Failed (Complete) follows with the same reason and message
//     once no pod is active or terminating and nothing is uncounted, as upstream does with
//     the JobPodReplacementPolicy gate on (every supported version).
//   - Conditions, reasons and events as upstream: BackoffLimitExceeded ("Job has reached the
//     specified backoff limit"), DeadlineExceeded ("Job was active longer than specified
//     deadline"), PodFailurePolicy, SuccessPolicy, CompletionsReached; events
//     SuccessfulCreate, FailedCreate, SuccessfulDelete, FailedDelete, Completed, Suspended,
//     Resumed and a Warning with the failure reason.
//   - spec.managedBy other than kubernetes.io/job-controller is skipped from 1.32 (JobManagedBy
//     beta; GA and locked from 1.35); with the gate off (simulator.feature-gates, before 1.35)
//     the field is ignored.
//
// Orphan pods (their Job gone) lose the tracking finalizer through the same queue (upstream's
// second queue "job_orphan_pod" and its worker are folded into it).
//
// Not modelled: adoption of orphan pods, the per-index ignored-failure count annotation,
// deletion of the active pods of an index that failed, elastic Indexed Jobs' scale-down
// beyond the deletion order above, metrics.
//
// Determinism: no maps are iterated for output; pods are read from the informer in key order.
package job
