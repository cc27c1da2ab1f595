// Package client is how simulated components talk to the simulated API server: a REST-style
// Client with client-go's client-side throttling and 429 retries, shared informers with their
// listers and indexes, and typed helpers.
//
// Promises:
//
//   - Every request, watches included, first waits on the client's token bucket (client-go
//     rest.Config QPS/Burst over flowcontrol.NewTokenBucketRateLimiter); the wait is a hold on
//     the calling process, and is recorded (total throttled time, waits over 50ms).
//   - A 429 (or 5xx) answer that carries Retry-After is retried, after sleeping that many
//     seconds and waiting on the token bucket again, up to MaxRetries times (client-go
//     rest/request.go and rest/with_retry.go); other errors come back unchanged, as the
//     apimachinery StatusErrors the server returned (apierrors.IsConflict etc. work).
//   - Objects sent are deep-copied first, and single objects returned are private copies: the
//     caller may keep mutating what it has, as with a real serialising client. Objects from
//     informer caches are shared and must be treated as read-only.
//   - Informers list, then watch from the list's resourceVersion, re-watch on timeout, relist
//     after 410 Expired (delivering deletes missed while away as DeletedFinalStateUnknown), and
//     back off between attempts as the client-go reflector does. Handlers run synchronously
//     when a watch event is delivered; listers return objects sorted by key. A handler that
//     implements KeyedEventHandler gets each object's key (model.Key) with it, the string the
//     cache files the object under. Informer.GetByKeyRef answers a repeated read of one key
//     from the cache entry an EntryRef remembers, with exactly GetByKey's answer: the entry is
//     used only while the cache has removed no key since it was found.
//   - A SyncLoop (upstream Run, worker and processNextWorkItem, for the key-based controllers)
//     syncs a key in one worker at a time, forgets its backoff on success, and requeues it
//     through the rate limiter on error unless the controller handles errors itself.
//
// All blocking calls take a ctx that carries the calling sim.Proc (sim.ProcFromContext).
package client
