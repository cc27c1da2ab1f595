package controllerutil

import "github.com/reconsim/reconsim/internal/bounds"

// MaxWorkers bounds every controller's --concurrent-*-syncs, so that a bad scenario gets an
// error instead of a run that spawns millions of processes. Upstream has no upper bound; its
// lower bound of 1 is kube-controller-manager's (a controller with 0 workers never syncs).
const MaxWorkers = 1000

// Workers reports a worker count (the flag's value) outside [1, MaxWorkers], naming the flag.
func Workers(flag string, n int) error { return bounds.In(flag, n, 1, MaxWorkers) }
