// Package apiserver is the simulated kube-apiserver: a versioned object store with upstream's
// admission, optimistic concurrency, deletion and watch semantics, behind a request path that
// models the server's capacity.
//
// Store is what the server does when it serves a request, synchronously and without cost:
//
//   - One global revision, etcd-like, is every object's resourceVersion; every write bumps it
//     by one, a write that changes nothing bumps nothing.
//   - Create runs defaulting (model.SetDefaults), NamespaceLifecycle, DefaultTolerationSeconds,
//     the kind's strategy and validation (model.Validate), assigns a deterministic uid, the
//     creation time and a name from generateName.
//   - Update with a stale resourceVersion is 409 Conflict; without one it overwrites only for
//     kinds whose strategy allows it. The status subresource and the main resource each keep
//     the other's half; generation moves only on spec changes.
//   - Delete is graceful for pods, held by finalizers, and records the garbage collector's
//     propagation finalizers; preconditions are checked.
//   - Subresources besides status: pods/eviction (Evict) checks and decrements the
//     PodDisruptionBudget matching the pod and refuses with 429 when the budget does not
//     allow the disruption, as upstream's EvictionREST; scale (GetScale, UpdateScale) reads
//     and writes spec.replicas of Deployments, ReplicaSets and StatefulSets.
//   - Custom resources: a CustomResourceDefinition registers its kind in this store only
//     (kinds from CRDs are per run); its objects are *model.Unstructured, pruned, defaulted
//     and validated against the version's openAPIV3Schema (422 with kube-apiserver's field
//     paths), with the customresource strategy's generation, status and scale subresources
//     (customresource.go).
//   - Watch delivers each watcher's events in revision order, on the kernel, after a modelled
//     delay, from a per-kind history sized like upstream's watch cache; a watch from a
//     revision that has left the history is 410 Expired. Selectors turn objects that start or
//     stop matching into ADDED and DELETED events. A stalled watcher whose buffer overflows
//     is closed.
//   - Every write emits one trace line (component kube-apiserver) and, unless it is a
//     heartbeat, marks activity for quiescence detection.
//
// Server wraps the store in the request path: fault hooks, then either API Priority and
// Fairness (Config.APF: the bootstrap or given FlowSchemas and PriorityLevelConfigurations,
// with the stored ones as kube-apiserver's bootstrap ensurer leaves them, digested again one
// watch delay after each write of one, as the config controller does; SyncAPFConfig digests
// at once; seats from max-requests-inflight + max-mutating-requests-inflight shared by shares with
// borrowing every 10s, shuffle-sharded fair queuing per flow, the work estimator's seats, 429
// with a dynamic Retry-After only for a full queue or a wait past a quarter of the request
// timeout; apf*.go) or the max-in-flight filter (429 with Retry-After past the limit), then a
// per-verb service time slept by the calling process, and statistics.
//
// Errors are k8s.io/apimachinery StatusErrors with upstream's reasons and messages, so
// apierrors.IsConflict, IsNotFound, IsResourceExpired and the rest work on them. Every
// default and constant names its upstream source; the simulator knobs (watch delay, service
// times) say they are knobs. Nothing here reads the wall clock, uses the global random
// source or lets map order show: results are a function of the seed and the calls.
package apiserver
