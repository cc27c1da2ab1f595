package testworld

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
	shared "github.com/reconsim/reconsim/sim/internal/testworld"
	"github.com/reconsim/reconsim/vtime"
)

// Kubelet heartbeat timing (docs/upstream.md#kubelet): the Lease is renewed every
// nodeLeaseDurationSeconds (40) × nodeLeaseRenewIntervalFraction (0.25) = 10s.
const (
	LeaseDurationSeconds = 40
	LeaseRenewInterval   = 10 * time.Second
)

// Options configure a World.
type Options struct {
	// Seed seeds the kernel.
	Seed uint64
	// Components are the trace components whose lines Output returns (the test's own lines,
	// component "test", are always included).
	Components []string
	// DisableDefaultTolerationSeconds turns the DefaultTolerationSeconds admission plugin off,
	// so pods keep exactly the tolerations they are created with.
	DisableDefaultTolerationSeconds bool
}

// World is a kernel and an API server with kubelets played by the test: each kubelet renews
// its node's Lease every 10s until stopped. The test owns the controllers it wires in.
type World struct {
	// World is the shared test world: kernel, API server, clients, event sink, trace and the
	// invariants checked at every committed write.
	*shared.World

	components map[string]bool
	kubelets   map[string]*Kubelet
}

// Kubelet is the test's stand-in for one node's kubelet: a Lease renewal timer.
type Kubelet struct {
	w         *World
	node      string
	timer     *sim.Timer
	running   bool
	lastRenew vtime.Time
}

// New returns an empty world at time 0 on the shared test world. It returns an error if the
// API server configuration is rejected.
func New(t testing.TB, opts Options) (*World, error) {
	cfg := apiserver.DefaultConfig()
	cfg.Store.DisableDefaultTolerationSeconds = opts.DisableDefaultTolerationSeconds
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	w := &World{
		World:      shared.New(t, shared.Options{Seed: opts.Seed, Server: func(c *apiserver.Config) { *c = cfg }, StripRV: true}),
		components: map[string]bool{"test": true},
		kubelets:   make(map[string]*Kubelet),
	}
	for _, c := range opts.Components {
		w.components[c] = true
	}
	return w, nil
}

// Note leaves a "test" trace line.
func (w *World) Note(action, object, detail string) { w.Emit(action, object, detail) }

// Output returns the trace lines of the chosen components emitted since the last call, with
// resourceVersions stripped (they depend on unrelated writes).
func (w *World) Output() string {
	return w.NewTrace(func(f []string) bool { return w.components[f[1]] })
}

// RunUntil runs the world to virtual time t (events at t included) and then checks the
// invariants. It returns an error if the run stopped for anything but reaching t, or an
// invariant is broken.
func (w *World) RunUntil(t vtime.Time) error {
	if t < w.K.Now() {
		return fmt.Errorf("cannot run back to %s from %s", t, w.K.Now())
	}
	// An idle event at t makes the clock reach t even when nothing else is scheduled then.
	w.K.Schedule(t, sim.HandlerFunc(func(uint64) {}), 0, false)
	o := w.K.Run(sim.Limits{MaxTime: t, MaxEvents: 50_000_000})
	if o.Reason != sim.StopTimeLimit && o.Reason != sim.StopDrained {
		return fmt.Errorf("run stopped at %s: %s (%s) %v", o.At, o.Reason, o.Detail, o.Err)
	}
	if v := w.Violation(); v != "" {
		return fmt.Errorf("invariant: %s", v)
	}
	return checkCPU(w.Store)
}

// AddNode creates a node (labelled with zone and region when not empty) whose Ready condition
// has status ready ("none": a node that has never posted one) and, withKubelet, starts its
// kubelet, which creates the Lease at once.
func (w *World) AddNode(name, zone, region string, ready model.ConditionStatus, extraLabels map[string]string, withKubelet bool) error {
	now := w.K.Now()
	labels := map[string]string{}
	if zone != "" {
		labels["topology.kubernetes.io/zone"] = zone
	}
	if region != "" {
		labels["topology.kubernetes.io/region"] = region
	}
	//detlint:ordered copying into a map is order-free
	for k, v := range extraLabels {
		labels[k] = v
	}
	node := &model.Node{
		ObjectMeta: model.ObjectMeta{Name: name, Labels: labels},
		Status: model.NodeStatus{Capacity: model.ResourceList{
			model.ResourceCPU:  resource.MustParse("4"),
			model.ResourcePods: resource.MustParse("110"),
		}},
	}
	if ready != "none" {
		node.Status.Conditions = []model.NodeCondition{{
			Type: model.NodeReady, Status: ready, LastHeartbeatTime: now, LastTransitionTime: now,
			Reason: "KubeletReady", Message: "kubelet is posting ready status",
		}}
	}
	if _, err := w.Store.Create(node); err != nil {
		return err
	}
	kl := &Kubelet{w: w, node: name}
	kl.timer = w.K.NewIdleTimer(kl.tick)
	w.kubelets[name] = kl
	if withKubelet {
		kl.start(false)
	}
	return nil
}

// StopKubelet stops node's kubelet: no more Lease renewals or status posts.
func (w *World) StopKubelet(node string) error {
	kl, ok := w.kubelets[node]
	if !ok {
		return fmt.Errorf("no kubelet for node %q", node)
	}
	if !kl.running {
		return nil
	}
	kl.running = false
	kl.timer.Stop()
	w.Note("kubelet-stop", "Node "+node, "last-renew="+kl.lastRenew.String())
	return nil
}

// StartKubelet restarts node's kubelet: it posts Ready=True with a fresh heartbeat (its own
// status differs from what the API holds) and renews the Lease at once and every 10s.
func (w *World) StartKubelet(node string) error {
	kl, ok := w.kubelets[node]
	if !ok {
		return fmt.Errorf("no kubelet for node %q", node)
	}
	if kl.running {
		return nil
	}
	kl.start(true)
	w.Note("kubelet-start", "Node "+node, "")
	return nil
}

func (kl *Kubelet) start(postStatus bool) {
	kl.running = true
	if postStatus {
		kl.postReady()
	}
	kl.renew()
	kl.timer.Reset(LeaseRenewInterval)
}

func (kl *Kubelet) tick() {
	if !kl.running {
		return
	}
	kl.renew()
	kl.timer.Reset(LeaseRenewInterval)
}

// renew creates or renews the node's Lease (the kubelet's lease controller).
func (kl *Kubelet) renew() {
	w := kl.w
	now := w.K.Now()
	lease := &model.Lease{
		ObjectMeta: model.ObjectMeta{Namespace: "kube-node-lease", Name: kl.node},
		Spec: model.LeaseSpec{
			HolderIdentity: kl.node, LeaseDurationSeconds: model.Ptr(int32(LeaseDurationSeconds)),
			RenewTime: model.Ptr(now),
		},
	}
	if cur, err := w.Store.Get(model.KindLease, "kube-node-lease", kl.node); err == nil {
		l := cur.(*model.Lease).DeepCopy()
		l.Spec.RenewTime = model.Ptr(now)
		lease = l
	}
	if _, err := w.Store.Update(lease); err != nil {
		w.Note("lease-renew-failed", "Node "+kl.node, err.Error())
		return
	}
	kl.lastRenew = now
}

// postReady writes Ready=True with a fresh heartbeat, as a kubelet does when its status differs
// from the API's (and the pressure conditions back to False when the controller set Unknown).
func (kl *Kubelet) postReady() {
	w := kl.w
	now := w.K.Now()
	cur, err := w.Store.Get(model.KindNode, "", kl.node)
	if err != nil {
		w.Note("status-post-failed", "Node "+kl.node, err.Error())
		return
	}
	n := cur.(*model.Node).DeepCopy()
	found := false
	for i := range n.Status.Conditions {
		c := &n.Status.Conditions[i]
		want := model.ConditionFalse
		if c.Type == model.NodeReady {
			want = model.ConditionTrue
			found = true
		}
		if c.Status != want {
			c.Status = want
			c.LastTransitionTime = now
			c.Reason, c.Message = "Kubelet"+c.Type, ""
		}
		c.LastHeartbeatTime = now
	}
	if !found {
		n.Status.Conditions = append(n.Status.Conditions, model.NodeCondition{
			Type: model.NodeReady, Status: model.ConditionTrue, LastHeartbeatTime: now, LastTransitionTime: now,
		})
	}
	if _, err := w.Store.UpdateStatus(n); err != nil {
		w.Note("status-post-failed", "Node "+kl.node, err.Error())
	}
}

// AddPod creates a running, Ready pod bound to node with the given tolerations (the API server
// may add the default ones) and terminationGracePeriodSeconds.
func (w *World) AddPod(namespace, name, node string, tolerations []model.Toleration, graceSeconds int64) error {
	pod := &model.Pod{
		ObjectMeta: model.ObjectMeta{Namespace: namespace, Name: name},
		Spec: model.PodSpec{
			Containers:                    []model.Container{{Name: "app", Image: "app:1"}},
			NodeName:                      node,
			Tolerations:                   tolerations,
			TerminationGracePeriodSeconds: model.Ptr(graceSeconds),
		},
	}
	created, err := w.Store.Create(pod)
	if err != nil {
		return err
	}
	now := w.K.Now()
	p := created.(*model.Pod).DeepCopy()
	p.Status.Phase = model.PodRunning
	p.Status.StartTime = model.Ptr(now)
	p.Status.Conditions = append(p.Status.Conditions,
		model.PodCondition{Type: model.PodContainersReady, Status: model.ConditionTrue, LastTransitionTime: now},
		model.PodCondition{Type: model.PodReady, Status: model.ConditionTrue, LastTransitionTime: now},
	)
	_, err = w.Store.UpdateStatus(p)
	return err
}

// SetTaints replaces a node's taints (stamped TimeAdded = now where unset), as an
// administrator's kubectl taint would.
func (w *World) SetTaints(node string, taints []model.Taint) error {
	cur, err := w.Store.Get(model.KindNode, "", node)
	if err != nil {
		return err
	}
	n := cur.(*model.Node).DeepCopy()
	now := w.K.Now()
	for i := range taints {
		if taints[i].TimeAdded == nil {
			taints[i].TimeAdded = model.Ptr(now)
		}
	}
	n.Spec.Taints = taints
	_, err = w.Store.Update(n)
	return err
}

// SetTolerations replaces a pod's tolerations (upstream allows adding tolerations only, and
// changing tolerationSeconds; the API server validates).
func (w *World) SetTolerations(namespace, name string, tolerations []model.Toleration) error {
	cur, err := w.Store.Get(model.KindPod, namespace, name)
	if err != nil {
		return err
	}
	p := cur.(*model.Pod).DeepCopy()
	p.Spec.Tolerations = tolerations
	_, err = w.Store.Update(p)
	return err
}

// DescribeNodes lists every node: Ready status and reason, then taints with their age.
func (w *World) DescribeNodes() string {
	objs, _, err := w.Store.List(model.KindNode, model.ListOptions{})
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	for _, o := range objs {
		n := o.(*model.Node)
		ready := "none"
		for _, c := range n.Status.Conditions {
			if c.Type == model.NodeReady {
				ready = string(c.Status)
				if c.Reason != "" {
					ready += "(" + c.Reason + ")"
				}
			}
		}
		fmt.Fprintf(&b, "%s ready=%s", n.Name, ready)
		var taints []string
		for _, t := range n.Spec.Taints {
			s := shortTaintKey(t.Key) + ":" + string(t.Effect)
			if t.TimeAdded != nil {
				s += "@" + strconv.FormatFloat(t.TimeAdded.Seconds(), 'f', 3, 64)
			}
			taints = append(taints, s)
		}
		sort.Strings(taints)
		if len(taints) > 0 {
			b.WriteString(" taints=" + strings.Join(taints, ","))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// DescribePods lists every pod: node, Ready condition, DisruptionTarget, deletion.
func (w *World) DescribePods() string {
	objs, _, err := w.Store.List(model.KindPod, model.ListOptions{})
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	for _, o := range objs {
		p := o.(*model.Pod)
		fmt.Fprintf(&b, "%s node=%s", model.Key(p), p.Spec.NodeName)
		for _, c := range p.Status.Conditions {
			switch c.Type {
			case model.PodReady:
				b.WriteString(" ready=" + string(c.Status))
			case model.PodDisruptionTarget:
				b.WriteString(" disruption-target=" + string(c.Status) + "(" + c.Reason + ")")
			}
		}
		if p.DeletionTimestamp != nil {
			fmt.Fprintf(&b, " deletion-timestamp=%.3f", p.DeletionTimestamp.Seconds())
			if p.DeletionGracePeriodSeconds != nil {
				fmt.Fprintf(&b, " grace=%ds", *p.DeletionGracePeriodSeconds)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// Events lists the recorded Kubernetes Events with their time, type, reason, object and
// message, optionally only those with one of the given reasons.
func (w *World) Events(reasons ...string) string {
	var b strings.Builder
	for _, ev := range w.Sink.Events {
		if len(reasons) > 0 && !slices.Contains(reasons, ev.Reason) {
			continue
		}
		ref := string(ev.InvolvedObject.Kind) + " " + model.KeyOf(ev.InvolvedObject.Namespace, ev.InvolvedObject.Name)
		fmt.Fprintf(&b, "%.3f %s %s %s %q (%s)\n", ev.FirstTimestamp.Seconds(), ev.Type, ev.Reason, ref, ev.Message, ev.Source.Component)
	}
	return b.String()
}

func shortTaintKey(key string) string { return strings.TrimPrefix(key, "node.kubernetes.io/") }
