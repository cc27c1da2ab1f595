// Package endpointslice is the EndpointSlice controller of kube-controller-manager
// ([k8s:pkg/controller/endpointslice/endpointslice_controller.go@9e8be126] with the reconciler
// of [k8s:staging/src/k8s.io/endpointslice] reconciler.go, utils.go and util/), run on the
// simulator's virtual clock against the simulated API server. It is how pods behind a Service
// become endpoints, and so how the simulator measures service availability: CountReady over a
// Service's slices is its number of ready endpoints.
//
// What it promises, each as upstream:
//
//   - For every Service with a selector (not ExternalName), slices labelled
//     kubernetes.io/service-name=<service> and endpointslice.kubernetes.io/managed-by=
//     endpointslice-controller.k8s.io, controlled by the Service, named from
//     generateName "<service>-", mirroring the Service's labels, hold one endpoint per
//     matching pod that is not terminal and has an address, at most MaxEndpointsPerSlice
//     (--max-endpoints-per-slice, 100) per slice. A Service without such pods keeps one empty
//     placeholder slice.
//   - Endpoint conditions: serving = the pod is Ready; terminating = the pod has a
//     deletionTimestamp; ready = serving and not terminating (always true with
//     publishNotReadyAddresses). Terminating pods stay in the slices until they are gone.
//   - Slices are changed in place where possible: endpoints whose conditions change are
//     updated in their slice; new endpoints fill the slices being updated (fullest first),
//     then the unchanged slice they fit best, then new slices; a create paired with a delete
//     becomes one update. Writes go creates, updates, deletes, stopping at the first failure.
//   - A pod on a node missing from the cache is left out and the sync fails, so the Service
//     is retried.
//   - Timing: a pod change enqueues the Services it affects after EndpointUpdatesBatchPeriod
//     (--endpointslice-updates-batch-period, 0; the queue keeps the earliest time, so changes
//     within one period share a sync); a Service change enqueues it at once; a change to a
//     managed slice that this controller did not write (per its generation tracker) enqueues
//     the Service after max(1s, batch period). ConcurrentServiceEndpointSyncs
//     (--concurrent-service-endpoint-syncs, 5) workers sync Services; a failed sync is retried
//     with per-Service backoff from 1s doubling to 1000s (and an overall 10 qps bucket), 15
//     times, then dropped. A sync that finds the slice cache behind the controller's own
//     writes fails as stale and is retried the same way; this is part of the controller's own
//     delay between a pod turning Ready and its endpoint turning ready.
//   - Events: Warning FailedToUpdateEndpointSlices "Error updating Endpoint Slices for Service
//     <ns>/<name>: <err>".
//
// Simulation choices, each a deliberate difference:
//
//   - Every Service is single-stack IPv4 (the model has no ipFamilies): one address type,
//     IPv4; an address that does not parse as IPv6 counts as IPv4, as upstream's check does.
//   - The simulated API server allocates no cluster IPs: an empty ClusterIP counts as
//     allocated and only "None" marks a Service headless.
//   - Model containers declare no ports, so a Service port with a named targetPort has no
//     endpoint port (upstream drops a port it cannot find, too); numeric targetPorts work.
//   - Not modelled: topology hints and trafficDistribution, zones and hostnames on
//     endpoints, the last-change-trigger-time annotation (it changes no decision).
//   - Map iteration is replaced by fixed orders: pods by key, slices by name, port sets by a
//     canonical key, so the same world gives the same slices.
//   - Config.PodNameAddressFallback (a knob, off by default) publishes a bound pod without a
//     status.podIP under its name instead of leaving it out, for worlds whose kubelets are
//     played by tests; the simulated kubelet assigns pod IPs, so scenarios need it off.
//
// Trace lines (component endpointslice-controller): started, create, update, delete (with the
// slice name, endpoint and ready counts), create-error, update-error, delete-error,
// sync-error, dropped, slice-without-service.
package endpointslice
