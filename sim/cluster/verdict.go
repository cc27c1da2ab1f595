package cluster

import (
	"fmt"
	"sort"
	"strings"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/sim/apiserver"
)

// verdicts explains, for each workload that is not converged when the run ends, how many
// replicas it is short and why, from the state of the world: the scheduler's latest
// FailedScheduling message, a crash loop, pods stuck on nodes that are down, a failing
// readiness probe, a create failure.
func (w *world) verdicts() []report.Verdict {
	var out []report.Verdict
	store := w.srv.Store()
	for _, key := range w.conv.unsatisfiedDeployments() {
		ns, name, _ := strings.Cut(key, "/")
		obj, err := store.Get(model.KindDeployment, ns, name)
		if err != nil {
			continue
		}
		d := obj.(*model.Deployment)
		want := int32(1)
		if d.Spec.Replicas != nil {
			want = *d.Spec.Replicas
		}
		v := report.Verdict{Workload: model.Ref(d), Kind: string(model.KindDeployment), Namespace: ns, Name: name,
			Desired: want, Ready: d.Status.AvailableReplicas, Short: want - d.Status.AvailableReplicas}
		v.Reason = deploymentReason(d)
		out = append(out, v)
	}
	for _, key := range w.conv.unsatisfied() {
		t := w.conv.rs[key]
		obj, err := store.Get(model.KindReplicaSet, t.namespace, t.name)
		if err != nil {
			continue
		}
		rs := obj.(*model.ReplicaSet)
		pods, _, _ := store.List(model.KindPod, apiserver.ListOptions{Namespace: rs.Namespace})
		var owned []*model.Pod
		for _, o := range pods {
			p := o.(*model.Pod)
			if ref := model.ControllerOf(p); ref != nil && ref.UID == rs.UID {
				owned = append(owned, p)
			}
		}
		v := report.Verdict{
			Workload: model.Ref(rs), Kind: string(model.KindReplicaSet), Namespace: rs.Namespace, Name: rs.Name,
			Desired: t.desired, Ready: t.good,
		}
		v.Short = v.Desired - v.Ready
		v.Reason = w.whyShort(rs, owned)
		out = append(out, v)
	}
	return out
}

func (w *world) whyShort(rs *model.ReplicaSet, pods []*model.Pod) string {
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
	for _, c := range rs.Status.Conditions {
		if c.Type == "ReplicaFailure" && c.Status == model.ConditionTrue {
			reasons = append(reasons, fmt.Sprintf("ReplicaFailure %s: %s", c.Reason, c.Message))
		}
	}
	if len(reasons) == 0 {
		return fmt.Sprintf("the ReplicaSet status has not caught up (observedGeneration %d of %d, ready %d)", rs.Status.ObservedGeneration, rs.Generation, rs.Status.ReadyReplicas)
	}
	return strings.Join(reasons, "; ")
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
