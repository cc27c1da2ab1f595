// Package gc is the garbage collector of kube-controller-manager
// ([k8s:pkg/controller/garbagecollector]: garbagecollector.go, graph_builder.go,
// operations.go, patch.go), run on the simulator's virtual clock. It deletes objects whose
// owners are all gone, and carries out foreground and orphan deletion.
//
// The graph builder watches every registered kind (model.Kinds(), Events excepted, as
// upstream's default ignored resources, and FlowSchemas and PriorityLevelConfigurations,
// which no controller owns and which upstream does watch: see monitoredKinds) through shared informers and keeps a graph of owners
// and dependents keyed by UID; one process applies the informers' events in order. From the
// graph it queues work for two pools of ConcurrentGCSyncs (--concurrent-gc-syncs, 20) workers
// each:
//
//   - attemptToDelete: an object's live state decides. A dependent whose owners are all absent
//     (a live GET by name finds nothing, or an object with another UID; cached in an LRU of
//     500 absent owners) is deleted with UID and resourceVersion preconditions — in the
//     foreground if some owner waits in the foreground and the dependent has dependents of
//     its own, else with the propagation its own finalizers ask for, else in the background.
//     A dependent with at least one live owner only drops its references to absent owners and
//     to owners waiting for their dependents. An owner being deleted with the
//     foregroundDeletion finalizer queues its blocking dependents (blockOwnerDeletion=true)
//     and removes the finalizer once none is left, so the API server can delete it.
//   - attemptToOrphan: an owner being deleted with the orphan finalizer has its reference
//     removed from every dependent, then the finalizer removed.
//
// Failures retry through client-go's default controller rate limiter; removing a finalizer
// retries conflicts as retry.RetryOnConflict(retry.DefaultBackoff) does (10ms, 50ms, 250ms
// with 10% jitter, drawn from kernel.Rand("garbage-collector")).
//
// Owners that were never observed ("virtual" nodes) are modelled as upstream: a reference to
// an unknown UID creates a virtual node that is checked with a live GET; if the object is
// absent, a virtual delete event removes the node and queues its dependents; if dependents
// disagree on the owner's coordinates, only the ones that match the verified-absent identity
// are queued, and the node is retried under an alternate identity. Simplified: a kind's
// apiVersion never changes (kinds are served under one version here), so upstream's handling
// of owners observed under a new apiVersion or kind is left out; the set of monitored kinds is
// fixed when the collector is built (upstream re-discovers resources every 30s); upstream's
// strategic merge patches are replaced by its JSON merge patch fallback, which carries the
// object's resourceVersion and so fails with Conflict on a concurrent change.
//
// Determinism: dependents are always visited in UID order; no map order reaches behaviour or
// output.
//
// Trace lines (component garbage-collector): delete, orphan, remove-ownerrefs,
// unblock-ownerrefs, remove-finalizer, attempt-to-delete-error, orphan-error. Events: the
// upstream OwnerRefInvalidNamespace warning (source garbage-collector-controller).
package gc
