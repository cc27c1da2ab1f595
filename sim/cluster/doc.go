// Package cluster builds a simulated cluster from a scenario and runs it: it is the one place
// that knows every component. Run turns a validated scenarios.Scenario into a world (the API
// server, kube-controller-manager's controllers, the scheduler, one kubelet per node), plays
// the scenario's timeline on it, watches it (convergence after every action, the expectations,
// the Kubernetes Events) and returns a report.Result.
//
// Run promises:
//   - Determinism: the same scenario and seed give the same Result (every field but
//     WallSeconds, which the caller fills) and the same trace hash.
//   - Limits: the run ends at the scenario's duration, its event limit, when it is quiescent
//     (nothing significant for stop.quiescence and no pending work), when the caller's
//     context is cancelled, or when a process panics; Result.StopReason says which.
//   - A run that ends without converging names everything it created that is not converged
//     (a workload short of replicas, an incomplete rollout, a Pending pod, a drain that did
//     not finish), each with a reason and a message (verdicts); a verdict no expectation
//     covers fails the run.
//   - Convergence after each timeline action reports when the world last became converged and
//     stayed so, when it first was, and how many times it diverged in between.
//
// Convergence is measured against ground truth, not only against what the API says: a pod
// counts as serving only while it is Ready, not terminating, and on a node whose kubelet is
// really up. Right after a node crash the API still reports its pods Ready; the world is
// already not converged.
package cluster
