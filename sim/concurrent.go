package sim

import "context"

// RunConcurrently runs fn(ctx, i) for i in [first, first+n) in n new processes named name, and
// blocks the process of ctx until every one has returned: the simulator's form of upstream's
// "one goroutine per call, then wg.Wait()". The calls start at the same virtual instant, so their
// API requests overlap as concurrent goroutines' would. It returns the errors in the order the
// calls finished (upstream reads the first error off a channel: the first call to fail). The
// waiting process is parked, not holding: the calls themselves are the pending work.
func RunConcurrently(ctx context.Context, name string, first, n int, fn func(ctx context.Context, i int) error) []error {
	if n <= 0 {
		return nil
	}
	p := ProcFromContext(ctx)
	remaining := n
	var errs []error
	for i := first; i < first+n; i++ {
		p.k.Spawn(name, func(c *Proc) {
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
