package replicaset

import (
	"context"

	"github.com/reconsim/reconsim/sim"
)

// runConcurrently runs fn(ctx, i) for i in [0, n) in n new processes named name and parks the
// process of ctx until every one has returned: the simulator's form of upstream's "one
// goroutine per call, then wg.Wait()". The calls start at the same virtual instant, so their
// API requests overlap as concurrent goroutines' would. It returns the errors in the order the
// calls finished (upstream reads the first error off a channel, which is the first to fail).
func runConcurrently(ctx context.Context, name string, n int, fn func(ctx context.Context, i int) error) []error {
	if n <= 0 {
		return nil
	}
	p := sim.ProcFromContext(ctx)
	k := p.Kernel()
	remaining := n
	var errs []error
	for i := 0; i < n; i++ {
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

// slowStartBatch calls fn count times, in batches that start at initialBatchSize and double
// after every batch without an error, each batch's calls running concurrently (upstream
// replica_set.go slowStartBatch). After the first batch with any error it stops and returns
// the number of successful calls with the first error; the calls of later batches are never
// made. onBatch, if not nil, is told each batch's size before the batch starts.
//
// It is what keeps a ReplicaSet whose pods all fail the same way (a quota, an admission
// rejection) from sending hundreds of doomed requests: 1, 2, 4, 8, ... calls until one fails.
func slowStartBatch(ctx context.Context, name string, count, initialBatchSize int, onBatch func(size int), fn func(ctx context.Context) error) (int, error) {
	remaining := count
	successes := 0
	for batchSize := min(remaining, initialBatchSize); batchSize > 0; batchSize = min(2*batchSize, remaining) {
		if onBatch != nil {
			onBatch(batchSize)
		}
		errs := runConcurrently(ctx, name, batchSize, func(ctx context.Context, _ int) error { return fn(ctx) })
		successes += batchSize - len(errs)
		if len(errs) > 0 {
			return successes, errs[0]
		}
		remaining -= batchSize
	}
	return successes, nil
}
