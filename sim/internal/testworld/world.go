package testworld

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/record"
)

var rvField = regexp.MustCompile(` rv=\d+`)

// Namespace is the namespace the test objects live in unless Options.Namespace says otherwise.
const Namespace = "default"

// Options configure a World. The zero value is a world with seed 1 in namespace "default".
type Options struct {
	// Seed seeds the kernel (0 means 1).
	Seed uint64
	// Namespace is the test namespace ("" means "default").
	Namespace string
	// Server, if set, adjusts the API server configuration before the server is built.
	Server func(cfg *apiserver.Config)
	// Check, if set, is called at every committed write after the built-in invariants; a
	// non-empty result is an invariant violation.
	Check func(kind model.Kind, old, new model.Object) string
	// AfterRun, if set, is called at the end of every Run (for invariants over several
	// objects, which may hold only between steps); a non-empty result fails the test.
	AfterRun func() string
	// AdvanceClock makes Run move the clock to the end of the interval even when nothing is
	// scheduled then (by scheduling an idle event there).
	AdvanceClock bool
	// StripRV removes the " rv=N" fields from the lines NewTrace returns (resourceVersions
	// depend on how many objects the API server creates for itself).
	StripRV bool
	// Tap, if set, sees every trace line as it is written (after it is kept), e.g. to check
	// invariants at every API write.
	Tap func(line string)
}

// World is a kernel and the real API server, with a trace buffer and invariants. The
// exported hooks shape the output of the common commands (see commands.go).
type World struct {
	T      testing.TB
	K      *sim.Kernel
	Server *apiserver.Server
	Store  *apiserver.Store
	// Sink keeps every Kubernetes Event recorded through Recorder.
	Sink *record.FakeSink
	// NS is the test namespace.
	NS string
	// Nodes is the test-played scheduler and kubelets, when StartFakeNodes was called.
	Nodes *FakeNodes

	// Show chooses the trace lines a "run" command prints (fields of the line: time,
	// component, action, object kind, ...; at least three). Nil shows nothing.
	Show func(d *datadriven.TestData, f []string) bool
	// PodLine prints one pod for the "pods" command; i is its index in Pods order.
	PodLine func(i int, p *model.Pod) string
	// PodOrder sorts the "pods" listing and Pods (nil: by name).
	PodOrder func(a, b *model.Pod) int
	// EventLine prints one Kubernetes Event for the "events" command (nil: EventLine); an
	// empty line leaves the event out.
	EventLine func(ev *model.Event) string

	afterRun    func() string
	advance     bool
	stripRV     bool
	trace       bytes.Buffer
	printed     int
	eventsShown int
	inv         invariants
}

// New returns an empty world at time 0 with the API server running.
func New(t testing.TB, opts Options) *World {
	seed := opts.Seed
	if seed == 0 {
		seed = 1
	}
	ns := opts.Namespace
	if ns == "" {
		ns = Namespace
	}
	w := &World{T: t, K: sim.New(seed), Sink: &record.FakeSink{}, NS: ns, afterRun: opts.AfterRun,
		advance: opts.AdvanceClock, stripRV: opts.StripRV}
	w.inv = invariants{boundTo: map[string]string{}, extra: opts.Check}
	if opts.Tap != nil {
		w.K.Trace().SetWriter(tap{w: &w.trace, f: opts.Tap})
	} else {
		w.K.Trace().SetWriter(&w.trace)
	}
	cfg := apiserver.DefaultConfig()
	if opts.Server != nil {
		opts.Server(&cfg)
	}
	significant := cfg.Store.IsSignificantWrite
	if significant == nil {
		significant = apiserver.DefaultSignificantWrite
	}
	cfg.Store.IsSignificantWrite = func(kind model.Kind, old, new model.Object) bool {
		w.inv.commit(kind, old, new)
		return significant(kind, old, new)
	}
	w.Server = apiserver.NewServer(w.K, cfg)
	w.Store = w.Server.Store()
	return w
}

// Base returns w. A package's world type that embeds *World has it too, which is how Walk
// reaches the shared world inside it.
func (w *World) Base() *World { return w }

// Client returns a client named name with kube-controller-manager's rate limits
// (--kube-api-qps 20, --kube-api-burst 30) and a shared informer factory on it.
func (w *World) Client(name string) (*client.Client, *client.SharedInformerFactory) {
	return w.ClientWith(name, client.Config{QPS: 20, Burst: 30})
}

// ClientWith returns a client named name with cfg and a shared informer factory on it.
func (w *World) ClientWith(name string, cfg client.Config) (*client.Client, *client.SharedInformerFactory) {
	c := client.New(w.Server, name, cfg)
	return c, client.NewSharedInformerFactory(c, 0)
}

// Recorder returns an event recorder for component whose events go to w.Sink.
func (w *World) Recorder(component string) record.Recorder {
	return record.New(w.K, w.Sink, component, "")
}

// Settle runs the world for d (informers sync, controllers start) and then hides the trace
// so far: the first "run" prints only what follows.
func (w *World) Settle(d time.Duration) {
	w.Run(d)
	w.HideTrace()
}

// HideTrace marks the trace so far as shown: the next NewTrace starts after it.
func (w *World) HideTrace() { w.printed = w.trace.Len() }

// Run advances virtual time by d and fails the test if the kernel stopped on an error or an
// invariant was broken. It returns the kernel's outcome.
func (w *World) Run(d time.Duration) sim.Outcome {
	w.T.Helper()
	until := w.K.Now().Add(d)
	if w.advance {
		w.K.Schedule(until, sim.HandlerFunc(func(uint64) {}), 0, false)
	}
	out := w.K.Run(sim.Limits{MaxTime: until})
	if out.Reason == sim.StopError {
		w.T.Fatalf("run failed: %v", out.Err)
	}
	if w.inv.failure != "" {
		w.T.Fatalf("invariant: %s", w.inv.failure)
	}
	if w.afterRun != nil {
		if msg := w.afterRun(); msg != "" {
			w.T.Fatalf("invariant: %s", msg)
		}
	}
	return out
}

// CheckDeterminism runs run twice and fails t unless both runs' kernels wrote the same trace,
// byte for byte (the same line count and hash), of more than minLines lines.
func CheckDeterminism(t testing.TB, minLines uint64, run func() *sim.Kernel) {
	t.Helper()
	a, b := run().Trace(), run().Trace()
	if a.Lines() <= minLines {
		t.Fatalf("the run wrote %d trace lines, want more than %d", a.Lines(), minLines)
	}
	if a.Lines() != b.Lines() || a.Hash() != b.Hash() {
		t.Fatalf("two runs differ: %d lines (hash %x), then %d lines (hash %x)", a.Lines(), a.Hash(), b.Lines(), b.Hash())
	}
}

// Violation returns the first invariant violation seen at a committed write ("" if none), for
// callers that run the kernel themselves and report errors instead of failing the test.
func (w *World) Violation() string { return w.inv.failure }

// Emit leaves a "test" trace line.
func (w *World) Emit(action, object, detail string) { w.K.Emit("test", action, object, 0, detail) }

// Trace returns the whole trace so far.
func (w *World) Trace() string { return w.trace.String() }

// NewTrace returns the trace lines since the last call (or Settle) that keep accepts; keep
// sees the whitespace-separated fields of lines with at least three.
func (w *World) NewTrace(keep func(f []string) bool) string {
	all := w.trace.String()[w.printed:]
	w.printed = w.trace.Len()
	var b strings.Builder
	for _, line := range strings.Split(all, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || !keep(f) {
			continue
		}
		if w.stripRV {
			line = rvField.ReplaceAllString(line, "")
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// NewEvents returns the Kubernetes Events recorded since the last call.
func (w *World) NewEvents() []*model.Event {
	evs := w.Sink.Events[w.eventsShown:]
	w.eventsShown = len(w.Sink.Events)
	return evs
}

// Get returns the object or fails the test.
func Get[T model.Object](w *World, kind model.Kind, namespace, name string) T {
	w.T.Helper()
	obj, err := w.Store.Get(kind, namespace, name)
	if err != nil {
		w.T.Fatalf("get %s %s: %v", kind, model.KeyOf(namespace, name), err)
	}
	return obj.(T)
}

// List returns the objects of kind in namespace ("" for every namespace), in the store's
// order (by namespace and name), or fails the test.
func List[T model.Object](w *World, kind model.Kind, namespace string) []T {
	w.T.Helper()
	objs, _, err := w.Store.List(kind, model.ListOptions{Namespace: namespace})
	if err != nil {
		w.T.Fatalf("list %s: %v", kind, err)
	}
	out := make([]T, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.(T))
	}
	return out
}

// Pod returns the test namespace's pod name or fails the test.
func (w *World) Pod(name string) *model.Pod { return Get[*model.Pod](w, model.KindPod, w.NS, name) }

// Node returns node name or fails the test.
func (w *World) Node(name string) *model.Node { return Get[*model.Node](w, model.KindNode, "", name) }

// Pods returns the test namespace's pods in PodOrder (by name when unset).
func (w *World) Pods() []*model.Pod {
	out := List[*model.Pod](w, model.KindPod, w.NS)
	order := w.PodOrder
	if order == nil {
		order = func(a, b *model.Pod) int { return strings.Compare(a.Name, b.Name) }
	}
	slices.SortFunc(out, order)
	return out
}

// PodArg resolves the argument key ("pod" unless given) to a pod: an index into Pods or a
// pod name.
func (w *World) PodArg(d *datadriven.TestData, key ...string) *model.Pod {
	w.T.Helper()
	k := "pod"
	if len(key) > 0 {
		k = key[0]
	}
	var v string
	d.ScanArgs(w.T, k, &v)
	pods := w.Pods()
	if i, err := strconv.Atoi(v); err == nil {
		if i < 0 || i >= len(pods) {
			w.T.Fatalf("pod index %d out of range (%d pods)", i, len(pods))
		}
		return pods[i]
	}
	for _, p := range pods {
		if p.Name == v {
			return p
		}
	}
	w.T.Fatalf("no pod %q", v)
	return nil
}

// tap keeps the trace in w and shows every line to f.
type tap struct {
	w *bytes.Buffer
	f func(line string)
}

func (t tap) Write(b []byte) (int, error) {
	t.w.Write(b)
	t.f(string(b))
	return len(b), nil
}

// invariants follows every committed write and keeps the first violation of: resourceVersions
// only grow; a pod has at most one controller; a bound pod stays on its node; extra.
type invariants struct {
	lastRV  uint64
	boundTo map[string]string // pod uid -> node
	extra   func(kind model.Kind, old, new model.Object) string
	failure string
}

func (inv *invariants) fail(msg string) {
	if inv.failure == "" {
		inv.failure = msg
	}
}

func (inv *invariants) commit(kind model.Kind, old, new model.Object) {
	if new != nil {
		if rv := new.Meta().ResourceVersion; rv <= inv.lastRV {
			inv.fail(fmt.Sprintf("resourceVersion went from %d to %d on %s", inv.lastRV, rv, model.Ref(new)))
		} else {
			inv.lastRV = rv
		}
	}
	if p, ok := new.(*model.Pod); ok {
		n := 0
		for _, r := range p.OwnerReferences {
			if r.Controller != nil && *r.Controller {
				n++
			}
		}
		if n > 1 {
			inv.fail(fmt.Sprintf("pod %s has %d controllers", p.Name, n))
		}
		if p.Spec.NodeName != "" {
			if prev, ok := inv.boundTo[p.UID]; ok && prev != p.Spec.NodeName {
				inv.fail(fmt.Sprintf("pod %s moved from node %s to %s", p.Name, prev, p.Spec.NodeName))
			}
			inv.boundTo[p.UID] = p.Spec.NodeName
		}
	}
	if inv.extra != nil {
		if msg := inv.extra(kind, old, new); msg != "" {
			inv.fail(msg)
		}
	}
}
