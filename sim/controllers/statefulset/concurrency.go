package statefulset

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/reconsim/reconsim/sim"
)

// slowStartBatch calls fn for indexes 0..count-1 in batches of 1, 2, 4, ... (at most
// maxBatch), each batch concurrently, and stops after the first batch with an error (upstream
// stateful_set_control.go slowStartBatch with initial batch size 1). It returns the number of
// calls that succeeded and the errors of the failing batch.
func slowStartBatch(ctx context.Context, name string, count, maxBatch int, fn func(ctx context.Context, i int) error) (int, []error) {
	remaining := count
	next := 0
	successes := 0
	for batch := min(remaining, 1); batch > 0; batch = min(2*batch, remaining, maxBatch) {
		errs := sim.RunConcurrently(ctx, name, next, batch, fn)
		next += batch
		successes += batch - len(errs)
		if len(errs) > 0 {
			return successes, errs
		}
		remaining -= batch
	}
	return successes, nil
}

// retryOnConflict calls fn until it returns nil or an error other than a Conflict, at most
// b.Steps times, sleeping the backoff between attempts (client-go retry.RetryOnConflict over
// wait.ExponentialBackoff: the first wait is Duration, each later one Factor times the
// previous, each stretched by a random fraction of Jitter). It returns fn's last error.
func (ssc *Controller) retryOnConflict(ctx context.Context, b Backoff, fn func() error) error {
	p := sim.ProcFromContext(ctx)
	wait := b.Duration
	var err error
	for step := 0; step < b.Steps; step++ {
		if step > 0 {
			d := wait
			if b.Jitter > 0 {
				d += time.Duration(ssc.rand.Float64() * b.Jitter * float64(wait))
			}
			p.Sleep(d)
			if b.Factor != 0 {
				wait = time.Duration(float64(wait) * b.Factor)
			}
		}
		err = fn()
		if err == nil || !apierrors.IsConflict(err) {
			return err
		}
	}
	return err
}
