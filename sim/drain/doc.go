// Package drain is `kubectl drain` on the simulator: it cordons a node and evicts its pods
// through the pods/eviction subresource, retrying the evictions a PodDisruptionBudget refuses,
// then waits for the pods to be gone ([k8s:staging/src/k8s.io/kubectl/pkg/drain] drain.go,
// filters.go, cordon.go and default.go at 168c15a3/94341df3/dd7e566d/c825e8ec). The timeline's
// drain action runs it in a process of its own.
//
// What it promises, each as kubectl does it:
//
//   - One GET of the node and, unless it is already unschedulable, one merge patch
//     {"spec":{"unschedulable":true}}; the node stays cordoned whatever happens next.
//   - One LIST of the node's pods (field selector spec.nodeName, all namespaces,
//     --pod-selector), filtered in kubectl's order with kubectl's messages: DaemonSet-managed
//     pods stay (error "DaemonSet-managed Pods (use --ignore-daemonsets to ignore)" without
//     IgnoreAllDaemonSets, else warning "ignoring DaemonSet-managed Pods"); mirror pods
//     stay; pods without a controller are an error ("cannot delete Pods that declare no
//     controller (use --force to override)") unless Force; finished pods always go; pods
//     deleted longer ago than --skip-wait-for-delete-timeout are skipped. Filter errors fail
//     the drain before anything is evicted.
//   - Every selected pod is evicted concurrently, each by its own process. A 429 is retried
//     every 5 s (EvictionRetryInterval) until the global Timeout (0: forever); a 404 means
//     the pod is gone; other errors fail that pod. After an accepted eviction the pod is
//     polled with GET every 1 s (WaitForDeleteInterval, the first poll at once) until it is
//     gone or replaced by a pod with another UID. GracePeriodSeconds -1 leaves each pod its
//     own terminationGracePeriodSeconds.
//   - DisableEviction deletes the pods one by one instead, then polls them all.
//   - Trace lines (component kubectl-drain): cordoned, already-cordoned, warning, evicting,
//     eviction-refused (with the refusal count and the budget's message), evicted, deleted,
//     gone, skip, pod-failed, drained, drain-failed.
//
// Simulation choices, each a deliberate difference:
//
//   - IgnoreAllDaemonSets is true in DefaultOptions (kubectl's default is false, which fails
//     every drain of a node running a DaemonSet pod; scenarios can set it false).
//   - The model's pods have no volumes, so the emptyDir filter never refuses a pod and
//     DeleteEmptyDirData changes nothing.
//   - Discovery is not modelled: the server always serves policy/v1 evictions.
//   - Waits between retries and polls are idle waits (they do not keep the run from being
//     quiescent), so a drain blocked for good ends the run as quiescent and Drainer.Status
//     tells which pods it is waiting for and what the budget said.
package drain
