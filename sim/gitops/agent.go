package gitops

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/vtime"
)

// Mode selects the agent's reconcile loop.
type Mode string

// The modes.
const (
	ModeArgoCD Mode = "argocd"
	ModeFlux   Mode = "flux"
)

// Component is the agent's trace component.
const Component = "gitops-agent"

// Backoff is the self-heal back-off of Argo CD (a wait.Backoff with Duration, Factor, Cap;
// --self-heal-backoff-timeout-seconds, -factor, -cap-seconds).
type Backoff struct {
	Duration time.Duration
	Factor   float64
	Cap      time.Duration
}

// Delay is the wait before self-heal attempt n (n = the attempts already made for this
// revision), measured from the previous operation's end: selfHealRemainingBackoff calls
// wait.Backoff.Step n times on a copy with Steps = n, so 0 for n = 0, then Duration,
// Duration*Factor, ... up to Cap (Step sets the duration to Cap once it would pass it).
func (b Backoff) Delay(n int) time.Duration {
	var delay time.Duration
	d := b.Duration
	steps := n
	for i := 0; i < n; i++ {
		if steps < 1 {
			delay = d
			continue
		}
		steps--
		delay = d
		if b.Factor != 0 {
			d = time.Duration(float64(d) * b.Factor)
			if b.Cap > 0 && d > b.Cap {
				d = b.Cap
				steps = 0
			}
		}
	}
	return delay
}

// Config configures an agent.
type Config struct {
	Mode Mode
	// Name is the Application's (or Kustomization's) name, in traces, events and series.
	Name string

	// Argo CD.
	Resync, ResyncJitter time.Duration
	Automated, SelfHeal  bool
	// SelfHealBackoff is nil when the back-off is disabled (or before v2.14): then a
	// self-heal waits SelfHealTimeout after the previous operation.
	SelfHealBackoff *Backoff
	SelfHealTimeout time.Duration
	// CompareTime is how long a refresh takes (manifest generation and diff), sampled per
	// refresh; a simulator assumption.
	CompareTime sim.Dist

	// Both.
	Prune             bool
	IgnoreHPAReplicas bool

	// Flux.
	Interval      time.Duration
	JitterPercent int
}

// maxDeclared bounds the objects an agent manages.
const maxDeclared = 10000

// declared is one object of the source.
type declared struct {
	kind            model.Kind
	namespace, name string
	obj             model.Object // defaulted, as the API server would store it
	doc             map[string]any
}

func keyOf(kind model.Kind, namespace, name string) string {
	return string(kind) + " " + model.KeyOf(namespace, name)
}

// Agent is one Application (or Kustomization) and its controller.
type Agent struct {
	k    *sim.Kernel
	c    *client.Client
	f    *client.SharedInformerFactory
	cfg  Config
	rand *rand.Rand

	// head is the source at the latest commit (revision); source is the source at the
	// revision the agent last resolved (seenRevision); syncedRevision is the last one synced.
	head           map[string]*declared
	source         map[string]*declared
	revision       int
	seenRevision   int
	syncedRevision int
	// managed are the objects the agent applied (or found declared): what prune may delete.
	managed map[string]*declared

	informers map[model.Kind]*client.Informer

	hasOp            bool
	opFinishedAt     vtime.Time
	selfHealAttempts int
	synced           bool
	outOfSync        []string

	proc          *sim.Proc
	timer         *sim.Timer
	refreshWanted bool
	resolveWanted bool
	nextPeriodic  vtime.Time

	// OnStatus is called after every compare; OnEvent for every event.
	OnStatus func(synced bool, outOfSync int)
	OnEvent  func(eventType, reason, message string)
}

// New returns an agent whose source holds objs at revision 1, as already synced (the
// cluster was built from it). The factory must not be started yet.
func New(k *sim.Kernel, c *client.Client, f *client.SharedInformerFactory, objs []model.Object, cfg Config, r *rand.Rand) (*Agent, error) {
	if len(objs) > maxDeclared {
		return nil, fmt.Errorf("gitops: %d objects, more than the limit of %d", len(objs), maxDeclared)
	}
	a := &Agent{k: k, c: c, f: f, cfg: cfg, rand: r, head: map[string]*declared{}, source: map[string]*declared{}, managed: map[string]*declared{},
		informers: map[model.Kind]*client.Informer{}, revision: 1, seenRevision: 1, syncedRevision: 1, synced: true}
	for _, o := range objs {
		d, err := newDeclared(o)
		if err != nil {
			return nil, err
		}
		k := keyOf(d.kind, d.namespace, d.name)
		a.head[k], a.source[k], a.managed[k] = d, d, d
		a.watch(d.kind)
	}
	if cfg.IgnoreHPAReplicas {
		a.watch(model.KindHorizontalPodAutoscaler)
	}
	a.hasOp, a.opFinishedAt = true, k.Now()
	return a, nil
}

func newDeclared(o model.Object) (*declared, error) {
	obj := o.DeepCopyObject()
	model.SetDefaults(obj)
	doc, err := toDoc(obj)
	if err != nil {
		return nil, err
	}
	m := obj.Meta()
	return &declared{kind: obj.GetKind(), namespace: m.Namespace, name: m.Name, obj: obj, doc: doc}, nil
}

// toDoc is an object's JSON as maps, numbers kept exact.
func toDoc(obj model.Object) (map[string]any, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// watch adds an informer for kind whose changes request a refresh (Argo CD's cluster
// cache); Flux does not react to changes.
func (a *Agent) watch(kind model.Kind) {
	if _, ok := a.informers[kind]; ok {
		return
	}
	inf := a.f.For(kind)
	a.informers[kind] = inf
	if a.cfg.Mode != ModeArgoCD {
		return
	}
	changed := func(obj model.Object) {
		if obj == nil {
			return
		}
		m := obj.Meta()
		k := keyOf(obj.GetKind(), m.Namespace, m.Name)
		if _, ok := a.managed[k]; ok || obj.GetKind() == model.KindHorizontalPodAutoscaler {
			a.requestRefresh(false)
		}
	}
	inf.AddEventHandler(client.EventHandlerFuncs{
		AddFunc:    func(obj model.Object, initial bool) { changed(obj) },
		UpdateFunc: func(_, obj model.Object) { changed(obj) },
		DeleteFunc: func(obj any) {
			if o, ok := client.ObjectOf(obj); ok {
				changed(o)
			}
		},
	})
}

// Start starts the agent's informers and its loop.
func (a *Agent) Start() {
	a.f.Start(a.k)
	a.proc = a.k.Spawn(Component+"/"+a.cfg.Name, a.run)
}

// Commit records a commit that adds or replaces objs in the source.
func (a *Agent) Commit(objs []model.Object) error {
	var ds []*declared
	for _, o := range objs {
		d, err := newDeclared(o)
		if err != nil {
			return err
		}
		ds = append(ds, d)
	}
	if len(a.head)+len(ds) > maxDeclared {
		return fmt.Errorf("gitops: more than %d objects", maxDeclared)
	}
	a.revision++
	a.head = cloneSource(a.head)
	for _, d := range ds {
		a.head[keyOf(d.kind, d.namespace, d.name)] = d
		a.watch(d.kind)
	}
	a.trace("commit", fmt.Sprintf("revision=%d objects=%d", a.revision, len(ds)))
	return nil
}

// CommitDelete records a commit that removes an object from the source.
func (a *Agent) CommitDelete(kind model.Kind, namespace, name string) error {
	k := keyOf(kind, namespace, name)
	if _, ok := a.head[k]; !ok {
		return fmt.Errorf("gitops: %s is not in the source", k)
	}
	a.revision++
	a.head = cloneSource(a.head)
	delete(a.head, k)
	a.trace("commit", fmt.Sprintf("revision=%d removed=%s", a.revision, k))
	return nil
}

func cloneSource(m map[string]*declared) map[string]*declared {
	out := make(map[string]*declared, len(m))
	for k, v := range m { //detlint:ordered copying a map
		out[k] = v
	}
	return out
}

// resolve makes the latest commit the source the agent compares with.
func (a *Agent) resolve(how string) {
	if a.seenRevision == a.revision {
		return
	}
	a.trace("revision", fmt.Sprintf("%s revision=%d (was %d)", how, a.revision, a.seenRevision))
	a.seenRevision = a.revision
	a.source = a.head
}

// Declared returns how many objects the source (at the revision the agent resolved) holds.
func (a *Agent) Declared() int { return len(a.source) }

// Synced reports the last compare's status, and the resources out of sync.
func (a *Agent) Synced() (bool, []string) { return a.synced, append([]string(nil), a.outOfSync...) }

// requestRefresh asks the loop for a compare (with resolve: also fetch the latest revision).
func (a *Agent) requestRefresh(resolve bool) {
	a.refreshWanted = true
	a.resolveWanted = a.resolveWanted || resolve
	if a.proc != nil && a.proc.Parked() {
		a.timer.Stop()
		a.proc.Unpark()
	}
}

// run is the agent's loop.
func (a *Agent) run(p *sim.Proc) {
	a.timer = a.k.NewIdleTimer(func() { p.Unpark() })
	for _, inf := range a.sortedInformers() {
		inf.WaitForSync(p)
	}
	if a.cfg.Mode == ModeFlux {
		a.runFlux(p)
		return
	}
	a.schedulePeriodic(p.Now())
	for {
		now := p.Now()
		if now >= a.nextPeriodic && a.cfg.Resync > 0 {
			a.refreshWanted, a.resolveWanted = true, true
			a.schedulePeriodic(now)
		}
		if !a.refreshWanted {
			if a.cfg.Resync > 0 {
				a.timer.ResetAt(a.nextPeriodic)
			}
			p.Park()
			a.timer.Stop()
			continue
		}
		resolve := a.resolveWanted
		a.refreshWanted, a.resolveWanted = false, false
		a.refresh(p, resolve)
	}
}

func (a *Agent) sortedInformers() []*client.Informer {
	kinds := make([]string, 0, len(a.informers))
	for k := range a.informers { //detlint:ordered sorted below
		kinds = append(kinds, string(k))
	}
	sort.Strings(kinds)
	out := make([]*client.Informer, 0, len(kinds))
	for _, k := range kinds {
		out = append(out, a.informers[model.Kind(k)])
	}
	return out
}

// schedulePeriodic sets the next periodic refresh: Resync plus up to ResyncJitter
// (controller/appcontroller.go: the Application informer resyncs every Resync and a resync
// adds jitter*rand before the refresh).
func (a *Agent) schedulePeriodic(now vtime.Time) {
	d := a.cfg.Resync
	if a.cfg.ResyncJitter > 0 {
		d += time.Duration(a.rand.Float64() * float64(a.cfg.ResyncJitter))
	}
	a.nextPeriodic = now.Add(d)
}

// refresh is processAppRefreshQueueItem: compare, update the status, then autoSync.
func (a *Agent) refresh(p *sim.Proc, resolve bool) {
	if d := a.cfg.CompareTime.Sample(a.rand); d > 0 {
		p.Sleep(d)
	}
	if resolve {
		a.resolve("resolved")
	}
	diffs, missing, prune := a.compare()
	a.setStatus(diffs, missing, prune)
	if a.synced || !a.cfg.Automated {
		return
	}
	if len(diffs) == 0 && len(missing) == 0 && !a.cfg.Prune {
		a.trace("skip-sync", "need to prune extra resources only but automated prune is disabled")
		return
	}
	if a.syncedRevision == a.seenRevision {
		if !a.cfg.SelfHeal {
			a.trace("skip-sync", fmt.Sprintf("most recent sync already to revision %d (self-heal is off)", a.syncedRevision))
			return
		}
		if remaining := a.selfHealRemaining(p.Now()); remaining > 0 {
			a.trace("skip-sync", fmt.Sprintf("self-heal back-off: attempt %d retrying in %s", a.selfHealAttempts+1, remaining))
			a.refreshAfter(remaining)
			return
		}
		a.selfHealAttempts++
		a.sync(p, diffs, missing, prune, fmt.Sprintf("self-heal attempt %d", a.selfHealAttempts))
		return
	}
	a.selfHealAttempts = 0
	a.sync(p, diffs, missing, prune, fmt.Sprintf("revision %d", a.seenRevision))
}

// selfHealRemaining is selfHealRemainingBackoff.
func (a *Agent) selfHealRemaining(now vtime.Time) time.Duration {
	if !a.hasOp {
		return 0
	}
	since := now.Sub(a.opFinishedAt)
	if a.cfg.SelfHealBackoff == nil {
		return a.cfg.SelfHealTimeout - since
	}
	return a.cfg.SelfHealBackoff.Delay(a.selfHealAttempts) - since
}

// refreshAfter requests a refresh after d (requestAppRefresh with a delay).
func (a *Agent) refreshAfter(d time.Duration) {
	a.k.After(d, func() { a.requestRefresh(false) })
}

// compare diffs the source (at the revision seen) with the informers' caches: drifted and
// missing objects, and managed objects no longer declared.
func (a *Agent) compare() (diffs map[string][]string, missing, prune []string) {
	diffs = map[string][]string{}
	for _, k := range slices.Sorted(maps.Keys(a.source)) {
		d := a.source[k]
		live, ok := a.informers[d.kind].Get(d.namespace, d.name)
		if !ok || live.Meta().DeletionTimestamp != nil {
			missing = append(missing, k)
			continue
		}
		doc, err := toDoc(live)
		if err != nil {
			continue
		}
		var paths []string
		ignoreReplicas := a.cfg.IgnoreHPAReplicas && a.hpaTargets(d)
		for _, top := range []string{"metadata", "spec", "data"} {
			want, ok := d.doc[top]
			if !ok {
				continue
			}
			if top == "metadata" {
				wm, _ := want.(map[string]any)
				want = map[string]any{"labels": wm["labels"], "annotations": wm["annotations"]}
			}
			diffValue(want, doc[top], "/"+top, func(path string) bool {
				return ignoreReplicas && path == "/spec/replicas"
			}, &paths)
		}
		if len(paths) > 0 {
			diffs[k] = paths
		}
	}
	for _, k := range slices.Sorted(maps.Keys(a.managed)) {
		if _, ok := a.source[k]; ok {
			continue
		}
		d := a.managed[k]
		if _, ok := a.informers[d.kind].Get(d.namespace, d.name); ok {
			prune = append(prune, k)
		} else {
			delete(a.managed, k)
		}
	}
	return diffs, missing, prune
}

// hpaTargets reports whether an HPA in the cache scales d.
func (a *Agent) hpaTargets(d *declared) bool {
	inf, ok := a.informers[model.KindHorizontalPodAutoscaler]
	if !ok {
		return false
	}
	for _, o := range inf.ListNamespace(d.namespace, nil) {
		h := o.(*model.HorizontalPodAutoscaler)
		if h.Spec.ScaleTargetRef.Kind == string(d.kind) && h.Spec.ScaleTargetRef.Name == d.name {
			return true
		}
	}
	return false
}

// diffValue appends the paths where live differs from want, looking only at what want sets:
// a mapping key by key, a list item by item (lists of different lengths differ), a scalar
// by its JSON value.
func diffValue(want, live any, path string, ignore func(string) bool, out *[]string) {
	if ignore(path) {
		return
	}
	switch w := want.(type) {
	case map[string]any:
		l, _ := live.(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(w)) {
			if w[k] == nil {
				continue
			}
			diffValue(w[k], l[k], path+"/"+k, ignore, out)
		}
	case []any:
		l, ok := live.([]any)
		if !ok || len(l) != len(w) {
			*out = append(*out, path)
			return
		}
		for i := range w {
			diffValue(w[i], l[i], fmt.Sprintf("%s/%d", path, i), ignore, out)
		}
	default:
		if fmt.Sprint(want) != fmt.Sprint(live) {
			*out = append(*out, path)
		}
	}
}

// setStatus records the compare's outcome and reports a change of sync status.
func (a *Agent) setStatus(diffs map[string][]string, missing, prune []string) {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(diffs)) {
		out = append(out, k+" "+strings.Join(diffs[k], ","))
	}
	for _, k := range missing {
		out = append(out, k+" missing")
	}
	for _, k := range prune {
		out = append(out, k+" requires pruning")
	}
	synced := len(out) == 0
	a.trace("compare", fmt.Sprintf("revision=%d status=%s %s", a.seenRevision, statusWord(synced), strings.Join(out, "; ")))
	if synced != a.synced {
		a.event(model.EventTypeNormal, "ResourceUpdated", fmt.Sprintf("Updated sync status: %s -> %s", statusWord(a.synced), statusWord(synced)))
	}
	a.synced, a.outOfSync = synced, out
	if a.OnStatus != nil {
		a.OnStatus(synced, len(out))
	}
}

func statusWord(synced bool) string {
	if synced {
		return "Synced"
	}
	return "OutOfSync"
}

// sync applies the source: creates what is missing, patches what drifted, prunes (with
// Prune) what is no longer declared.
func (a *Agent) sync(p *sim.Proc, diffs map[string][]string, missing, prune []string, why string) (failed int) {
	rev := a.seenRevision
	if a.cfg.Mode == ModeArgoCD {
		a.event(model.EventTypeNormal, "OperationStarted", fmt.Sprintf("Initiated automated sync to 'revision %d' (%s)", rev, why))
	}
	for _, k := range missing {
		d := a.source[k]
		obj := d.obj.DeepCopyObject()
		m := obj.Meta()
		m.ResourceVersion, m.UID = 0, ""
		if _, err := a.c.Create(p, obj); err != nil && !apierrors.IsAlreadyExists(err) {
			failed++
			a.trace("sync-error", k+": "+err.Error())
			continue
		}
		a.managed[k] = d
		a.trace("sync", k+" created")
	}
	for _, k := range slices.Sorted(maps.Keys(diffs)) {
		d := a.source[k]
		patch, err := a.patchFor(d)
		if err != nil {
			failed++
			continue
		}
		if _, err := a.c.PatchAs(p, d.kind, d.namespace, d.name, model.MergePatchType, patch); err != nil {
			failed++
			a.trace("sync-error", k+": "+err.Error())
			continue
		}
		a.trace("sync", k+" configured "+strings.Join(diffs[k], ","))
	}
	if a.cfg.Prune {
		for _, k := range prune {
			d := a.managed[k]
			if err := a.c.Delete(p, d.kind, d.namespace, d.name, model.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				failed++
				a.trace("sync-error", k+": "+err.Error())
				continue
			}
			delete(a.managed, k)
			a.trace("sync", k+" pruned")
		}
	}
	a.hasOp, a.opFinishedAt = true, p.Now()
	a.syncedRevision = rev
	if a.cfg.Mode == ModeArgoCD {
		if failed > 0 {
			a.event(model.EventTypeWarning, "OperationCompleted", fmt.Sprintf("Sync operation to revision %d failed: %d resources failed", rev, failed))
		} else {
			a.event(model.EventTypeNormal, "OperationCompleted", fmt.Sprintf("Sync operation to revision %d succeeded", rev))
		}
	}
	return failed
}

// patchFor is the merge patch that puts d's manifest back: its spec (or data) and its labels
// and annotations, without fields the compare ignores.
func (a *Agent) patchFor(d *declared) ([]byte, error) {
	patch := map[string]any{}
	for _, top := range []string{"spec", "data"} {
		if v, ok := d.doc[top]; ok {
			patch[top] = v
		}
	}
	if md, ok := d.doc["metadata"].(map[string]any); ok {
		meta := map[string]any{}
		for _, k := range []string{"labels", "annotations"} {
			if v, ok := md[k]; ok {
				meta[k] = v
			}
		}
		if len(meta) > 0 {
			patch["metadata"] = meta
		}
	}
	if a.cfg.IgnoreHPAReplicas && a.hpaTargets(d) {
		if spec, ok := patch["spec"].(map[string]any); ok {
			copied := make(map[string]any, len(spec))
			for k, v := range spec { //detlint:ordered copying a map
				if k != "replicas" {
					copied[k] = v
				}
			}
			patch["spec"] = copied
		}
	}
	return json.Marshal(patch)
}

// runFlux is the kustomize-controller's loop: every interval (jittered), fetch the source,
// apply everything, prune, and report.
func (a *Agent) runFlux(p *sim.Proc) {
	for {
		start := p.Now()
		a.resolve("fetched")
		if d := a.cfg.CompareTime.Sample(a.rand); d > 0 {
			p.Sleep(d)
		}
		diffs, missing, prune := a.compare()
		a.setStatus(diffs, missing, prune)
		if !a.synced {
			failed := a.sync(p, diffs, missing, prune, "interval")
			var changed []string
			for _, k := range slices.Sorted(maps.Keys(diffs)) {
				changed = append(changed, k+" configured")
			}
			for _, k := range missing {
				changed = append(changed, k+" created")
			}
			a.event(model.EventTypeNormal, "Progressing", strings.Join(changed, ", "))
			if failed == 0 {
				// The server-side apply succeeded: what remains out of sync is what
				// prune (off) leaves behind.
				var left []string
				if !a.cfg.Prune {
					left = prune
				}
				a.setStatus(map[string][]string{}, nil, left)
			}
		}
		next := a.fluxInterval()
		a.event(model.EventTypeNormal, "ReconciliationSucceeded",
			fmt.Sprintf("Reconciliation finished in %s, next run in %s", p.Now().Sub(start), next))
		p.Idle(next)
	}
}

// fluxInterval is the interval jittered by up to JitterPercent either way
// (--interval-jitter-percentage).
func (a *Agent) fluxInterval() time.Duration {
	d := a.cfg.Interval
	if a.cfg.JitterPercent > 0 {
		span := float64(d) * float64(a.cfg.JitterPercent) / 100
		d += time.Duration((a.rand.Float64()*2 - 1) * span)
	}
	return d
}

func (a *Agent) event(eventType, reason, message string) {
	a.trace("event", reason+": "+message)
	if a.OnEvent != nil {
		a.OnEvent(eventType, reason, message)
	}
}

func (a *Agent) trace(action, detail string) {
	kind := "Application"
	if a.cfg.Mode == ModeFlux {
		kind = "Kustomization"
	}
	a.k.Emit(Component, action, kind+" "+a.cfg.Name, 0, strings.TrimSpace(detail))
}
