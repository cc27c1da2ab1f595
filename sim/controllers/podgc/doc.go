// Package podgc is the pod garbage collector of kube-controller-manager
// ([k8s:pkg/controller/podgc/gc_controller.go]), run on the simulator's virtual clock.
//
// Every GCCheckPeriod (20s, measured from the end of the previous pass, as upstream's sliding
// wait.UntilWithContext) it reads the pod and node caches and, in upstream's order:
//
//  1. deletes terminated pods (phase other than Pending, Running, Unknown) beyond
//     --terminated-pod-gc-threshold (12500; zero or less disables this step), evicted pods
//     first, then oldest first, concurrently;
//  2. deletes terminating pods on nodes that are not Ready and carry the
//     node.kubernetes.io/out-of-service taint;
//  3. puts every node that pods are bound to but the cache does not have into quarantine for
//     QuarantineTime (40s); a node out of quarantine that a live GET confirms is gone has its
//     pods marked Failed with DisruptionTarget=True (DeletionByPodGC, "PodGC: node no longer
//     exists") and force-deleted;
//  4. deletes terminating pods that were never scheduled.
//
// Every deletion first moves a pod that has not finished to Failed through the status
// subresource (a JSON merge patch carrying the pod's UID, standing for upstream's
// PatchPodStatus), then deletes it with grace period 0. A pod already gone is not an error.
// So a node deleted at time T has its pods force-deleted between T+40s and T+60s plus the
// request latencies: the first pass after T starts the quarantine, and the first pass 40s
// later ends it.
//
// The controller records no Kubernetes Events (upstream only logs and counts metrics); it
// leaves trace lines (component pod-garbage-collector: gc-terminated, node-gone,
// force-delete, force-delete-error) and counts what it did in Stats.
//
// Waiting between passes and the quarantine queue's timer are idle: a cluster with nothing
// else to do can become quiescent with PodGC running.
package podgc
