package endpointslice

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/record"
	"github.com/reconsim/reconsim/sim/client/workqueue"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
)

// Component is the name the controller uses in traces and process names.
const Component = "endpointslice-controller"

// EventSourceComponent is the event source of upstream's controller
// ([k8s:endpointslice_controller.go@9e8be126]: EventSource{Component: "endpoint-slice-controller"}).
// The integrator builds the Recorder handed to New with it.
const EventSourceComponent = "endpoint-slice-controller"

// errStaleInformerCache is returned by a sync that finds the slice cache behind the
// controller's own writes (upstream StaleInformerCache error); the Service is retried.
var errStaleInformerCache = errors.New("EndpointSlice informer cache is out of date")

// Stats are the controller's counters since New, plus its work queue's metrics.
type Stats struct {
	// SyncStats are the SyncLoop's counters (Syncs, SyncErrors, SyncDurationTotal) and its work
	// queue's metrics (Queue).
	client.SyncStats
	// StaleCache counts the failed syncs that found the slice cache out of date, Dropped the
	// Services given up after maxRetries failures.
	StaleCache, Dropped uint64
	// SlicesCreated, SlicesUpdated and SlicesDeleted count successful writes.
	SlicesCreated, SlicesUpdated, SlicesDeleted uint64
}

// Controller is the EndpointSlice controller: for every Service with a selector it keeps
// EndpointSlices listing one endpoint per matching pod (upstream endpointslice Controller).
type Controller struct {
	controllerutil.Base
	cfg Config

	serviceInformer *client.Informer
	podInformer     *client.Informer
	nodeInformer    *client.Informer
	sliceInformer   *client.Informer

	tracker *endpointSliceTracker
	rec     *reconciler

	stats Stats
}

// New builds the controller on the shared informers of f (Services, Pods, Nodes and
// EndpointSlices), registers its event handlers and returns it stopped; the caller starts f
// and calls Start. rec should record with source EventSourceComponent. It returns an error if
// cfg is invalid.
func New(k *sim.Kernel, c *client.Client, f *client.SharedInformerFactory, rec record.Recorder, cfg Config) (*Controller, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ec := &Controller{
		cfg:             cfg,
		serviceInformer: f.For(model.KindService),
		podInformer:     f.For(model.KindPod),
		nodeInformer:    f.For(model.KindNode),
		sliceInformer:   f.For(model.KindEndpointSlice),
		tracker:         newEndpointSliceTracker(),
	}
	// The queue's limiter is like the default controller limiter with a 1s instead of 5ms
	// base: a Service sync can mean many slice writes, so retries back off harder.
	ec.Base = controllerutil.NewBase(k, c, rec, Component, "Service", "endpoint_slice",
		workqueue.NewMaxOfRateLimiter[string](
			workqueue.NewItemExponentialFailureRateLimiter[string](defaultSyncBackOff, maxSyncBackOff),
			workqueue.NewBucketRateLimiter[string](retryBucketQPS, retryBucketBurst),
		), ec.syncService)
	ec.rec = &reconciler{
		k: k, client: c, nodeInformer: ec.nodeInformer, maxEndpointsPerSlice: int(cfg.MaxEndpointsPerSlice),
		tracker: ec.tracker, podNameFallback: cfg.PodNameAddressFallback, stats: &ec.stats,
	}
	ec.Loop.HandleError = ec.handleErr
	ec.serviceInformer.AddEventHandler(controllerutil.OwnerHandlers[*model.Service]{
		Enqueue: func(svc *model.Service) { ec.Queue.Add(model.Key(svc)) },
	}.Funcs())
	ec.podInformer.AddEventHandler(client.EventHandlerFuncs{
		AddFunc:    func(obj model.Object, _ bool) { ec.addPod(obj) },
		UpdateFunc: ec.updatePod,
		DeleteFunc: func(obj any) {
			if o, ok := client.ObjectOf(obj); ok {
				ec.addPod(o)
			}
		},
	})
	ec.sliceInformer.AddEventHandler(client.EventHandlerFuncs{
		AddFunc:    func(obj model.Object, _ bool) { ec.onEndpointSliceAdd(obj) },
		UpdateFunc: ec.onEndpointSliceUpdate,
		DeleteFunc: ec.onEndpointSliceDelete,
	})
	return ec, nil
}

// Start spawns the controller process: it waits for its four caches to sync, then starts
// ConcurrentServiceEndpointSyncs workers (upstream Run, serviceQueueWorker and
// processNextServiceWorkItem; client.SyncLoop, with handleErr). Start after Stop does nothing:
// a restarted controller is a new Controller.
func (ec *Controller) Start() {
	ec.Loop.Start(ec.cfg.ConcurrentServiceEndpointSyncs, ec.podInformer, ec.serviceInformer, ec.sliceInformer, ec.nodeInformer)
}

// Stop shuts the queue down and kills the controller's processes (a controller-manager
// restart); a sync in progress is abandoned where it blocks.
func (ec *Controller) Stop() { ec.Loop.Stop() }

// Stats returns the controller's counters now.
func (ec *Controller) Stats() Stats {
	s := ec.stats
	s.SyncStats = ec.Loop.Stats()
	return s
}

// ReadyEndpoints returns CountReady over the slices of the Service serviceKey
// ("namespace/name") that this controller manages, as its cache sees them, leaving out slices
// being deleted. It is 0 for an unknown Service or a malformed key.
func (ec *Controller) ReadyEndpoints(serviceKey string) int {
	namespace, name, ok := strings.Cut(serviceKey, "/")
	if !ok {
		return 0
	}
	return CountReady(ec.cachedSlices(namespace, name))
}

// cachedSlices returns the cached slices of a Service this controller manages and that are
// not being deleted, in key order.
func (ec *Controller) cachedSlices(namespace, name string) []*model.EndpointSlice {
	sel := labels.SelectorFromSet(labels.Set{model.LabelServiceName: name, model.LabelManagedBy: ControllerName})
	var out []*model.EndpointSlice
	for _, obj := range ec.sliceInformer.ListNamespace(namespace, sel) {
		if s, ok := client.ObjectAs[*model.EndpointSlice](obj); ok && s.DeletionTimestamp == nil {
			out = append(out, s)
		}
	}
	return out
}

// ---- error handling (upstream handleErr) ----

// handleErr retries a failed sync with backoff up to maxRetries times, and then drops the
// Service until something enqueues it again. Success forgets the backoff (client.SyncLoop).
func (ec *Controller) handleErr(key string, err error) {
	if errors.Is(err, errStaleInformerCache) {
		ec.stats.StaleCache++
	}
	if ec.Queue.NumRequeues(key) < maxRetries {
		ec.Kernel.Emit(Component, "sync-error", "Service "+key, 0, err.Error())
		ec.Queue.AddRateLimited(key)
		return
	}
	ec.stats.Dropped++
	ec.Kernel.Emit(Component, "dropped", "Service "+key, 0, err.Error())
	ec.Queue.Forget(key)
}

// syncService brings the slices of one Service in line with its pods (upstream syncService).
// A Service gone from the cache is forgotten; an ExternalName Service or one without a
// selector gets nothing from this controller. The slice cache must have caught up with the
// controller's own writes, else the sync fails with errStaleInformerCache and is retried.
func (ec *Controller) syncService(ctx context.Context, key string) error {
	service, ok := controllerutil.Lister[*model.Service]{Informer: ec.serviceInformer}.GetByKey(key)
	if !ok {
		ec.tracker.DeleteService(key)
		return nil
	}
	if service.Spec.Type == model.ServiceTypeExternalName || len(service.Spec.Selector) == 0 {
		return nil
	}
	pods := controllerutil.ListNamespaceAs[*model.Pod](ec.podInformer, service.Namespace, labels.SelectorFromSet(service.Spec.Selector))
	existing := ec.cachedSlices(service.Namespace, service.Name)
	if ec.tracker.StaleSlices(key, existing) {
		return errStaleInformerCache
	}
	if err := ec.rec.reconcile(ctx, service, pods, existing); err != nil {
		ec.Recorder.Eventf(service, model.EventTypeWarning, "FailedToUpdateEndpointSlices",
			"Error updating Endpoint Slices for Service %s/%s: %v", service.Namespace, service.Name, err)
		return err
	}
	return nil
}

// ---- event handlers (upstream endpointslice_controller.go) ----

// onEndpointSliceAdd syncs the Service of a managed slice this controller did not just write.
func (ec *Controller) onEndpointSliceAdd(obj model.Object) {
	s, ok := client.ObjectAs[*model.EndpointSlice](obj)
	if ok && managedByController(s) && ec.tracker.ShouldSync(s) {
		ec.queueServiceForEndpointSlice(s)
	}
}

// onEndpointSliceUpdate syncs both Services when the service-name label moved, else the
// Service of a slice whose managed-by label changed or that this controller did not just
// write.
func (ec *Controller) onEndpointSliceUpdate(oldObj, curObj model.Object) {
	prev, ok1 := client.ObjectAs[*model.EndpointSlice](oldObj)
	cur, ok2 := client.ObjectAs[*model.EndpointSlice](curObj)
	if !ok1 || !ok2 {
		return
	}
	if cur.Labels[model.LabelServiceName] != prev.Labels[model.LabelServiceName] {
		ec.queueServiceForEndpointSlice(cur)
		ec.queueServiceForEndpointSlice(prev)
		return
	}
	if managedByController(prev) != managedByController(cur) || (managedByController(cur) && ec.tracker.ShouldSync(cur)) {
		ec.queueServiceForEndpointSlice(cur)
	}
}

// onEndpointSliceDelete syncs the Service of a managed slice whose deletion the controller did
// not ask for.
func (ec *Controller) onEndpointSliceDelete(obj any) {
	o, ok := client.ObjectOf(obj)
	if !ok {
		return
	}
	s, ok := client.ObjectAs[*model.EndpointSlice](o)
	if ok && managedByController(s) && ec.tracker.Has(s) && !ec.tracker.HandleDeletion(s) {
		ec.queueServiceForEndpointSlice(s)
	}
}

// queueServiceForEndpointSlice enqueues the slice's Service after the larger of
// endpointSliceChangeMinSyncDelay (1s) and the batch period.
func (ec *Controller) queueServiceForEndpointSlice(s *model.EndpointSlice) {
	key, err := ServiceControllerKey(s)
	if err != nil {
		ec.Kernel.Emit(Component, "slice-without-service", "EndpointSlice "+model.Key(s), s.ResourceVersion, err.Error())
		return
	}
	ec.Queue.AddAfter(key, max(endpointSliceChangeMinSyncDelay, ec.cfg.EndpointUpdatesBatchPeriod))
}

func managedByController(s *model.EndpointSlice) bool {
	return s.Labels[model.LabelManagedBy] == ControllerName
}

// addPod enqueues, after the batch period, every Service whose selector matches the pod; it
// also serves pod deletions (tombstones unwrapped by the caller).
func (ec *Controller) addPod(obj model.Object) {
	pod, ok := client.ObjectAs[*model.Pod](obj)
	if !ok {
		return
	}
	for _, key := range ec.podServiceMemberships(pod) {
		ec.Queue.AddAfter(key, ec.cfg.EndpointUpdatesBatchPeriod)
	}
}

// updatePod enqueues, after the batch period, the Services a pod change may affect (upstream
// GetServicesToUpdateOnPodChange): nothing for a resync or a change that touches neither the
// endpoint (deletionTimestamp, readiness, IP) nor the labels; the new Services for an endpoint
// change; with a label change, both old and new Services when the endpoint changed too, else
// only the Services the pod joined or left.
func (ec *Controller) updatePod(oldObj, curObj model.Object) {
	oldPod, ok1 := client.ObjectAs[*model.Pod](oldObj)
	curPod, ok2 := client.ObjectAs[*model.Pod](curObj)
	if !ok1 || !ok2 || oldPod.ResourceVersion == curPod.ResourceVersion {
		return
	}
	podChanged, labelsChanged := podEndpointsChanged(oldPod, curPod)
	if !podChanged && !labelsChanged {
		return
	}
	services := ec.podServiceMemberships(curPod)
	if labelsChanged {
		services = determineNeededServiceUpdates(ec.podServiceMemberships(oldPod), services, podChanged)
	}
	for _, key := range services {
		ec.Queue.AddAfter(key, ec.cfg.EndpointUpdatesBatchPeriod)
	}
}

// podEndpointsChanged reports whether a pod change may change its endpoint (deletionTimestamp,
// readiness or IP) and whether its labels changed (upstream podEndpointsChanged; hostnames are
// not modelled).
func podEndpointsChanged(oldPod, newPod *model.Pod) (podChanged, labelsChanged bool) {
	labelsChanged = !maps.Equal(oldPod.Labels, newPod.Labels)
	if (oldPod.DeletionTimestamp == nil) != (newPod.DeletionTimestamp == nil) ||
		(oldPod.DeletionTimestamp != nil && *oldPod.DeletionTimestamp != *newPod.DeletionTimestamp) {
		return true, labelsChanged
	}
	if model.IsPodReady(oldPod) != model.IsPodReady(newPod) {
		return true, labelsChanged
	}
	return oldPod.Status.PodIP != newPod.Status.PodIP, labelsChanged
}

// determineNeededServiceUpdates is upstream's: the union of old and new Services when the pod
// changed, else their symmetric difference. Both inputs are sorted; so is the result.
func determineNeededServiceUpdates(oldServices, services []string, podChanged bool) []string {
	set := map[string]bool{}
	for _, s := range services {
		set[s] = true
	}
	if podChanged {
		for _, s := range oldServices {
			set[s] = true
		}
		return slices.Sorted(maps.Keys(set))
	}
	for _, s := range oldServices {
		if set[s] {
			delete(set, s)
		} else {
			set[s] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// podServiceMemberships returns the keys of the cached Services of the pod's namespace whose
// selector matches its labels, sorted (upstream GetPodServiceMemberships). A Service without a
// selector matches nothing.
func (ec *Controller) podServiceMemberships(pod *model.Pod) []string {
	var out []string
	for _, obj := range ec.serviceInformer.ListNamespace(pod.Namespace, nil) {
		svc, ok := client.ObjectAs[*model.Service](obj)
		if !ok || len(svc.Spec.Selector) == 0 {
			continue
		}
		if labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(pod.Labels)) {
			out = append(out, model.Key(svc))
		}
	}
	slices.Sort(out)
	return out
}
