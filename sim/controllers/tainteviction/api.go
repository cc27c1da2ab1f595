package tainteviction

import (
	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
)

// The controller's view of the API: informer caches to read (controllerutil.Lister), the
// client to write. Objects from the caches are shared and treated as read-only.

// newCaches takes the Pod and Node informers from f and registers the controller's handlers
// (upstream tainteviction.New).
func newCaches(f *client.SharedInformerFactory, tc *Controller) (controllerutil.Lister[*model.Pod], controllerutil.Lister[*model.Node]) {
	pods := f.For(model.KindPod)
	nodes := f.For(model.KindNode)
	podHandlers := controllerutil.ChangeHandlers[*model.Pod]{Changed: tc.podUpdated}.Funcs()
	podHandlers.ListSizeFunc = tc.reservePodUpdates
	pods.AddEventHandler(podHandlers)
	nodes.AddEventHandler(controllerutil.ChangeHandlers[*model.Node]{Changed: tc.nodeUpdated}.Funcs())
	return controllerutil.Lister[*model.Pod]{Informer: pods}, controllerutil.Lister[*model.Node]{Informer: nodes}
}

// waitForCacheSync parks p until both informers have synced (upstream WaitForNamedCacheSync).
func (tc *Controller) waitForCacheSync(p *sim.Proc) {
	tc.pods.Informer.WaitForSync(p)
	tc.nodes.Informer.WaitForSync(p)
}

// getPod reads the pod from the API server (GetShared): the answer is the stored pod itself,
// which the controller only reads (docs/architecture.md, "Object ownership").
func (tc *Controller) getPod(p *sim.Proc, namespace, name string) (*model.Pod, error) {
	return client.GetSharedAs[*model.Pod](p, tc.c, namespace, name)
}

// patchPodStatus writes the pod's new status. Upstream sends a strategic merge patch
// (utilpod.PatchPodStatus); here the status update carries the resourceVersion that was read,
// so a pod changed in between gives a Conflict, which the caller's retry loop absorbs. updated
// is handed over (UpdateStatusShared): the caller builds it for the write and does not touch
// it afterwards.
func (tc *Controller) patchPodStatus(p *sim.Proc, _ *model.Pod, updated *model.Pod) error {
	_, err := client.UpdateStatusSharedAs(p, tc.c, updated)
	return err
}

// deletePod is a graceful DELETE with default options: the API server takes the grace period
// from the pod's terminationGracePeriodSeconds. It returns the pod's resourceVersion as read.
func (tc *Controller) deletePod(p *sim.Proc, pod *model.Pod) (uint64, error) {
	if err := tc.c.Delete(p, model.KindPod, pod.Namespace, pod.Name, model.DeleteOptions{}); err != nil {
		return 0, err
	}
	return pod.ResourceVersion, nil
}

// reservePodUpdates readies the shards' pod lists for a first list of n pods, which queues
// every pod (podUpdated), spread over the shards by node name (the lists are sized, not
// filled: see workqueue.UniqueFIFO.Reserve).
func (tc *Controller) reservePodUpdates(n int) {
	for _, s := range tc.shards {
		s.pods.Reserve(n/len(tc.shards) + 1)
	}
}
