package scenarios

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/reconsim/reconsim/model"
)

// applyDefaults fills in what the file leaves out. Presence is judged from the file (the
// node index), so an explicit 0 stays 0.
func (l *loader) applyDefaults() {
	s, ix := l.s, l.ix
	if !ix.has("seed") {
		s.Seed = DefaultSeed
	}
	if !ix.has("stop.maxEvents") {
		s.Stop.MaxEvents = DefaultMaxEvents
	}
	if !ix.has("stop.quiescence") {
		s.Stop.Quiescence = DefaultQuiescence
	}
	for i := range s.Cluster.NodeGroups {
		g := &s.Cluster.NodeGroups[i]
		if !ix.has(childPath(indexPath("cluster.nodeGroups", i), "namePrefix")) {
			g.NamePrefix = g.Name + "-"
		}
		if g.Allocatable == nil && len(g.Capacity) > 0 {
			g.Allocatable = model.ResourceList{}
		}
		for _, r := range slices.Sorted(maps.Keys(g.Capacity)) {
			if _, ok := g.Allocatable[r]; !ok {
				g.Allocatable[r] = g.Capacity[r].DeepCopy()
			}
		}
	}
	for i := range s.Timeline {
		a := &s.Timeline[i].Action
		p := indexPath("timeline", i)
		if t := a.Target(); t != nil {
			l.defaultNamespace(t)
		}
		if a.Drain != nil && !ix.has(childPath(p, "ignoreDaemonSets")) {
			a.Drain.IgnoreDaemonSets = true
		}
		if a.APIErrors != nil && a.APIErrors.Code == 429 && !ix.has(childPath(p, "retryAfterSeconds")) {
			a.APIErrors.RetryAfterSeconds = model.DefaultRetryAfterSeconds
		}
	}
	for i := range s.Expect {
		x := &s.Expect[i]
		if x.Event != nil && !ix.has(childPath(indexPath("expect", i), "event.count")) {
			x.Event.Count = 1
		}
		for _, c := range []*ConditionExpectation{x.Eventually, x.Always, x.Never} {
			if c == nil {
				continue
			}
			if t := c.Condition.Target(); t != nil {
				l.defaultNamespace(t)
			}
			if re := c.Condition.ReadyEndpointsAtLeast; re != nil && re.Namespace == "" {
				re.Namespace = "default"
			}
		}
	}
	l.defaultExplore()
	for _, d := range l.declared {
		if d.obj == nil {
			continue
		}
		if ki, ok := l.lookupKind(d.obj.GetKind()); ok && ki.Namespaced && d.obj.Meta().Namespace == "" {
			d.obj.Meta().Namespace = "default"
		}
	}
}

// defaultNamespace sets "default" on a reference to a namespaced kind without a namespace.
func (l *loader) defaultNamespace(r *ObjectRef) {
	if ki, ok := l.lookupKind(r.Kind); ok && ki.Namespaced && r.Namespace == "" {
		r.Namespace = "default"
	}
}

// sortedContains reports whether sorted, a sorted slice, holds s.
func sortedContains(sorted []string, s string) bool {
	_, found := slices.BinarySearch(sorted, s)
	return found
}

// bad reports whether decoding already found a problem at path, inside it, or at one of its
// ancestors: checks of that value would only repeat the problem in other words.
func (l *loader) bad(path string) bool {
	ix := l.decodeErrIndex()
	return ix.inside[path] || l.broken(path)
}

// broken reports whether decoding found a problem at path itself or at one of its ancestors
// (the value as a whole is unusable), ignoring problems inside it.
func (l *loader) broken(path string) bool {
	ix := l.decodeErrIndex()
	if ix.at[path] {
		return true
	}
	for p := path; p != ""; {
		p = parentPath(p)
		if ix.at[p] {
			return true
		}
	}
	return false
}

// errIndex holds the paths of the problems decoding found (at), and every path that has one
// of them inside it (inside), so bad and broken cost a few map lookups, not a pass over
// every problem: with many problems and many checks that pass was quadratic.
type errIndex struct {
	at, inside map[string]bool
}

func (l *loader) decodeErrIndex() *errIndex {
	if l.errIx != nil {
		return l.errIx
	}
	ix := &errIndex{at: map[string]bool{}, inside: map[string]bool{}}
	paths := l.unlistedDecodePaths
	for _, e := range l.errs[:l.decodeErrs] {
		paths = append(paths, e.Path)
	}
	for _, path := range paths {
		ix.at[path] = true
		for p := path; p != ""; {
			p = parentPath(p)
			if ix.inside[p] {
				break // and so are its ancestors
			}
			ix.inside[p] = true
		}
	}
	l.errIx = ix
	return ix
}

// validate checks everything decoding cannot: required keys, ranges, references between
// parts of the scenario, and that node and object names exist.
func (l *loader) validate() {
	l.decodeErrs, l.validating = len(l.errs), true
	l.errIx, l.declIx = nil, nil // defaulting changed the objects' namespaces
	if l.root == nil || l.root.Kind != yaml.MappingNode {
		return
	}
	l.checkIdentity()
	l.checkLimits()
	nodes := l.checkCluster()
	namespaces := l.knownNamespaces()
	l.checkObjects(namespaces, nodes)
	l.checkSettled()
	l.checkLoads()
	l.checkTimeline(nodes)
	l.checkExpectations()
	l.checkExplore(nodes)
	l.checkComponents()
}

func (l *loader) checkIdentity() {
	s, ix := l.s, l.ix
	if !l.bad("apiVersion") {
		switch {
		case !ix.has("apiVersion"):
			l.errAt(l.root, "", "missing apiVersion", fmt.Sprintf("add apiVersion: %s", APIVersion))
		case s.APIVersion != APIVersion:
			l.errPath("apiVersion", fmt.Sprintf("apiVersion %q is not a scenario apiVersion", s.APIVersion), fmt.Sprintf("use %q", APIVersion))
		}
	}
	if !l.bad("kind") {
		switch {
		case !ix.has("kind"):
			l.errAt(l.root, "", "missing kind", fmt.Sprintf("add kind: %s", Kind))
		case s.Kind != Kind:
			hint := fmt.Sprintf("use %q", Kind)
			if _, isManifest := model.LookupKind(model.Kind(s.Kind)); isManifest {
				hint = fmt.Sprintf("this looks like a Kubernetes manifest; a scenario has kind: %s and lists manifests under objects:", Kind)
			}
			l.errPath("kind", fmt.Sprintf("kind %q is not %s", s.Kind, Kind), hint)
		}
	}
	if !l.bad("name") {
		switch {
		case s.Name == "":
			l.errAt(l.ix.keyOrNearest("name"), "name", "missing name", "the scenario's name, e.g. name: node-failure (also the default output directory out/<name>)")
		default:
			if msgs := validation.IsDNS1123Subdomain(s.Name); len(msgs) > 0 {
				l.errPath("name", fmt.Sprintf("invalid name %q: %s", s.Name, firstMsg(msgs)), "")
			}
		}
	}
	if !l.bad("duration") {
		switch {
		case !ix.has("duration"):
			l.errAt(l.root, "duration", "missing duration", "the virtual-time limit of the run, e.g. duration: 20m")
		default:
			if msg := durationProblem(s.Duration); msg != "" {
				l.errPath("duration", msg, "the virtual-time limit of the run, e.g. duration: 20m")
			}
		}
	}
}

// durationProblem says what is wrong with a run duration, or "".
func durationProblem(d time.Duration) string {
	switch {
	case d <= 0:
		return fmt.Sprintf("duration must be greater than 0, got %s", d)
	case d > MaxDuration:
		return fmt.Sprintf("duration %s is longer than the limit of %s (30 days)", d, MaxDuration)
	}
	return ""
}

func (l *loader) checkLimits() {
	s := l.s
	if !l.bad("stop.maxEvents") && l.ix.has("stop.maxEvents") {
		if s.Stop.MaxEvents == 0 || s.Stop.MaxEvents > MaxMaxEvents {
			l.errPath("stop.maxEvents", fmt.Sprintf("maxEvents must be between 1 and %d, got %d", uint64(MaxMaxEvents), s.Stop.MaxEvents), "")
		}
	}
	if !l.bad("stop.quiescence") && s.Stop.Quiescence < 0 {
		l.errPath("stop.quiescence", fmt.Sprintf("quiescence must not be negative, got %s", s.Stop.Quiescence), "0 disables the quiescence stop")
	}
}

// knownResources are the node resources the simulator understands besides extended ones
// (names with a domain, like example.com/gpu).
var knownResources = []string{"cpu", "memory", "pods", "ephemeral-storage"}

func (l *loader) checkCluster() []ClusterNode {
	s := l.s
	groupAt := map[string]int{}
	nodeGroupOf := map[string]string{}
	total := 0
	for i := range s.Cluster.NodeGroups {
		g := &s.Cluster.NodeGroups[i]
		p := indexPath("cluster.nodeGroups", i)
		if l.broken(p) {
			l.nodesUnknown = true
			continue
		}
		switch {
		case g.Name == "":
			l.errAt(l.ix.nearest(p), p, "missing name", "node names are name-0, name-1, ...")
		default:
			if msgs := validation.IsDNS1123Label(g.Name); len(msgs) > 0 {
				l.errPath(childPath(p, "name"), fmt.Sprintf("invalid node group name %q: %s", g.Name, firstMsg(msgs)), "")
			}
			if j, dup := groupAt[g.Name]; dup {
				l.errPath(childPath(p, "name"), fmt.Sprintf("duplicate node group name %q (also cluster.nodeGroups[%d])", g.Name, j), "")
			}
			groupAt[g.Name] = i
		}
		if !l.ix.has(childPath(p, "count")) {
			l.errAt(l.ix.nearest(p), p, "missing count", "how many nodes the group has")
			l.nodesUnknown = true
		} else if l.bad(childPath(p, "count")) {
			l.nodesUnknown = true
			continue
		} else if g.Count < 0 || g.Count > MaxClusterNodes {
			l.errPath(childPath(p, "count"), fmt.Sprintf("count must be between 0 and %d, got %d", MaxClusterNodes, g.Count), "")
			l.nodesUnknown = true
			continue
		}
		if total <= MaxClusterNodes && total+g.Count > MaxClusterNodes {
			l.errPath(childPath(p, "count"), fmt.Sprintf("the cluster has more than %d nodes", MaxClusterNodes), "")
			l.nodesUnknown = true
		}
		total += g.Count
		if g.Count > 0 && total <= MaxClusterNodes {
			if msgs := validation.IsDNS1123Subdomain(g.NodeName(g.Count - 1)); len(msgs) > 0 {
				l.errPath(childPath(p, "namePrefix"), fmt.Sprintf("node name %q is invalid: %s", g.NodeName(g.Count-1), firstMsg(msgs)), "")
			} else {
				for k := 0; k < g.Count; k++ {
					n := g.NodeName(k)
					if other, dup := nodeGroupOf[n]; dup {
						l.errPath(childPath(p, "namePrefix"), fmt.Sprintf("node %s is also a node of group %q", n, other), "give the groups different names or namePrefix")
						break
					}
					nodeGroupOf[n] = g.Name
				}
			}
		}
		for _, zr := range []struct{ key, val string }{{"zone", g.Zone}, {"region", g.Region}} {
			if msgs := validation.IsValidLabelValue(zr.val); len(msgs) > 0 {
				l.errPath(childPath(p, zr.key), fmt.Sprintf("invalid %s %q: %s", zr.key, zr.val, firstMsg(msgs)), "")
			}
		}
		l.checkResources(g, p)
		l.checkLabels(g, p)
		l.checkTaints(g, p)
		if g.StartupTime < 0 {
			l.errPath(childPath(p, "startupTime"), fmt.Sprintf("startupTime must not be negative, got %s", g.StartupTime), "")
		} else if s.Duration > 0 && g.StartupTime > 0 && g.StartupTime >= s.Duration && !l.bad("duration") {
			l.errPath(childPath(p, "startupTime"), fmt.Sprintf("the nodes join at %s, not before the run ends (duration %s)", formatDuration(g.StartupTime), formatDuration(s.Duration)), "")
		}
	}
	l.checkNamespaceList()
	if l.nodesUnknown {
		// Generating the nodes of an out-of-range count would spend the memory the limit
		// protects, and checks against a guessed node list would only report follow-on
		// problems ("no node is named worker-0").
		return nil
	}
	return s.Nodes()
}

func (l *loader) checkResources(g *NodeGroup, p string) {
	cp, ap := childPath(p, "capacity"), childPath(p, "allocatable")
	if !l.ix.has(cp) {
		l.errAt(l.ix.nearest(p), p, "missing capacity", `e.g. capacity: {cpu: "4", memory: 16Gi, pods: "110"}`)
		return
	}
	for _, r := range []string{"cpu", "memory"} {
		if _, ok := g.Capacity[r]; !ok {
			l.errPath(cp, "capacity has no "+r, `e.g. capacity: {cpu: "4", memory: 16Gi}`)
		}
	}
	for _, list := range []struct {
		path string
		rl   model.ResourceList
	}{{cp, g.Capacity}, {ap, g.Allocatable}} {
		for _, r := range slices.Sorted(maps.Keys(list.rl)) {
			rp := keyPath(list.path, r)
			if list.path == ap && !l.ix.has(rp) {
				continue // copied from capacity by defaulting
			}
			if !slices.Contains(knownResources, r) && !strings.Contains(r, "/") && !strings.HasPrefix(r, "hugepages-") {
				hint := didYouMean(r, knownResources)
				if hint == "" {
					hint = "resources: " + strings.Join(knownResources, ", ") + ", or an extended resource such as example.com/gpu"
				}
				l.errAt(l.ix.keyOrNearest(rp), rp, fmt.Sprintf("unknown resource %q", r), hint)
				continue
			}
			q := list.rl[r]
			if q.Sign() < 0 {
				l.errPath(rp, fmt.Sprintf("%s must not be negative, got %s", r, q.String()), "")
			}
			if limit := maxNodeResource(r); q.Cmp(limit) > 0 {
				l.errPath(rp, fmt.Sprintf("%s %s is more than the limit of %s", r, q.String(), limit.String()),
					"the scheduler counts cpu in millicores and memory in bytes as 64-bit integers; no real node comes near")
			}
			if list.path == ap {
				c, ok := g.Capacity[r]
				switch {
				case !ok:
					l.errAt(l.ix.keyOrNearest(rp), rp, fmt.Sprintf("allocatable %s has no capacity", r), "add it to capacity")
				case q.Cmp(c) > 0:
					l.errPath(rp, fmt.Sprintf("allocatable %s %s is more than the capacity %s", r, q.String(), c.String()), "")
				}
			}
		}
	}
	if q, ok := g.Capacity["pods"]; ok {
		if _, whole := q.AsInt64(); !whole || q.Cmp(*resource.NewQuantity(int64(maxFlagInt), resource.DecimalSI)) > 0 {
			l.errPath(keyPath(cp, "pods"), fmt.Sprintf("pods must be a whole number, got %s", q.String()), "")
		}
	}
}

// Limits on a node group's capacity and allocatable: far above any real node, and small
// enough that the sums of a whole cluster's millicores and bytes fit in an int64.
var (
	maxNodeCPU   = resource.MustParse("1M") // a million cores
	maxNodeBytes = resource.MustParse("256Ti")
	maxNodeCount = *resource.NewQuantity(1_000_000_000, resource.DecimalSI)
)

// maxNodeResource returns the largest quantity of resource r a node may have.
func maxNodeResource(r string) resource.Quantity {
	switch {
	case r == "cpu":
		return maxNodeCPU
	case r == "memory" || r == "ephemeral-storage" || strings.HasPrefix(r, "hugepages-"):
		return maxNodeBytes
	}
	return maxNodeCount
}

// reservedNodeLabels are set by the simulator from other fields.
var reservedNodeLabels = map[string]string{
	LabelHostname: "it is the node's name",
	LabelZone:     "use zone:",
	LabelRegion:   "use region:",
}

func (l *loader) checkLabels(g *NodeGroup, p string) {
	lp := childPath(p, "labels")
	for _, k := range slices.Sorted(maps.Keys(g.Labels)) {
		kp := keyPath(lp, k)
		if msgs := validation.IsQualifiedName(k); len(msgs) > 0 {
			l.errAt(l.ix.keyOrNearest(kp), kp, fmt.Sprintf("invalid label key %q: %s", k, firstMsg(msgs)), "")
			continue
		}
		if msgs := validation.IsValidLabelValue(g.Labels[k]); len(msgs) > 0 {
			l.errPath(kp, fmt.Sprintf("invalid label value %q: %s", g.Labels[k], firstMsg(msgs)), "")
		}
		if why, reserved := reservedNodeLabels[k]; reserved {
			l.errAt(l.ix.keyOrNearest(kp), kp, fmt.Sprintf("label %s is set by the simulator", k), why)
		}
	}
}

var taintEffects = []string{string(model.TaintEffectNoSchedule), string(model.TaintEffectPreferNoSchedule), string(model.TaintEffectNoExecute)}

func (l *loader) checkTaints(g *NodeGroup, p string) {
	seen := map[string]int{}
	for i, t := range g.Taints {
		tp := indexPath(childPath(p, "taints"), i)
		if l.broken(tp) {
			continue
		}
		if msgs := validation.IsQualifiedName(t.Key); len(msgs) > 0 {
			l.errPath(childPath(tp, "key"), fmt.Sprintf("invalid taint key %q: %s", t.Key, firstMsg(msgs)), "")
		}
		if msgs := validation.IsValidLabelValue(t.Value); len(msgs) > 0 {
			l.errPath(childPath(tp, "value"), fmt.Sprintf("invalid taint value %q: %s", t.Value, firstMsg(msgs)), "")
		}
		if !slices.Contains(taintEffects, string(t.Effect)) {
			msg := "missing effect"
			if t.Effect != "" {
				msg = fmt.Sprintf("unknown taint effect %q", t.Effect)
			}
			hint := didYouMean(string(t.Effect), taintEffects)
			if hint == "" {
				hint = "one of: " + strings.Join(taintEffects, ", ")
			}
			l.errPath(childPath(tp, "effect"), msg, hint)
		}
		key := t.Key + ":" + string(t.Effect)
		if j, dup := seen[key]; dup {
			l.errPath(tp, fmt.Sprintf("taint %s is given twice (also taints[%d])", key, j), "")
		}
		seen[key] = i
	}
}

func (l *loader) checkNamespaceList() {
	s := l.s
	seen := map[string]int{}
	var extra []string
	for i, ns := range s.Cluster.Namespaces {
		p := indexPath("cluster.namespaces", i)
		if l.bad(p) {
			continue
		}
		if msgs := validation.IsDNS1123Label(ns); len(msgs) > 0 {
			l.errPath(p, fmt.Sprintf("invalid namespace name %q: %s", ns, firstMsg(msgs)), "")
			continue
		}
		if j, dup := seen[ns]; dup {
			l.errPath(p, fmt.Sprintf("namespace %q is listed twice (also cluster.namespaces[%d])", ns, j), "")
			continue
		}
		seen[ns] = i
		if !slices.Contains(systemNamespaces, ns) {
			extra = append(extra, ns)
		}
	}
	s.Cluster.Namespaces = extra
}

// knownNamespaces returns every namespace that will exist, sorted and without repeats: the
// system ones, the listed ones and the Namespace objects the scenario creates. A sorted slice
// rather than a set: for 50,000 Namespace objects it is 0.8 MB where a map was 3 MB, made
// when the loader holds every object, so at the peak of loading (TestLoad100kPeakMemory).
func (l *loader) knownNamespaces() []string {
	n := len(systemNamespaces) + len(l.s.Cluster.Namespaces)
	for _, d := range l.declared {
		if d.obj != nil && d.obj.GetKind() == model.KindNamespace {
			n++
		}
	}
	ns := make([]string, 0, n)
	ns = append(ns, systemNamespaces...)
	ns = append(ns, l.s.Cluster.Namespaces...)
	for _, d := range l.declared {
		if d.obj != nil && d.obj.GetKind() == model.KindNamespace {
			ns = append(ns, d.obj.Meta().Name)
		}
	}
	slices.Sort(ns)
	return slices.Compact(ns)
}

// objectPos returns the position and path of a field of a declared object: inside the
// manifest when it is inline, else the file reference.
func (l *loader) objectField(d declaredObject, field string) (pos model.Position, path string) {
	path = l.objectPath(d, field)
	return l.objectPos(d, path), path
}

// objectPath is the path objectField returns.
func (l *loader) objectPath(d declaredObject, field string) string {
	if l.declFile(d) != "" {
		return l.declPath(d)
	}
	return l.site(d).fieldPathTo(field)
}

// objectPos is the position objectField returns, from its path.
func (l *loader) objectPos(d declaredObject, path string) model.Position {
	if l.declFile(d) != "" {
		return l.pos(d)
	}
	return posOf(l.file, l.ix.nearest(path))
}

func (l *loader) errObject(d declaredObject, field, msg, hint string) {
	path := l.objectPath(d, field)
	if l.counted(path) {
		return
	}
	if l.declFile(d) != "" {
		msg = fmt.Sprintf("%s %s in %s: %s", d.obj.GetKind(), model.Key(d.obj), l.declFile(d), msg)
	}
	l.listProblem(&model.DecodeError{Pos: l.objectPos(d, path), Path: path, Msg: msg, Hint: hint})
}

func (l *loader) checkObjects(namespaces []string, nodes []ClusterNode) {
	// first maps each object declared under objects: to the index in l.declared of its
	// first declaration.
	first := newObjectIndex(len(l.declared))
	groupOf := make(map[string]string, len(nodes))
	for _, n := range nodes {
		groupOf[n.Name] = n.Group
	}
	for i, d := range l.declared {
		if d.obj == nil {
			continue
		}
		m := d.obj.Meta()
		ki, _ := l.lookupKind(d.obj.GetKind())
		if u, ok := d.obj.(*model.Unstructured); ok {
			if !l.checkCustomResource(d, u) {
				continue
			}
		} else {
			// The API server would reject an invalid object when the run creates it; say so
			// now, at the manifest, with upstream's validation messages (checkAsCreated).
			created := l.asCreated[d.obj]
			for _, fe := range created.rejected {
				l.errObject(d, fe.Field, fe.ErrorBody(), "the API server would reject it")
			}
			if d.inObjects {
				if why := created.apfIgnored; why != "" {
					pos, path := l.objectField(d, "metadata.name")
					l.warns = append(l.warns, model.Warning{Pos: pos, Path: path,
						Msg: fmt.Sprintf("%s %s does not configure API Priority and Fairness: %s (sim explain FlowSchema)", d.obj.GetKind(), d.obj.Meta().Name, why)})
				}
			}
		}
		l.checkRequests(d)
		if m.Name == "" {
			continue
		}
		switch {
		case !ki.Namespaced && m.Namespace != "":
			l.errObject(d, "metadata.namespace", fmt.Sprintf("%s is cluster-scoped; it has no namespace", ki.Kind), "remove metadata.namespace")
		case ki.Namespaced && !sortedContains(namespaces, m.Namespace):
			hint := ""
			// Each hint compares the name with every namespace: bounded all together, as
			// the hints for undeclared objects are (maxSuggestComparisons).
			if l.suggestComparisons+len(namespaces) <= maxSuggestComparisons {
				l.suggestComparisons += len(namespaces)
				hint = didYouMean(m.Namespace, namespaces)
			}
			if hint == "" {
				hint = "add it to cluster.namespaces"
			} else {
				hint += " Otherwise add it to cluster.namespaces"
			}
			l.errObject(d, "metadata.namespace", fmt.Sprintf("namespace %q does not exist", m.Namespace), hint)
		}
		if d.obj.GetKind() == model.KindNode {
			if g, ok := groupOf[m.Name]; ok {
				l.errObject(d, "metadata.name", fmt.Sprintf("node %s is already a node of group %s", m.Name, g), "")
			}
		}
		if !d.inObjects {
			continue
		}
		if prev, dup := first.add(l.declared, i); dup {
			l.errObject(d, "metadata.name", fmt.Sprintf("%s %s is declared twice (first at %s)", d.obj.GetKind(), model.Key(d.obj), l.pos(l.declared[prev])), "")
		}
	}
}

// objectIndex finds the first declaration of an object (kind, namespace and name) among
// declared objects. It keeps a 64-bit hash of the key and the index of the declaration, not
// the key's strings: for 100,000 objects a few megabytes less at the time the loader holds
// the most (BenchmarkLoad100k, TestLoad100kPeakMemory). A key whose hash an earlier, different
// key has goes to a map of whole keys.
type objectIndex struct {
	byHash   map[uint64]int32
	collided map[objectKey]int
	hash     func(objectKey) uint64 // hashKey; tests make keys collide
}

type objectKey struct {
	kind            model.Kind
	namespace, name string
}

func keyOfDeclared(d declaredObject) objectKey {
	m := d.obj.Meta()
	return objectKey{d.obj.GetKind(), m.Namespace, m.Name}
}

func newObjectIndex(n int) *objectIndex {
	return &objectIndex{byHash: make(map[uint64]int32, n), hash: hashKey}
}

// hashKey is FNV-1a of the key's three strings, each followed by a 0 byte.
func hashKey(key objectKey) uint64 {
	sum := uint64(14695981039346656037)
	for _, s := range [...]string{string(key.kind), key.namespace, key.name} {
		for k := 0; k < len(s); k++ {
			sum = (sum ^ uint64(s[k])) * 1099511628211
		}
		sum *= 1099511628211
	}
	return sum
}

// add records declared[i] and returns the index of the first declaration of the same object
// when there is an earlier one (dup).
func (x *objectIndex) add(declared []declaredObject, i int) (prev int, dup bool) {
	key := keyOfDeclared(declared[i])
	sum := x.hash(key)
	j, taken := x.byHash[sum]
	switch {
	case !taken:
		x.byHash[sum] = int32(i)
		return 0, false
	case keyOfDeclared(declared[j]) == key:
		return int(j), true
	}
	if x.collided == nil {
		x.collided = map[objectKey]int{}
	}
	if j, ok := x.collided[key]; ok {
		return j, true
	}
	x.collided[key] = i
	return 0, false
}

// SettledKinds are the kinds `settled: true` applies to: the workloads whose pods it creates
// running (Pod, ReplicaSet, Deployment, StatefulSet, DaemonSet), Services (their
// EndpointSlices exist), and Namespaces (nothing to settle). Any other kind under settled:
// true is an error rather than silently started unsettled.
var SettledKinds = []model.Kind{model.KindNamespace, model.KindPod, model.KindReplicaSet, model.KindDeployment, model.KindStatefulSet, model.KindDaemonSet, model.KindService}

// checkSettled refuses settled: true for objects it cannot settle.
func (l *loader) checkSettled() {
	var names []string
	for _, k := range SettledKinds {
		names = append(names, string(k))
	}
	for i, src := range l.s.Objects {
		if !src.Settled {
			continue
		}
		p := childPath(indexPath("objects", i), "settled")
		for _, obj := range src.Objects {
			k := obj.GetKind()
			if containsKind(SettledKinds, k) {
				continue
			}
			l.errAt(l.ix.nearest(p), p, fmt.Sprintf("settled: true cannot start %s %s settled", k, model.Key(obj)),
				fmt.Sprintf("settled applies to %s; declare it in an entry without settled: true, and its controller brings it up in the first seconds of the run", strings.Join(names, ", ")))
		}
	}
}

// podSpecOf returns the pod spec an object runs (a Pod's own, a workload's template), or nil,
// with the field path of the spec inside the manifest.
func podSpecOf(obj model.Object) (*model.PodSpec, string) {
	if p, ok := obj.(*model.Pod); ok {
		return &p.Spec, "spec"
	}
	if t := model.WorkloadTemplate(obj); t != nil {
		return &t.Spec, "spec.template.spec"
	}
	return nil, ""
}

// checkRequests reports container requests and limits larger than any node may have
// (maxNodeResource): they could never be scheduled, and the scheduler's sums of millicores
// and bytes would overflow.
func (l *loader) checkRequests(d declaredObject) {
	spec, base := podSpecOf(d.obj)
	if spec == nil {
		return
	}
	for _, group := range []struct {
		field      string
		containers []model.Container
	}{{"containers", spec.Containers}, {"initContainers", spec.InitContainers}} {
		for i, c := range group.containers {
			for _, rl := range []struct {
				field string
				list  model.ResourceList
			}{{"requests", c.Resources.Requests}, {"limits", c.Resources.Limits}} {
				for _, r := range slices.Sorted(maps.Keys(rl.list)) {
					q := rl.list[r]
					if limit := maxNodeResource(r); q.Cmp(limit) > 0 {
						field := fmt.Sprintf("%s.%s[%d].resources.%s.%s", base, group.field, i, rl.field, r)
						l.errObject(d, field, fmt.Sprintf("%s %s asks for more %s than any node may have (the limit is %s)", d.obj.GetKind(), model.Key(d.obj), r, limit.String()),
							"no node could run the pod; the requests are per container")
					}
				}
			}
		}
	}
}

// entryTime is a timeline entry's start time when it can be known before the run.
type entryTime struct {
	at    time.Duration
	known bool
}

// staticTimes returns each entry's start time where it follows from the file alone (absolute
// times and after-chains of them); entries after `converged` are unknown.
func staticTimes(tl []TimelineEntry) []entryTime {
	out := make([]entryTime, len(tl))
	index := map[string]int{}
	for i, e := range tl {
		switch {
		case e.At.After != "":
			if j, ok := index[e.At.After]; ok && out[j].known {
				out[i] = entryTime{at: out[j].at + e.At.Delay, known: true}
			}
		case e.At.Converged, e.At.Write > 0:
		default:
			out[i] = entryTime{at: e.At.Offset, known: true}
		}
		if e.Name != "" {
			if _, dup := index[e.Name]; !dup {
				index[e.Name] = i
			}
		}
	}
	return out
}

func (l *loader) checkTimeline(nodes []ClusterNode) {
	s := l.s
	names := map[string]int{}
	var earlier []string
	times := staticTimes(s.Timeline)
	for i, e := range s.Timeline {
		p := indexPath("timeline", i)
		if e.Name != "" && !l.bad(childPath(p, "name")) {
			if j, dup := names[e.Name]; dup {
				l.errPath(childPath(p, "name"), fmt.Sprintf("duplicate timeline entry name %q (also timeline[%d])", e.Name, j), "names identify entries for after: and in results")
			} else {
				names[e.Name] = i
			}
		}
		if asp := childPath(p, "as"); l.ix.has(asp) && !l.bad(asp) && (e.As == "" || len(e.As) > maxActorLength || strings.ContainsAny(e.As, " \t\n")) {
			l.errPath(asp, fmt.Sprintf("as must be a name of 1 to %d characters without spaces, got %q", maxActorLength, e.As), "as: alice")
		}
		ap := childPath(p, "at")
		if !l.bad(ap) && l.ix.has(ap) {
			l.checkAt(e, i, ap, earlier, names)
			if t := times[i]; t.known && s.Duration > 0 && t.at > s.Duration && !l.bad("duration") {
				l.errPath(ap, fmt.Sprintf("the entry runs at %s, after the run ends (duration %s)", formatDuration(t.at), formatDuration(s.Duration)),
					"lengthen duration or move the entry earlier")
			}
		}
		if e.Name != "" {
			earlier = append(earlier, e.Name)
		}
		if !l.broken(p) && !l.bad(childPath(p, "action")) && unionCount(reflect.ValueOf(e.Action)) == 1 {
			l.checkRequired(reflect.ValueOf(e.Action), p, "timeline.")
			l.checkAction(e.Action, i, p, nodes)
		}
	}
}

func (l *loader) checkAt(e TimelineEntry, i int, ap string, earlier []string, names map[string]int) {
	switch {
	case e.At.Offset < 0:
		l.errPath(ap, fmt.Sprintf("at must not be negative, got %s", e.At.Offset), "times count from the start of the run")
	case e.At.Delay < 0:
		l.errPath(childPath(ap, "delay"), fmt.Sprintf("delay must not be negative, got %s", e.At.Delay), "")
	}
	if e.At.After == "" {
		return
	}
	afterPath := childPath(ap, "after")
	j, found := names[e.At.After]
	if !found {
		for k := i + 1; k < len(l.s.Timeline); k++ {
			if l.s.Timeline[k].Name == e.At.After {
				l.errPath(afterPath, fmt.Sprintf("entry %q is timeline[%d], which comes later", e.At.After, k),
					"after: names an earlier entry; move this entry below it")
				return
			}
		}
		hint := didYouMean(e.At.After, earlier)
		if hint == "" && len(earlier) > 0 {
			hint = "earlier entries: " + strings.Join(earlier, ", ")
		}
		l.errPath(afterPath, fmt.Sprintf("no earlier timeline entry is named %q", e.At.After), hint)
		return
	}
	if j == i {
		l.errPath(afterPath, "an entry cannot run after itself", "")
	}
}

// Kinds that object actions and conditions accept.
var (
	// scalableKinds are the kinds scale and the workload conditions accept.
	scalableKinds = []model.Kind{model.KindReplicaSet, model.KindDeployment, model.KindStatefulSet}
	// rolloutKinds are the kinds rollout accepts: the workloads with a rolling update.
	rolloutKinds = []model.Kind{model.KindDeployment, model.KindStatefulSet, model.KindDaemonSet}
	// deploymentOnly is the kind rollback, pause and resume accept.
	deploymentOnly = []model.Kind{model.KindDeployment}
)

// runtimeKinds are kinds whose objects the simulator creates (so a reference to one cannot be
// checked against the scenario's declarations).
var runtimeKinds = []model.Kind{model.KindPod, model.KindEvent, model.KindLease, model.KindNode, model.KindNamespace}

func kindNames() []string {
	var out []string
	for _, k := range model.Kinds() {
		out = append(out, string(k.Kind))
	}
	sort.Strings(out)
	return out
}

// checkRequired reports every required argument (a field whose json tag has no omitempty) of
// the set member of union u that the file does not write, at p (the mapping that holds the
// arguments). keyPrefix names the union's members for key documentation ("timeline.",
// "condition.", "timeline.load.shape.").
func (l *loader) checkRequired(u reflect.Value, p, keyPrefix string) {
	for _, v := range unionVariants(u.Type()) {
		if u.Field(v.field).IsNil() {
			continue
		}
		for _, f := range v.fields {
			if f.required() && !l.ix.has(childPath(p, f.name)) {
				l.errAt(l.ix.nearest(p), p, "missing "+f.name, argHint(keyPrefix+v.name, f.name))
			}
		}
	}
}

func (l *loader) checkAction(a Action, i int, p string, nodes []ClusterNode) {
	switch {
	case a.Apply != nil:
		l.checkCommit(a.Apply.Commit, p)
	case a.Delete != nil:
		l.checkRef(a.Delete.Target, childPath(p, "target"), nil)
		l.checkCommit(a.Delete.Commit, p)
		if a.Delete.Target.Kind == model.KindNode {
			l.errPath(childPath(p, "target.kind"), "delete a node with the node-delete action", "action: node-delete, nodes: {names: [...]}")
		}
	case a.Scale != nil:
		l.checkRef(a.Scale.Target, childPath(p, "target"), scalableKinds)
		rp := childPath(p, "replicas")
		if l.ix.has(rp) && (a.Scale.Replicas < 0 || a.Scale.Replicas > MaxReplicas) {
			l.errPath(rp, fmt.Sprintf("replicas must be between 0 and %d, got %d", MaxReplicas, a.Scale.Replicas), "")
		}
	case a.Rollout != nil:
		l.checkRollout(a.Rollout, i, p)
	case a.Rollback != nil:
		l.checkRollback(a.Rollback, i, p)
	case a.Pause != nil:
		l.checkRef(a.Pause.Target, childPath(p, "target"), deploymentOnly)
	case a.Resume != nil:
		l.checkRef(a.Resume.Target, childPath(p, "target"), deploymentOnly)
	case a.KubeletStall != nil:
		l.checkNodes(a.KubeletStall.Nodes, p, nodes)
		l.checkPositive(a.KubeletStall.For, childPath(p, "for"))
	case a.ImagePullFailure != nil:
		l.checkNodes(a.ImagePullFailure.Nodes, p, nodes)
		l.checkPositive(a.ImagePullFailure.For, childPath(p, "for"))
	case a.Drain != nil:
		l.checkDrain(a.Drain, p, nodes)
	case a.ZoneOutage != nil:
		if zp := childPath(p, "zone"); a.ZoneOutage.Zone != "" {
			l.checkZone(a.ZoneOutage.Zone, zp, nodes)
		} else if l.ix.has(zp) {
			l.errPath(zp, "missing value", "the zone whose nodes all crash")
		}
	case a.Nodes() != nil:
		l.checkNodes(*a.Nodes(), p, nodes)
	case a.APILatency != nil:
		l.checkFilter(a.APILatency.RequestFilter, p, nodes)
		l.checkPositive(a.APILatency.For, childPath(p, "for"))
	case a.APIErrors != nil:
		l.checkAPIErrors(a.APIErrors, p, nodes)
	case a.APILoad != nil:
		l.checkAPILoad(a.APILoad, p)
	case a.ControllerRestart != nil:
		l.checkComponentName(a.ControllerRestart.Component, childPath(p, "component"), l.restartable())
		l.checkNonNegative(a.ControllerRestart.Downtime, childPath(p, "downtime"))
	case a.WatchStall != nil:
		l.checkWatchStall(a.WatchStall, p, nodes)
	case a.WatchCoalesce != nil:
		c := a.WatchCoalesce
		l.checkWatchStall(&WatchStallArgs{Component: c.Component, Clients: c.Clients, For: c.For}, p, nodes)
	case a.Patch != nil:
		l.checkPatch(a.Patch, p)
	case a.Edit != nil:
		l.checkEdit(a.Edit, p)
	case a.KillContainer != nil:
		l.checkKillContainer(a.KillContainer, p)
	case a.LeaderCrash != nil:
		l.checkElected(a.LeaderCrash.Component, p)
		if a.LeaderCrash.Downtime != nil {
			l.checkNonNegative(*a.LeaderCrash.Downtime, childPath(p, "downtime"))
		}
	case a.LeaderPartition != nil:
		l.checkElected(a.LeaderPartition.Component, p)
		l.checkPositive(a.LeaderPartition.For, childPath(p, "for"))
	case a.LeaderRelease != nil:
		l.checkElected(a.LeaderRelease.Component, p)
		if a.LeaderRelease.Downtime != nil {
			l.checkNonNegative(*a.LeaderRelease.Downtime, childPath(p, "downtime"))
		}
	case a.Load != nil:
		l.checkLoadAction(a.Load, p)
	}
}

const nodesHint = `which nodes: nodes: {names: [worker-0]}, {selector: "pool=a"}, {zone: zone-a} or {random: 1}`

func (l *loader) checkNodes(t NodeTarget, entryPath string, nodes []ClusterNode) {
	p := childPath(entryPath, "nodes")
	if l.broken(p) || !l.ix.has(p) || l.nodesUnknown {
		return // a missing target is reported by checkRequired
	}
	if len(t.Names) == 0 && t.Selector == "" && t.Zone == "" && t.Random == 0 {
		l.errPath(p, "the target selects no nodes", nodesHint)
		return
	}
	if len(t.Names) > 0 && (t.Selector != "" || t.Zone != "" || t.Random != 0) {
		l.errPath(p, "names cannot be combined with selector, zone or random", "either list the nodes, or select them")
		return
	}
	var all []string
	exists := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		all = append(all, n.Name)
		exists[n.Name] = true
	}
	seen := map[string]bool{}
	for k, name := range t.Names {
		np := indexPath(childPath(p, "names"), k)
		if seen[name] {
			l.errPath(np, fmt.Sprintf("node %s is named twice", name), "")
			continue
		}
		seen[name] = true
		if !exists[name] {
			hint := nodeListHint(all)
			if c := closest(name, all); c != "" && namePrefix(c) != namePrefix(name) {
				hint = didYouMean(name, all)
			}
			l.errPath(np, fmt.Sprintf("no node is named %q", name), hint)
		}
	}
	if len(t.Names) > 0 {
		return
	}
	if t.Selector != "" {
		if _, err := labels.Parse(t.Selector); err != nil {
			l.errPath(childPath(p, "selector"), fmt.Sprintf("invalid label selector %q: %v", t.Selector, err), `kubectl syntax, e.g. "pool=default" or "tier in (a,b),!spot"`)
			return
		}
	}
	if t.Zone != "" && !l.checkZone(t.Zone, childPath(p, "zone"), nodes) {
		return
	}
	if t.Random < 0 {
		l.errPath(childPath(p, "random"), fmt.Sprintf("random must be at least 1, got %d", t.Random), "")
		return
	}
	matched := len(NodeTarget{Selector: t.Selector, Zone: t.Zone}.Select(nodes, nil))
	switch {
	case matched == 0:
		l.errPath(p, "the target matches no node", "node labels include kubernetes.io/hostname, topology.kubernetes.io/zone and the group's labels")
	case t.Random > matched:
		l.errPath(childPath(p, "random"), fmt.Sprintf("random: %d, but only %d nodes match", t.Random, matched), "")
	}
}

// namePrefix returns a node name without its index ("worker-3" -> "worker-").
func namePrefix(name string) string { return strings.TrimRight(name, "0123456789") }

func nodeListHint(all []string) string {
	switch {
	case len(all) == 0:
		return "the cluster has no nodes"
	case len(all) <= 6:
		return "nodes: " + strings.Join(all, ", ")
	default:
		return fmt.Sprintf("nodes: %s, ..., %s", strings.Join(all[:3], ", "), all[len(all)-1])
	}
}

// checkZone reports a zone no node is in; it returns whether the zone exists.
func (l *loader) checkZone(zone, path string, nodes []ClusterNode) bool {
	if l.nodesUnknown {
		return false
	}
	var zones []string
	for _, n := range nodes {
		if n.Zone != "" && !slices.Contains(zones, n.Zone) {
			zones = append(zones, n.Zone)
		}
	}
	if slices.Contains(zones, zone) {
		return true
	}
	hint := didYouMean(zone, zones)
	if hint == "" {
		hint = "zones: " + strings.Join(zones, ", ")
		if len(zones) == 0 {
			hint = "no node group sets a zone"
		}
	}
	l.errPath(path, fmt.Sprintf("no node is in zone %q", zone), hint)
	return false
}

// checkRef checks an object reference at p: a known kind (one of kinds, unless kinds is
// nil), a name, and an object the scenario declares (for kinds the scenario creates).
func (l *loader) checkRef(r ObjectRef, p string, kinds []model.Kind) {
	if l.broken(p) || !l.ix.has(p) {
		return // a missing target is reported by checkRequired
	}
	kp, np, nsp := childPath(p, "kind"), childPath(p, "name"), childPath(p, "namespace")
	if r.Kind == "" {
		l.errPath(kp, "missing kind", "e.g. kind: ReplicaSet")
		return
	}
	ki, ok := l.lookupKind(r.Kind)
	if !ok {
		hint := didYouMean(string(r.Kind), l.scenarioKindNames())
		if hint == "" {
			hint = "kinds: " + strings.Join(l.scenarioKindNames(), ", ") + "; a custom resource's kind needs a CustomResourceDefinition in objects:"
		}
		l.errPath(kp, fmt.Sprintf("unknown kind %q", r.Kind), hint)
		return
	}
	if kinds != nil && !containsKind(kinds, r.Kind) {
		l.errPath(kp, fmt.Sprintf("want %s, got %s", orList(kinds), r.Kind), "")
		return
	}
	if r.Name == "" {
		l.errPath(np, "missing name", "")
		return
	}
	if !ki.Namespaced && r.Namespace != "" {
		l.errPath(nsp, fmt.Sprintf("%s is cluster-scoped; it has no namespace", r.Kind), "remove namespace")
		return
	}
	if containsKind(runtimeKinds, r.Kind) {
		return
	}
	l.checkDeclared(r.Kind, r.Namespace, r.Name, np)
}

// declaredAs returns the declarations of the object kind namespace/name, in file order.
func (l *loader) declaredAs(kind model.Kind, namespace, name string) []declaredObject {
	return l.declIndex().byKey[declKey{kind, model.KeyOf(namespace, name)}]
}

// declKey identifies a declared object: its kind and namespace/name.
type declKey struct {
	kind model.Kind
	key  string
}

// declIndex indexes the declared objects (after defaulting, which sets their namespaces): by
// kind and key, and each kind's keys and names for hints. Lookups per reference were a pass
// over every object, quadratic with many references and many objects.
type declIndex struct {
	byKey map[declKey][]declaredObject
	// keys lists each kind's keys in file order; nameNS maps kind and name to the namespace
	// of its first declaration.
	keys   map[model.Kind][]string
	nameNS map[declKey]string
}

func (l *loader) declIndex() *declIndex {
	if l.declIx != nil && l.declIxLen == len(l.declared) {
		return l.declIx
	}
	ix := &declIndex{byKey: map[declKey][]declaredObject{}, keys: map[model.Kind][]string{}, nameNS: map[declKey]string{}}
	for _, d := range l.declared {
		if d.obj == nil {
			continue
		}
		kind, key := d.obj.GetKind(), model.Key(d.obj)
		ix.byKey[declKey{kind, key}] = append(ix.byKey[declKey{kind, key}], d)
		ix.keys[kind] = append(ix.keys[kind], key)
		if nk := (declKey{kind, d.obj.Meta().Name}); !hasKey(ix.nameNS, nk) {
			ix.nameNS[nk] = d.obj.Meta().Namespace
		}
	}
	l.declIx, l.declIxLen = ix, len(l.declared)
	return ix
}

func hasKey[K comparable, V any](m map[K]V, k K) bool {
	_, ok := m[k]
	return ok
}

// maxSuggestComparisons bounds the name comparisons the did-you-mean hints for undeclared
// objects make in one scenario, all together: each hint compares the name with every object
// of its kind, so many references to many objects would otherwise cost their product.
// Past it the hints still name the namespace mix-up, or say to declare the object.
const maxSuggestComparisons = 1_000_000

// checkDeclared reports, at path, an object the scenario neither declares in objects: nor
// applies, with a hint naming a close match or the same name in another namespace.
func (l *loader) checkDeclared(kind model.Kind, namespace, name, path string) {
	ix := l.declIndex()
	if len(ix.byKey[declKey{kind, model.KeyOf(namespace, name)}]) > 0 {
		return
	}
	hint := ""
	if same := ix.keys[kind]; l.suggestComparisons+len(same) <= maxSuggestComparisons {
		l.suggestComparisons += len(same)
		hint = didYouMean(model.KeyOf(namespace, name), same)
	}
	if otherNamespace, ok := ix.nameNS[declKey{kind, name}]; ok {
		hint = fmt.Sprintf("%s %s is in namespace %q; set namespace: %s", kind, name, otherNamespace, otherNamespace)
	}
	if hint == "" {
		hint = "declare it under objects: or apply it in an earlier timeline entry"
	}
	l.errPath(path, fmt.Sprintf("no %s %s is declared in this scenario", kind, model.KeyOf(namespace, name)), hint)
}

func containsKind(list []model.Kind, k model.Kind) bool {
	for _, x := range list {
		if x == k {
			return true
		}
	}
	return false
}

func (l *loader) checkExpectations() {
	s := l.s
	seen := map[string]int{}
	var entryNames []string
	for _, e := range s.Timeline {
		if e.Name != "" {
			entryNames = append(entryNames, e.Name)
		}
	}
	for i, x := range s.Expect {
		p := indexPath("expect", i)
		if l.broken(p) {
			continue
		}
		switch {
		case x.Name == "":
			l.errAt(l.ix.nearest(p), p, "missing name", "expectations are reported by name, e.g. name: recovered")
		default:
			if j, dup := seen[x.Name]; dup {
				l.errPath(childPath(p, "name"), fmt.Sprintf("duplicate expectation name %q (also expect[%d])", x.Name, j), "")
			}
			seen[x.Name] = i
		}
		switch {
		case x.Converged != nil:
			cp := childPath(p, "converged")
			l.checkAfterRef(x.Converged.After, childPath(cp, "after"), entryNames)
			l.checkWithin(x.Converged.Within, childPath(cp, "within"), cp)
		case x.Event != nil:
			l.checkEvent(x.Event, childPath(p, "event"), entryNames)
		case x.Eventually != nil:
			l.checkCondition(x.Eventually, childPath(p, "eventually"), entryNames)
		case x.Always != nil:
			l.checkCondition(x.Always, childPath(p, "always"), entryNames)
		case x.Never != nil:
			l.checkCondition(x.Never, childPath(p, "never"), entryNames)
		case x.Metric != nil:
			l.checkMetric(x.Metric, childPath(p, "metric"), entryNames)
		}
	}
}

func (l *loader) checkAfterRef(after, path string, entryNames []string) {
	if after == "" || slices.Contains(entryNames, after) {
		return
	}
	hint := didYouMean(after, entryNames)
	if hint == "" {
		hint = "after: names a timeline entry"
		if len(entryNames) > 0 {
			hint += "; entries: " + strings.Join(entryNames, ", ")
		}
	}
	l.errPath(path, fmt.Sprintf("no timeline entry is named %q", after), hint)
}

// checkWithin requires a positive window length at path (owner is the enclosing mapping).
func (l *loader) checkWithin(d time.Duration, path, owner string) {
	switch {
	case l.broken(owner):
	case !l.ix.has(path):
		l.errAt(l.ix.nearest(owner), owner, "missing within", "how long after the start (or after:) it may take, e.g. within: 7m")
	case d <= 0:
		l.errPath(path, fmt.Sprintf("within must be greater than 0, got %s", d), "")
	}
}

func (l *loader) checkWindow(w *Window, path string, entryNames []string) {
	if w == nil {
		return
	}
	l.checkAfterRef(w.After, childPath(path, "after"), entryNames)
	l.checkWithin(w.Within, childPath(path, "within"), path)
}

func (l *loader) checkEvent(e *EventExpectation, p string, entryNames []string) {
	if e.Reason == "" {
		l.errAt(l.ix.nearest(p), p, "missing reason", "the Event reason, e.g. reason: TaintManagerEviction")
	}
	if e.Kind != "" {
		ki, ok := l.lookupKind(e.Kind)
		switch {
		case !ok:
			hint := didYouMean(string(e.Kind), kindNames())
			if hint == "" {
				hint = "kinds: " + strings.Join(kindNames(), ", ")
			}
			l.errPath(childPath(p, "kind"), fmt.Sprintf("unknown kind %q", e.Kind), hint)
		case !ki.Namespaced && e.Namespace != "":
			l.errPath(childPath(p, "namespace"), fmt.Sprintf("%s is cluster-scoped; its Events have no namespace", e.Kind), "remove namespace")
		}
	}
	if e.Count < 1 {
		l.errPath(childPath(p, "count"), fmt.Sprintf("count must be at least 1, got %d", e.Count), "the minimum number of matching Events")
	}
	l.checkWindow(e.Within, childPath(p, "within"), entryNames)
}

func (l *loader) checkCondition(c *ConditionExpectation, p string, entryNames []string) {
	l.checkWindow(c.Within, childPath(p, "within"), entryNames)
	if l.broken(p) || unionCount(reflect.ValueOf(c.Condition)) != 1 {
		return
	}
	l.checkRequired(reflect.ValueOf(c.Condition), p, "condition.")
	switch cond := c.Condition; {
	case cond.ReadyReplicas != nil:
		l.checkRef(cond.ReadyReplicas.Target, childPath(p, "target"), scalableKinds)
		l.checkCount(int64(cond.ReadyReplicas.Min), childPath(p, "min"))
	case cond.PodsAtMost != nil:
		a := cond.PodsAtMost
		l.checkBound(a.Target, a.Count, a.ReplicasPlusMaxSurge, p, "replicasPlusMaxSurge", "maxSurge")
	case cond.ReplicasAtMost != nil:
		a := cond.ReplicasAtMost
		if a.Target.Kind != "" && a.Target.Kind != model.KindDeployment {
			l.errPath(childPath(childPath(p, "target"), "kind"), fmt.Sprintf("replicas-at-most is about a Deployment's ReplicaSets, not a %s", a.Target.Kind), "use pods-at-most for other workloads")
			return
		}
		l.checkBound(a.Target, a.Count, a.ReplicasPlusMaxSurge, p, "replicasPlusMaxSurge", "maxSurge")
	case cond.AvailableAtLeast != nil:
		a := cond.AvailableAtLeast
		l.checkBound(a.Target, a.Count, a.ReplicasMinusMaxUnavailable, p, "replicasMinusMaxUnavailable", "maxUnavailable")
	case cond.ReadyEndpointsAtLeast != nil:
		a := cond.ReadyEndpointsAtLeast
		l.checkService(a, p)
		l.checkCount(int64(a.Count), childPath(p, "count"))
	case cond.FieldEquals != nil:
		l.checkFieldEquals(cond.FieldEquals, p)
	}
}

// maxActorLength bounds a timeline entry's as: (a Kubernetes user name is not bounded; this
// keeps trace lines and reports readable).
const maxActorLength = 63

func (l *loader) checkComponents() {
	for _, comp := range []string{ComponentControllerManager, ComponentScheduler} {
		p := "components." + comp
		if l.bad(p) {
			continue
		}
		for _, problem := range l.s.Components.electionProblems(comp) {
			l.errPath(p, problem, "client-go's leader election needs lease-duration > renew-deadline > 1.2 * retry-period")
		}
	}
	if l.bad("components.kube-scheduler") {
		return
	}
	for _, problem := range l.s.Components.crossCheck() {
		if !strings.Contains(problem, ".leader-elect-") {
			l.errPath("components.kube-scheduler", problem, "")
		}
	}
}

// firstMsg returns the first message of an apimachinery validation result without its
// examples and regular expression, which make lines too long to read.
func firstMsg(msgs []string) string {
	m, _, _ := strings.Cut(msgs[0], " (e.g.")
	return m
}
