// Package controllerutil is the one home of what the simulated controllers share, as upstream
// keeps it in kubernetes/pkg/controller (release 1.33):
//
//   - ControllerRefManager (upstream controller_ref_manager.go): claiming, adopting and
//     releasing Pods, ReplicaSets and ControllerRevisions by controller reference, with the
//     owner re-read once, uncached, before the first adoption of a sync (RecheckDeletionTimestamp).
//   - ControllerExpectations and UIDTrackingControllerExpectations (upstream
//     controller_utils.go) on virtual time.
//   - Key and reference helpers: SplitKey (client-go cache.SplitMetaNamespaceKey without the
//     error) and NewControllerRef (metav1.NewControllerRef).
//   - ComputeHash (upstream controller_utils.go ComputeHash) and SafeEncodeString: the pod
//     template hash that names Deployments' ReplicaSets and DaemonSets' revisions.
//   - PodFromTemplate (upstream GetPodFromTemplate): the pod a controller creates from its
//     template, before its own additions.
//   - PodControl (upstream RealPodControl): creating and deleting a controller's pods with
//     their events, counted in PodWrites (the ReplicaSet and DaemonSet controllers).
//   - AddClaimCandidatesIndex and ClaimCandidatePods: the pods an owner can claim (its own and
//     the orphans of its namespace), read from an informer index.
//   - Typed listers (Lister, ListNamespaceAs, SelectingObjects) and the event handler shapes of
//     owners and owned objects (OwnerHandlers, OwnedHandlers, ChangeHandlers).
//   - ErrorReason: how a trace line names a failed write (the API status reason, else the
//     error's text), and Workers, the range check of every --concurrent-*-syncs flag.
//   - VersionCache: a value derived once per informer object version (Get), or kept across
//     versions that agree in what it is derived from (GetSame), and LabelSelectorsEqual.
//   - Base: the kernel, client, recorder, work queue and client.SyncLoop that every
//     queue-driven controller embeds, and KillInNameOrder for the helper processes a
//     controller keeps in a map.
//
// What the DaemonSet and StatefulSet controllers share about ControllerRevisions is in the
// sibling package history, as upstream keeps it in pkg/controller/history.
//
// Pod readiness and availability (upstream pkg/api/v1/pod/util.go IsPodReady, IsPodAvailable,
// GetPodReadyCondition) are not here but in package model (podutil.go), beside the API types
// as upstream keeps them, because the API server, the kubelet and the verdicts read them too.
//
// Contract: every function is deterministic and runs on the simulation path; nothing here
// starts a process, reads the wall clock or ranges over a map in an order that matters. The
// ControllerRefManager talks to the API server only through the *client.Client it is given,
// one blocking request at a time, in the order of the objects it is handed. Callers own
// tracing and statistics: the manager reports each adoption and release through hooks, and
// never writes to the trace itself unless the caller asks for the usual claim trace with
// TraceClaims.
package controllerutil
