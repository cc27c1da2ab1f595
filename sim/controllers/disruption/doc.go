// Package disruption is the PodDisruptionBudget controller of kube-controller-manager
// ([k8s:pkg/controller/disruption/disruption.go@003e8629] with component-helpers
// apps/poddisruptionbudget/helpers.go), run on the simulator's virtual clock against the
// simulated API server. It keeps each budget's status current, which is what the eviction
// subresource reads to allow or refuse (429) an eviction.
//
// What it promises, each as upstream:
//
//   - Pods: a budget covers the pods of its namespace its selector matches (nil selects none,
//     empty selects all). Every pod add, update (resyncs included) and delete wakes the first
//     matching budget in key order; a pod matched by several budgets gets a Warning
//     MultiplePodDisruptionBudgets event each time. Every budget add, update and delete
//     enqueues it.
//   - expectedPods and desiredHealthy: an integer minAvailable is desiredHealthy, with
//     expectedPods the number of matching pods; a percentage minAvailable, or any
//     maxUnavailable, is scaled against expectedPods = the sum of spec.replicas of the pods'
//     distinct controllers (a Deployment through its ReplicaSet, a ReplicaSet no Deployment
//     controls, a StatefulSet; other kinds through the scale subresource), rounding up
//     (intstr.GetScaledValueFromIntOrPercent(..., true)); desiredHealthy = expectedPods -
//     maxUnavailable, floored at 0. Pods without a controller get a Warning UnmanagedPods
//     event; a controller that cannot be resolved fails the sync.
//   - currentHealthy counts Ready pods that are not being deleted and are not in
//     disruptedPods (an entry younger than DeletionTimeout, 2 min); disruptionsAllowed =
//     max(0, currentHealthy - desiredHealthy), and 0 while expectedPods is 0.
//   - disruptedPods keeps the entries of pods that exist and are not yet being deleted; an
//     entry older than DeletionTimeout is dropped with a Warning NotDeleted event on the pod,
//     and the budget is rechecked (through a delaying queue, then rate limited) when the
//     earliest kept entry expires.
//   - The status (with observedGeneration and the DisruptionAllowed condition:
//     True/SufficientPods or False/InsufficientPods) is written with one UpdateStatus only
//     when it differs; a Conflict requeues the key with backoff; any other failure writes a
//     fail-safe status (disruptionsAllowed 0, DisruptionAllowed False/SyncFailed with the
//     error) so that evictions are refused.
//   - Events: NoPods ("No matching pods found", Normal; "Failed to get pods: ...", Warning),
//     CalculateExpectedPodCountFailed, UnmanagedPods, NotDeleted,
//     MultiplePodDisruptionBudgets, with upstream's messages.
//   - A pod carrying DisruptionTarget=True without being deleted (an eviction whose delete
//     did not happen) has the condition reset to False after StalePodDisruptionTimeout (2
//     min), unless the kubelet set it or the pod is terminal.
//   - One worker per queue (the main queue, the recheck queue and the stale-condition
//     queue); the main and stale queues retry with client-go's default controller rate
//     limiter.
//
// Simulation choices, each a deliberate difference:
//
//   - ReplicationControllers are not modelled, so their finder is absent.
//   - In the scale-subresource fallback, which kinds have a scale subresource is known
//     statically instead of through discovery.
//   - spec.replicas nil counts as 1 (the API server's default) instead of dereferencing nil.
//
// Trace lines (component disruption-controller): started, update-status,
// update-status-error, fail-safe, sync-error, recheck, reset-stale-disruption-target,
// stale-condition-error; events appear through the Recorder.
package disruption
