package scenarios

import "github.com/reconsim/reconsim/sim/metrics"

// LoadArgs changes the offered load of a workload from the moment the action runs: the load
// that `loads:` declares for Target follows Shape from then on, with the shape's times
// counted from the action (a steps shape's first step at 2m is two minutes after the
// action). The load's usage model, noise and metric names stay those of its `loads:` entry,
// which must exist. The shape is sim/metrics' (metrics.Shape), validated by it.
type LoadArgs struct {
	// Target is the workload of a `loads:` entry: a Deployment, StatefulSet or ReplicaSet.
	Target ObjectRef `json:"target"`
	// Shape is the new offered load over time, in units per second, from the action on.
	Shape metrics.Shape `json:"shape"`
}
