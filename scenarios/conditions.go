package scenarios

import "github.com/reconsim/reconsim/model"

// The built-in conditions of eventually / always / never expectations. Each type's comment
// says exactly when the condition is true and which values the result message reports (the
// simulator evaluates them; see ConditionExpectation for when).
//
// Pod counts below use the pods a workload owns: pods whose controller owner reference points
// to the workload, or to a ReplicaSet whose controller is the workload (a Deployment's pods).
// A pod is active when it has no deletionTimestamp and its phase is neither Succeeded nor
// Failed (controller.FilterActivePods, [k8s:pkg/controller/controller_utils.go]), and
// available when it is active and its Ready condition has been True for at least the
// workload's spec.minReadySeconds (podutil.IsPodAvailable). Counts are taken from the pods
// themselves at the moment of evaluation, not from the status the controllers last wrote, so
// they do not lag behind by a controller's sync.

// NoPendingPodsArgs: no pod (in any namespace) is in phase Pending. The message reports the
// number of pending pods.
type NoPendingPodsArgs struct{}

// ReadyReplicasArgs: the workload's status.readyReplicas is at least Min. Target is a
// ReplicaSet, Deployment or StatefulSet; a workload that does not exist has 0. The message
// reports the workload, its ready replicas and Min.
type ReadyReplicasArgs struct {
	Target ObjectRef `json:"target"`
	Min    int32     `json:"min"`
}

// NodeOvercommittedArgs: on some node the sum of the requests (cpu, memory) of its bound,
// active pods exceeds the node's allocatable. The message names the overcommitted nodes, or
// says that none is. It reads the right way round under never (`never: node-overcommitted`:
// no node is ever overcommitted).
//
// The condition was called no-node-overcommitted before, and the docs wrote `never:
// no-node-overcommitted`, which failed on every healthy cluster at time 0. That name is a
// deprecated alias of this condition (with a warning), so the scenarios written from those
// docs now mean what they said.
type NodeOvercommittedArgs struct{}

// DeprecatedConditionNames maps each deprecated condition name to the condition it is an
// alias of.
var DeprecatedConditionNames = map[string]string{"no-node-overcommitted": "node-overcommitted"}

// PodsAtMostArgs: the workload's active pods number at most a bound: Count, or, with
// ReplicasPlusMaxSurge, the Deployment's spec.replicas plus its maxSurge resolved against
// spec.replicas rounding up (deploymentutil.ResolveFenceposts; 25% by default), both read at
// the moment of evaluation. Exactly one of Count and ReplicasPlusMaxSurge is set;
// ReplicasPlusMaxSurge needs a RollingUpdate Deployment. Terminating pods are not counted,
// as the Deployment controller does not count them against maxSurge. Target is a ReplicaSet,
// Deployment or StatefulSet. The message reports the workload, its active pods and the bound
// (with replicas and maxSurge when derived).
type PodsAtMostArgs struct {
	Target               ObjectRef `json:"target"`
	Count                *int32    `json:"count,omitempty"`
	ReplicasPlusMaxSurge bool      `json:"replicasPlusMaxSurge,omitempty"`
}

// ReplicasAtMostArgs: the sum of spec.replicas over the Deployment's ReplicaSets (the
// Deployment controller's allPodsCount, deploymentutil.GetReplicaCountForReplicaSets) is at
// most a bound: Count, or, with ReplicasPlusMaxSurge, spec.replicas plus maxSurge resolved as
// for pods-at-most. This is what the Deployment controller guarantees: it never scales a
// ReplicaSet up past that sum. The pods themselves can briefly exceed it, by the pods the old
// ReplicaSets' controller has not yet deleted while the new one's has already created its own
// (pods-at-most shows that). Target is a Deployment. The message reports the Deployment, the
// sum and the bound (with replicas and maxSurge when derived).
type ReplicasAtMostArgs struct {
	Target               ObjectRef `json:"target"`
	Count                *int32    `json:"count,omitempty"`
	ReplicasPlusMaxSurge bool      `json:"replicasPlusMaxSurge,omitempty"`
}

// AvailableAtLeastArgs: the workload's available pods number at least a bound: Count, or,
// with ReplicasMinusMaxUnavailable, the Deployment's spec.replicas minus its maxUnavailable
// resolved against spec.replicas rounding down (1 when maxSurge and maxUnavailable both
// resolve to 0, as deploymentutil.ResolveFenceposts does), read at the moment of evaluation.
// Exactly one of Count and ReplicasMinusMaxUnavailable is set; ReplicasMinusMaxUnavailable
// needs a RollingUpdate Deployment. Target is a ReplicaSet, Deployment or StatefulSet; a
// workload that does not exist has 0 available pods. The message reports the workload, its
// available pods and the bound (with replicas and maxUnavailable when derived).
type AvailableAtLeastArgs struct {
	Target                      ObjectRef `json:"target"`
	Count                       *int32    `json:"count,omitempty"`
	ReplicasMinusMaxUnavailable bool      `json:"replicasMinusMaxUnavailable,omitempty"`
}

// ReadyEndpointsAtLeastArgs: the Service Namespace/Service has at least Count ready
// endpoints: distinct addresses of the endpoints whose conditions.ready is true or unset
// (discovery/v1: unset means ready), over every EndpointSlice labelled
// kubernetes.io/service-name=<Service> in the namespace. A Service without slices has 0. The
// message reports the Service, its ready endpoints and Count.
type ReadyEndpointsAtLeastArgs struct {
	Service string `json:"service"`
	// Namespace defaults to "default".
	Namespace string `json:"namespace,omitempty"`
	Count     int32  `json:"count"`
}

// MetricAggregate says how a metric expectation reduces a series over its window.
type MetricAggregate string

// The aggregates. The series is a step function: each sample holds until the next one; the
// value at the window's start is the last sample at or before it.
const (
	// AggregateMax is the largest value the series takes in the window.
	AggregateMax MetricAggregate = "max"
	// AggregateMin is the smallest value the series takes in the window.
	AggregateMin MetricAggregate = "min"
	// AggregateMean is the time-weighted mean over the window (the integral of the step
	// function divided by the window's length, from the first sample if it starts later).
	AggregateMean MetricAggregate = "mean"
	// AggregateLast is the value at the end of the window (the end of the run without one).
	AggregateLast MetricAggregate = "last"
)

// metricAggregates lists the aggregates in the order docs show them.
var metricAggregates = []string{string(AggregateMax), string(AggregateMin), string(AggregateMean), string(AggregateLast)}

// MetricExpectation holds when the Aggregate of the recorded series Series over the window
// (the whole run when Within is nil) is at most Max and at least Min (at least one of them is
// set). Series names are those of result.json (docs/results.md): "pods.pending",
// "deployment.default/web.available", "service.default/web.ready_endpoints",
// "apiserver.inflight_mutating", ...
//
// A series that was never recorded fails the expectation ("no series named X was
// recorded"). Otherwise the message reports the aggregate's value and the threshold; for max
// and min it also reports the virtual time of the first sample past the threshold (when the
// expectation first failed) and that sample's value.
type MetricExpectation struct {
	Series    string          `json:"series"`
	Aggregate MetricAggregate `json:"aggregate"`
	Max       *float64        `json:"max,omitempty"`
	Min       *float64        `json:"min,omitempty"`
	Within    *Window         `json:"within,omitempty"`
}

// seriesPrefixes are the families of series names the recorder writes (docs/results.md);
// a metric expectation's series must start with one of them.
var seriesPrefixes = []string{
	"pods.", "nodes.", "apiserver.", "workqueue.", "replicaset.", "deployment.", "statefulset.",
	"daemonset.", "hpa.", "service.", "load.", "client.", "leader.", "gitops.",
}

// FieldEqualsArgs: the field of Target at Path has exactly one value, and it equals Value.
// Path is a JSONPath as `kubectl get -o jsonpath` takes it (k8s.io/client-go/util/jsonpath;
// the enclosing braces may be left out: ".status.phase"), evaluated on the object's JSON
// form: for a custom resource what the API server stores, for a built-in kind the JSON of
// the simulator's model (upstream's field names; times are virtual seconds). Numbers compare
// by value (3 equals 3.0). An object that does not exist, or a path that finds nothing or
// more than one value, does not hold. The message reports the object and the values found.
type FieldEqualsArgs struct {
	Target ObjectRef  `json:"target"`
	Path   string     `json:"path"`
	Value  model.JSON `json:"value"`
}
