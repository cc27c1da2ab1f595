// Package deployment is the Deployment controller of kube-controller-manager
// (pkg/controller/deployment: deployment_controller.go, sync.go, rolling.go, recreate.go,
// progress.go and util/deployment_util.go, as in the 1.3x releases), run on the simulator's
// virtual clock against the simulated API server. It rolls a Deployment's pod template out
// through ReplicaSets, which the ReplicaSet controller turns into pods, and reports the rollout
// in the Deployment's status. Upstream behaviour: docs/upstream.md#deployment.
//
// What it promises, each as upstream:
//
//   - Event handlers: every Deployment add, update (resyncs included) and delete enqueues it; a
//     ReplicaSet add, update or delete enqueues its controlling Deployment (the old and the new
//     one when the controller reference changed), and an orphan ReplicaSet wakes every
//     Deployment whose selector matches it; the deletion of the last pod of a Recreate
//     Deployment enqueues it.
//   - syncDeployment: ReplicaSets are claimed (matching orphans adopted after an uncached GET,
//     owned ones that stopped matching released); a Deployment being deleted only gets its
//     status; pause and resume are recorded in the Progressing condition (DeploymentPaused,
//     DeploymentResumed); a paused Deployment, or one whose replicas changed (a ReplicaSet's
//     desired-replicas annotation differs), is only resized (sync/scale); otherwise the strategy
//     rolls out.
//   - The new ReplicaSet is <deployment>-<hash> with pod-template-hash=<hash> in its labels,
//     selector and template, hash = ComputeHash(template, status.collisionCount); revision
//     annotations (deployment.kubernetes.io/revision = max old + 1, revision-history on a
//     rollback, desired-replicas, max-replicas); an AlreadyExists with another template bumps
//     status.collisionCount. minReadySeconds is passed to every new ReplicaSet.
//   - RollingUpdate (rolloutRolling): maxSurge rounds up and maxUnavailable down, both 0 make
//     maxUnavailable 1 (ResolveFenceposts); the new ReplicaSet grows while the sum of sizes is
//     below replicas + maxSurge (NewRSNewReplicas); old ones shrink by at most
//     sum(sizes) - (replicas - maxUnavailable) - (new ReplicaSet's unavailable pods), first their
//     unavailable pods (cleanupUnhealthyReplicas), then available ones while the available total
//     stays above replicas - maxUnavailable. Recreate (rolloutRecreate): old ReplicaSets to 0,
//     wait until no old pod runs, then the new ReplicaSet at full size.
//   - Proportional scaling (scale): a resize during a rollout or a pause shares the change
//     between the active ReplicaSets in proportion to their size (GetProportion, from the
//     max-replicas annotation), largest first, the rounding leftover to the largest.
//   - Status (calculateStatus): replicas, updatedReplicas, readyReplicas, availableReplicas,
//     unavailableReplicas, terminatingReplicas (the DeploymentReplicaSetTerminatingReplicas
//     gate, on by default since 1.35), observedGeneration, collisionCount; the Available
//     condition (MinimumReplicasAvailable / MinimumReplicasUnavailable) and, with
//     progressDeadlineSeconds, the Progressing condition (NewReplicaSetCreated,
//     FoundNewReplicaSet, ReplicaSetUpdated, NewReplicaSetAvailable, ProgressDeadlineExceeded,
//     ReplicaSetCreateError). A rollout without progress is requeued for lastUpdateTime +
//     progressDeadlineSeconds + 1s; a paused one is never timed out.
//   - History (cleanupDeployment): after a complete rollout (or while paused), the oldest old
//     ReplicaSets beyond revisionHistoryLimit that are scaled to 0 and observed are deleted.
//   - Events: ScalingReplicaSet "Scaled up replica set <name> from <old> to <new>" / "Scaled down
//     ...", ReplicaSetCreateError, SelectingAll.
//   - Errors requeue the key through client-go's default controller rate limiter (5ms doubling
//     to 1000s, 10 qps overall) up to MaxRetries (15) times in a row, then drop it.
//   - Rollback is `kubectl rollout undo`: RollbackTemplate and Rollback write an old revision's
//     template back into the Deployment; the controller rolls it out like any change.
//
// Simulation choices, each a deliberate difference:
//
//   - The pod-template-hash is FNV-32a over the template's JSON encoding (see ComputeHash), not
//     over a spew dump of the Go value, so names differ from a real cluster's.
//   - The progress-deadline requeue is a held timer rather than the queue's AddAfter, so that a
//     stuck rollout is not declared quiescent just before its deadline (see enqueueAfter).
//   - Adoption and release send JSON merge patches carrying the full ownerReferences list and
//     the ReplicaSet's UID, standing for upstream's strategic merge patches.
//   - The Recreate pod-deletion handler reads the ReplicaSet cache where upstream lists through
//     the API (handlers cannot block here).
//   - vtime.Time 0 is a real instant, so no "unset time" special cases apply.
//
// Trace lines (component deployment-controller): started, create-rs, scale-rs, collision,
// cleanup-rs, adopt, release, update-status, update-status-error, update-rs-error,
// cleanup-unhealthy-error, scale-down-error, progress-check, sync-error, dropped,
// overlapping-selectors, and one line per recorded event.
package deployment
