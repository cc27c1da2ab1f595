package controllerutil

import (
	"context"

	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/record"
	"github.com/reconsim/reconsim/sim/client/workqueue"
)

// Base is the plumbing every queue-driven controller has, embedded in its Controller so that
// it is written once: the kernel it runs on, its API client, its event recorder (upstream's
// kubeClient and eventRecorder fields), the work queue of object keys its event handlers fill
// and the client.SyncLoop whose workers drain that queue (upstream Run, worker and
// processNextWorkItem). What differs between controllers (their informers, caches,
// expectations and extra queues) stays in their own Controller.
//
// The fields are exported only so that they are promoted into the embedding Controller; code
// outside the controller's package must not use them.
type Base struct {
	Kernel   *sim.Kernel
	Client   *client.Client
	Recorder record.Recorder
	Queue    *workqueue.RateLimiting[string]
	Loop     *client.SyncLoop
}

// NewBase returns the plumbing of the controller component (its trace component and process
// names): a queue named queueName (upstream's workqueue name) rate limited by limiter, and a
// SyncLoop, not started, that drains it with sync and names the queued objects kind in its
// trace lines. The queue is created before the loop, as every controller did before Base.
func NewBase(k *sim.Kernel, c *client.Client, rec record.Recorder, component, kind, queueName string,
	limiter workqueue.RateLimiter[string], sync func(ctx context.Context, key string) error) Base {
	queue := workqueue.NewRateLimiting[string](k, queueName, limiter)
	return Base{
		Kernel:   k,
		Client:   c,
		Recorder: rec,
		Queue:    queue,
		Loop:     client.NewSyncLoop(k, component, kind, queue, sync),
	}
}
