package deployment

import (
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
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/controllers/replicaset"
	"github.com/reconsim/reconsim/sim/internal/testworld"
)

const testNS = testworld.Namespace

// neverReadyAnnotation is the kubelet model's sim.reconsim.dev/never-ready annotation
// (sim/node AnnotationNeverReady); the fake kubelet of these tests honours it the same way.
const neverReadyAnnotation = "sim.reconsim.dev/never-ready"

// world is the shared test world with the Deployment controller and the real ReplicaSet
// controller, each with its own client as kube-controller-manager gives them, sharing one
// informer factory. The kubelet is played by fakeKubelet. Every write to the API server is
// observed synchronously through the trace tap, so the invariants are checked at every
// instant something changes.
type world struct {
	*testworld.World
	dc  *Controller
	rsc *replicaset.Controller
	kl  *fakeKubelet
	// kubectl is the client timeline actions (rollback) use.
	kubectl *client.Client

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
}

func newWorld(t testing.TB, cfg Config, readyAfter time.Duration) *world {
	w := &world{
		lastStep: map[string]string{}, checking: map[string]bool{},
		maxPods: map[string]int{}, minAvailable: map[string]int{},
	}
	w.World = testworld.New(t, testworld.Options{Tap: w.onTraceLine, AfterRun: func() string {
		if len(w.violations) > 0 {
			return "violated:\n" + strings.Join(w.violations, "\n")
		}
		return ""
	}})
	// kube-controller-manager: --kube-api-qps 20, --kube-api-burst 30 for every controller's
	// client, and one more for the shared informers.
	kcm := client.Config{QPS: 20, Burst: 30}
	_, f := w.Client("kube-controller-manager/shared-informers")
	dc, err := New(w.K, client.New(w.Server, Component, kcm), f, w.Recorder(Component), cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	rsc, err := replicaset.New(w.K, client.New(w.Server, replicaset.Component, kcm), f, w.Recorder(replicaset.Component), replicaset.DefaultConfig())
	if err != nil {
		t.Fatalf("replicaset.New: %v", err)
	}
	w.dc, w.rsc = dc, rsc
	w.kubectl = client.New(w.Server, "kubectl", client.Config{QPS: -1})
	w.kl = newFakeKubelet(w, readyAfter)
	w.EventLine = func(ev *model.Event) string {
		if ev.Source.Component != Component {
			return ""
		}
		return fmt.Sprintf("%.3fs %s %s: %s", ev.FirstTimestamp.Seconds(), ev.Type, ev.Reason, ev.Message)
	}
	f.Start(w.K)
	dc.Start()
	rsc.Start()
	w.Settle(100 * time.Millisecond)
	return w
}

// onTraceLine, after a write to a pod or a ReplicaSet, records steps and checks the rollout
// invariants.
func (w *world) onTraceLine(line string) {
	f := strings.Fields(line)
	if len(f) < 4 || f[1] != "kube-apiserver" {
		return
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
	obj, err := w.Store.Get(model.KindDeployment, testNS, name)
	if err != nil {
		return nil
	}
	return obj.(*model.Deployment)
}

func (w *world) mustDeployment(name string) *model.Deployment {
	d := w.deployment(name)
	if d == nil {
		w.T.Fatalf("no deployment %s", name)
	}
	return d
}

// replicaSets returns the ReplicaSets the Deployment controls, oldest first.
func (w *world) replicaSets(d *model.Deployment) []*model.ReplicaSet {
	objs, _, err := w.Store.List(model.KindReplicaSet, model.ListOptions{Namespace: testNS})
	if err != nil {
		w.T.Fatalf("list replicasets: %v", err)
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
		w.T.Fatalf("selector: %v", err)
	}
	objs, _, err := w.Store.List(model.KindPod, model.ListOptions{Namespace: testNS, LabelSelector: sel})
	if err != nil {
		w.T.Fatalf("list pods: %v", err)
	}
	now := w.K.Now()
	for _, o := range objs {
		p := o.(*model.Pod)
		switch {
		case p.DeletionTimestamp != nil:
			terminating++
		case p.Status.Phase == model.PodSucceeded || p.Status.Phase == model.PodFailed:
		default:
			active++
			if model.IsPodAvailable(p, d.Spec.MinReadySeconds, now) {
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
		w.steps = append(w.steps, fmt.Sprintf("%.3fs %s | pods=%d available=%d terminating=%d", w.K.Now().Seconds(), key, active, available, terminating))
	}
	if !w.checking[name] {
		return
	}
	replicas := int(deploymentReplicas(d))
	if maxPods := replicas + int(MaxSurge(d)); active > maxPods {
		w.violations = append(w.violations, fmt.Sprintf("%s: %s has %d active pods > replicas+maxSurge = %d", w.K.Now(), name, active, maxPods))
	}
	if minAvailable := replicas - int(MaxUnavailable(d)); available < minAvailable {
		w.violations = append(w.violations, fmt.Sprintf("%s: %s has %d available pods < replicas-maxUnavailable = %d", w.K.Now(), name, available, minAvailable))
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
	if _, err := w.Store.Update(d); err != nil {
		w.T.Fatalf("update deployment %s: %v", name, err)
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
	if _, err := w.Store.Watch(model.KindPod, model.ListOptions{}, w.Store.Revision(), kl); err != nil {
		w.T.Fatalf("kubelet watch: %v", err)
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
			kl.w.K.After(kl.terminationDelay, func() { kl.stop(name, uid) })
		}
		return
	}
	if kl.seen[pod.UID] {
		return
	}
	kl.seen[pod.UID] = true
	uid, name := pod.UID, pod.Name
	kl.w.K.After(kl.bindDelay, func() { kl.bind(name, uid) })
}

// OnWatchClosed implements apiserver.WatchSink.
func (kl *fakeKubelet) OnWatchClosed(err error) {
	kl.w.T.Errorf("fake kubelet: watch closed: %v", err)
}

// current returns a private copy of the pod if it still exists as the same object.
func (kl *fakeKubelet) current(name, uid string) *model.Pod {
	obj, err := kl.w.Store.Get(model.KindPod, testNS, name)
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
	if _, err := kl.w.Store.Update(p); err != nil {
		kl.w.T.Errorf("fake kubelet: bind %s: %v", name, err)
		return
	}
	kl.w.K.After(kl.readyAfter, func() { kl.start(name, uid) })
}

func (kl *fakeKubelet) start(name, uid string) {
	p := kl.current(name, uid)
	if p == nil || p.DeletionTimestamp != nil {
		return
	}
	now := kl.w.K.Now()
	ready := p.Annotations[neverReadyAnnotation] != "true"
	p.Status.Phase = model.PodRunning
	p.Status.StartTime = &now
	st := model.ConditionFalse
	if ready {
		st = model.ConditionTrue
	}
	testworld.SetPodCondition(p, model.PodContainersReady, st, now)
	testworld.SetPodCondition(p, model.PodReady, st, now)
	if _, err := kl.w.Store.UpdateStatus(p); err != nil {
		kl.w.T.Errorf("fake kubelet: status %s: %v", name, err)
	}
}

func (kl *fakeKubelet) stop(name, uid string) {
	if kl.current(name, uid) == nil {
		return
	}
	if _, err := kl.w.Store.Delete(model.KindPod, testNS, name, model.DeleteOptions{GracePeriodSeconds: model.Ptr(int64(0)), Preconditions: &model.Preconditions{UID: &uid}}); err != nil {
		kl.w.T.Errorf("fake kubelet: delete %s: %v", name, err)
	}
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
			rs.Annotations[RevisionAnnotation], testworld.OrDash(rs.Annotations[RevisionHistoryAnnotation]),
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
