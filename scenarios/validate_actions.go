package scenarios

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/reconsim/reconsim/internal/boundedfile"
	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/metrics"
)

// maxRetryAfterSeconds bounds api-errors' retryAfterSeconds.
const maxRetryAfterSeconds = 3600

// maxGracePeriodSeconds bounds drain's gracePeriodSeconds (a year).
const maxGracePeriodSeconds = 365 * 24 * 3600

// lastElem returns the last field name of a path ("timeline[0].for" -> "for").
func lastElem(path string) string {
	if i := strings.LastIndexAny(path, ".["); i >= 0 && path[i] == '.' {
		return path[i+1:]
	}
	return path
}

// checkPositive requires a written duration to be greater than 0 and at most MaxDuration.
func (l *loader) checkPositive(d time.Duration, path string) {
	if !l.ix.has(path) || l.bad(path) {
		return
	}
	switch {
	case d <= 0:
		l.errPath(path, fmt.Sprintf("%s must be greater than 0, got %s", lastElem(path), d), "")
	case d > MaxDuration:
		l.errPath(path, fmt.Sprintf("%s must be at most %s, got %s", lastElem(path), MaxDuration, d), "")
	}
}

// checkNonNegative requires a written duration to be at least 0 and at most MaxDuration.
func (l *loader) checkNonNegative(d time.Duration, path string) {
	if !l.ix.has(path) || l.bad(path) {
		return
	}
	switch {
	case d < 0:
		l.errPath(path, fmt.Sprintf("%s must not be negative, got %s", lastElem(path), d), "")
	case d > MaxDuration:
		l.errPath(path, fmt.Sprintf("%s must be at most %s, got %s", lastElem(path), MaxDuration, d), "")
	}
}

// checkCount requires a written count to be between 0 and MaxReplicas.
func (l *loader) checkCount(n int64, path string) {
	if l.ix.has(path) && !l.bad(path) && (n < 0 || n > MaxReplicas) {
		l.errPath(path, fmt.Sprintf("%s must be between 0 and %d, got %d", lastElem(path), MaxReplicas, n), "")
	}
}

// orList writes kinds as "a Deployment or StatefulSet".
func orList(kinds []model.Kind) string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	switch len(names) {
	case 0:
		return "nothing"
	case 1:
		return "a " + names[0]
	}
	return "a " + strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

func (l *loader) checkRollout(r *RolloutArgs, i int, p string) {
	before := l.problems()
	tp, ip, ap := childPath(p, "template"), childPath(p, "image"), childPath(p, "annotations")
	l.checkRef(r.Target, childPath(p, "target"), rolloutKinds)
	if l.ix.has(tp) && r.Template == nil {
		l.errPath(tp, "missing value", argHint("timeline.rollout", "template"))
	}
	if l.ix.has(ip) && r.Image == nil && !l.bad(ip) {
		l.errPath(ip, "missing value", argHint("timeline.rollout", "image"))
	}
	if !l.ix.has(tp) && !l.ix.has(ip) && !l.ix.has(ap) {
		l.errAt(l.ix.nearest(p), p, "a rollout needs image, template or annotations",
			"image: {container: web, image: nginx:1.28} changes one image; template: {...} patches the pod template; annotations: {...} restarts the pods")
	}
	if r.Image != nil && !l.bad(ip) {
		for _, f := range []struct{ name, value, hint string }{
			{"container", r.Image.Container, "the name of the container whose image changes"},
			{"image", r.Image.Image, "the new image, e.g. nginx:1.28"},
		} {
			fp := childPath(ip, f.name)
			switch {
			case !l.ix.has(fp):
				l.errAt(l.ix.nearest(ip), ip, "missing "+f.name, f.hint)
			case f.value == "":
				l.errPath(fp, "missing value", f.hint)
			}
		}
	}
	if r.Template != nil && !l.bad(tp) {
		var t model.PodTemplateSpec
		l.decodeInto(r.Template, tp, &t)
	}
	for _, k := range slices.Sorted(maps.Keys(r.Annotations)) {
		kp := keyPath(ap, k)
		if msgs := validation.IsQualifiedName(k); len(msgs) > 0 {
			l.errAt(l.ix.keyOrNearest(kp), kp, fmt.Sprintf("invalid annotation key %q: %s", k, firstMsg(msgs)), "")
		}
	}
	if l.problems() > before {
		return
	}
	// Roll the declared object out now: a missing container or a template the API server
	// would reject is found here rather than in the middle of the run.
	for _, d := range l.declaredAs(r.Target.Kind, r.Target.Namespace, r.Target.Name) {
		tmpl := model.WorkloadTemplate(d.obj)
		if tmpl == nil {
			continue
		}
		next, err := r.ApplyTo(*tmpl)
		if err != nil {
			at := tp
			if r.Image != nil && strings.Contains(err.Error(), "has no container") {
				at = childPath(ip, "container")
			}
			l.errPath(at, err.Error(), "")
			return
		}
		probe := d.obj.DeepCopyObject()
		*model.WorkloadTemplate(probe) = next
		model.SetDefaults(probe)
		for _, fe := range model.Validate(probe) {
			// Point into the fragment when the problem is in a field it writes.
			at := p
			if rest, ok := strings.CutPrefix(fe.Field, "spec.template."); ok && r.Template != nil && l.ix.has(joinPath(tp, rest)) {
				at = joinPath(tp, rest)
			}
			l.errAt(l.ix.nearest(at), at, fmt.Sprintf("after this rollout %s %s would be invalid: %s: %s",
				r.Target.Kind, model.Key(d.obj), fe.Field, fe.ErrorBody()), "the API server would reject it")
		}
		return
	}
}

// templateChanges counts the timeline entries other than skip that give the object ref a new
// pod template: rollouts of it and applies of a manifest of it.
func (l *loader) templateChanges(ref ObjectRef, skip int) int {
	n := 0
	for j, e := range l.s.Timeline {
		if j == skip {
			continue
		}
		a := e.Action
		if a.Rollout != nil && a.Rollout.Target == ref {
			n++
		}
		if a.Apply != nil {
			for _, o := range a.Apply.Objects {
				if o != nil && o.GetKind() == ref.Kind && model.Key(o) == model.KeyOf(ref.Namespace, ref.Name) {
					n++
				}
			}
		}
	}
	return n
}

func (l *loader) checkRollback(r *RollbackArgs, i int, p string) {
	before := l.problems()
	l.checkRef(r.Target, childPath(p, "target"), deploymentOnly)
	rp := childPath(p, "toRevision")
	if r.ToRevision < 0 {
		l.errPath(rp, fmt.Sprintf("toRevision must not be negative, got %d", r.ToRevision), "0 rolls back to the previous revision")
		return
	}
	if l.problems() > before || !l.ix.has(childPath(p, "target")) {
		return
	}
	revisions := l.templateChanges(r.Target, i)
	for _, d := range l.declaredAs(r.Target.Kind, r.Target.Namespace, r.Target.Name) {
		if d.inObjects {
			revisions++
			break
		}
	}
	switch {
	case revisions < 2:
		l.errAt(l.ix.nearest(p), p, fmt.Sprintf("nothing in the timeline rolls out %s, so it has no earlier revision to roll back to", r.Target),
			"add a rollout of it before the rollback")
	case r.ToRevision > int64(revisions):
		l.errPath(rp, fmt.Sprintf("toRevision %d, but %s has at most %d revisions in this scenario", r.ToRevision, r.Target, revisions),
			"revision 1 is the template it starts with; each rollout adds one")
	}
}

func (l *loader) checkDrain(d *DrainArgs, p string, nodes []ClusterNode) {
	l.checkNodes(d.Nodes, p, nodes)
	l.checkNonNegative(d.Timeout, childPath(p, "timeout"))
	gp := childPath(p, "gracePeriodSeconds")
	if g := d.GracePeriodSeconds; g != nil && (*g < 0 || *g > maxGracePeriodSeconds) {
		l.errPath(gp, fmt.Sprintf("gracePeriodSeconds must be between 0 and %d, got %d", maxGracePeriodSeconds, *g),
			"leave it out to give each pod its own terminationGracePeriodSeconds")
	}
}

// clientNames returns the client names of a run with these nodes (Scenario.ClientNames).
func clientNames(nodes []ClusterNode) []string {
	out := append([]string(nil), controlPlaneClients...)
	for _, n := range nodes {
		out = append(out, "kubelet/"+n.Name)
	}
	return out
}

func (l *loader) checkFilter(f RequestFilter, p string, nodes []ClusterNode) {
	vp, rp := childPath(p, "verbs"), childPath(p, "resources")
	for k, v := range f.Verbs {
		if !slices.Contains(verbNames, v) {
			l.errPath(indexPath(vp, k), fmt.Sprintf("unknown verb %q", v), hintOr(didYouMean(v, verbNames), "verbs: "+strings.Join(verbNames, ", ")))
		}
	}
	all := append(resourceNames(), l.customResourceNames()...)
	for k, r := range f.Resources {
		if slices.Contains(all, r) {
			continue
		}
		hint := didYouMean(r, all)
		if ki, ok := lookupKindFold(r); ok {
			hint = fmt.Sprintf("resources are named as in RBAC rules: %s", ki.Resource)
		}
		l.errPath(indexPath(rp, k), fmt.Sprintf("unknown resource %q", r), hintOr(hint, "resources: "+strings.Join(all, ", ")))
	}
	l.checkClientPatterns(f.Clients, childPath(p, "clients"), nodes)
}

// lookupKindFold finds a kind by its name in any case ("pod", "Deployment").
func lookupKindFold(name string) (model.KindInfo, bool) {
	for _, k := range model.Kinds() {
		if strings.EqualFold(string(k.Kind), name) {
			return k, true
		}
	}
	return model.KindInfo{}, false
}

func hintOr(hint, otherwise string) string {
	if hint != "" {
		return hint
	}
	return otherwise
}

func (l *loader) checkClientPatterns(patterns []string, path string, nodes []ClusterNode) {
	if l.nodesUnknown {
		return // kubelet/<node> names depend on the nodes
	}
	// The caller's controllers (ParseOptions.Controllers) each have a client of their name.
	names := append(clientNames(nodes), l.opts.Controllers...)
	for k, pat := range patterns {
		pp := indexPath(path, k)
		if pat == "" {
			l.errPath(pp, "empty client pattern", `a client name such as "replicaset-controller", or a pattern such as "kubelet/*"`)
			continue
		}
		matched := false
		for _, n := range names {
			if MatchClient(pat, n) {
				matched = true
				break
			}
		}
		if !matched {
			l.errPath(pp, fmt.Sprintf("no client of this scenario matches %q", pat),
				hintOr(didYouMean(pat, names), "clients: "+strings.Join(controlPlaneClients, ", ")+", kubelet/<node>"))
		}
	}
}

func (l *loader) checkAPIErrors(a *APIErrorsArgs, p string, nodes []ClusterNode) {
	l.checkFilter(a.RequestFilter, p, nodes)
	fp, cp, rp := childPath(p, "fraction"), childPath(p, "code"), childPath(p, "retryAfterSeconds")
	if l.ix.has(fp) && !l.bad(fp) && !(a.Fraction > 0 && a.Fraction <= 1) {
		l.errPath(fp, fmt.Sprintf("fraction must be in (0, 1], got %g", a.Fraction), "0.1 fails one selected request in ten, 1 fails them all")
	}
	codes := make([]string, len(APIErrorCodes))
	okCode := false
	for i, c := range APIErrorCodes {
		codes[i] = strconv.Itoa(c)
		okCode = okCode || c == a.Code
	}
	if l.ix.has(cp) && !l.bad(cp) && !okCode {
		l.errPath(cp, fmt.Sprintf("unsupported code %d", a.Code), "codes: "+strings.Join(codes, ", "))
	}
	switch {
	case a.RetryAfterSeconds < 0 || a.RetryAfterSeconds > maxRetryAfterSeconds:
		l.errPath(rp, fmt.Sprintf("retryAfterSeconds must be between 0 and %d, got %d", maxRetryAfterSeconds, a.RetryAfterSeconds), "")
	case a.RetryAfterSeconds > 0 && a.Code == 409:
		l.errPath(rp, "client-go does not retry a 409 Conflict, so a Retry-After has no effect",
			"remove retryAfterSeconds; controllers handle conflicts by requeueing")
	}
	l.checkPositive(a.For, childPath(p, "for"))
}

// checkComponentName checks a component name written at path against allowed.
func (l *loader) checkComponentName(name, path string, allowed []string) {
	if !l.ix.has(path) || l.bad(path) || slices.Contains(allowed, name) {
		return
	}
	if name == "" {
		l.errPath(path, "missing value", "components: "+strings.Join(allowed, ", "))
		return
	}
	l.errPath(path, fmt.Sprintf("unknown component %q", name), hintOr(didYouMean(name, allowed), "components: "+strings.Join(allowed, ", ")))
}

func (l *loader) checkWatchStall(w *WatchStallArgs, p string, nodes []ClusterNode) {
	cp, clp := childPath(p, "component"), childPath(p, "clients")
	switch {
	case l.ix.has(cp) && l.ix.has(clp):
		l.errAt(l.ix.keyOrNearest(clp), clp, "component and clients exclude each other", "stall a component, or the clients matching patterns")
	case !l.ix.has(cp) && !l.ix.has(clp):
		l.errAt(l.ix.nearest(p), p, "missing component or clients", argHint("timeline.watch-stall", "component"))
	case l.ix.has(cp) && slices.Contains(controllerNames, w.Component):
		l.errPath(cp, fmt.Sprintf("%s has no watches of its own", w.Component),
			"the controllers share kube-controller-manager's informers: stall component: kube-controller-manager")
	case l.ix.has(cp):
		l.checkComponentName(w.Component, cp, stallableComponents())
	default:
		if len(w.Clients) == 0 && !l.bad(clp) {
			l.errPath(clp, "clients is empty", argHint("timeline.watch-stall", "clients"))
		}
		l.checkClientPatterns(w.Clients, clp, nodes)
	}
	l.checkPositive(w.For, childPath(p, "for"))
}

// checkBound checks the workload bound of pods-at-most and available-at-least: a count, or
// the bound the Deployment's RollingUpdate strategy gives (derivedKey, naming what).
func (l *loader) checkBound(target ObjectRef, count *int32, derived bool, p, derivedKey, what string) {
	tp, cp, dp := childPath(p, "target"), childPath(p, "count"), childPath(p, derivedKey)
	l.checkRef(target, tp, scalableKinds)
	switch {
	case count != nil && derived:
		l.errAt(l.ix.keyOrNearest(dp), dp, "count and "+derivedKey+" exclude each other", "either a fixed count, or the bound the Deployment's strategy gives")
		return
	case count == nil && !derived && l.ix.has(dp):
		l.errPath(dp, derivedKey+": false sets no bound", fmt.Sprintf("write count: N, or %s: true", derivedKey))
		return
	case count == nil && !derived:
		l.errAt(l.ix.nearest(p), p, "missing count or "+derivedKey, fmt.Sprintf("count: N for a fixed bound, or %s: true", derivedKey))
		return
	case count != nil:
		l.checkCount(int64(*count), cp)
		return
	}
	if l.bad(tp) || !l.ix.has(tp) || target.Kind == "" {
		return
	}
	if target.Kind != model.KindDeployment {
		l.errPath(childPath(tp, "kind"), fmt.Sprintf("%s needs a Deployment; a %s has no %s", derivedKey, target.Kind, what), "use count: N")
		return
	}
	for _, d := range l.declaredAs(target.Kind, target.Namespace, target.Name) {
		if dep, ok := d.obj.(*model.Deployment); ok && dep.Spec.Strategy.Type == model.RecreateDeploymentStrategyType {
			l.errPath(dp, fmt.Sprintf("%s uses the Recreate strategy, which has no %s", target, what), "use count: N")
			return
		}
	}
}

func (l *loader) checkService(a *ReadyEndpointsAtLeastArgs, p string) {
	sp := childPath(p, "service")
	if !l.ix.has(sp) || l.bad(sp) {
		return
	}
	if a.Service == "" {
		l.errPath(sp, "missing value", "the Service's name, e.g. service: web")
		return
	}
	l.checkDeclared(model.KindService, a.Namespace, a.Service, sp)
}

// checkLoads defaults and validates the loads: series files are read, sim/metrics checks
// each spec, targets and described objects must be declared.
func (l *loader) checkLoads() {
	s := l.s
	for i := range s.Loads {
		p := indexPath("loads", i)
		if l.broken(p) {
			continue
		}
		spec := &s.Loads[i]
		spec.SetDefaults()
		l.readSeries(&spec.Shape, childPath(p, "shape"))
		tp := childPath(p, "target")
		if k := model.Kind(spec.Target.Kind); !l.bad(tp) && containsKind(scalableKinds, k) && spec.Target.Name != "" {
			l.checkDeclared(k, spec.Target.Namespace, spec.Target.Name, childPath(tp, "name"))
		}
		for j, o := range spec.Objects {
			op := indexPath(childPath(p, "objects"), j)
			if ki, ok := model.LookupKind(model.Kind(o.Kind)); ok && ki.Namespaced && o.Name != "" && !l.bad(op) {
				l.checkDeclared(ki.Kind, spec.Target.Namespace, o.Name, childPath(op, "name"))
			}
		}
	}
	for i := range s.Loads {
		l.checkFieldsWritten(reflect.TypeFor[metrics.LoadSpec](), indexPath("loads", i), "loads")
	}
	for _, fe := range metrics.ValidateLoads(s.Loads, "loads") {
		if !l.reported[fe.Path] {
			l.errPath(fe.Path, fe.Message, "")
		}
	}
}

// checkFieldsWritten reports the required fields (json tags without omitempty) of the struct
// type t written at path that the file leaves out, and checks the written ones' fields the
// same way. key is the canonical key of path, for hints.
func (l *loader) checkFieldsWritten(t reflect.Type, path, key string) {
	if !l.ix.has(path) || l.broken(path) {
		return
	}
	for _, f := range argFields(t) {
		fp, fk := childPath(path, f.name), joinKey(key, f.name)
		ft := f.typ
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft == shapeType {
			fk = "shape"
		}
		if !l.ix.has(fp) {
			if f.required() {
				l.markReported(fp)
				l.errAt(l.ix.nearest(path), path, "missing "+f.name, keyHint(fk))
			}
			continue
		}
		switch {
		case ft.Kind() == reflect.Struct && ft != quantityType:
			l.checkFieldsWritten(ft, fp, fk)
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			for k := 0; l.ix.has(indexPath(fp, k)); k++ {
				l.checkFieldsWritten(ft.Elem(), indexPath(fp, k), fk)
			}
		}
	}
}

// readSeries reads the CSV file of a series shape at path (the shape) into its points.
// Problems inside the file point into it (file:line:col).
func (l *loader) readSeries(shape *metrics.Shape, path string) {
	sr := shape.Series
	fp := childPath(childPath(path, "series"), "file")
	if sr == nil || sr.File == "" || l.bad(fp) {
		return
	}
	n := resolve(l.ix.nearest(fp))
	l.markReported(fp) // until the points are read, metrics' check would say they were not
	if len(sr.Points) > 0 {
		l.errAt(n, fp, "a series takes file or points, not both", "")
		return
	}
	if l.baseDir == "" {
		l.errAt(n, fp, "file references are not available here",
			"this scenario has no directory on disk (a built-in scenario); write the points inline")
		return
	}
	full, ok := l.refPath(sr.File, n, fp)
	if !ok {
		return
	}
	data, err := boundedfile.Read(full, MaxFileBytes)
	if err != nil {
		l.errAt(n, fp, "cannot read the series file: "+err.Error(), "paths are relative to the scenario file's directory")
		return
	}
	points, err := metrics.ParseSeriesCSV(bytes.NewReader(data), full)
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			if m := seriesProblem.FindStringSubmatch(line); m != nil {
				ln, _ := strconv.Atoi(m[2])
				l.add(&model.DecodeError{Pos: model.Position{File: m[1], Line: ln, Column: 1}, Msg: m[3],
					Hint: "a series file has lines of seconds,value"})
				continue
			}
			l.errAt(n, fp, line, "a series file has lines of seconds,value")
		}
		return
	}
	sr.Points = points
}

// markReported records that the problem at path was reported.
func (l *loader) markReported(path string) {
	if l.reported == nil {
		l.reported = map[string]bool{}
	}
	l.reported[path] = true
}

// seriesProblem matches one problem of metrics.ParseSeriesCSV: "file:line: message".
var seriesProblem = regexp.MustCompile(`^(.+):(\d+): (.*)$`)

// checkLoadAction checks a load action: a declared workload that `loads:` gives a load, and a
// valid shape.
func (l *loader) checkLoadAction(a *LoadArgs, p string) {
	before := l.problems()
	tp, sp := childPath(p, "target"), childPath(p, "shape")
	l.checkRef(a.Target, tp, scalableKinds)
	if l.ix.has(sp) && !l.bad(sp) {
		l.readSeries(&a.Shape, sp)
		l.checkFieldsWritten(shapeType, sp, "shape")
		for _, fe := range a.Shape.Validate(sp) {
			if !l.reported[fe.Path] {
				l.errPath(fe.Path, fe.Message, "")
			}
		}
	}
	if l.problems() > before || !l.ix.has(tp) {
		return
	}
	for _, spec := range l.s.Loads {
		if spec.Target.Kind == string(a.Target.Kind) && spec.Target.Namespace == a.Target.Namespace && spec.Target.Name == a.Target.Name {
			return
		}
	}
	l.errPath(tp, fmt.Sprintf("no entry of loads: is for %s", a.Target),
		"declare the load and its usage model under loads:; a load action changes its shape")
}

func (l *loader) checkMetric(m *MetricExpectation, p string, entryNames []string) {
	sp, ap := childPath(p, "series"), childPath(p, "aggregate")
	for _, f := range []string{"series", "aggregate"} {
		if !l.ix.has(childPath(p, f)) {
			l.errAt(l.ix.nearest(p), p, "missing "+f, argHint("expect.metric", f))
		}
	}
	if l.ix.has(sp) && !l.bad(sp) {
		known := false
		for _, prefix := range seriesPrefixes {
			if strings.HasPrefix(m.Series, prefix) {
				known = true
			}
		}
		switch {
		case m.Series == "":
			l.errPath(sp, "missing value", argHint("expect.metric", "series"))
		case !known:
			family, _, _ := strings.Cut(m.Series, ".")
			hint := didYouMean(family+".", seriesPrefixes)
			l.warnAt(l.ix.nearest(sp), sp, fmt.Sprintf("series %q is in none of the families the simulator records (%s); the expectation fails unless such a series is recorded%s",
				m.Series, strings.Join(seriesPrefixes, " "), bracket(hint)))
		}
	}
	if l.ix.has(ap) && !l.bad(ap) && !slices.Contains(metricAggregates, string(m.Aggregate)) {
		l.errPath(ap, fmt.Sprintf("unknown aggregate %q", m.Aggregate), hintOr(didYouMean(string(m.Aggregate), metricAggregates), "aggregates: "+strings.Join(metricAggregates, ", ")))
	}
	if m.Max == nil && m.Min == nil && !l.bad(childPath(p, "max")) && !l.bad(childPath(p, "min")) {
		l.errAt(l.ix.nearest(p), p, "a metric expectation needs max or min", "max: X holds when the aggregate is at most X; min: X when it is at least X")
	}
	for _, b := range []struct {
		name string
		v    *float64
	}{{"max", m.Max}, {"min", m.Min}} {
		if b.v != nil && (math.IsNaN(*b.v) || math.IsInf(*b.v, 0)) {
			l.errPath(childPath(p, b.name), fmt.Sprintf("%s must be a finite number", b.name), "")
		}
	}
	if m.Max != nil && m.Min != nil && *m.Min > *m.Max {
		l.errPath(childPath(p, "min"), fmt.Sprintf("min %g is more than max %g: nothing can hold", *m.Min, *m.Max), "")
	}
	l.checkWindow(m.Within, childPath(p, "within"), entryNames)
}

// bracket writes a hint as " (hint)", or "" for none.
func bracket(hint string) string {
	if hint == "" {
		return ""
	}
	return " (" + hint + ")"
}

// checkElected checks the component of a leader fault: kube-controller-manager when empty,
// and it must run leader election.
func (l *loader) checkElected(component, p string) {
	cp := childPath(p, "component")
	if component != "" {
		l.checkComponentName(component, cp, electedComponents())
		if !slices.Contains(electedComponents(), component) {
			return
		}
	} else {
		component = ComponentControllerManager
	}
	if !l.s.Components.Elections(component) {
		at := p
		if l.ix.has(cp) {
			at = cp
		}
		l.errPath(at, fmt.Sprintf("%s runs without leader election, so it has no leader to fault", component),
			fmt.Sprintf("run two or more replicas: components: {%s: {replicas: 3}}", component))
	}
}

// checkCommit checks that a commit: true action has a GitOps agent to commit to.
func (l *loader) checkCommit(commit bool, p string) {
	if commit && !l.s.Components.GitOpsAgent() {
		l.errPath(childPath(p, "commit"), "commit: true needs the GitOps agent, which this scenario does not run",
			"components: {gitops-agent: {mode: argocd}}")
	}
}

// checkAPILoad checks an api-load action: a known verb (list, get or patch) and resource, a
// get's or patch's object, workers within bounds, a non-negative qps and a positive for.
func (l *loader) checkAPILoad(a *APILoadArgs, p string) {
	if vp := childPath(p, "verb"); a.Verb != "" && a.Verb != "list" && a.Verb != "get" && a.Verb != "patch" {
		l.errPath(vp, fmt.Sprintf("unknown verb %q", a.Verb), "api-load sends list, get or patch")
	}
	if a.Resource != "" {
		all := append(resourceNames(), l.customResourceNames()...)
		if !slices.Contains(all, a.Resource) {
			hint := didYouMean(a.Resource, all)
			if ki, ok := lookupKindFold(a.Resource); ok {
				hint = fmt.Sprintf("resources are named as in RBAC rules: %s", ki.Resource)
			}
			l.errPath(childPath(p, "resource"), fmt.Sprintf("unknown resource %q", a.Resource), hintOr(hint, "resources: "+strings.Join(all, ", ")))
		}
	}
	if (a.Verb == "get" || a.Verb == "patch") && a.Object == "" {
		l.errPath(p, fmt.Sprintf("an api-load %s needs the name of its object", a.Verb), "object: <name>")
	}
	if wp := childPath(p, "workers"); l.ix.has(wp) && (a.Workers < 1 || a.Workers > MaxAPILoadWorkers) {
		l.errPath(wp, fmt.Sprintf("workers must be between 1 and %d, got %d", MaxAPILoadWorkers, a.Workers), "")
	}
	if qp := childPath(p, "qps"); l.ix.has(qp) && (a.QPS < 0 || a.QPS > 1e6) {
		l.errPath(qp, fmt.Sprintf("qps must be between 0 and 1000000, got %g", a.QPS), "0 means no client-side limit")
	}
	l.checkPositive(a.For, childPath(p, "for"))
}
