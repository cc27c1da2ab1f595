// Package nodelifecycle is the node lifecycle controller
// ([k8s:pkg/controller/nodelifecycle/node_lifecycle_controller.go@003e8629], v1.32+ defaults;
// docs/upstream.md#node-lifecycle): it turns missing kubelet heartbeats into node conditions and taints.
//
// What it promises, each as upstream:
//
//   - Heartbeats: a node's probe time is the controller's own clock when a monitor pass sees a
//     changed Ready lastHeartbeatTime or a newer Lease (kube-node-lease) renewTime. A pass runs
//     at start and then NodeMonitorPeriod after the previous one returned.
//   - Grace: a node silent for longer than NodeMonitorGracePeriod (NodeStartupGracePeriod if it
//     never posted Ready) gets Ready, MemoryPressure, DiskPressure and PIDPressure set to
//     Unknown ("NodeStatusUnknown", "Kubelet stopped posting node status."), written with
//     UpdateStatus and retried for up to 100ms. That pass records the Normal NodeNotReady event
//     ("Node <n> status is now: NodeNotReady") and marks the node's pods Ready=False (a Warning
//     NodeNotReady "Node is not ready" on each); failures are retried on later passes.
//   - NoExecute taints follow the Ready condition seen at the start of a pass: False queues
//     node.kubernetes.io/not-ready, Unknown queues node.kubernetes.io/unreachable (the other
//     one is swapped at once if present), True removes both and dequeues. So the taint comes one
//     monitor pass after the pass that wrote Unknown.
//   - Tainting is rate limited per zone (topology region/zone labels) by a token bucket of burst
//     1, drained every 100ms: NodeEvictionRate (0.1/s) in Normal and FullDisruption zones;
//     SecondaryNodeEvictionRate in PartialDisruption zones larger than LargeClusterSizeThreshold
//     and 0 in smaller ones. A zone is FullDisruption with no Ready node, PartialDisruption with
//     more than 2 and at least UnhealthyZoneThreshold of its nodes not Ready. When every zone is
//     FullDisruption the controller blames itself: it removes every NoExecute taint and stops
//     tainting; when that ends every node gets a fresh grace period.
//   - NoSchedule taints mirror node conditions (not-ready, unreachable, memory-, disk-,
//     pid-pressure, network-unavailable) and spec.unschedulable on every node add and update.
//   - Taint writes carry the read resourceVersion and are retried on Conflict (5 attempts,
//     100-200ms apart); an added taint is stamped TimeAdded = now.
//
// Simulation choices: upstream's 100ms tainting ticker runs only at the ticks at which a zone's
// bucket could hand out a token (an idle timer on the same sliding grid), which is observably
// the same and keeps long runs cheap; the monitor pass and the ticker are idle waits (periodic
// work does not hold off quiescence). Zones and nodes are visited in sorted order where
// upstream iterates maps. The beta OS/arch label reconciliation is not modelled.
//
// Trace lines (component "nodelifecycle"): node-health (a node's observed Ready status
// changed), mark-unknown, taint-queued, taint-add, taint-remove, taint-skipped, zone-added,
// zone-state, disruption-mode, mark-pod-not-ready and the *-failed variants.
package nodelifecycle
