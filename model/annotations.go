package model

// AnnotationDoc documents one pod-behaviour annotation: what it does, its value and its
// default, for `sim explain` and docs/scenario.md. The annotations are a simulator extension
// that the simulated kubelet reads (sim/node, whose tests check that this table documents
// every annotation it reads, with the same keys, and that each example is accepted).
type AnnotationDoc struct {
	// Key is the annotation, e.g. sim.reconsim.dev/never-ready.
	Key string
	// Value says what the value looks like.
	Value string
	// Default is what a pod without the annotation gets.
	Default string
	// Meaning says what the annotation makes the pod's containers do.
	Meaning string
	// Example is a value the kubelet accepts.
	Example string
}

// annotationDocs are in the order a reader meets them: readiness, hangs, exits, termination,
// init containers, image pulls.
var annotationDocs = []AnnotationDoc{
	{
		Key: "sim.reconsim.dev/ready-after", Value: `a duration such as "20s" (at most 720h)`, Default: "0s",
		Meaning: "How long after each container start its readiness and startup probes start succeeding. " +
			"A container without a readiness probe is ready once it runs, whatever this says.",
		Example: "20s",
	},
	{
		Key: "sim.reconsim.dev/never-ready", Value: `"true" or "false"`, Default: "false",
		Meaning: "The readiness and startup probes never succeed: the pod runs and is never Ready " +
			"(a rollout stalls, a Service gets no endpoint from it). Only containers with a readiness or startup probe are affected.",
		Example: "true",
	},
	{
		Key: "sim.reconsim.dev/hang-after", Value: `a duration such as "60s" (at most 720h)`, Default: "none: containers never hang",
		Meaning: "Each container instance hangs this long after it started (a deadlock): it keeps running, but its liveness, readiness and startup probes fail from then on. " +
			"A liveness probe then kills it (about failureThreshold x periodSeconds later); hung, it ignores SIGTERM, so it is killed at the end of its grace period (exit code 137, reason Error: under restartPolicy Never the pod fails) and restarted with the CrashLoopBackOff back-off measured from the previous exit, so an instance that ran longer than its back-off restarts at once; a readiness probe takes it out of its Services' endpoints meanwhile. " +
			"Without probes nothing notices.",
		Example: "60s",
	},
	{
		Key: "sim.reconsim.dev/crash-after", Value: `a duration such as "30s" (at most 720h)`, Default: "none: containers run until stopped",
		Meaning: "Each container instance exits with code 1 this long after it started; restartPolicy and " +
			"CrashLoopBackOff decide what happens next. With exit-after too, the earlier one wins.",
		Example: "30s",
	},
	{
		Key: "sim.reconsim.dev/exit-after", Value: `a duration such as "30s", a range such as "20s..40s", or a distribution such as "lognormal(median=30s,p99=2m,max=5m)" (at most 720h)`,
		Default: "none: containers run until stopped",
		Meaning: "Each container instance exits this long after it started, with the code in sim.reconsim.dev/exit-code (a batch-like container that runs to completion; sidecars run until stopped and ignore it). " +
			"A range or a distribution (constant, uniform, exponential, lognormal, as the latency flags take them) draws each instance's run time from the kubelet's random stream.",
		Example: "20s..40s",
	},
	{
		Key: "sim.reconsim.dev/exit-code", Value: "an integer in [0, 255]", Default: "0",
		Meaning: "The exit code of sim.reconsim.dev/exit-after.",
		Example: "3",
	},
	{
		Key: "sim.reconsim.dev/exit-code-probability", Value: "a probability in [0, 1]", Default: "1",
		Meaning: "How often an instance that exits by sim.reconsim.dev/exit-after exits with sim.reconsim.dev/exit-code; otherwise it exits with 0 (a flaky batch container: \"0.3\" fails about three runs in ten).",
		Example: "0.3",
	},
	{
		Key: "sim.reconsim.dev/termination-seconds", Value: `a duration such as "5s", or a number of seconds (at most 720h)`, Default: "1s",
		Meaning: "How long a container takes to exit after SIGTERM. The grace period caps it: at the deadline " +
			"the container is killed (SIGKILL, exit code 137).",
		Example: "5s",
	},
	{
		Key: "sim.reconsim.dev/init-duration", Value: `a duration such as "5s" (at most 720h)`, Default: "1s",
		Meaning: "How long each run of an init container takes before it exits with sim.reconsim.dev/init-exit-code. Init containers run one after the other before the app containers start. " +
			"The app annotations (ready-after, crash-after, exit-after, hang-after) do not apply to init containers; sidecars (init containers with restartPolicy: Always) follow them like the app.",
		Example: "5s",
	},
	{
		Key: "sim.reconsim.dev/init-exit-code", Value: "an integer in [0, 255]", Default: "0",
		Meaning: "The exit code of every init container run. Non-zero fails it: under restartPolicy Always or OnFailure it is restarted with the CrashLoopBackOff back-off (the pod shows Init:CrashLoopBackOff), under Never the pod fails.",
		Example: "1",
	},
	{
		Key: "sim.reconsim.dev/image-pull-fail", Value: `"true" or "false"`, Default: "false",
		Meaning: "Every pull of the pod's images fails (a tag that does not exist): the container waits in ErrImagePull, then ImagePullBackOff, and the kubelet retries the pull with the image back-off (10s doubling to 300s), " +
			"with the Failed and BackOff events. An image already on the node is not pulled, so a pod whose image another pod pulled still starts.",
		Example: "true",
	},
}

// AnnotationDocs returns the documentation of every pod-behaviour annotation. An invalid
// value is ignored and reported by a Warning event with reason InvalidSimulatorAnnotation on
// the pod.
func AnnotationDocs() []AnnotationDoc {
	return append([]AnnotationDoc(nil), annotationDocs...)
}
