package replicaset

import (
	"context"

	"github.com/reconsim/reconsim/sim"
)

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
		errs := sim.RunConcurrently(ctx, name, 0, batchSize, func(ctx context.Context, _ int) error { return fn(ctx) })
		successes += batchSize - len(errs)
		if len(errs) > 0 {
			return successes, errs[0]
		}
		remaining -= batchSize
	}
	return successes, nil
}
