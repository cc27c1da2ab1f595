package cluster

import (
	"fmt"
	"sort"
	"strings"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/drain"
)

// verdicts explains, for each workload that is not converged when the run ends, how many
// replicas it is short and why, from the state of the world: the scheduler's latest
// FailedScheduling message, a crash loop, pods stuck on nodes that are down, a failing
// readiness probe, a create failure.
func (w *world) verdicts() []report.Verdict {
	var out []report.Verdict
	store := w.srv.Store()
	for _, ref := range w.conv.unsatisfiedWorkloads() {
		kind, key, _ := strings.Cut(ref, " ")
		ns, name, _ := strings.Cut(key, "/")
		obj, err := store.Get(model.Kind(kind), ns, name)
		if err != nil {
			continue
		}
		v := report.Verdict{Workload: ref, Kind: kind, Namespace: ns, Name: name}
		switch o := obj.(type) {
		case *model.Deployment:
			v.Desired, v.Ready = ptrOr(o.Spec.Replicas, 1), o.Status.AvailableReplicas
			v.Reason = deploymentReason(o)
			if h := w.autoscalerOf(model.KindDeployment, ns, name); h != nil {
				v.Reason = fmt.Sprintf("HorizontalPodAutoscaler %s/%s wants %d replicas (max %d) but only %d are available; %s",
					h.Namespace, h.Name, h.Status.DesiredReplicas, h.Spec.MaxReplicas, o.Status.AvailableReplicas, v.Reason)
			}
		}
		v.Short = v.Desired - v.Ready
		out = append(out, v)
	}
	for _, key := range w.conv.unsatisfied() {
		t := w.conv.rs[key]
		obj, err := store.Get(t.kind, t.namespace, t.name)
		if err != nil {
			continue
		}
		pods, _, _ := store.List(model.KindPod, apiserver.ListOptions{Namespace: t.namespace})
		var owned []*model.Pod
		for _, o := range pods {
			p := o.(*model.Pod)
			if ref := model.ControllerOf(p); ref != nil && ref.UID == t.uid {
				owned = append(owned, p)
			}
		}
		v := report.Verdict{
			Workload: key, Kind: string(t.kind), Namespace: t.namespace, Name: t.name,
			Desired: t.desired, Ready: t.good,
		}
		v.Short = v.Desired - v.Ready
		v.Reason = w.whyShort(obj, owned)
		if t.kind == model.KindStatefulSet && w.sts != nil {
			if _, why, ok := w.sts.WaitingFor(model.KeyOf(t.namespace, t.name)); ok {
				v.Reason = why
			}
		}
		out = append(out, v)
	}
	return out
}

// drainVerdicts names every drain that had not finished when the run ended, with the pod it
// is waiting for and the last refusal (a PodDisruptionBudget that never allows the eviction).
func (w *world) drainVerdicts() []report.Verdict {
	var out []report.Verdict
	for _, d := range w.drains {
		st := d.Status()
		if st.Phase == drain.PhaseDone {
			continue
		}
		v := report.Verdict{Workload: "Node " + st.Node + " (drain)", Kind: string(model.KindNode), Name: st.Node}
		left := 0
		reason := fmt.Sprintf("drain %s", st.Phase)
		if st.Err != "" {
			reason += ": " + st.Err
		}
		for _, p := range st.Pods {
			if p.State == drain.PodGone {
				continue
			}
			left++
			if p.LastRefusal != "" && left == 1 {
				reason += fmt.Sprintf("; pod %s/%s refused %d time(s): %s", p.Namespace, p.Name, p.Refusals, p.LastRefusal)
			}
		}
		v.Desired, v.Short = int32(len(st.Pods)), int32(left)
		v.Ready = v.Desired - v.Short
		v.Reason = fmt.Sprintf("%d of %d pods still to evict; %s", left, len(st.Pods), reason)
		out = append(out, v)
	}
	return out
}

func (w *world) whyShort(owner model.Object, pods []*model.Pod) string {
	var reasons []string
	var unscheduled, notReady []string
	downNodes := map[string]bool{}
	var crashLoop string
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			continue
		}
		switch {
		case p.Spec.NodeName == "":
			unscheduled = append(unscheduled, model.Key(p))
		case !w.conv.nodeUp[p.Spec.NodeName]:
			downNodes[p.Spec.NodeName] = true
		default:
			for _, cs := range p.Status.ContainerStatuses {
				if cs.State.Waiting != nil && cs.State.Waiting.Reason == "CrashLoopBackOff" && crashLoop == "" {
					crashLoop = fmt.Sprintf("pod %s: container %s is in CrashLoopBackOff (%d restarts)", model.Key(p), cs.Name, cs.RestartCount)
				}
			}
			if !podReady(p) {
				notReady = append(notReady, model.Key(p))
			}
		}
	}
	if len(unscheduled) > 0 {
		msg := fmt.Sprintf("%d pod(s) cannot be scheduled", len(unscheduled))
		if m, ok := w.sched.LastFailure(unscheduled[0]); ok {
			msg += ": " + strings.TrimSpace(m)
		}
		reasons = append(reasons, msg)
	}
	if crashLoop != "" {
		reasons = append(reasons, crashLoop)
	}
	if len(downNodes) > 0 {
		names := make([]string, 0, len(downNodes))
		for n := range downNodes { //detlint:ordered the names are sorted below
			names = append(names, n)
		}
		sort.Strings(names)
		reasons = append(reasons, fmt.Sprintf("pods on node(s) that are down (%s) are not replaced yet", strings.Join(names, ", ")))
	}
	if len(notReady) > 0 && crashLoop == "" {
		reasons = append(reasons, fmt.Sprintf("%d pod(s) running but not Ready (e.g. %s)", len(notReady), notReady[0]))
	}
	if rs, ok := owner.(*model.ReplicaSet); ok {
		for _, c := range rs.Status.Conditions {
			if c.Type == "ReplicaFailure" && c.Status == model.ConditionTrue {
				reasons = append(reasons, fmt.Sprintf("ReplicaFailure %s: %s", c.Reason, c.Message))
			}
		}
		if len(reasons) == 0 {
			return fmt.Sprintf("the ReplicaSet status has not caught up (observedGeneration %d of %d, ready %d)", rs.Status.ObservedGeneration, rs.Generation, rs.Status.ReadyReplicas)
		}
	}
	if len(reasons) == 0 {
		return fmt.Sprintf("fewer serving pods than desired and no pod says why: the %s controller has not caught up", strings.ToLower(string(owner.GetKind())))
	}
	return strings.Join(reasons, "; ")
}

// autoscalerOf returns the HorizontalPodAutoscaler that scales kind namespace/name, if any.
func (w *world) autoscalerOf(kind model.Kind, namespace, name string) *model.HorizontalPodAutoscaler {
	hpas, _, _ := w.srv.Store().List(model.KindHorizontalPodAutoscaler, apiserver.ListOptions{Namespace: namespace})
	for _, o := range hpas {
		h := o.(*model.HorizontalPodAutoscaler)
		if h.Spec.ScaleTargetRef.Kind == string(kind) && h.Spec.ScaleTargetRef.Name == name {
			return h
		}
	}
	return nil
}

// deploymentReason explains an incomplete rollout from the Deployment's own status, as
// `kubectl rollout status` would: the Progressing condition when the deadline passed, else the
// counts.
func deploymentReason(d *model.Deployment) string {
	for _, c := range d.Status.Conditions {
		if c.Type == model.DeploymentProgressing && c.Reason == "ProgressDeadlineExceeded" {
			return fmt.Sprintf("rollout stuck: ProgressDeadlineExceeded: %s", c.Message)
		}
	}
	if d.Spec.Paused {
		return "the Deployment is paused"
	}
	return fmt.Sprintf("rollout not complete: %d of %d updated, %d available", d.Status.UpdatedReplicas, ptrOr(d.Spec.Replicas, 1), d.Status.AvailableReplicas)
}

func ptrOr(p *int32, def int32) int32 {
	if p == nil {
		return def
	}
	return *p
}

func podReady(p *model.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == model.PodReady {
			return c.Status == model.ConditionTrue
		}
	}
	return false
}
