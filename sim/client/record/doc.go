// Package record is the simulator's event recorder: what components call to leave a
// Kubernetes Event ("SuccessfulCreate", "FailedScheduling", ...) about an object, as
// client-go's tools/record (core/v1 Events) does.
//
// Promises:
//   - Eventf builds a core/v1 Event the way upstream generateEvent and makeEvent do
//     (involvedObject from the object, source and reportingComponent/reportingInstance
//     {component, host}, first and last timestamp = now, count 1, namespace of the object or
//     "default", name "<object name>.<hex virtual nanoseconds>", unique among the recorders
//     that share one Names), leaves one trace line, and never blocks. An event with a type
//     other than Normal or Warning is dropped, as upstream drops it.
//   - Through the API (Broadcaster.NewRecorder): the event goes to the broadcaster's FIFO of
//     1000 (maxQueuedEvents; a full queue drops it), and one simulated process per
//     broadcaster sends the events in order through the component's own client, so they
//     cost its QPS: EventCorrelator (aggregation after 10 distinct messages within 10
//     minutes, "(combined from similar events): "; repeats become count/lastTimestamp
//     strategic merge PATCHes; a spam filter of 25 events per source and object, refilled
//     one per 5 minutes), then recordEvent with recordToSink's retries (12 tries, 10 s apart,
//     the first wait × rand[0,1); API status errors are final). Constants and functions
//     follow client-go v0.37.2 tools/record/event.go and events_cache.go and are cited where
//     they are used.
//   - Directly (New): the event goes synchronously to a Sink, uncorrelated and free, in call
//     order. Tests use it with a FakeSink; the simulator uses it when
//     simulator.events-through-api is false.
//
// Deviations from upstream: the aggregator drops the smallest message from a full set where
// upstream drops an arbitrary one (Go map order); the broadcaster is not shut down with its
// component, so events queued before a controller restart or a kubelet crash are still sent;
// kube-scheduler records through this core/v1 recorder where upstream uses the events.k8s.io/v1
// recorder (tools/events: series, no spam filter, no aggregation).
package record
