package nodelifecycle

import (
	"time"

	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
)

// The controller's view of the API: informer caches to read (controllerutil.Lister), the
// client to write. Everything the controller reads from a cache is shared and treated as
// read-only.

// newCaches takes the Node, Lease and Pod informers from f and registers the controller's
// handlers (upstream NewNodeLifecycleController).
func newCaches(f *client.SharedInformerFactory, nc *Controller) (controllerutil.Lister[*model.Node], controllerutil.Lister[*model.Lease], controllerutil.Lister[*model.Pod]) {
	nodes := f.For(model.KindNode)
	leases := f.For(model.KindLease)
	pods := f.For(model.KindPod)
	podHandlers := controllerutil.ChangeHandlers[*model.Pod]{Changed: nc.podUpdated, IgnoreDeletes: true}.Funcs()
	// A first list queues every pod bound to a node (podUpdated): the queue is sized for the
	// list rather than growing item by item (workqueue.Typed.Reserve).
	podHandlers.ListSizeFunc = func(n int) {
		if nc.podUpdateQueue != nil {
			nc.podUpdateQueue.Reserve(n)
		}
	}
	pods.AddEventHandler(podHandlers)
	nodes.AddEventHandler(client.EventHandlerFuncs{
		AddFunc: func(obj model.Object, _ bool) {
			if n, ok := client.ObjectAs[*model.Node](obj); ok && nc.running {
				nc.nodeUpdateQueue.Add(n.Name)
			}
		},
		UpdateFunc: func(_, newObj model.Object) {
			if n, ok := client.ObjectAs[*model.Node](newObj); ok && nc.running {
				nc.nodeUpdateQueue.Add(n.Name)
			}
		},
		DeleteFunc: func(obj any) {
			if o, ok := client.ObjectOf(obj); ok {
				delete(nc.nodesToRetry, o.Meta().Name)
			}
		},
	})
	return controllerutil.Lister[*model.Node]{Informer: nodes}, controllerutil.Lister[*model.Lease]{Informer: leases}, controllerutil.Lister[*model.Pod]{Informer: pods}
}

// waitForCacheSync parks p until the three informers have synced (upstream
// WaitForNamedCacheSync in Run).
func (nc *Controller) waitForCacheSync(p *sim.Proc) {
	nc.nodes.Informer.WaitForSync(p)
	nc.leases.Informer.WaitForSync(p)
	nc.pods.Informer.WaitForSync(p)
}

func (nc *Controller) getNode(p *sim.Proc, name string) (*model.Node, error) {
	return client.GetAs[*model.Node](p, nc.c, "", name)
}

func (nc *Controller) updateNodeStatus(p *sim.Proc, node *model.Node) (*model.Node, error) {
	return client.UpdateStatusAs(p, nc.c, node)
}

// updatePodStatus hands pod over (UpdateStatusShared): its caller's pod is a shallow copy of
// the cached one with a condition list of its own, which it only reads afterwards, and the
// answer, the stored pod, is only read too (docs/architecture.md, "Object ownership").
func (nc *Controller) updatePodStatus(p *sim.Proc, pod *model.Pod) (*model.Pod, error) {
	return client.UpdateStatusSharedAs(p, nc.c, pod)
}

func isNotFound(err error) bool { return apierrors.IsNotFound(err) }

// swapNodeControllerTaint is upstream SwapNodeControllerTaint: stamp the taints to add with
// TimeAdded = now, add them, then remove the others (two writes when both are needed, as
// upstream). It reports success.
func (nc *Controller) swapNodeControllerTaint(p *sim.Proc, toAdd, toRemove []model.Taint, node *model.Node) bool {
	now := nc.k.Now()
	stamped := make([]model.Taint, len(toAdd))
	for i, t := range toAdd {
		t.TimeAdded = model.Ptr(now)
		stamped[i] = t
	}
	if err := nc.addOrUpdateTaintOnNode(p, node.Name, stamped); err != nil {
		nc.k.Emit(traceComponent, "taint-add-failed", "Node "+node.Name, 0, err.Error())
		return false
	}
	if err := nc.removeTaintOffNode(p, node.Name, node, toRemove...); err != nil {
		nc.k.Emit(traceComponent, "taint-remove-failed", "Node "+node.Name, 0, err.Error())
		return false
	}
	return true
}

// addOrUpdateTaintOnNode is upstream controller.AddOrUpdateTaintOnNode: read the node, add or
// update the taints, write if anything changed, and start over on a conflict (RetryOnConflict
// with UpdateTaintBackoff). Upstream's first read is served by the API server's watch cache
// (resourceVersion "0"); here every read goes to the server.
func (nc *Controller) addOrUpdateTaintOnNode(p *sim.Proc, nodeName string, taints []model.Taint) error {
	if len(taints) == 0 {
		return nil
	}
	return nc.editNodeTaints(p, nodeName, "taint-add", taints, func(ts []model.Taint, t *model.Taint) ([]model.Taint, bool) {
		return addOrUpdateTaint(ts, *t)
	})
}

// removeTaintOffNode is upstream controller.RemoveTaintOffNode: nothing to do (and no API call)
// when node, as the caller knows it, carries none of the taints; otherwise read, remove, write,
// retrying on conflict.
func (nc *Controller) removeTaintOffNode(p *sim.Proc, nodeName string, node *model.Node, taints ...model.Taint) error {
	if len(taints) == 0 {
		return nil
	}
	if node != nil {
		match := false
		for i := range taints {
			if taintExists(node.Spec.Taints, &taints[i]) {
				match = true
				break
			}
		}
		if !match {
			return nil
		}
	}
	return nc.editNodeTaints(p, nodeName, "taint-remove", taints, deleteTaint)
}

// editNodeTaints is the read-modify-write step that addOrUpdateTaintOnNode and
// removeTaintOffNode share (upstream writes it in both): read the node, apply edit for each of
// taints in turn, and write the result with patchNodeTaints (traced as action) if any edit
// changed it; a conflict starts the step over (RetryOnConflict with UpdateTaintBackoff).
func (nc *Controller) editNodeTaints(p *sim.Proc, nodeName, action string, taints []model.Taint, edit func([]model.Taint, *model.Taint) ([]model.Taint, bool)) error {
	return nc.retryOnConflict(p, func() error {
		old, err := nc.getNode(p, nodeName)
		if err != nil {
			return err
		}
		newTaints, updated := old.Spec.Taints, false
		for i := range taints {
			var ok bool
			newTaints, ok = edit(newTaints, &taints[i])
			updated = updated || ok
		}
		if !updated {
			return nil
		}
		return nc.patchNodeTaints(p, old, newTaints, action, taints)
	})
}

// patchNodeTaints is upstream PatchNodeTaints: a write of spec.taints that carries the read
// resourceVersion, so a node changed in between gives a Conflict.
func (nc *Controller) patchNodeTaints(p *sim.Proc, old *model.Node, taints []model.Taint, action string, changed []model.Taint) error {
	n := old.DeepCopy()
	n.Spec.Taints = taints
	updated, err := client.UpdateAs(p, nc.c, n)
	if err != nil {
		return err
	}
	for _, t := range changed {
		if action == "taint-add" || taintExists(old.Spec.Taints, &t) {
			nc.k.Emit(traceComponent, action, "Node "+old.Name, updated.ResourceVersion, t.Key+":"+string(t.Effect))
		}
	}
	return nil
}

// retryOnConflict is client-go retry.RetryOnConflict with UpdateTaintBackoff: up to 5 attempts;
// after a Conflict it sleeps Duration plus up to Jitter×Duration (drawn from the controller's
// random stream) and tries again. Other errors end it at once; the last error is returned.
func (nc *Controller) retryOnConflict(p *sim.Proc, fn func() error) error {
	var err error
	for step := 0; step < updateTaintBackoff.steps; step++ {
		err = fn()
		if err == nil || !apierrors.IsConflict(err) {
			return err
		}
		if step == updateTaintBackoff.steps-1 {
			break
		}
		d := updateTaintBackoff.duration
		p.Sleep(d + time.Duration(nc.rnd.Float64()*updateTaintBackoff.jitter*float64(d)))
	}
	return err
}
