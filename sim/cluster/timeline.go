package cluster

import (
	"encoding/json"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/scenarios"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/controllers/deployment"
	"github.com/reconsim/reconsim/sim/drain"
	"github.com/reconsim/reconsim/vtime"
)

// timeline plays the scenario's timeline and keeps one convergence record per entry (plus one
// for the start). A record opens when its action is done (its API calls returned). From then
// on it follows the world: it notes the first time the world is converged, every time it
// diverges again (for a non-zero stretch of virtual time), and when it last became converged.
// It follows the world until a later entry runs while the world is converged: from then on,
// what happens is that entry's doing, and the record keeps the convergence it had. A record
// that is not converged when a later entry runs keeps following (an outage whose recovery
// action comes before it converged converges, or not, with everything that follows).
// A drain's record converges only once every drain it started completed: a drain a
// PodDisruptionBudget blocks leaves a world that looks converged but the action did not happen.
type timeline struct {
	w       *world
	entries []scenarios.TimelineEntry
	records []*actionRecord // records[0] is the start; records[i+1] is entries[i]

	// waitingConverged[i] lists the entries that run Delay after record i converges.
	waitingConverged map[int][]int
	// waitingAfter[i] lists the entries that run Delay after entry i ran.
	waitingAfter map[int][]int
	// waitingWrite[c][k] lists the entries that run Delay after component c's k-th write.
	waitingWrite map[string]map[int][]int
}

type actionRecord struct {
	action      string
	name        string
	actor       string     // the entry's as:
	at          vtime.Time // when the action started
	ran         bool
	done        bool       // its effect is in place; convergence is measured from now on
	failed      bool       // the action did not complete (a drain that failed): it never converges
	err         string     // why it failed
	convergedAt vtime.Time // the first convergence; valid when converged
	converged   bool       // converged at least once

	// Since the first convergence: whether the world is converged now (for this record), since
	// when, and how many times it diverged again.
	stable      bool
	stableSince vtime.Time
	frozen      bool // a later entry ran while it was converged: it no longer follows the world
	divergences int
	// divergedAt and prevSince undo a divergence that ends at the instant it began (a commit
	// sequence at one virtual time passing through an unconverged state): that is not one.
	divergedAt vtime.Time
	prevSince  vtime.Time
}

func newTimeline(w *world) *timeline {
	tl := &timeline{w: w, entries: w.scn.Timeline, waitingConverged: map[int][]int{}, waitingAfter: map[int][]int{}, waitingWrite: map[string]map[int][]int{}}
	tl.records = append(tl.records, &actionRecord{action: "start", name: "start", ran: true, done: true})
	for _, e := range tl.entries {
		tl.records = append(tl.records, &actionRecord{action: e.Action.Name(), name: e.Name, actor: e.As})
	}
	return tl
}

// schedule arms every entry whose time is known now and registers the others with what
// they wait for. Entries at a fixed time are holds: the run cannot be quiescent before them.
func (tl *timeline) schedule() {
	for i, e := range tl.entries {
		i := i
		switch {
		case e.At.After != "":
			j := tl.w.scn.EntryIndex(e.At.After)
			tl.waitingAfter[j] = append(tl.waitingAfter[j], i)
		case e.At.Converged:
			// After the previous entry (record i, since record 0 is the start).
			tl.waitingConverged[i] = append(tl.waitingConverged[i], i)
		case e.At.Write > 0:
			m := tl.waitingWrite[e.At.By]
			if m == nil {
				m = map[int][]int{}
				tl.waitingWrite[e.At.By] = m
			}
			m[e.At.Write] = append(m[e.At.Write], i)
		default:
			tl.w.k.After(e.At.Offset, func() { tl.run(i) })
		}
	}
}

// wrote runs the entries waiting for component's n-th acknowledged write. They run from a
// kernel event Delay later (at the same virtual time for no delay), not inside the write:
// the writer's process carries on until it next blocks, as a process crashing right after a
// write's answer arrived would have got no further than that.
func (tl *timeline) wrote(component string, n int) {
	for _, i := range tl.waitingWrite[component][n] {
		i := i
		tl.w.k.After(tl.entries[i].At.Delay, func() { tl.run(i) })
	}
}

// onChange closes open records when the world is converged and releases the entries waiting
// for that.
func (tl *timeline) onChange() {
	now := tl.w.k.Now()
	conv := tl.w.conv.converged()
	for ri, r := range tl.records {
		if !r.done {
			continue
		}
		if !r.frozen {
			r.follow(conv && !r.failed, now)
		}
		if !conv || r.failed || r.converged {
			continue
		}
		r.converged = true
		r.convergedAt = now
		tl.w.k.Emit("cluster", "converged", "after "+r.label(), 0, fmt.Sprintf("%.3fs", now.Sub(r.at).Seconds()))
		for _, i := range tl.waitingConverged[ri] {
			i := i
			tl.w.k.After(tl.entries[i].At.Delay, func() { tl.run(i) })
		}
	}
}

// follow moves the record's converged-since state to conv at time now, counting the times
// the world diverged again after its first convergence.
func (r *actionRecord) follow(conv bool, now vtime.Time) {
	switch {
	case conv && !r.stable:
		r.stable = true
		if r.converged && r.divergedAt == now {
			// Diverged and back at the same instant: not a divergence.
			r.divergences--
			r.stableSince = r.prevSince
			return
		}
		r.stableSince = now
	case !conv && r.stable:
		r.stable = false
		r.divergences++
		r.divergedAt, r.prevSince = now, r.stableSince
	}
}

func (r *actionRecord) label() string {
	if r.name != "" && r.name != r.action {
		return r.action + " (" + r.name + ")"
	}
	return r.action
}

// run performs entry i now.
func (tl *timeline) run(i int) {
	e := tl.entries[i]
	r := tl.records[i+1]
	w := tl.w
	r.ran = true
	r.at = w.k.Now()
	for _, other := range tl.records {
		if other.done && other.stable {
			other.frozen = true
		}
	}
	detail := describe(e.Action)
	if e.As != "" {
		detail = strings.TrimSpace("as=" + e.As + " " + detail)
	}
	w.k.Emit("timeline", e.Action.Name(), entryLabel(e), 0, detail)
	for _, j := range tl.waitingAfter[i] {
		j := j
		w.k.After(tl.entries[j].At.Delay, func() { tl.run(j) })
	}
	finish := func() {
		r.done = true
		w.obs.changed()
	}
	// finishWith is finish after an action that may fail: a failure is traced as the entry's
	// error first.
	finishWith := func(err error) {
		if err != nil {
			w.k.Emit("timeline", "error", entryLabel(e), 0, err.Error())
		}
		finish()
	}
	a := e.Action
	switch {
	case a.NodeCrash != nil:
		tl.forNodes(a.NodeCrash.Nodes, func(name string) { w.kubelet[name].Crash(); w.conv.setNodeUp(name, false) })
		finish()
	case a.ZoneOutage != nil:
		for _, n := range w.nodes {
			if n.Zone == a.ZoneOutage.Zone {
				w.kubelet[n.Name].Crash()
				w.conv.setNodeUp(n.Name, false)
			}
		}
		finish()
	case a.NodePartition != nil:
		tl.forNodes(a.NodePartition.Nodes, func(name string) {
			if err := w.kubelet[name].Partition(); err != nil {
				w.k.Emit("timeline", "error", "Node "+name, 0, err.Error())
			}
			w.conv.setNodeUp(name, false)
		})
		finish()
	case a.KubeletStall != nil:
		tl.forNodes(a.KubeletStall.Nodes, func(name string) { w.kubelet[name].Stall(a.KubeletStall.For) })
		finish()
	case a.ImagePullFailure != nil:
		tl.forNodes(a.ImagePullFailure.Nodes, func(name string) { w.kubelet[name].FailImagePulls(a.ImagePullFailure.For) })
		finish()
	case a.NodeRecover != nil:
		tl.forNodes(a.NodeRecover.Nodes, func(name string) { w.kubelet[name].Recover(); w.conv.setNodeUp(name, true) })
		finish()
	case a.NodeDelete != nil:
		names := tl.targets(a.NodeDelete.Nodes)
		for _, name := range names {
			w.kubelet[name].Crash()
			w.conv.setNodeUp(name, false)
		}
		tl.kubectl(e, r, finish, func(ctx *sim.Proc) error {
			for _, name := range names {
				if err := w.kubectl.Delete(ctx, model.KindNode, "", name, model.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
					return err
				}
			}
			return nil
		})
	case a.Cordon != nil, a.Uncordon != nil:
		target, unschedulable := a.Nodes(), a.Cordon != nil
		names := tl.targets(*target)
		patch := []byte(fmt.Sprintf(`{"spec":{"unschedulable":%t}}`, unschedulable))
		tl.kubectl(e, r, finish, func(ctx *sim.Proc) error {
			for _, name := range names {
				if _, err := w.kubectl.Patch(ctx, model.KindNode, "", name, patch); err != nil {
					return err
				}
			}
			return nil
		})
	case a.Scale != nil:
		ref := a.Scale.Target
		patch, _ := json.Marshal(map[string]any{"spec": map[string]any{"replicas": a.Scale.Replicas}})
		tl.kubectl(e, r, finish, func(ctx *sim.Proc) error {
			_, err := w.kubectl.Patch(ctx, ref.Kind, ref.Namespace, ref.Name, patch)
			return err
		})
	case a.Delete != nil && a.Delete.Commit:
		ref := a.Delete.Target
		finishWith(w.gitops.CommitDelete(ref.Kind, ref.Namespace, ref.Name))
	case a.Apply != nil && a.Apply.Commit:
		finishWith(w.gitops.Commit(a.Apply.Objects))
	case a.Delete != nil:
		ref := a.Delete.Target
		tl.kubectl(e, r, finish, func(ctx *sim.Proc) error {
			return w.kubectl.Delete(ctx, ref.Kind, ref.Namespace, ref.Name, model.DeleteOptions{})
		})
	case a.Apply != nil:
		objs := a.Apply.Objects
		tl.kubectl(e, r, finish, func(ctx *sim.Proc) error {
			for _, obj := range objs {
				if err := tl.apply(ctx, obj); err != nil {
					return err
				}
			}
			return nil
		})
	case a.Rollout != nil:
		ref := a.Rollout.Target
		tl.kubectl(e, r, finish, func(ctx *sim.Proc) error { return tl.rollout(ctx, ref, a.Rollout) })
	case a.Rollback != nil:
		ref := a.Rollback.Target
		tl.kubectl(e, r, finish, func(ctx *sim.Proc) error {
			msg, err := deployment.Rollback(ctx, w.kubectl, ref.Namespace, ref.Name, a.Rollback.ToRevision)
			w.k.Emit("timeline", "rollback", ref.String(), 0, msg)
			return err
		})
	case a.Pause != nil, a.Resume != nil:
		paused := a.Pause != nil
		var target scenarios.ObjectRef
		if paused {
			target = a.Pause.Target
		} else {
			target = a.Resume.Target
		}
		patch := []byte(fmt.Sprintf(`{"spec":{"paused":%t}}`, paused))
		tl.kubectl(e, r, finish, func(ctx *sim.Proc) error {
			_, err := w.kubectl.Patch(ctx, target.Kind, target.Namespace, target.Name, patch)
			return err
		})
	case a.Patch != nil:
		tl.kubectl(e, r, finish, func(ctx *sim.Proc) error { return tl.patch(ctx, a.Patch) })
	case a.Edit != nil:
		tl.kubectl(e, r, finish, func(ctx *sim.Proc) error { return tl.edit(ctx, a.Edit) })
	case a.KillContainer != nil:
		tl.kubectl(e, r, finish, func(ctx *sim.Proc) error { return tl.killContainer(ctx, a.KillContainer) })
	case a.Drain != nil:
		names := tl.targets(a.Drain.Nodes)
		opts := drainOptions(a.Drain)
		tl.kubectl(e, r, finish, func(ctx *sim.Proc) error {
			// kubectl drain takes its nodes one after the other.
			for _, name := range names {
				d, err := drain.New(w.kubectl, name, opts)
				if err != nil {
					return err
				}
				w.drains = append(w.drains, d)
				if err := d.Run(ctx); err != nil {
					return fmt.Errorf("draining %s: %w", name, err)
				}
			}
			return nil
		})
	case a.APILatency != nil:
		d := a.APILatency.Extra.Dist
		w.installFault(&apiFault{filter: a.APILatency.RequestFilter, latency: &d, rand: w.k.Rand("fault/" + entryLabel(e))}, a.APILatency.For)
		finish()
	case a.APIErrors != nil:
		w.installFault(&apiFault{filter: a.APIErrors.RequestFilter, errs: a.APIErrors, rand: w.k.Rand("fault/" + entryLabel(e))}, a.APIErrors.For)
		finish()
	case a.APILoad != nil:
		finishWith(w.startAPILoad(a.APILoad))
	case a.ControllerRestart != nil && w.electionOf(a.ControllerRestart.Component) != nil:
		// A replicated component restarts as a process: its leader shuts down gracefully.
		finishWith(w.leaderRelease(a.ControllerRestart.Component, a.ControllerRestart.Downtime))
	case a.LeaderCrash != nil:
		comp := electedComponent(a.LeaderCrash.Component)
		finishWith(w.leaderCrash(comp, w.downtime(comp, a.LeaderCrash.Downtime)))
	case a.LeaderPartition != nil:
		finishWith(w.leaderPartition(electedComponent(a.LeaderPartition.Component), a.LeaderPartition.For))
	case a.LeaderRelease != nil:
		comp := electedComponent(a.LeaderRelease.Component)
		finishWith(w.leaderRelease(comp, w.downtime(comp, a.LeaderRelease.Downtime)))
	case a.ControllerRestart != nil:
		finishWith(w.restart(a.ControllerRestart.Component, a.ControllerRestart.Downtime))
	case a.Load != nil:
		t := a.Load.Target
		finishWith(w.metrics.SetShape(string(t.Kind), t.Namespace, t.Name, a.Load.Shape))
	case a.WatchStall != nil:
		w.srv.Store().StallWatches(stallClients(a.WatchStall), w.k.Now().Add(a.WatchStall.For))
		finish()
	case a.WatchCoalesce != nil:
		c := a.WatchCoalesce
		w.srv.Store().CoalesceWatches(stallClients(&scenarios.WatchStallArgs{Component: c.Component, Clients: c.Clients}), w.k.Now().Add(c.For))
		finish()
	default:
		w.k.Emit("timeline", "error", entryLabel(e), 0, "action not supported by this simulator version")
		finish()
	}
}

// rollout changes the pod template of a Deployment or StatefulSet as the action says
// (kubectl set image / patch / rollout restart), retrying on conflict with a fresh read.
func (tl *timeline) rollout(ctx *sim.Proc, ref scenarios.ObjectRef, args *scenarios.RolloutArgs) error {
	c := tl.w.kubectl
	for attempt := 0; attempt < 5; attempt++ {
		obj, err := c.Get(ctx, ref.Kind, ref.Namespace, ref.Name)
		if err != nil {
			return err
		}
		var tmpl *model.PodTemplateSpec
		switch o := obj.(type) {
		case *model.Deployment:
			tmpl = &o.Spec.Template
		case *model.StatefulSet:
			tmpl = &o.Spec.Template
		case *model.DaemonSet:
			tmpl = &o.Spec.Template
		default:
			return fmt.Errorf("cannot roll out %s: not a Deployment, StatefulSet or DaemonSet", ref)
		}
		next, err := args.ApplyTo(*tmpl)
		if err != nil {
			return err
		}
		*tmpl = next
		_, err = c.Update(ctx, obj)
		if apierrors.IsConflict(err) {
			continue
		}
		return err
	}
	return fmt.Errorf("rolling out %s: conflicts on 5 attempts", ref)
}

// apply creates obj, or replaces the spec of the existing object of that name (kubectl apply
// of a changed manifest), retrying on conflict.
func (tl *timeline) apply(ctx *sim.Proc, obj model.Object) error {
	c := tl.w.kubectl
	m := obj.Meta()
	for attempt := 0; attempt < 5; attempt++ {
		cur, err := c.Get(ctx, obj.GetKind(), m.Namespace, m.Name)
		if apierrors.IsNotFound(err) {
			_, err = c.Create(ctx, obj)
			if apierrors.IsAlreadyExists(err) {
				continue
			}
			return err
		}
		if err != nil {
			return err
		}
		next := obj.DeepCopyObject()
		nm := next.Meta()
		cm := cur.Meta()
		nm.ResourceVersion, nm.UID, nm.CreationTimestamp = cm.ResourceVersion, cm.UID, cm.CreationTimestamp
		nm.OwnerReferences, nm.Finalizers = cm.OwnerReferences, cm.Finalizers
		_, err = c.Update(ctx, next)
		if apierrors.IsConflict(err) {
			continue
		}
		return err
	}
	return fmt.Errorf("applying %s: conflicts on 5 attempts", model.Ref(obj))
}

// kubectl runs the API part of an action as the scenario's hand, in its own process; the
// action is done when the calls returned. A failed call is traced and recorded as a Warning
// event on the run; the action's record is marked failed (it never converges, and the run
// ends with an ActionFailed verdict).
func (tl *timeline) kubectl(e scenarios.TimelineEntry, r *actionRecord, finish func(), body func(ctx *sim.Proc) error) {
	w := tl.w
	w.k.Spawn("kubectl/"+e.Action.Name(), func(p *sim.Proc) {
		if err := body(p); err != nil {
			// The action did not happen: the world cannot converge after it.
			r.failed, r.err = true, err.Error()
			w.k.Emit("timeline", "error", entryLabel(e), 0, err.Error())
			w.events.add(report.EventRecord{
				Time: p.Now().Seconds(), Type: model.EventTypeWarning, Reason: "TimelineActionFailed",
				Kind: "Scenario", Name: w.scn.Name, Message: fmt.Sprintf("%s: %v", entryLabel(e), err), Source: "kubectl", Count: 1,
			})
		}
		finish()
	})
}

func (tl *timeline) targets(t scenarios.NodeTarget) []string {
	return t.Select(tl.w.nodes, tl.w.timelineRand())
}

func (tl *timeline) forNodes(t scenarios.NodeTarget, fn func(name string)) {
	for _, name := range tl.targets(t) {
		if _, ok := tl.w.kubelet[name]; ok {
			fn(name)
		}
	}
}

func entryLabel(e scenarios.TimelineEntry) string {
	if e.Name != "" {
		return e.Name
	}
	return e.Action.Name()
}

func describe(a scenarios.Action) string {
	switch {
	case a.Nodes() != nil:
		return "nodes=" + a.Nodes().String()
	case a.ZoneOutage != nil:
		return "zone=" + a.ZoneOutage.Zone
	case a.Scale != nil:
		return fmt.Sprintf("%s replicas=%d", a.Scale.Target, a.Scale.Replicas)
	case a.Delete != nil:
		return a.Delete.Target.String()
	case a.Patch != nil, a.Edit != nil, a.KillContainer != nil:
		return a.Target().String()
	case a.Apply != nil:
		var refs []string
		for _, o := range a.Apply.Objects {
			refs = append(refs, model.Ref(o))
		}
		return strings.Join(refs, ",")
	}
	return ""
}

// convergence returns the records as the result reports them: every entry that ran.
func (tl *timeline) convergence() []report.Convergence {
	var out []report.Convergence
	for _, r := range tl.records {
		if !r.ran {
			continue
		}
		c := report.Convergence{Action: r.action, Name: r.name, Actor: r.actor, At: r.at.Seconds(), Divergences: r.divergences}
		if r.converged {
			first := r.convergedAt.Seconds()
			c.FirstConvergedAt = &first
		}
		if r.stable {
			at := r.stableSince.Seconds()
			secs := r.stableSince.Sub(r.at).Seconds()
			c.ConvergedAt, c.Seconds = &at, &secs
		}
		out = append(out, c)
	}
	return out
}

// failedVerdicts names every timeline action whose API calls failed (a drain's own verdict
// says more, so drains are left to drainVerdicts).
func (tl *timeline) failedVerdicts() []report.Verdict {
	var out []report.Verdict
	for _, r := range tl.records {
		if r.failed && r.action != "drain" {
			out = append(out, report.Verdict{Workload: "Timeline entry " + r.label(), Kind: "Scenario", Name: r.name,
				Desired: 1, Short: 1, Reason: scenarios.VerdictActionFailed, Message: r.err})
		}
	}
	return out
}

// recordFor returns the record of the entry called name ("" or "start": the start record).
func (tl *timeline) recordFor(name string) *actionRecord {
	if name == "" || name == "start" {
		return tl.records[0]
	}
	if i := tl.w.scn.EntryIndex(name); i >= 0 {
		return tl.records[i+1]
	}
	return nil
}
