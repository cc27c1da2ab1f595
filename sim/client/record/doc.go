// Package record is the simulator's event recorder: what controllers call to leave a
// Kubernetes Event ("SuccessfulCreate", "FailedScheduling", ...) about an object, as client-go's
// tools/record EventRecorder does.
//
// Promises: Eventf builds a core/v1 Event the way upstream makeEvent does (involvedObject from
// the object, source {component, host}, first and last timestamp = now, count 1, namespace of
// the object or "default", name "<object name>.<hex time>") and hands it synchronously to a
// Sink, so the order of events is the order of calls. Names are deterministic and unique per
// recorder. Every event also leaves one trace line. An event with a type other than Normal or
// Warning is dropped, as upstream drops it.
//
// Not modelled: upstream's EventCorrelator, which aggregates repeated events into one with a
// growing count and rate-limits them per object (25 burst, refill 1 per 5 minutes); here every
// call is one event with count 1.
package record
