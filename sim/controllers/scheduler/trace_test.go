package scheduler

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/record"
)

// traceFilter keeps the trace lines of the scheduler and its event recorder, without
// resourceVersions (which depend on how many objects the API server creates for itself).
type traceFilter struct {
	buf bytes.Buffer
}

var rvField = regexp.MustCompile(` rv=\d+`)

// schedulerActions are the trace actions this package emits (the client, which shares the
// component name, emits others).
var schedulerActions = map[string]bool{"attempt": true, "assume": true, "bound": true, "bind-conflict": true,
	"failed": true, "queue": true, "skip": true, "status-error": true}

func (f *traceFilter) Write(line []byte) (int, error) {
	fields := strings.SplitN(string(line), " ", 4)
	if len(fields) >= 3 && ((fields[1] == component && schedulerActions[fields[2]]) || fields[1] == DefaultSchedulerName) {
		f.buf.WriteString(rvField.ReplaceAllString(string(line), ""))
	}
	return len(line), nil
}

// world is a small cluster: kernel, API server, the scheduler with its client, informers and
// recorder. The test plays every other actor through the store.
type world struct {
	t     testing.TB
	k     *sim.Kernel
	store *apiserver.Store
	s     *Scheduler
	sink  *record.FakeSink
	trace *traceFilter

	// Invariant state: the highest resourceVersion seen per object, and the node each pod
	// (by uid) was first seen bound to.
	maxRV   map[string]uint64
	boundTo map[string]string
}

// testServerConfig pins the API server's latencies, so that these traces do not move when
// the server's defaults do.
func testServerConfig() apiserver.Config {
	cfg := apiserver.DefaultConfig()
	cfg.ServiceTime = map[model.Verb]sim.Dist{
		client.VerbGet: sim.Constant(time.Millisecond), client.VerbList: sim.Constant(5 * time.Millisecond),
		client.VerbWatch: sim.Constant(time.Millisecond), client.VerbCreate: sim.Constant(5 * time.Millisecond),
		client.VerbUpdate: sim.Constant(5 * time.Millisecond), client.VerbPatch: sim.Constant(5 * time.Millisecond),
		client.VerbDelete: sim.Constant(5 * time.Millisecond),
	}
	cfg.ListItemCost = 0
	cfg.Store.WatchDelay = sim.Constant(5 * time.Millisecond)
	return cfg
}

func newWorld(t *testing.T, d *datadriven.TestData) *world {
	cfg := DefaultConfig()
	seed := uint64(1)
	var cycle, perNode string
	d.MaybeScanArgs(t, "seed", &seed)
	d.MaybeScanArgs(t, "pop-from-backoffq", &cfg.PopFromBackoffQ)
	d.MaybeScanArgs(t, "bind-retries", &cfg.BindRetries)
	if d.MaybeScanArgs(t, "cycle", &cycle) {
		cfg.CycleBase = sim.Constant(mustParseDuration(t, cycle))
	}
	if d.MaybeScanArgs(t, "per-node", &perNode) {
		cfg.CyclePerNode = mustParseDuration(t, perNode)
	}
	return newWorldConfig(t, seed, cfg)
}

// newWorldConfig builds a world with the scheduler started on cfg.
func newWorldConfig(t testing.TB, seed uint64, cfg Config) *world {
	k := sim.New(seed)
	w := &world{t: t, k: k, trace: &traceFilter{}, sink: &record.FakeSink{}, maxRV: map[string]uint64{}, boundTo: map[string]string{}}
	k.Trace().SetWriter(w.trace)
	srv := apiserver.NewServer(k, testServerConfig())
	w.store = srv.Store()
	c := client.New(srv, component, client.Config{QPS: cfg.KubeAPIQPS, Burst: cfg.KubeAPIBurst})
	f := client.NewSharedInformerFactory(c, 0)
	s, err := New(k, c, f, record.New(k, w.sink, DefaultSchedulerName, ""), cfg)
	require.NoError(t, err)
	w.s = s
	s.Start()
	f.Start(k)
	return w
}

func mustParseDuration(t testing.TB, s string) time.Duration {
	d, err := time.ParseDuration(s)
	require.NoError(t, err, "duration %q", s)
	return d
}

// applyResources sets cpu, memory and pods arguments on a resource list.
func applyResources(t testing.TB, d *datadriven.TestData, l model.ResourceList) {
	for _, name := range []string{"cpu", "memory", "pods"} {
		var v string
		if d.MaybeScanArgs(t, name, &v) {
			l[name] = resource.MustParse(v)
		}
	}
}

// parseTaints reads "key=value:Effect,key:Effect"; "none" is no taints.
func parseTaints(t testing.TB, s string) []model.Taint {
	if s == "none" {
		return nil
	}
	var out []model.Taint
	for _, item := range strings.Split(s, ",") {
		kv, effect, ok := strings.Cut(item, ":")
		require.True(t, ok, "taint %q needs :Effect", item)
		key, value, _ := strings.Cut(kv, "=")
		out = append(out, model.Taint{Key: key, Value: value, Effect: model.TaintEffect(effect)})
	}
	return out
}

// parseTolerations reads "key=value:Effect" (Equal), "key:Effect" or "key" (Exists), and
// "*" (tolerate everything).
func parseTolerations(s string) []model.Toleration {
	var out []model.Toleration
	for _, item := range strings.Split(s, ",") {
		if item == "*" {
			out = append(out, model.Toleration{Operator: TolerationOpExists})
			continue
		}
		kv, effect, _ := strings.Cut(item, ":")
		tol := model.Toleration{Effect: model.TaintEffect(effect)}
		if key, value, ok := strings.Cut(kv, "="); ok {
			tol.Key, tol.Operator, tol.Value = key, TolerationOpEqual, value
		} else {
			tol.Key, tol.Operator = kv, TolerationOpExists
		}
		out = append(out, tol)
	}
	return out
}

func parseLabels(s string) map[string]string {
	out := map[string]string{}
	for _, item := range strings.Split(s, ",") {
		k, v, _ := strings.Cut(item, "=")
		out[k] = v
	}
	return out
}

func (w *world) node(d *datadriven.TestData) {
	var name, labels, taints string
	d.ScanArgs(w.t, "name", &name)
	n := &model.Node{ObjectMeta: model.ObjectMeta{Name: name}}
	n.Status.Allocatable = model.ResourceList{"cpu": resource.MustParse("4"), "memory": resource.MustParse("8Gi"), "pods": resource.MustParse("110")}
	applyResources(w.t, d, n.Status.Allocatable)
	n.Status.Capacity = n.Status.Allocatable.DeepCopy()
	if d.MaybeScanArgs(w.t, "labels", &labels) {
		n.Labels = parseLabels(labels)
	}
	if d.MaybeScanArgs(w.t, "taints", &taints) {
		n.Spec.Taints = parseTaints(w.t, taints)
	}
	n.Spec.Unschedulable = d.HasArg("unschedulable")
	n.Status.Conditions = []model.NodeCondition{{Type: model.NodeReady, Status: model.ConditionTrue}}
	_, err := w.store.Create(n)
	require.NoError(w.t, err)
}

func (w *world) updateNode(d *datadriven.TestData) {
	var name, labels, taints string
	var unschedulable bool
	d.ScanArgs(w.t, "name", &name)
	obj, err := w.store.Get(model.KindNode, "", name)
	require.NoError(w.t, err)
	n := obj.DeepCopyObject().(*model.Node)
	specChanged := false
	if d.MaybeScanArgs(w.t, "labels", &labels) {
		n.Labels, specChanged = parseLabels(labels), true
	}
	if d.MaybeScanArgs(w.t, "taints", &taints) {
		n.Spec.Taints, specChanged = parseTaints(w.t, taints), true
	}
	if d.MaybeScanArgs(w.t, "unschedulable", &unschedulable) {
		n.Spec.Unschedulable, specChanged = unschedulable, true
	}
	if specChanged {
		updated, err := w.store.Update(n)
		require.NoError(w.t, err)
		n = updated.DeepCopyObject().(*model.Node)
	}
	if d.HasArg("cpu") || d.HasArg("memory") || d.HasArg("pods") {
		applyResources(w.t, d, n.Status.Allocatable)
		_, err := w.store.UpdateStatus(n)
		require.NoError(w.t, err)
	}
}

func (w *world) pod(d *datadriven.TestData) {
	var name, tolerations, selector, schedulerName string
	var priority int
	d.ScanArgs(w.t, "name", &name)
	p := &model.Pod{ObjectMeta: model.ObjectMeta{Name: name, Namespace: "default"}}
	p.Spec.Containers = []model.Container{{Name: "c", Image: "app"}}
	req := model.ResourceList{}
	for _, r := range []string{"cpu", "memory"} {
		var v string
		if d.MaybeScanArgs(w.t, r, &v) {
			req[r] = resource.MustParse(v)
		}
	}
	if len(req) > 0 {
		p.Spec.Containers[0].Resources.Requests = req
	}
	if d.MaybeScanArgs(w.t, "priority", &priority) {
		p.Spec.Priority = model.Ptr(int32(priority))
	}
	if d.MaybeScanArgs(w.t, "tolerations", &tolerations) {
		p.Spec.Tolerations = parseTolerations(tolerations)
	}
	if d.MaybeScanArgs(w.t, "node-selector", &selector) {
		p.Spec.NodeSelector = parseLabels(selector)
	}
	if d.MaybeScanArgs(w.t, "scheduler", &schedulerName) {
		p.Spec.SchedulerName = schedulerName
	}
	var finalizer string
	if d.MaybeScanArgs(w.t, "finalizer", &finalizer) {
		p.Finalizers = []string{finalizer}
	}
	_, err := w.store.Create(p)
	require.NoError(w.t, err)
}

// touchPod changes a pod's labels, moving its resourceVersion (what any other writer would do).
func (w *world) touchPod(d *datadriven.TestData) {
	var name string
	d.ScanArgs(w.t, "name", &name)
	obj, err := w.store.Get(model.KindPod, "default", name)
	require.NoError(w.t, err)
	p := obj.DeepCopyObject().(*model.Pod)
	if p.Labels == nil {
		p.Labels = map[string]string{}
	}
	p.Labels["touched"] = strconv.Itoa(len(p.Labels))
	_, err = w.store.Update(p)
	require.NoError(w.t, err)
}

// bindPod binds a pod as another scheduler would.
func (w *world) bindPod(d *datadriven.TestData) {
	var name, node string
	d.ScanArgs(w.t, "name", &name)
	d.ScanArgs(w.t, "node", &node)
	obj, err := w.store.Get(model.KindPod, "default", name)
	require.NoError(w.t, err)
	p := obj.DeepCopyObject().(*model.Pod)
	p.Spec.NodeName = node
	_, err = w.store.Update(p)
	require.NoError(w.t, err)
}

func (w *world) deletePod(d *datadriven.TestData) {
	var name string
	d.ScanArgs(w.t, "name", &name)
	_, err := w.store.Delete(model.KindPod, "default", name, model.DeleteOptions{GracePeriodSeconds: model.Ptr(int64(0))})
	require.NoError(w.t, err)
}

func (w *world) run(d *datadriven.TestData) string {
	var forStr string
	d.ScanArgs(w.t, "for", &forStr)
	until := w.k.Now().Add(mustParseDuration(w.t, forStr))
	w.k.Schedule(until, sim.HandlerFunc(func(uint64) {}), 0, false)
	out := w.k.Run(sim.Limits{MaxTime: until})
	require.NotEqual(w.t, sim.StopError, out.Reason, "%v", out.Err)
	w.checkInvariants()
	s := w.trace.buf.String()
	w.trace.buf.Reset()
	return s
}

func (w *world) pods() []*model.Pod {
	objs, _, err := w.store.List(model.KindPod, model.ListOptions{})
	require.NoError(w.t, err)
	out := make([]*model.Pod, len(objs))
	for i, o := range objs {
		out[i] = o.(*model.Pod)
	}
	return out
}

func (w *world) nodes() []*model.Node {
	objs, _, err := w.store.List(model.KindNode, model.ListOptions{})
	require.NoError(w.t, err)
	out := make([]*model.Node, len(objs))
	for i, o := range objs {
		out[i] = o.(*model.Node)
	}
	return out
}

// checkInvariants asserts what must hold in every test at every step: resourceVersions only
// grow, a pod is bound to one node at most (and never moved), and no node holds more than its
// allocatable (cpu, memory, pod count) of non-terminal pods.
func (w *world) checkInvariants() {
	type usage struct {
		req  Resource
		pods int64
	}
	used := map[string]*usage{}
	for _, p := range w.pods() {
		id := model.Key(p) + "#" + p.UID
		require.GreaterOrEqual(w.t, p.ResourceVersion, w.maxRV[id], "resourceVersion of %s went back", id)
		w.maxRV[id] = p.ResourceVersion
		if p.Spec.NodeName == "" {
			continue
		}
		if prev, ok := w.boundTo[id]; ok {
			require.Equal(w.t, prev, p.Spec.NodeName, "pod %s moved between nodes", id)
		}
		w.boundTo[id] = p.Spec.NodeName
		if isTerminal(p) {
			continue
		}
		u := used[p.Spec.NodeName]
		if u == nil {
			u = &usage{}
			used[p.Spec.NodeName] = u
		}
		u.req.addResource(PodRequests(p, false))
		u.pods++
	}
	for _, n := range w.nodes() {
		w.maxRV[n.Name] = max(w.maxRV[n.Name], n.ResourceVersion)
		u := used[n.Name]
		if u == nil {
			continue
		}
		alloc := nodeAllocatable(n)
		require.LessOrEqual(w.t, u.req.MilliCPU, alloc.MilliCPU, "node %s over cpu", n.Name)
		require.LessOrEqual(w.t, u.req.Memory, alloc.Memory, "node %s over memory", n.Name)
		require.LessOrEqual(w.t, u.pods, alloc.AllowedPodNumber, "node %s over pods", n.Name)
	}
}

// placement prints every pod's node and PodScheduled condition, and the pods per node.
func (w *world) placement() string {
	var b strings.Builder
	perNode := map[string]int{}
	for _, p := range w.pods() {
		node := p.Spec.NodeName
		if node == "" {
			node = "<none>"
		} else {
			perNode[node]++
		}
		cond := "-"
		for _, c := range p.Status.Conditions {
			if c.Type == model.PodScheduled {
				cond = string(c.Status)
				if c.Reason != "" {
					cond += " " + c.Reason
				}
			}
		}
		fmt.Fprintf(&b, "%s node=%s PodScheduled=%s\n", model.Key(p), node, cond)
	}
	names := make([]string, 0, len(perNode))
	for n := range perNode { //detlint:ordered sorted below
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "%s: %d pods\n", n, perNode[n])
	}
	return b.String()
}

func (w *world) queues() string {
	q := w.s.QueueLengths()
	st := w.s.Stats()
	return fmt.Sprintf("activeQ=%d backoffQ=%d unschedulablePods=%d\nattempts=%d scheduled=%d unschedulable=%d errors=%d bindConflicts=%d conditionWrites=%d\n",
		q.Active, q.Backoff, q.Unschedulable, st.Attempts, st.Scheduled, st.Unschedulable, st.Errors, st.BindConflicts, st.ConditionWrites)
}

// TestSchedulerTraces runs the scripts in testdata (-rewrite regenerates them): the
// scheduler's behaviour over time in a small cluster, printed as its trace lines.
func TestSchedulerTraces(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var w *world
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd != "new" && w == nil {
				t.Fatalf("%s: %q before new", d.Pos, d.Cmd)
			}
			switch d.Cmd {
			case "new":
				w = newWorld(t, d)
				return ""
			case "node":
				w.node(d)
			case "update-node":
				w.updateNode(d)
			case "pod":
				w.pod(d)
			case "touch-pod":
				w.touchPod(d)
			case "bind-pod":
				w.bindPod(d)
			case "delete-pod":
				w.deletePod(d)
			case "run":
				return w.run(d)
			case "stop":
				w.s.Stop()
			case "start":
				w.s.Start()
			case "placement":
				return w.placement()
			case "queues":
				return w.queues()
			case "last-failure":
				var name string
				d.ScanArgs(t, "name", &name)
				msg, ok := w.s.LastFailure("default/" + name)
				return fmt.Sprintf("%v %q attempts=%d\n", ok, msg, w.s.Attempts("default/"+name))
			default:
				t.Fatalf("%s: unknown command %q", d.Pos, d.Cmd)
			}
			return ""
		})
	})
}
