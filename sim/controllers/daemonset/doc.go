// Package daemonset is the DaemonSet controller of kube-controller-manager
// ([k8s:pkg/controller/daemon] daemon_controller.go, update.go and util/daemonset_util.go),
// run on the simulator's virtual clock against the simulated API server. It keeps one pod of
// every DaemonSet on every node that qualifies.
//
// What it promises, each as upstream:
//
//   - Eligibility (NodeShouldRunDaemonPod): a node qualifies when the template's nodeName (if
//     any) is the node, spec.nodeSelector and the required node affinity match it, and it has
//     no NoSchedule or NoExecute taint the pod does not tolerate. A node that only fails on a
//     NoSchedule taint keeps the pod it already has; an untolerated NoExecute taint removes it.
//   - Daemon pods get the default tolerations (AddOrUpdateDaemonPodTolerations):
//     node.kubernetes.io/not-ready and unreachable NoExecute without tolerationSeconds (never
//     evicted for node problems), disk-pressure, memory-pressure, pid-pressure and
//     unschedulable NoSchedule; network-unavailable NoSchedule only for hostNetwork pods, which
//     the model does not have.
//   - Placement: pods are created unscheduled with their required node affinity replaced by
//     matchFields metadata.name In [node] (ReplaceDaemonSetPodNodeNameNodeAffinity, upstream
//     since 1.12): the scheduler binds them. A pod's node is spec.nodeName or, before binding,
//     that affinity's value.
//   - manage: a pod for every qualifying node that has none (new nodes included); failed pods
//     are deleted (FailedDaemonPod event, per-node back-off 1s doubling to 15m), succeeded ones
//     too (SucceededDaemonPod); extra pods on a node are deleted, oldest kept (with surge: the
//     oldest new and oldest old pod are kept until the new one is available); pods on nodes
//     that no longer qualify are deleted, and unscheduled pods of nodes that no longer exist.
//   - syncNodes: at most BurstReplicas (250) creations and deletions per sync; creations in
//     slow-start batches 1, 2, 4, ..., stopping after a batch with a failure (the rest are
//     taken off the expectations); deletions at once. Expectations (5 minute TTL) hold a
//     DaemonSet until its own creations and deletions are observed; meanwhile only its status
//     is written, without raising observedGeneration.
//   - Rolling update (RollingUpdate strategy, maxUnavailable default 1, maxSurge default 0,
//     percentages rounded up against the desired count; both 0 falls back to maxUnavailable 1):
//     without surge, old pods that are not available are replaced at once, and available old
//     pods are deleted while fewer than maxUnavailable nodes are unavailable; manage recreates
//     them at the new revision. With surge, new pods are created beside old ones (at once beside
//     unavailable old pods, beside up to maxSurge available ones) and the old pod goes when the
//     new one is available. OnDelete replaces pods only when someone deletes them.
//   - History: a ControllerRevision per template, named "<ds>-<hash>" with the template's labels
//     and controller-revision-hash=<hash>; pods carry the same label. The hash is upstream
//     ComputeHash's FNV-1a (32-bit) over the template, then the collision count, safe-encoded;
//     the template is fed as its canonical JSON (encoding/json: struct fields in declaration
//     order, map keys sorted) where upstream feeds a spew dump, so hashes are stable across runs
//     but not equal to a real cluster's. Collisions bump status.collisionCount; duplicate
//     current revisions are merged; unused old revisions beyond revisionHistoryLimit (10) are
//     deleted oldest first.
//   - Status: desiredNumberScheduled, currentNumberScheduled, numberMisscheduled, numberReady,
//     numberAvailable, numberUnavailable, updatedNumberScheduled (each node's oldest pod),
//     observedGeneration; written only on change, with one GET+retry.
//   - Events with upstream reasons and messages: SuccessfulCreate "Created pod: <name>",
//     SuccessfulDelete "Deleted pod: <name>", FailedCreate "Error creating: <err>",
//     FailedDelete "Error deleting: <err>", FailedDaemonPod, SucceededDaemonPod, SelectingAll.
//   - Event handlers: node additions and changes that flip a DaemonSet's verdict on the node
//     wake it (heartbeat-only updates are ignored); pod and revision handlers as the other
//     controllers; a pod turning Ready under minReadySeconds wakes its DaemonSet that much +1s
//     later.
//
// Simulation choices: where upstream ranges over a map of nodes (the rolling update,
// unscheduled pods of missing nodes) the nodes are taken in name order; concurrent requests are
// one process each, started at the same instant, and the sync parks until all return; merge
// patches carrying the whole ownerReferences list stand for strategic merge patches.
//
// Trace lines (component daemonset-controller): started, sync-nodes, slow-start-batch,
// slow-start-skipped, rolling-update, failed-pod-backoff, expectations-pending,
// revision-create, revision-renumber, revision-delete, revision-collision, adopt, release,
// update-status, update-status-error, sync-error, invalid-selector, and one line per recorded
// event.
package daemonset
