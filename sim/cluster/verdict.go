package cluster

import (
	"fmt"
	"sort"
	"strings"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/scenarios"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/controllers/scheduler"
	"github.com/reconsim/reconsim/sim/drain"
)

// verdicts explains everything the run created that is not converged when the run ends: each
// workload that is short, how many replicas and why, from the state of the world (the
// scheduler's latest FailedScheduling message, a crash loop, pods stuck on nodes that are down,
// a failing readiness probe, a create failure); each incomplete rollout; and each Pending pod
// no workload accounts for (a bare pod, a pod naming a scheduler that does not run). Each
// verdict has a reason (scenarios.VerdictReasons) and a message. A world that is not converged
// always has at least one verdict.
func (w *world) verdicts() []report.Verdict {
	var out []report.Verdict
	store := w.srv.Store()
	// Pod owners first: a Deployment's verdict takes its reason from its ReplicaSet's.
	byOwner := map[string]string{} // "namespace/name" of a ReplicaSet -> its verdict reason
	podsOf := w.podsByController()
	for _, key := range w.conv.unsatisfied() {
		t := w.conv.rs[key]
		obj, err := store.Get(t.kind, t.namespace, t.name)
		if err != nil {
			continue
		}
		owned := podsOf[t.uid]
		v := report.Verdict{
			Workload: key, Kind: string(t.kind), Namespace: t.namespace, Name: t.name,
			Desired: t.desired, Ready: t.good,
		}
		v.Short = v.Desired - v.Ready
		v.Reason, v.Message = w.whyShort(obj, owned)
		if t.kind == model.KindStatefulSet && w.sts != nil {
			if _, why, ok := w.sts.WaitingFor(model.KeyOf(t.namespace, t.name)); ok {
				v.Reason, v.Message = scenarios.VerdictWaitingForPod, why
			}
		}
		if t.kind == model.KindReplicaSet {
			if c := model.ControllerOf(obj); c != nil && c.Kind == model.KindDeployment {
				byOwner[model.KeyOf(t.namespace, c.Name)] = v.Reason
			}
		}
		out = append(out, v)
	}
	var workloads []report.Verdict
	for _, ref := range w.conv.unsatisfiedWorkloads() {
		kind, key, _ := strings.Cut(ref, " ")
		ns, name, _ := strings.Cut(key, "/")
		obj, err := store.Get(model.Kind(kind), ns, name)
		if err != nil {
			continue
		}
		v := report.Verdict{Workload: ref, Kind: kind, Namespace: ns, Name: name, Reason: scenarios.VerdictRolloutIncomplete}
		switch o := obj.(type) {
		case *model.Job:
			v.Desired, v.Ready = ptrOr(o.Spec.Completions, 1), o.Status.Succeeded
			v.Reason, v.Message = scenarios.VerdictInProgress, jobRunningReason(o)
			// What keeps its active pods from finishing, when the pods say (unschedulable,
			// on a node that is down, crash looping): that is the reason then.
			var owned []*model.Pod
			for _, p := range podsOf[o.UID] {
				if p.Status.Phase != model.PodSucceeded && p.Status.Phase != model.PodFailed {
					owned = append(owned, p)
				}
			}
			if code, why := w.whyShort(o, owned); code != scenarios.VerdictInProgress && code != scenarios.VerdictNotReady && code != "" {
				v.Reason, v.Message = code, v.Message+"; "+why
			}
		case *model.Deployment:
			v.Desired, v.Ready = ptrOr(o.Spec.Replicas, 1), o.Status.AvailableReplicas
			v.Reason, v.Message = deploymentReason(o)
			if r, ok := byOwner[key]; ok && v.Reason == scenarios.VerdictRolloutIncomplete {
				v.Reason = r
			}
			if h := w.autoscalerOf(model.KindDeployment, ns, name); h != nil {
				v.Message = fmt.Sprintf("HorizontalPodAutoscaler %s/%s wants %d replicas (max %d) but only %d are available; %s",
					h.Namespace, h.Name, h.Status.DesiredReplicas, h.Spec.MaxReplicas, o.Status.AvailableReplicas, v.Message)
			}
		case *model.StatefulSet:
			v.Desired, v.Ready = ptrOr(o.Spec.Replicas, 1), o.Status.AvailableReplicas
			v.Message = fmt.Sprintf("rollout not complete: %d of %d updated, %d available", o.Status.UpdatedReplicas, v.Desired, o.Status.AvailableReplicas)
		case *model.DaemonSet:
			v.Desired, v.Ready = o.Status.DesiredNumberScheduled, o.Status.NumberAvailable
			v.Message = fmt.Sprintf("rollout not complete: %d of %d updated, %d available", o.Status.UpdatedNumberScheduled, v.Desired, o.Status.NumberAvailable)
		}
		v.Short = v.Desired - v.Ready
		workloads = append(workloads, v)
	}
	// Deployments first, then their ReplicaSets, as before.
	out = append(workloads, out...)
	out = append(out, w.pendingPodVerdicts()...)
	if len(out) == 0 && !w.conv.converged() {
		out = append(out, report.Verdict{Workload: "cluster", Reason: scenarios.VerdictInProgress,
			Message: fmt.Sprintf("not converged: %d workload(s) unsettled, %d pod(s) Pending, and no object says why", w.conv.unsettled, w.conv.pending)})
	}
	return out
}

// podsByController indexes the stored pods by their controller's UID, in the store's order, so
// that the verdicts of many short workloads cost one pass over the pods, not one each.
func (w *world) podsByController() map[string][]*model.Pod {
	out := map[string][]*model.Pod{}
	pods, _, _ := w.srv.Store().List(model.KindPod, model.ListOptions{})
	for _, o := range pods {
		p := o.(*model.Pod)
		if ref := model.ControllerOf(p); ref != nil {
			out[ref.UID] = append(out[ref.UID], p)
		}
	}
	return out
}

// maxNamesInVerdict bounds the names one verdict message lists (the nodes that are down): a
// zone outage at scale would otherwise print thousands of names per workload.
const maxNamesInVerdict = 10

// listNames joins sorted names, the first maxNamesInVerdict of them and a count of the rest.
func listNames(names []string) string {
	if len(names) <= maxNamesInVerdict {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:maxNamesInVerdict], ", "), len(names)-maxNamesInVerdict)
}

// maxPodVerdicts bounds the Pending pods named one verdict each; past it, the rest are counted
// in one verdict per reason.
const maxPodVerdicts = 100

// pendingPodVerdicts names each Pending pod that no workload the convergence tracks owns (a
// bare pod, a Job's pod): their owners' verdicts cover the others. Past maxPodVerdicts pods,
// the others are summed up per reason.
func (w *world) pendingPodVerdicts() []report.Verdict {
	var out []report.Verdict
	var rest []report.Verdict
	for _, key := range w.conv.pendingPods() {
		ns, name, _ := strings.Cut(key, "/")
		obj, err := w.srv.Store().Get(model.KindPod, ns, name)
		if err != nil {
			continue
		}
		p := obj.(*model.Pod)
		v := report.Verdict{Workload: "Pod " + key, Kind: string(model.KindPod), Namespace: ns, Name: name, Desired: 1, Short: 1}
		switch sn := p.Spec.SchedulerName; {
		case sn != "" && sn != scheduler.DefaultSchedulerName:
			v.Reason = scenarios.VerdictNoScheduler
			v.Message = fmt.Sprintf("the pod names schedulerName %q and only %q runs in the simulation: nothing schedules it", sn, scheduler.DefaultSchedulerName)
		case p.Spec.NodeName == "":
			v.Reason, v.Message = scenarios.VerdictPending, "the pod is not scheduled yet and the scheduler has not said why"
			if m, ok := w.sched.LastFailure(key); ok {
				v.Reason, v.Message = scenarios.VerdictUnschedulable, strings.TrimSpace(m)
			}
		default:
			v.Reason = scenarios.VerdictPending
			v.Message = fmt.Sprintf("the pod is bound to node %s and its containers have not started", p.Spec.NodeName)
		}
		if len(out) < maxPodVerdicts {
			out = append(out, v)
		} else {
			rest = append(rest, v)
		}
	}
	// The rest, one verdict per reason, in the order the reasons first appear.
	var reasons []string
	count := map[string]int32{}
	first := map[string]report.Verdict{}
	for _, v := range rest {
		if count[v.Reason] == 0 {
			reasons = append(reasons, v.Reason)
			first[v.Reason] = v
		}
		count[v.Reason]++
	}
	for _, r := range reasons {
		f := first[r]
		out = append(out, report.Verdict{Workload: fmt.Sprintf("Pods (%d more)", count[r]), Kind: string(model.KindPod),
			Desired: count[r], Short: count[r], Reason: r,
			Message: fmt.Sprintf("%d more Pending pods no workload owns with this reason, the first %s: %s", count[r], f.Workload, f.Message)})
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
		refused := false
		reason := fmt.Sprintf("drain %s", st.Phase)
		if st.Err != "" {
			reason += ": " + st.Err
		}
		for _, p := range st.Pods {
			if p.State == drain.PodGone {
				continue
			}
			left++
			refused = refused || p.Refusals > 0
			if p.LastRefusal != "" && left == 1 {
				reason += fmt.Sprintf("; pod %s/%s refused %d time(s): %s", p.Namespace, p.Name, p.Refusals, p.LastRefusal)
			}
		}
		v.Desired, v.Short = int32(len(st.Pods)), int32(left)
		v.Ready = v.Desired - v.Short
		v.Reason = scenarios.VerdictDrainIncomplete
		if refused {
			v.Reason = scenarios.VerdictDrainBlocked
		}
		v.Message = fmt.Sprintf("%d of %d pods still to evict; %s", left, len(st.Pods), reason)
		out = append(out, v)
	}
	return out
}

// whyShort says why owner's pods fall short: the reason of the first problem found (pods
// that cannot be scheduled, a crash loop, pods on nodes that are down, pods not Ready, a create
// failure) and a message naming every problem.
func (w *world) whyShort(owner model.Object, pods []*model.Pod) (string, string) {
	var reasons []string
	code := ""
	note := func(c, msg string) {
		if code == "" {
			code = c
		}
		reasons = append(reasons, msg)
	}
	var unscheduled, notReady []string
	otherScheduler := map[string][]string{} // schedulerName -> its unscheduled pods
	var otherNames []string
	downNodes := map[string]bool{}
	var crashLoop, imagePull string
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			continue
		}
		switch sn := p.Spec.SchedulerName; {
		case p.Spec.NodeName == "" && sn != "" && sn != scheduler.DefaultSchedulerName:
			// The default scheduler ignores pods for another scheduler (eventhandlers.go
			// responsibleForPod): they stay Pending without a FailedScheduling event.
			if len(otherScheduler[sn]) == 0 {
				otherNames = append(otherNames, sn)
			}
			otherScheduler[sn] = append(otherScheduler[sn], model.Key(p))
		case p.Spec.NodeName == "":
			unscheduled = append(unscheduled, model.Key(p))
		case !w.conv.nodeUp[p.Spec.NodeName]:
			downNodes[p.Spec.NodeName] = true
		default:
			for i, statuses := range [][]model.ContainerStatus{p.Status.InitContainerStatuses, p.Status.ContainerStatuses} {
				what := "container"
				if i == 0 {
					what = "init container"
				}
				for _, cs := range statuses {
					if cs.State.Waiting == nil {
						continue
					}
					switch reason := cs.State.Waiting.Reason; {
					case reason == "CrashLoopBackOff" && crashLoop == "":
						crashLoop = fmt.Sprintf("pod %s: %s %s is in CrashLoopBackOff (%d restarts)", model.Key(p), what, cs.Name, cs.RestartCount)
					case (reason == "ImagePullBackOff" || reason == "ErrImagePull") && imagePull == "":
						imagePull = fmt.Sprintf("pod %s: %s %s is in %s (image %s): %s", model.Key(p), what, cs.Name, reason, cs.Image, cs.State.Waiting.Message)
					}
				}
			}
			if !model.IsPodReady(p) {
				notReady = append(notReady, model.Key(p))
			}
		}
	}
	for _, sn := range otherNames {
		pods := otherScheduler[sn]
		note(scenarios.VerdictNoScheduler, fmt.Sprintf("%d pod(s) name schedulerName %q and only %q runs in the simulation: nothing schedules them (e.g. %s)",
			len(pods), sn, scheduler.DefaultSchedulerName, pods[0]))
	}
	if len(unscheduled) > 0 {
		msg := fmt.Sprintf("%d pod(s) cannot be scheduled", len(unscheduled))
		c := scenarios.VerdictPending
		if m, ok := w.sched.LastFailure(unscheduled[0]); ok {
			msg += ": " + strings.TrimSpace(m)
			c = scenarios.VerdictUnschedulable
		}
		note(c, msg)
	}
	if crashLoop != "" {
		note(scenarios.VerdictCrashLoopBackOff, crashLoop)
	}
	if imagePull != "" {
		note(scenarios.VerdictImagePullBackOff, imagePull)
	}
	if len(downNodes) > 0 {
		names := make([]string, 0, len(downNodes))
		for n := range downNodes { //detlint:ordered the names are sorted below
			names = append(names, n)
		}
		sort.Strings(names)
		note(scenarios.VerdictNodeDown, fmt.Sprintf("pods on node(s) that are down (%s) are not replaced yet", listNames(names)))
	}
	if len(notReady) > 0 && crashLoop == "" {
		note(scenarios.VerdictNotReady, fmt.Sprintf("%d pod(s) running but not Ready (e.g. %s)", len(notReady), notReady[0]))
	}
	if rs, ok := client.ObjectAs[*model.ReplicaSet](owner); ok {
		for _, c := range rs.Status.Conditions {
			if c.Type == "ReplicaFailure" && c.Status == model.ConditionTrue {
				note(scenarios.VerdictFailedCreate, fmt.Sprintf("ReplicaFailure %s: %s", c.Reason, c.Message))
			}
		}
		if len(reasons) == 0 {
			return scenarios.VerdictInProgress, fmt.Sprintf("the ReplicaSet status has not caught up (observedGeneration %d of %d, ready %d)", rs.Status.ObservedGeneration, rs.Generation, rs.Status.ReadyReplicas)
		}
	}
	if len(reasons) == 0 {
		return scenarios.VerdictInProgress, fmt.Sprintf("fewer serving pods than desired and no pod says why: the %s controller has not caught up", strings.ToLower(string(owner.GetKind())))
	}
	return code, strings.Join(reasons, "; ")
}

// autoscalerOf returns the HorizontalPodAutoscaler that scales kind namespace/name, if any.
func (w *world) autoscalerOf(kind model.Kind, namespace, name string) *model.HorizontalPodAutoscaler {
	hpas, _, _ := w.srv.Store().List(model.KindHorizontalPodAutoscaler, model.ListOptions{Namespace: namespace})
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
func deploymentReason(d *model.Deployment) (string, string) {
	for _, c := range d.Status.Conditions {
		if c.Type == model.DeploymentProgressing && c.Reason == "ProgressDeadlineExceeded" {
			return scenarios.VerdictProgressDeadlineExceeded, fmt.Sprintf("rollout stuck: ProgressDeadlineExceeded: %s", c.Message)
		}
	}
	if d.Spec.Paused {
		return scenarios.VerdictPaused, "the Deployment is paused"
	}
	return scenarios.VerdictRolloutIncomplete, fmt.Sprintf("rollout not complete: %d of %d updated, %d available", d.Status.UpdatedReplicas, ptrOr(d.Spec.Replicas, 1), d.Status.AvailableReplicas)
}

func ptrOr(p *int32, def int32) int32 {
	if p == nil {
		return def
	}
	return *p
}

// failedJob is a Job seen failing during the run (see noteJob).
type failedJob struct {
	ref, namespace, name string
	uid                  string
	verdict              report.Verdict
}

// noteJob records a Job the first time it is seen with Failed=True, with the verdict it
// earns then: a failed Job is settled, so the run can end, but it did not do its work. It is
// recorded when it fails because ttlSecondsAfterFinished (or a user) may delete it before the
// run ends.
func (w *world) noteJob(j *model.Job) {
	c, ok := model.JobFinishedCondition(j)
	if !ok || c.Type != model.JobFailed {
		return
	}
	for _, f := range w.failedJobs {
		if f.uid == j.UID {
			return
		}
	}
	v := report.Verdict{Workload: model.Ref(j), Kind: string(model.KindJob), Namespace: j.Namespace, Name: j.Name,
		Desired: ptrOr(j.Spec.Completions, 1), Ready: j.Status.Succeeded}
	v.Short = v.Desired - v.Ready
	// The reason is the Failed condition's (BackoffLimitExceeded, DeadlineExceeded, ...).
	v.Reason = c.Reason
	v.Message = fmt.Sprintf("Job failed: %s (%d pod(s) failed, %d succeeded", c.Message, j.Status.Failed, j.Status.Succeeded)
	if bl := j.Spec.BackoffLimit; bl != nil && c.Reason == model.JobReasonBackoffLimitExceeded {
		v.Message += fmt.Sprintf(", backoffLimit %d", *bl)
	}
	v.Message += fmt.Sprintf(", at %.3fs)", c.LastTransitionTime.Seconds())
	w.failedJobs = append(w.failedJobs, failedJob{ref: model.Ref(j), namespace: j.Namespace, name: j.Name, uid: j.UID, verdict: v})
}

// jobVerdicts names every Job that failed during the run, in the order they failed, with the
// reason and message of its Failed condition (BackoffLimitExceeded, DeadlineExceeded,
// PodFailurePolicy, ...), and says so when the Job was deleted afterwards.
func (w *world) jobVerdicts() []report.Verdict {
	out := make([]report.Verdict, 0, len(w.failedJobs))
	for _, f := range w.failedJobs {
		v := f.verdict
		if o, err := w.srv.Store().Get(model.KindJob, f.namespace, f.name); err != nil || o.Meta().UID != f.uid {
			v.Message += "; the Job was deleted afterwards"
		}
		out = append(out, v)
	}
	return out
}

// jobRunningReason explains a Job that has not finished when the run ends.
func jobRunningReason(j *model.Job) string {
	msg := fmt.Sprintf("Job not finished: %d active, %d succeeded, %d failed", j.Status.Active, j.Status.Succeeded, j.Status.Failed)
	if j.Spec.Completions != nil {
		msg += fmt.Sprintf(" of %d completions", *j.Spec.Completions)
	}
	for _, c := range j.Status.Conditions {
		if c.Status == model.ConditionTrue && (c.Type == model.JobFailureTarget || c.Type == model.JobSuccessCriteriaMet) {
			msg += fmt.Sprintf("; %s (%s) set, waiting for its pods to terminate", c.Type, c.Reason)
		}
	}
	return msg
}
