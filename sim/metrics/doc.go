// Package metrics is the simulated cluster's metrics pipeline: the load applications receive,
// the cpu and memory it costs them, the kubelets' container stats, metrics-server, and the
// metrics APIs the horizontal pod autoscaler reads (MetricsClient, mirroring upstream
// pkg/controller/podautoscaler/metrics).
//
// What it promises:
//
//   - Load (LoadSpec, Shape): per workload, offered load over virtual time — constant, steps,
//     ramp, sine, rectangular spikes, or a recorded series (ParseSeriesCSV: "seconds,value"
//     lines, linearly interpolated, every problem reported with its line) — optionally times
//     seeded noise. Evaluating a shape is pure and exact: the load served over an interval is
//     the shape's integral, computed in closed form, never by stepping.
//   - Usage (UsageModel): the offered load is divided equally among the workload's Ready pods
//     (not deleting), as a load balancer does with endpoints; a serving pod uses its base cpu
//     and memory plus a per-unit cost of its share. A pod uses nothing until all its containers
//     run, and from then on (the latest container start) at least its base; a restarted
//     container starts its counters again. Container limits cap usage.
//   - Kubelet stats: each node's cAdvisor samples its pods every HousekeepingInterval (10s) at a
//     phase drawn from the node's own stream; a sample holds cumulative cpu and served load and
//     the memory working set.
//   - metrics-server (Server): scrapes every reachable node at start and every
//     MetricResolution (15s), storing the last two samples of each pod with metrics-server's
//     rules (pkg/storage/pod.go): cpu is the rate between them (so it lags real usage by up to
//     a resolution plus a housekeeping interval), a fresh container gets a synthetic start point
//     only if it started at least 10s before its sample, and a pod not in the latest scrape (its
//     node unreachable, its containers stopped) has no metrics.
//   - Metrics APIs: ListPodMetrics serves metrics.k8s.io PodMetrics; GetResourceMetric,
//     GetRawMetric (a Pods metric: each pod's served load per second over its metric window),
//     GetObjectMetric and GetExternalMetric (the offered load per second averaged over the last
//     scrape interval) answer as upstream's REST metrics clients do, with their error messages.
//   - Determinism: noise draws come from kernel.Rand("metrics/load/<name>") in interval order,
//     housekeeping phases from kernel.Rand("metrics-server/housekeeping/<node>"); pods and nodes
//     are walked in sorted order wherever order could show.
//
// Units: load in units per second (requests, messages, ...); cpu in cores (milli-cores in the
// metrics APIs, as MilliValue rounds up); memory in bytes.
package metrics
