// Package leaderelection is client-go's tools/leaderelection over the simulated Lease API:
// one Elector per candidate process, each a blocking loop on the kernel, in the shape of
// upstream's LeaderElector (kubernetes/kubernetes
// staging/src/k8s.io/client-go/tools/leaderelection/leaderelection.go, release 1.32).
//
// What an Elector promises:
//
//   - Acquire (LeaderElector.acquire): it calls tryAcquireOrRenew at once and then after
//     each wait of wait.Jitter(RetryPeriod, JitterFactor=1.2), that is uniformly in
//     [RetryPeriod, 2.2*RetryPeriod) (wait.JitterUntil, sliding), until it succeeds.
//   - tryAcquireOrRenew: a leader whose lease it still believes valid updates the Lease
//     from its last observation (the fast path, one optimistic Update); otherwise it GETs the
//     Lease (creating it when it does not exist), notes the time it last saw the record change
//     by its own clock (observedTime: remote timestamps are never trusted), fails while
//     another holder's lease has not expired (observedTime + LeaseDuration > now), and else
//     updates the Lease with itself as holder and leaseTransitions+1. Updates carry the
//     resourceVersion they read, so of two candidates only one can win.
//   - Renew (LeaderElector.renew): every RetryPeriod (wait.Until) a round polls
//     tryAcquireOrRenew every RetryPeriod, the first try at once, for at most RenewDeadline
//     (wait.PollUntilContextTimeout); a round that does not succeed by its deadline ends the
//     term: the elector records "stopped leading" and stops.
//   - Release (LeaderElector.release, only with ReleaseOnCancel): on Cancel a leader writes the
//     Lease with an empty holder and leaseDurationSeconds 1, so a standby takes it on its next
//     attempt instead of waiting for the lease to expire.
//   - OnStartedLeading is called when a term starts, OnStoppedLeading once when Run ends
//     (after a term or a cancel), OnNewLeader whenever the observed holder changes. Events
//     with reason LeaderElection ("<identity> became leader", "<identity> stopped leading")
//     go to the recorder, on the Lease, as upstream's resourcelock.LeaseLock.RecordEvent.
//
// An Elector has no goroutines and no clock of its own: it runs in one sim.Proc and draws its
// jitter from the random stream it is given. Killing that process is a crash: nothing is
// released and no callback runs.
//
// Flags and ProcessFlags are the flag tables (internal/flagtab) of an elected component's
// --leader-elect* flags (Config) and of how the simulator runs its processes (Process:
// leader-elect, replicas, restart-delay).
package leaderelection
