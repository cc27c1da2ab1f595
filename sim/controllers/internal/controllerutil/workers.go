package controllerutil

import "fmt"

// MaxWorkers bounds every controller's --concurrent-*-syncs, so that a bad scenario gets an
// error instead of a run that spawns millions of processes. Upstream has no upper bound; its
// lower bound of 1 is kube-controller-manager's (a controller with 0 workers never syncs).
const MaxWorkers = 1000

// CheckWorkers reports a worker count (the flag's value) outside [1, MaxWorkers], naming the
// controller's package and the flag.
func CheckWorkers(pkg, flag string, n int) error {
	if n < 1 || n > MaxWorkers {
		return fmt.Errorf("%s: %s must be in [1, %d], got %d", pkg, flag, MaxWorkers, n)
	}
	return nil
}
