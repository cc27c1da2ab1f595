// Package tainteviction is the taint eviction controller
// ([k8s:pkg/controller/tainteviction/taint_eviction.go@003e8629]): it deletes pods from nodes
// that carry NoExecute taints the pods do not tolerate, after the shortest tolerationSeconds of
// the tolerations in use.
//
// What it promises, each as upstream:
//
//   - Node updates are handled before pod updates on the same worker; work is sharded over
//     Config.Workers (8) workers by an FNV-32a hash of the node name.
//   - For a pod on a node with NoExecute taints: a taint not tolerated means delete now; all
//     tolerations in use unbounded (no tolerationSeconds) means never (and any scheduled
//     deletion is cancelled); otherwise the deletion is scheduled at the time the controller
//     handled the taint plus the smallest tolerationSeconds (<= 0: now). A deletion already
//     scheduled earlier is kept, so the clock starts when the taint was first observed.
//   - Taints removed, pod gone, or tolerations now unbounded: the scheduled deletion is
//     cancelled, with a Normal TaintManagerEviction "Cancelling deletion of Pod <ns>/<name>"
//     event.
//   - When a deletion is due: a Normal TaintManagerEviction "Marking for deletion Pod
//     <ns>/<name>" event, then up to 5 attempts 10ms apart to read the pod, add the
//     DisruptionTarget=True condition (reason DeletionByTaintManager) and DELETE it with default
//     options, so the grace period is the pod's terminationGracePeriodSeconds.
//
// Simulation choices: every scheduled deletion is one sim.Timer and a hold (pending work that
// keeps the run from being quiescent); a due deletion runs in its own process, as upstream runs
// each in its own goroutine. The DisruptionTarget condition is written with an update of the
// status subresource carrying the read resourceVersion rather than upstream's strategic merge
// patch, so a concurrent status write costs a retry instead of merging.
//
// Trace lines (component "tainteviction"): schedule-eviction, evict-now, cancel-eviction,
// delete, delete-failed.
package tainteviction
