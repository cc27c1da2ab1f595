// Package node is the simulated kubelet: one Kubelet per node, talking to the simulated API
// server through its own client as the real kubelet does, with simulated containers.
//
// What a Kubelet does, each as its own process on the kernel (docs/upstream.md#kubelet):
//
//   - Registration and node status (pkg/kubelet/kubelet_node_status.go): it creates its Node
//     (or takes over one that exists, as with a settled start), then every
//     NodeStatusUpdateFrequency (10s, jittered by 4%) GETs the Node, recomputes the
//     MemoryPressure, DiskPressure, PIDPressure and Ready conditions, and writes the status
//     only if something other than heartbeat times changed or NodeStatusReportFrequency (5m)
//     passed since the last write. A Node found deleted stops the kubelet for good (see
//     below).
//   - The node lease (component-helpers apimachinery/lease/controller.go): Lease
//     kube-node-lease/<node>, holder the node, renewed every
//     NodeLeaseDurationSeconds*0.25 = 10s (jittered by 4%) from the last lease written; on
//     failure the lease is fetched (or created) with retries every 200ms, 400ms, ... up to
//     7s. The lease gets an owner reference to the Node once the Node exists.
//   - A pod informer on spec.nodeName=<node> feeding one worker per pod
//     (pkg/kubelet/pod_workers.go), which serialises everything done to that pod. The worker
//     has a process only while it has work (an idle pod costs no coroutine): it is started
//     when the worker is woken, at the instant and in the order an unparked one would run.
//   - The status manager (pkg/kubelet/status/status_manager.go): one process that writes
//     pod statuses in the order they changed (GET, then UpdateStatus with the kubelet-owned
//     conditions merged into the others), re-checks every pod every 10s, and removes a deleted
//     pod for good once its containers stopped (Delete with grace period 0 and a UID
//     precondition).
//
// Pod lifecycle. A new pod is admitted if it fits the node's allocatable pods, cpu and memory
// next to the pods already admitted (otherwise it fails with reason OutOfpods, OutOfcpu or
// OutOfmemory and a "Node didn't have enough resource" message). Its first status is Pending
// with containers waiting in ContainerCreating. The sandbox is created (SandboxStart), then
// each container in order: image pull if the image is not on the node (ImagePull; pulls are
// serialised per node and an image is pulled once), create and start (ContainerStart). The
// kubelet notices a started or exited container at its next PLEG relist (every
// PLEGRelistPeriod, 1s, from the kubelet's start) and only then reports it, with the events
// Pulling, Pulled, Created and Started in upstream's words. A container without a readiness
// probe is ready once it runs; with one it starts not ready, and the probe (every
// periodSeconds, after initialDelaySeconds, the first one after a random fraction of the
// period if the kubelet started less than a period ago, plus an immediate run when a
// not-yet-ready container's status is generated) flips it after successThreshold successes
// or failureThreshold failures (pkg/kubelet/prober/worker.go). Startup probes gate readiness
// and liveness. A container whose liveness or startup probe failed is killed ("Container app
// failed liveness probe, will be restarted") and, as SyncPod does, started again in the same
// pass once it stopped, through doBackOff: the CrashLoopBackOff back-off measured from the
// previous instance's exit (kuberuntime_manager.go computePodActions). A simulated app fails
// its liveness probe only when it hangs (sim.reconsim.dev/hang-after); hung, it does not act
// on SIGTERM, so the kill takes the whole grace period and ends in SIGKILL: exit code 137,
// reason Error (kuberuntime_container.go killContainer), and under restartPolicy Never the
// pod fails.
//
// Init containers run one at a time in spec order before the regular containers, each once
// the previous one exited with 0 (computeInitContainerActions); a failed one is restarted with
// the CrashLoopBackOff back-off, or fails the pod under restartPolicy Never. The pod is Pending
// with Initialized=False meanwhile, its containers waiting in PodInitializing, and the status
// carries initContainerStatuses. Sidecars (init containers with restartPolicy Always, with the
// SidecarContainers gate) start in that order, let the next one start once they run and their
// startup probe passed, keep running (restarted whatever the pod's restartPolicy), count for
// readiness, are stopped once no regular container runs or will run again, and on termination
// get SIGTERM only after the regular containers and later sidecars exited.
//
// Image pulls can fail (sim.reconsim.dev/image-pull-fail): the container waits in
// ErrImagePull, the pull backs off 10s doubling to 300s per pod and image (ImagePullBackOff in
// between), with the Failed and BackOff events of image_manager.go EnsureImageExists; the pod
// worker retries after backOffPeriod (10s, jittered). A failing pull takes as long as a pull.
//
// Restarts follow restartPolicy (Always, OnFailure, Never) with CrashLoopBackOff
// (flowcontrol.Backoff as the kubelet uses it): the first restart after an exit is
// immediate, the following ones wait 10s, 20s, 40s, ... up to 300s after the exit, and a
// container that ran more than 600s since the last back-off starts over at 10s. A container
// waiting out its back-off shows waiting reason CrashLoopBackOff; each attempt refused
// records a BackOff event, and the worker retries when the back-off expires (jittered by up to
// 50%, pod_workers.go completeWork). A pod whose containers have all stopped for good is
// Succeeded or Failed by their exit codes. KillContainer ends a running container from
// outside (a crash, a kill, the OOM killer: reason OOMKilled, code 137); the restart that
// follows is the same as after any other exit.
//
// Graceful deletion. When the pod gets a deletionTimestamp, every running container gets
// SIGTERM (event Killing "Stopping container <name>") with the deletion's grace period (at
// least 2s); it exits with code 0 after its termination delay, or is killed with code 137 at
// the deadline. When none runs, the final status (phase Succeeded or Failed, containers
// terminated) is written and the pod is deleted with grace period 0 and a UID precondition.
// A pod removed from the API server before that (force deletion) has its containers killed
// at once, with no status written. Readiness probes go on until the containers exit, as
// upstream's do (worker.go stops only liveness and startup probes of a pod being deleted).
//
// Simulated containers. A pod's annotations script what its containers do; this is a
// simulator extension, not Kubernetes API, and every container of the pod behaves alike
// (init containers and sidecars apart, see below).
// Readiness annotations act through probes: a container without a readiness probe is ready
// once it runs, whatever they say.
//
//	sim.reconsim.dev/ready-after: 20s          readiness and startup probes succeed from 20s after each start (default 0)
//	sim.reconsim.dev/never-ready: "true"       readiness and startup probes never succeed
//	sim.reconsim.dev/crash-after: 30s          each container instance exits with code 1 30s after it started
//	sim.reconsim.dev/exit-after: 30s           each instance exits 30s after it started ...
//	sim.reconsim.dev/exit-after: 20s..40s      ... or after a time drawn uniformly per instance
//	sim.reconsim.dev/exit-after: lognormal(median=30s,p99=2m)  ... or from a distribution
//	sim.reconsim.dev/exit-code: "0"            ... with this code (default 0; crash-after wins if earlier)
//	sim.reconsim.dev/exit-code-probability: "0.3"  ... with that code only this often, else 0 (default 1)
//	sim.reconsim.dev/termination-seconds: 5s   time to exit after SIGTERM (default 1s; a bare number is seconds)
//	sim.reconsim.dev/hang-after: 60s           each instance hangs 60s after it started: every probe fails from then on
//	sim.reconsim.dev/init-duration: 5s         each init container run takes 5s (default 1s) ...
//	sim.reconsim.dev/init-exit-code: "1"       ... and exits with this code (default 0)
//	sim.reconsim.dev/image-pull-fail: "true"   every pull of the pod's images fails
//
// Init containers follow only init-duration and init-exit-code; sidecars follow the app's
// annotations but exit-after (they run until stopped).
//
// An invalid value is ignored (treated as absent) and reported by a Warning event with reason
// InvalidSimulatorAnnotation on the pod; it never fails the pod or the run.
//
// Faults, called by the integrator's timeline; each leaves a trace line:
//
//   - Crash: the machine dies. Every kubelet process stops and nothing more is written;
//     containers die (exit code 255, reason Unknown), images being pulled are lost.
//   - Partition: requests from the kubelet's client fail at the API server after the request
//     timeout (an apiserver.Fault, so they appear in the server's statistics) and its
//     watches stall; containers and probes go on and the lease and status loops retry. It
//     needs the server (SetServer).
//   - Stall(d): the kubelet hangs for d: no lease, node status, pod status or pod sync, and
//     no probes; containers go on.
//   - FailImagePulls(d): every image pull the node starts during d fails (a registry it
//     cannot reach), as the image-pull-fail annotation makes a pod's pulls fail.
//   - Recover: after a crash the kubelet starts afresh like a rebooted node: it registers
//     again, relists its pods, finishes the deletion of pods that were being deleted and
//     restarts the containers of the others (restart count plus one, from a new sandbox);
//     after a partition the fault is removed and the informer catches up (or relists); a
//     stall ends at once.
//   - Node deletion is the integrator's (a Delete of the Node). A running kubelet notices at
//     its next status update and stops for good, its containers with it: the simulator treats
//     a deleted Node as a removed machine, and Recover does nothing afterwards. (An upstream
//     kubelet would keep running and re-register only when restarted.) A crashed kubelet
//     cannot notice; Recover is a reboot, and like upstream it registers the Node again.
//
// Settled start: at Start, pods already bound to the node with phase Running (created by the
// integrator for settled objects) are adopted as they are: running since their startedAt,
// ready as their status says, with no pull or start latency and no status write until
// something changes.
//
// Not modelled: probe handlers (outcomes come from the annotations), a probe's own
// terminationGracePeriodSeconds, sidecars in the resource requests (admission counts init
// containers as before KEP-753: the largest init request or the sum of the containers'),
// imagePullPolicy (IfNotPresent always), volumes, node-level eviction,
// static pods, admission other than resources (node selector, taints, ports), the pod
// worker's periodic resync (the simulated runtime reports every change, so it would find
// nothing). Events go to the Recorder as they happen, also while the kubelet is partitioned.
//
// Determinism: every random draw comes from the kubelet's streams (kernel.Rand of
// "kubelet/<node>", ".../image-pull" and ".../runtime"); nothing depends on map order.
package node
