package statefulset

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/reconsim/reconsim/sim"
)

// runConcurrently runs fn(ctx, i) for i in [first, first+n) in n new processes named name and
// parks the process of ctx until every one has returned: the simulator's form of upstream's
// "one goroutine per call, then wg.Wait()". The calls start at the same virtual instant, so
// their API requests overlap as concurrent goroutines' would. It returns the errors in the
// order the calls finished.
func runConcurrently(ctx context.Context, name string, first, n int, fn func(ctx context.Context, i int) error) []error {
	if n <= 0 {
		return nil
	}
	p := sim.ProcFromContext(ctx)
	k := p.Kernel()
	remaining := n
	var errs []error
	for i := first; i < first+n; i++ {
		k.Spawn(name, func(c *sim.Proc) {
			defer func() {
				remaining--
				if remaining == 0 {
					p.Unpark()
				}
			}()
			if err := fn(c, i); err != nil {
				errs = append(errs, err)
			}
		})
	}
	for remaining > 0 {
		p.Park()
	}
	return errs
}

// slowStartBatch calls fn for indexes 0..count-1 in batches of 1, 2, 4, ... (at most
// maxBatch), each batch concurrently, and stops after the first batch with an error (upstream
// stateful_set_control.go slowStartBatch with initial batch size 1). It returns the number of
// calls that succeeded and the errors of the failing batch.
func slowStartBatch(ctx context.Context, name string, count, maxBatch int, fn func(ctx context.Context, i int) error) (int, []error) {
	remaining := count
	next := 0
	successes := 0
	for batch := min(remaining, 1); batch > 0; batch = min(2*batch, remaining, maxBatch) {
		errs := runConcurrently(ctx, name, next, batch, fn)
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
