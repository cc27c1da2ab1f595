package deployment

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/record"
	"github.com/reconsim/reconsim/sim/controllers/replicaset"
	"github.com/reconsim/reconsim/vtime"
)

const testNS = "default"

// neverReadyAnnotation is the kubelet model's sim.reconsim.dev/never-ready annotation
// (sim/node AnnotationNeverReady); the fake kubelet of these tests honours it the same way.
const neverReadyAnnotation = "sim.reconsim.dev/never-ready"

// world is a small cluster for trace tests: a kernel, the API server, the Deployment
// controller and the real ReplicaSet controller, each with its own client as
// kube-controller-manager gives them, sharing one informer factory. The kubelet is played by
// fakeKubelet. Every write to the API server is observed synchronously through the trace
// writer, so the invariants are checked at every instant something changes.
type world struct {
	t     testing.TB
	k     *sim.Kernel
	srv   *apiserver.Server
	store *apiserver.Store
	dc    *Controller
	rsc   *replicaset.Controller
	sink  *record.FakeSink
	kl    *fakeKubelet
	// kubectl is the client timeline actions (rollback) use.
	kubectl *client.Client

	trace   bytes.Buffer
	printed int // bytes of trace already shown

	// steps are the lines recorded at each change of a Deployment's ReplicaSet sizes.
	steps    []string
	lastStep map[string]string // deployment -> last sizes string
	// watching says which Deployments the step recorder and invariants follow; checking
	// whether the invariants are enforced now.
	watching []string
	checking map[string]bool
	// extremes since the last reset, per Deployment.
	maxPods      map[string]int
	minAvailable map[string]int
	violations   []string

	lastRV uint64
}

// traceTap is the kernel's trace writer: it keeps the trace and observes the world after
// every API write.
type traceTap struct{ w *world }

func (tt traceTap) Write(b []byte) (int, error) {
	tt.w.trace.Write(b)
	tt.w.onTraceLine(string(b))
	return len(b), nil
}

func newWorld(t testing.TB, cfg Config, readyAfter time.Duration) *world {
	w := &world{
		t: t, k: sim.New(1), sink: &record.FakeSink{},
		lastStep: map[string]string{}, checking: map[string]bool{},
		maxPods: map[string]int{}, minAvailable: map[string]int{},
	}
	w.k.Trace().SetWriter(traceTap{w})
	w.srv = apiserver.NewServer(w.k, apiserver.DefaultConfig())
	w.store = w.srv.Store()
	// kube-controller-manager: --kube-api-qps 20, --kube-api-burst 30 for every controller's
	// client, and one more for the shared informers.
	kcm := client.Config{QPS: 20, Burst: 30}
	f := client.NewSharedInformerFactory(client.New(w.srv, "kube-controller-manager/shared-informers", kcm), 0)
	dc, err := New(w.k, client.New(w.srv, Component, kcm), f, record.New(w.k, w.sink, Component, ""), cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	rsc, err := replicaset.New(w.k, client.New(w.srv, replicaset.Component, kcm), f, record.New(w.k, w.sink, replicaset.Component, ""), replicaset.DefaultConfig())
	if err != nil {
		t.Fatalf("replicaset.New: %v", err)
	}
	w.dc, w.rsc = dc, rsc
	w.kubectl = client.New(w.srv, "kubectl", client.Config{QPS: -1})
	w.kl = newFakeKubelet(w, readyAfter)
	f.Start(w.k)
	dc.Start()
	rsc.Start()
	w.run(100 * time.Millisecond)
	w.printed = w.trace.Len()
	return w
}

func (w *world) run(d time.Duration) {
	out := w.k.Run(sim.Limits{MaxTime: w.k.Now().Add(d)})
	if out.Reason == sim.StopError {
		w.t.Fatalf("run failed: %v", out.Err)
	}
	if len(w.violations) > 0 {
		w.t.Fatalf("invariant violated:\n%s", strings.Join(w.violations, "\n"))
	}
}

// onTraceLine checks that resourceVersions only grow and, after a write to a pod or a
// ReplicaSet, records steps and checks the rollout invariants.
func (w *world) onTraceLine(line string) {
	f := strings.Fields(line)
	if len(f) < 4 || f[1] != "kube-apiserver" {
		return
	}
	if len(f) >= 6 && strings.HasPrefix(f[5], "rv=") {
		if rv, err := strconv.ParseUint(strings.TrimPrefix(f[5], "rv="), 10, 64); err == nil {
			if rv <= w.lastRV {
				w.violations = append(w.violations, fmt.Sprintf("resourceVersion went from %d to %d: %s", w.lastRV, rv, line))
			}
			w.lastRV = rv
		}
	}
	if f[3] != "Pod" && f[3] != "ReplicaSet" {
		return
	}
	for _, name := range w.watching {
		w.observe(name)
	}
}

// deployment returns the stored Deployment, or nil.
func (w *world) deployment(name string) *model.Deployment {
	obj, err := w.store.Get(model.KindDeployment, testNS, name)
	if err != nil {
		return nil
	}
	return obj.(*model.Deployment)
}

func (w *world) mustDeployment(name string) *model.Deployment {
	d := w.deployment(name)
	if d == nil {
		w.t.Fatalf("no deployment %s", name)
	}
	return d
}

// replicaSets returns the ReplicaSets the Deployment controls, oldest first.
func (w *world) replicaSets(d *model.Deployment) []*model.ReplicaSet {
	objs, _, err := w.store.List(model.KindReplicaSet, model.ListOptions{Namespace: testNS})
	if err != nil {
		w.t.Fatalf("list replicasets: %v", err)
	}
	var out []*model.ReplicaSet
	for _, o := range objs {
		rs := o.(*model.ReplicaSet)
		if isControlledBy(rs, d) {
			out = append(out, rs)
		}
	}
	slices.SortStableFunc(out, compareByCreationTimestamp)
	return out
}

// podCounts counts the Deployment's pods (by its selector): active (not terminal, not being
// deleted), available among them (Ready for more than minReadySeconds), and terminating.
func (w *world) podCounts(d *model.Deployment) (active, available, terminating int) {
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		w.t.Fatalf("selector: %v", err)
	}
	objs, _, err := w.store.List(model.KindPod, model.ListOptions{Namespace: testNS, LabelSelector: sel})
	if err != nil {
		w.t.Fatalf("list pods: %v", err)
	}
	now := w.k.Now()
	for _, o := range objs {
		p := o.(*model.Pod)
		switch {
		case p.DeletionTimestamp != nil:
			terminating++
		case p.Status.Phase == model.PodSucceeded || p.Status.Phase == model.PodFailed:
		default:
			active++
			if replicaset.IsPodAvailable(p, d.Spec.MinReadySeconds, now) {
				available++
			}
		}
	}
	return active, available, terminating
}

// observe records a step when the Deployment's ReplicaSet sizes changed and checks the
// invariants: active pods <= replicas + maxSurge, available >= replicas - maxUnavailable.
func (w *world) observe(name string) {
	d := w.deployment(name)
	if d == nil {
		return
	}
	d = d.DeepCopy()
	model.SetDefaults(d)
	rss := w.replicaSets(d)
	active, available, terminating := w.podCounts(d)
	if active > w.maxPods[name] {
		w.maxPods[name] = active
	}
	if available < w.minAvailable[name] {
		w.minAvailable[name] = available
	}
	var sizes []string
	for _, rs := range rss {
		sizes = append(sizes, fmt.Sprintf("%s=%d", w.rsLabel(d, rs), rsReplicas(rs)))
	}
	key := strings.Join(sizes, " ")
	if key == "" {
		key = "<no replica sets>"
	}
	if key != w.lastStep[name] {
		w.lastStep[name] = key
		w.steps = append(w.steps, fmt.Sprintf("%.3fs %s | pods=%d available=%d terminating=%d", w.k.Now().Seconds(), key, active, available, terminating))
	}
	if !w.checking[name] {
		return
	}
	replicas := int(deploymentReplicas(d))
	if maxPods := replicas + int(MaxSurge(d)); active > maxPods {
		w.violations = append(w.violations, fmt.Sprintf("%s: %s has %d active pods > replicas+maxSurge = %d", w.k.Now(), name, active, maxPods))
	}
	if minAvailable := replicas - int(MaxUnavailable(d)); available < minAvailable {
		w.violations = append(w.violations, fmt.Sprintf("%s: %s has %d available pods < replicas-maxUnavailable = %d", w.k.Now(), name, available, minAvailable))
	}
}

// rsLabel names a ReplicaSet in step lines by its revision and image, which stay the same from
// run to run and read better than the hash.
func (w *world) rsLabel(d *model.Deployment, rs *model.ReplicaSet) string {
	image := ""
	if cs := rs.Spec.Template.Spec.Containers; len(cs) > 0 {
		image = cs[0].Image
	}
	if i := strings.LastIndexByte(image, ':'); i >= 0 {
		image = image[i+1:]
	}
	return fmt.Sprintf("%s(r%s)", image, rs.Annotations[RevisionAnnotation])
}

// resetExtremes starts a new window for the max-pods and min-available record.
func (w *world) resetExtremes(name string) {
	d := w.mustDeployment(name).DeepCopy()
	model.SetDefaults(d)
	active, available, _ := w.podCounts(d)
	w.maxPods[name] = active
	w.minAvailable[name] = available
}

func (w *world) watch(name string) {
	if !slices.Contains(w.watching, name) {
		w.watching = append(w.watching, name)
	}
	w.resetExtremes(name)
}

// newTrace returns the trace lines since the last call that keep accepts.
func (w *world) newTrace(keep func(component, action, kind string) bool) string {
	all := w.trace.String()[w.printed:]
	w.printed = w.trace.Len()
	var b strings.Builder
	for _, line := range strings.Split(all, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		kind := ""
		if len(f) > 3 {
			kind = f[3]
		}
		if keep(f[1], f[2], kind) {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// takeSteps returns the step lines recorded since the last call.
func (w *world) takeSteps() string {
	out := strings.Join(w.steps, "\n")
	w.steps = nil
	if out != "" {
		out += "\n"
	}
	return out
}

// deploymentSpec describes a test Deployment.
type deploymentSpec struct {
	name                     string
	replicas                 int32
	strategy                 string
	maxSurge, maxUnavailable string
	image                    string
	minReadySeconds          int32
	progressDeadlineSeconds  int32
	revisionHistoryLimit     int32
	paused, neverReady       bool
}

func intOrPercent(s string) *intstr.IntOrString {
	v := intstr.Parse(s)
	return &v
}

func podTemplate(app, image string, neverReady bool) model.PodTemplateSpec {
	var t model.PodTemplateSpec
	t.Labels = map[string]string{"app": app}
	if neverReady {
		t.Annotations = map[string]string{neverReadyAnnotation: "true"}
	}
	t.Spec.Containers = []model.Container{{Name: "app", Image: "registry.example/app:" + image}}
	return t
}

func (s deploymentSpec) build() *model.Deployment {
	d := &model.Deployment{}
	d.Name, d.Namespace = s.name, testNS
	d.Spec.Replicas = model.Ptr(s.replicas)
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": s.name}}
	d.Spec.Template = podTemplate(s.name, s.image, s.neverReady)
	d.Spec.Strategy.Type = s.strategy
	if s.strategy == model.RollingUpdateDeploymentStrategyType {
		d.Spec.Strategy.RollingUpdate = &model.RollingUpdateDeployment{MaxSurge: intOrPercent(s.maxSurge), MaxUnavailable: intOrPercent(s.maxUnavailable)}
	}
	d.Spec.MinReadySeconds = s.minReadySeconds
	d.Spec.ProgressDeadlineSeconds = model.Ptr(s.progressDeadlineSeconds)
	d.Spec.RevisionHistoryLimit = model.Ptr(s.revisionHistoryLimit)
	d.Spec.Paused = s.paused
	return d
}

// updateDeployment applies change to a fresh copy of the stored Deployment, as a user would.
func (w *world) updateDeployment(name string, change func(d *model.Deployment)) {
	d := w.mustDeployment(name).DeepCopy()
	change(d)
	if _, err := w.store.Update(d); err != nil {
		w.t.Fatalf("update deployment %s: %v", name, err)
	}
}

// ---- the fake kubelet ----

// fakeKubelet plays every node: it watches pods through the API server (with the server's
// watch delay), binds each new pod to node-1 bindDelay later, reports it Running and Ready
// readyAfter after that (Running and not Ready for a pod annotated never-ready), and removes a
// pod terminationDelay after it gets a deletionTimestamp (a graceful stop, then the final
// delete with grace period 0). It writes straight to the store.
type fakeKubelet struct {
	w                                       *world
	bindDelay, readyAfter, terminationDelay time.Duration
	seen                                    map[string]bool // pod UIDs already handled for start
	stopping                                map[string]bool // pod UIDs already handled for stop
}

func newFakeKubelet(w *world, readyAfter time.Duration) *fakeKubelet {
	kl := &fakeKubelet{w: w, bindDelay: 50 * time.Millisecond, readyAfter: readyAfter, terminationDelay: time.Second,
		seen: map[string]bool{}, stopping: map[string]bool{}}
	if _, err := w.store.Watch(model.KindPod, model.ListOptions{}, w.store.Revision(), kl); err != nil {
		w.t.Fatalf("kubelet watch: %v", err)
	}
	return kl
}

// OnWatchEvent implements apiserver.WatchSink.
func (kl *fakeKubelet) OnWatchEvent(ev apiserver.WatchEvent) {
	pod, ok := ev.Object.(*model.Pod)
	if !ok || ev.Type == apiserver.Deleted || ev.Type == apiserver.Bookmark {
		return
	}
	if pod.DeletionTimestamp != nil {
		if !kl.stopping[pod.UID] {
			kl.stopping[pod.UID] = true
			uid, name := pod.UID, pod.Name
			kl.w.k.After(kl.terminationDelay, func() { kl.stop(name, uid) })
		}
		return
	}
	if kl.seen[pod.UID] {
		return
	}
	kl.seen[pod.UID] = true
	uid, name := pod.UID, pod.Name
	kl.w.k.After(kl.bindDelay, func() { kl.bind(name, uid) })
}

// OnWatchClosed implements apiserver.WatchSink.
func (kl *fakeKubelet) OnWatchClosed(err error) {
	kl.w.t.Errorf("fake kubelet: watch closed: %v", err)
}

// current returns a private copy of the pod if it still exists as the same object.
func (kl *fakeKubelet) current(name, uid string) *model.Pod {
	obj, err := kl.w.store.Get(model.KindPod, testNS, name)
	if err != nil || obj.Meta().UID != uid {
		return nil
	}
	return obj.(*model.Pod).DeepCopy()
}

func (kl *fakeKubelet) bind(name, uid string) {
	p := kl.current(name, uid)
	if p == nil || p.DeletionTimestamp != nil || p.Spec.NodeName != "" {
		return
	}
	p.Spec.NodeName = "node-1"
	if _, err := kl.w.store.Update(p); err != nil {
		kl.w.t.Errorf("fake kubelet: bind %s: %v", name, err)
		return
	}
	kl.w.k.After(kl.readyAfter, func() { kl.start(name, uid) })
}

func (kl *fakeKubelet) start(name, uid string) {
	p := kl.current(name, uid)
	if p == nil || p.DeletionTimestamp != nil {
		return
	}
	now := kl.w.k.Now()
	ready := p.Annotations[neverReadyAnnotation] != "true"
	p.Status.Phase = model.PodRunning
	p.Status.StartTime = &now
	st := model.ConditionFalse
	if ready {
		st = model.ConditionTrue
	}
	setPodCondition(p, model.PodContainersReady, st, now)
	setPodCondition(p, model.PodReady, st, now)
	if _, err := kl.w.store.UpdateStatus(p); err != nil {
		kl.w.t.Errorf("fake kubelet: status %s: %v", name, err)
	}
}

func (kl *fakeKubelet) stop(name, uid string) {
	if kl.current(name, uid) == nil {
		return
	}
	if _, err := kl.w.store.Delete(model.KindPod, testNS, name, model.DeleteOptions{GracePeriodSeconds: model.Ptr(int64(0)), Preconditions: &model.Preconditions{UID: &uid}}); err != nil {
		kl.w.t.Errorf("fake kubelet: delete %s: %v", name, err)
	}
}

func setPodCondition(p *model.Pod, typ string, st model.ConditionStatus, now vtime.Time) {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == typ {
			if p.Status.Conditions[i].Status != st {
				p.Status.Conditions[i].Status = st
				p.Status.Conditions[i].LastTransitionTime = now
			}
			return
		}
	}
	p.Status.Conditions = append(p.Status.Conditions, model.PodCondition{Type: typ, Status: st, LastTransitionTime: now})
}

// ---- printing ----

func (w *world) statusLines(name string) string {
	d := w.mustDeployment(name)
	s := d.Status
	var b strings.Builder
	fmt.Fprintf(&b, "generation=%d observedGeneration=%d replicas=%d updated=%d ready=%d available=%d unavailable=%d terminating=%s collisionCount=%s revision=%s\n",
		d.Generation, s.ObservedGeneration, s.Replicas, s.UpdatedReplicas, s.ReadyReplicas, s.AvailableReplicas, s.UnavailableReplicas,
		optInt32(s.TerminatingReplicas), optInt32(s.CollisionCount), d.Annotations[RevisionAnnotation])
	for _, c := range s.Conditions {
		fmt.Fprintf(&b, "condition %s=%s reason=%s updated=%.3fs transitioned=%.3fs message=%q\n",
			c.Type, c.Status, c.Reason, c.LastUpdateTime.Seconds(), c.LastTransitionTime.Seconds(), c.Message)
	}
	return b.String()
}

func optInt32(p *int32) string {
	if p == nil {
		return "<nil>"
	}
	return strconv.Itoa(int(*p))
}

func (w *world) rsLines(name string) string {
	d := w.mustDeployment(name)
	var b strings.Builder
	for _, rs := range w.replicaSets(d) {
		sel, _ := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
		fmt.Fprintf(&b, "%s image=%s replicas=%d status=%d/%d/%d revision=%s history=%s desired=%s max=%s minReady=%d selector=%s\n",
			rs.Name, rs.Spec.Template.Spec.Containers[0].Image, rsReplicas(rs), rs.Status.Replicas, rs.Status.ReadyReplicas, rs.Status.AvailableReplicas,
			rs.Annotations[RevisionAnnotation], orDash(rs.Annotations[RevisionHistoryAnnotation]),
			rs.Annotations[DesiredReplicasAnnotation], rs.Annotations[MaxReplicasAnnotation], rs.Spec.MinReadySeconds, selectorString(sel))
	}
	return b.String()
}

func selectorString(s labels.Selector) string {
	if s == nil {
		return "<nil>"
	}
	return s.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
