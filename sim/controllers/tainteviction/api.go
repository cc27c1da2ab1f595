package tainteviction

import (
	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
)

// The controller's view of the API: informer caches to read, the client to write. Objects
// from the caches are shared and treated as read-only.

type podCache struct{ inf *client.Informer }

func (c podCache) get(namespace, name string) (*model.Pod, bool) {
	obj, ok := c.inf.Get(namespace, name)
	if !ok {
		return nil, false
	}
	p, ok := client.ObjectAs[*model.Pod](obj)
	return p, ok
}

// getByKey is get for a key built with model.KeyOf.
func (c podCache) getByKey(key string) (*model.Pod, bool) {
	obj, ok := c.inf.GetByKey(key)
	if !ok {
		return nil, false
	}
	p, ok := client.ObjectAs[*model.Pod](obj)
	return p, ok
}

// onNode is upstream getPodsAssignedToNode (the spec.nodeName index), sorted by key.
func (c podCache) onNode(nodeName string) []*model.Pod {
	objs := c.inf.ByIndex(client.IndexNodeName, nodeName)
	out := make([]*model.Pod, 0, len(objs))
	for _, obj := range objs {
		if p, ok := client.ObjectAs[*model.Pod](obj); ok {
			out = append(out, p)
		}
	}
	return out
}

func (c podCache) list() []*model.Pod {
	objs := c.inf.List(nil)
	out := make([]*model.Pod, 0, len(objs))
	for _, obj := range objs {
		if p, ok := client.ObjectAs[*model.Pod](obj); ok {
			out = append(out, p)
		}
	}
	return out
}

type nodeCache struct{ inf *client.Informer }

func (c nodeCache) get(name string) (*model.Node, bool) {
	obj, ok := c.inf.Get("", name)
	if !ok {
		return nil, false
	}
	n, ok := client.ObjectAs[*model.Node](obj)
	return n, ok
}

func (c nodeCache) list() []*model.Node {
	objs := c.inf.List(nil)
	out := make([]*model.Node, 0, len(objs))
	for _, obj := range objs {
		if n, ok := client.ObjectAs[*model.Node](obj); ok {
			out = append(out, n)
		}
	}
	return out
}

// newCaches takes the Pod and Node informers from f and registers the controller's handlers
// (upstream tainteviction.New).
func newCaches(f *client.SharedInformerFactory, tc *Controller) (podCache, nodeCache) {
	pods := f.For(model.KindPod)
	nodes := f.For(model.KindNode)
	pods.AddEventHandler(client.EventHandlerFuncs{
		AddFunc: func(obj model.Object, _ bool) {
			if p, ok := client.ObjectAs[*model.Pod](obj); ok {
				tc.podUpdated(nil, p)
			}
		},
		UpdateFunc: func(oldObj, newObj model.Object) {
			o, ok1 := client.ObjectAs[*model.Pod](oldObj)
			n, ok2 := client.ObjectAs[*model.Pod](newObj)
			if ok1 && ok2 {
				tc.podUpdated(o, n)
			}
		},
		DeleteFunc: func(obj any) {
			if o, ok := client.ObjectOf(obj); ok {
				if p, ok := client.ObjectAs[*model.Pod](o); ok {
					tc.podUpdated(p, nil)
				}
			}
		},
	})
	nodes.AddEventHandler(client.EventHandlerFuncs{
		AddFunc: func(obj model.Object, _ bool) {
			if n, ok := client.ObjectAs[*model.Node](obj); ok {
				tc.nodeUpdated(nil, n)
			}
		},
		UpdateFunc: func(oldObj, newObj model.Object) {
			o, ok1 := client.ObjectAs[*model.Node](oldObj)
			n, ok2 := client.ObjectAs[*model.Node](newObj)
			if ok1 && ok2 {
				tc.nodeUpdated(o, n)
			}
		},
		DeleteFunc: func(obj any) {
			if o, ok := client.ObjectOf(obj); ok {
				if n, ok := client.ObjectAs[*model.Node](o); ok {
					tc.nodeUpdated(n, nil)
				}
			}
		},
	})
	return podCache{pods}, nodeCache{nodes}
}

// waitForCacheSync parks p until both informers have synced (upstream WaitForNamedCacheSync).
func (tc *Controller) waitForCacheSync(p *sim.Proc) {
	tc.pods.inf.WaitForSync(p)
	tc.nodes.inf.WaitForSync(p)
}

func (tc *Controller) getPod(p *sim.Proc, namespace, name string) (*model.Pod, error) {
	return client.GetAs[*model.Pod](p, tc.c, namespace, name)
}

// patchPodStatus writes the pod's new status. Upstream sends a strategic merge patch
// (utilpod.PatchPodStatus); here the status update carries the resourceVersion that was read,
// so a pod changed in between gives a Conflict, which the caller's retry loop absorbs.
func (tc *Controller) patchPodStatus(p *sim.Proc, _ *model.Pod, updated *model.Pod) error {
	_, err := client.UpdateStatusAs(p, tc.c, updated)
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
