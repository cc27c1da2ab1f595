package cluster

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/scenarios"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/node"
)

// patch sends one PATCH of the action's type, as `kubectl patch` does.
func (tl *timeline) patch(ctx *sim.Proc, a *scenarios.PatchArgs) error {
	body, err := a.JSON()
	if err != nil {
		return err
	}
	ref := a.Target
	_, err = tl.w.kubectl.PatchAs(ctx, ref.Kind, ref.Namespace, ref.Name, a.PatchType(), body)
	return err
}

// edit reads the object, sets the fields and writes it back, as `kubectl edit` does; a
// conflict (someone wrote in between) is retried with a fresh read.
func (tl *timeline) edit(ctx *sim.Proc, a *scenarios.EditArgs) error {
	c := tl.w.kubectl
	ref := a.Target
	for attempt := 0; attempt < 5; attempt++ {
		cur, err := c.Get(ctx, ref.Kind, ref.Namespace, ref.Name)
		if err != nil {
			return err
		}
		next, err := a.ApplyTo(cur)
		if err != nil {
			return fmt.Errorf("editing %s: %w", ref, err)
		}
		_, err = c.Update(ctx, next)
		if apierrors.IsConflict(err) {
			continue
		}
		return err
	}
	return fmt.Errorf("editing %s: conflicts on 5 attempts", ref)
}

// killContainer picks the pod (the named one, or a running pod of the workload, drawn from
// the timeline's stream) and has its kubelet end the container.
func (tl *timeline) killContainer(ctx *sim.Proc, a *scenarios.KillContainerArgs) error {
	w := tl.w
	ref := a.Target
	var pod *model.Pod
	if ref.Kind == model.KindPod {
		obj, err := w.kubectl.Get(ctx, model.KindPod, ref.Namespace, ref.Name)
		if err != nil {
			return err
		}
		pod = obj.(*model.Pod)
	} else {
		obj, err := w.kubectl.Get(ctx, ref.Kind, ref.Namespace, ref.Name)
		if err != nil {
			return err
		}
		sel := model.WorkloadSelector(obj)
		if sel == nil {
			return fmt.Errorf("%s has no selector", ref)
		}
		selector, err := metav1.LabelSelectorAsSelector(sel)
		if err != nil {
			return fmt.Errorf("%s: %w", ref, err)
		}
		pods, _, err := w.kubectl.List(ctx, model.KindPod, model.ListOptions{Namespace: ref.Namespace, LabelSelector: selector})
		if err != nil {
			return err
		}
		// A running pod on a node whose kubelet runs: a crashed or cut-off node's containers
		// cannot be reached.
		var running []*model.Pod
		for _, o := range pods {
			p := o.(*model.Pod)
			if p.Status.Phase != model.PodRunning || p.DeletionTimestamp != nil {
				continue
			}
			if kl := w.kubelet[p.Spec.NodeName]; kl != nil && kl.State() == node.StateRunning {
				running = append(running, p)
			}
		}
		if len(running) == 0 {
			return fmt.Errorf("%s has no running pod on a running node", ref)
		}
		pod = running[w.timelineRand().IntN(len(running))]
	}
	kl := w.kubelet[pod.Spec.NodeName]
	if kl == nil {
		return fmt.Errorf("pod %s is not on a node", model.Key(pod))
	}
	return kl.KillContainer(pod.Namespace, pod.Name, a.Container, a.Code(), a.OOMKilled)
}
