// Package replicaset is the ReplicaSet controller of kube-controller-manager
// ([k8s:pkg/controller/replicaset/replica_set.go@003e8629] with controller_utils.go and
// controller_ref_manager.go), run on the simulator's virtual clock against the simulated API
// server. It keeps the number of active pods each ReplicaSet controls at spec.replicas.
//
// What it promises, each as upstream:
//
//   - Event handlers: a new pod observes a creation for its controller (or, for an orphan,
//     wakes every ReplicaSet whose selector matches); a pod that gains a deletionTimestamp, or
//     is deleted (tombstones included), observes a deletion; label and controller-reference
//     changes wake the old and the new ReplicaSet; a pod turning Ready under minReadySeconds
//     schedules a sync minReadySeconds+1s later; resyncs (same resourceVersion) are ignored;
//     every ReplicaSet update enqueues it.
//   - Expectations (UIDTrackingControllerExpectations, 5 minute TTL on virtual time): a sync
//     creates or deletes pods only when the creations and deletions it asked for last time
//     have all been observed, or have expired. A pod seen first as terminating and then as
//     deleted counts once.
//   - syncReplicaSet: active pods (not Succeeded, not Failed, not being deleted) are claimed
//     (matching orphans adopted after an uncached GET of the ReplicaSet, owned pods that no
//     longer match released); then, if the expectations allow and the ReplicaSet is not being
//     deleted, manageReplicas; then the status is always recomputed (replicas,
//     fullyLabeledReplicas, readyReplicas, availableReplicas, terminatingReplicas,
//     observedGeneration, the ReplicaFailure condition) and written with one GET+retry.
//   - manageReplicas: at most BurstReplicas (500) pods per sync. Creations go in slow-start
//     batches of 1, 2, 4, ... whose requests are in flight together, stopping after the first
//     batch with an error; the pods never attempted are taken off the expectations. Deletions
//     choose victims by the upstream ranking (unassigned first, then Pending before Unknown
//     before Running, not Ready, lower pod-deletion-cost, more co-located pods of sibling
//     ReplicaSets, shorter time Ready, more restarts, newer; times compared on a log2 scale
//     with UID tie-breaks) and run concurrently.
//   - Events with upstream reasons and messages: SuccessfulCreate "Created pod: <name>",
//     FailedCreate "Error creating: <err>" (not for a terminating namespace),
//     SuccessfulDelete "Deleted pod: <name>", FailedDelete "Error deleting: <err>".
//   - A sync error requeues the ReplicaSet through client-go's default controller rate
//     limiter (5ms doubling to 1000s per item, 10 qps / 100 burst overall).
//
// Simulation choices, each a deliberate difference:
//
//   - "Concurrent" requests (a slow-start batch, the deletions of a scale-down) are one
//     simulated process each, started at the same virtual instant; the sync parks until all
//     return, as upstream waits on a WaitGroup.
//   - Adoption and release use JSON merge patches (the simulated server's only patch type)
//     that carry the pod's full ownerReferences list and its UID, standing for upstream's
//     strategic merge patches, which merge the list by UID.
//   - vtime.Time 0 is a real instant (the start of the run), so upstream's special cases for an
//     unset (zero) time never apply.
//   - terminatingReplicas is always reported (the DeploymentReplicaSetTerminatingReplicas gate,
//     beta and on by default since 1.35).
//
// Trace lines (component replicaset-controller): too-few, slow-start-batch,
// slow-start-skipped, too-many, adopt, release, expectations-pending, update-status,
// update-status-error, sync-error, and one line per recorded event.
package replicaset
