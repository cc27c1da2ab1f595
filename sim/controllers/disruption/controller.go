package disruption

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/record"
	"github.com/reconsim/reconsim/sim/client/workqueue"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
)

// Component is the name the controller uses in traces and process names (the controller's
// name in kube-controller-manager's --controllers list is "disruption").
const Component = "disruption-controller"

// EventSourceComponent is the event source upstream's disruption controller records its
// events with ([k8s:disruption.go@003e8629]: EventSource{Component: "controllermanager"}).
// The integrator builds the Recorder handed to New with it.
const EventSourceComponent = "controllermanager"

// Stats are the controller's counters since New, plus its main work queue's metrics.
type Stats struct {
	// SyncStats are the SyncLoop's counters (Syncs, SyncErrors, SyncDurationTotal) and its work
	// queue's metrics (Queue).
	client.SyncStats
	// StatusUpdates counts status writes that succeeded; StatusUpdateErrors those that failed.
	StatusUpdates, StatusUpdateErrors uint64
	// FailSafes counts syncs that failed and fell back to writing disruptionsAllowed=0.
	FailSafes uint64
	// Rechecks counts keys handed from the recheck queue back to the main queue.
	Rechecks uint64
	// StaleConditionResets counts DisruptionTarget conditions reset to False.
	StaleConditionResets uint64
}

// updater writes a PodDisruptionBudget's status (upstream updater).
type updater func(ctx context.Context, pdb *model.PodDisruptionBudget) error

// Controller is the PodDisruptionBudget controller: it keeps every budget's status
// (expectedPods, desiredHealthy, currentHealthy, disruptionsAllowed, disruptedPods and the
// DisruptionAllowed condition) in step with the pods its selector matches (upstream
// DisruptionController).
type Controller struct {
	controllerutil.Base
	cfg Config

	pdbInformer *client.Informer
	podInformer *client.Informer
	rsInformer  *client.Informer
	dInformer   *client.Informer
	ssInformer  *client.Informer

	// Queue (in Base) holds PodDisruptionBudget keys to sync; recheckQueue holds keys whose
	// disruptedPods entries expire later; stalePodDisruptionQueue holds pod keys whose
	// DisruptionTarget condition may be stale (the three queues of upstream).
	recheckQueue            *workqueue.Delaying[string]
	stalePodDisruptionQueue *workqueue.RateLimiting[string]
	// staleLoop drains stalePodDisruptionQueue with syncStalePodDisruption; its one worker is
	// spawned by Start under the main loop, which stops it. Its counters are not in Stats,
	// which reports the PodDisruptionBudget syncs.
	staleLoop *client.SyncLoop

	// getUpdater returns the status writer; it is a field so that tests can make status
	// writes fail and watch the fail-safe path (the upstream test seam of the same name).
	getUpdater func() updater

	// selectors holds the parsed selector of each cached budget (see selectorOf).
	selectors controllerutil.VersionCache[budgetName, *model.PodDisruptionBudget, labels.Selector]

	stats Stats
}

// budgetName identifies a budget without building its key.
type budgetName struct{ namespace, name string }

// selectorOf is metav1.LabelSelectorAsSelector(pdb.Spec.Selector), parsed once per budget
// version: every pod event asks it of every budget in the pod's namespace. A cached budget is
// never modified (a change is a new version), so a version's selector never changes.
func (dc *Controller) selectorOf(pdb *model.PodDisruptionBudget) (labels.Selector, error) {
	return dc.selectors.Get(budgetName{pdb.Namespace, pdb.Name}, pdb, func(pdb *model.PodDisruptionBudget) (labels.Selector, error) {
		return metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	})
}

// forgetSelector drops the selector cached for a deleted budget.
func (dc *Controller) forgetSelector(pdb *model.PodDisruptionBudget) {
	dc.selectors.Forget(budgetName{pdb.Namespace, pdb.Name})
}

// New builds the controller on the shared informers of f (PodDisruptionBudgets, Pods,
// ReplicaSets, Deployments and StatefulSets), registers its event handlers and returns it
// stopped; the caller starts f and calls Start. rec should record with source
// EventSourceComponent. It returns an error if cfg is invalid.
func New(k *sim.Kernel, c *client.Client, f *client.SharedInformerFactory, rec record.Recorder, cfg Config) (*Controller, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	dc := &Controller{
		cfg:          cfg,
		pdbInformer:  f.For(model.KindPodDisruptionBudget),
		podInformer:  f.For(model.KindPod),
		rsInformer:   f.For(model.KindReplicaSet),
		dInformer:    f.For(model.KindDeployment),
		ssInformer:   f.For(model.KindStatefulSet),
		recheckQueue: workqueue.NewDelaying[string](k, "disruption_recheck"),
		stalePodDisruptionQueue: workqueue.NewRateLimiting[string](k, "stale_pod_disruption",
			workqueue.DefaultControllerRateLimiter[string]()),
	}
	dc.getUpdater = func() updater { return dc.writePdbStatus }
	dc.Base = controllerutil.NewBase(k, c, rec, Component, "PodDisruptionBudget", "disruption",
		workqueue.DefaultControllerRateLimiter[string](), dc.sync)
	// Upstream processNextStalePodDisruptionWorkItem: a failed cleanup is traced and retried
	// with backoff, a done one forgets its backoff.
	dc.staleLoop = client.NewSyncLoop(k, Component, "Pod", dc.stalePodDisruptionQueue, dc.syncStalePodDisruption)
	dc.staleLoop.HandleError = func(key string, err error) {
		dc.Kernel.Emit(Component, "stale-condition-error", "Pod "+key, 0, err.Error())
		dc.stalePodDisruptionQueue.AddRateLimited(key)
	}
	dc.podInformer.AddEventHandler(client.EventHandlerFuncs{
		AddFunc:    func(obj model.Object, _ bool) { dc.addPod(obj) },
		UpdateFunc: func(_, cur model.Object) { dc.updatePod(cur) },
		DeleteFunc: dc.deletePod,
	})
	dc.pdbInformer.AddEventHandler(controllerutil.OwnerHandlers[*model.PodDisruptionBudget]{
		Enqueue: func(pdb *model.PodDisruptionBudget) { dc.Queue.Add(model.Key(pdb)) },
		Forget:  dc.forgetSelector,
	}.Funcs())
	return dc, nil
}

// Start spawns the controller process: it waits for its five caches to sync, then starts one
// worker for each of its three queues, as upstream Run does. The worker of the main queue is
// client.SyncLoop's (upstream worker and processNextWorkItem: success forgets the key's
// backoff, an error requeues it through the rate limiter), and so is the stale-condition
// queue's (staleLoop); the recheck worker is below. Start
// after Stop does nothing: a restarted controller is a new Controller.
func (dc *Controller) Start() {
	informers := []*client.Informer{dc.podInformer, dc.pdbInformer, dc.rsInformer, dc.dInformer, dc.ssInformer}
	dc.Loop.StartFunc(informers, "", func() {
		dc.Loop.Spawn(Component+"/worker", dc.Loop.Worker)
		dc.Loop.Spawn(Component+"/recheck-worker", dc.recheckWorker)
		dc.Loop.Spawn(Component+"/stale-pod-disruption-worker", dc.staleLoop.Worker)
	})
}

// Stop shuts the queues down and kills the controller's processes (a controller-manager
// restart); a sync in progress is abandoned where it blocks.
func (dc *Controller) Stop() {
	if dc.Loop.Stopped() {
		return
	}
	dc.recheckQueue.ShutDown()
	dc.stalePodDisruptionQueue.ShutDown()
	dc.Loop.Stop() // shuts the main queue down, then kills
}

// Stats returns the controller's counters now.
func (dc *Controller) Stats() Stats {
	s := dc.stats
	s.SyncStats = dc.Loop.Stats()
	return s
}

// ---- the recheck worker (upstream recheckWorker; the stale-pod-disruption worker is
// staleLoop's) ----

func (dc *Controller) recheckWorker(p *sim.Proc) {
	for dc.processNextRecheckWorkItem(p) {
	}
}

// processNextRecheckWorkItem moves a key whose recheck time has come to the main queue, rate
// limited, as upstream does.
func (dc *Controller) processNextRecheckWorkItem(ctx context.Context) bool {
	key, quit := dc.recheckQueue.Get(ctx)
	if quit {
		return false
	}
	defer dc.recheckQueue.Done(key)
	dc.stats.Rechecks++
	dc.Kernel.Emit(Component, "recheck", "PodDisruptionBudget "+key, 0, "")
	dc.Queue.AddRateLimited(key)
	return true
}

// ---- event handlers (upstream disruption.go) ----

func (dc *Controller) enqueuePdbForRecheck(pdb *model.PodDisruptionBudget, delay time.Duration) {
	dc.recheckQueue.AddAfter(model.Key(pdb), delay)
}

// addPod and updatePod wake the budget covering the pod (every update, resyncs included, as
// upstream), and schedule the cleanup of a DisruptionTarget condition that may be stale.
func (dc *Controller) addPod(obj model.Object) {
	pod, ok := client.ObjectAs[*model.Pod](obj)
	if !ok {
		return
	}
	if pdb := dc.getPdbForPod(pod); pdb != nil {
		dc.Queue.Add(model.Key(pdb))
	}
	if has, cleanAfter := dc.nonTerminatingPodHasStaleDisruptionCondition(pod); has {
		dc.stalePodDisruptionQueue.AddAfter(model.Key(pod), cleanAfter)
	}
}

func (dc *Controller) updatePod(cur model.Object) { dc.addPod(cur) }

// deletePod wakes the budget that covered the pod; obj may be a tombstone.
func (dc *Controller) deletePod(obj any) {
	o, ok := client.ObjectOf(obj)
	if !ok {
		return
	}
	pod, ok := client.ObjectAs[*model.Pod](o)
	if !ok {
		return
	}
	if pdb := dc.getPdbForPod(pod); pdb != nil {
		dc.Queue.Add(model.Key(pdb))
	}
}

// getPdbForPod returns the first budget (in key order) of the pod's namespace whose selector
// matches the pod's labels, or nil (upstream getPdbForPod over the lister's
// GetPodPodDisruptionBudgets). A pod without labels matches none; a budget with a nil or invalid
// selector matches no pod, an empty selector matches every pod (policy/v1). When several match,
// a Warning MultiplePodDisruptionBudgets event is recorded on the pod.
func (dc *Controller) getPdbForPod(pod *model.Pod) *model.PodDisruptionBudget {
	pdbs := dc.getPodDisruptionBudgets(pod)
	if len(pdbs) == 0 {
		return nil
	}
	if len(pdbs) > 1 {
		msg := fmt.Sprintf("Pod %q/%q matches multiple PodDisruptionBudgets.  Chose %q arbitrarily.", pod.Namespace, pod.Name, pdbs[0].Name)
		dc.Recorder.Eventf(pod, model.EventTypeWarning, "MultiplePodDisruptionBudgets", "%s", msg)
	}
	return pdbs[0]
}

func (dc *Controller) getPodDisruptionBudgets(pod *model.Pod) []*model.PodDisruptionBudget {
	if len(pod.Labels) == 0 {
		return nil
	}
	var out []*model.PodDisruptionBudget
	for _, obj := range dc.pdbInformer.ListNamespace(pod.Namespace, nil) {
		pdb, ok := client.ObjectAs[*model.PodDisruptionBudget](obj)
		if !ok {
			continue
		}
		sel, err := dc.selectorOf(pdb)
		if err != nil || !sel.Matches(labels.Set(pod.Labels)) {
			continue
		}
		out = append(out, pdb)
	}
	return out
}
