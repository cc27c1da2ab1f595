package scenarios

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"gopkg.in/yaml.v3"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/reconsim/reconsim/internal/words"
	"github.com/reconsim/reconsim/model"
)

// Import limits.
const (
	// MaxImportNodeGroups is the most node groups Import writes: nodes that differ in more
	// ways than this are not a shape a scenario should copy node by node.
	MaxImportNodeGroups = 1000
	// importDuration is the duration of an imported scenario: long enough for a node failure
	// and its recovery with the default timings (a 50 s grace period, 300 s tolerations).
	importDuration = "10m"
)

// Annotations an import leaves out of the workloads: client and controller bookkeeping of
// the real cluster that means nothing in a new one.
var importDroppedAnnotations = []string{
	"kubectl.kubernetes.io/last-applied-configuration", // kubectl apply's record (upstream kubectl apply)
	"deployment.kubernetes.io/revision",                // the Deployment controller's (deployment util RevisionAnnotation)
}

// Node labels an import does not copy into a node group: the simulator sets them (hostname,
// os, arch, zone, region) or they are the deprecated copies of those.
var importNodeLabelsSet = []string{
	LabelHostname, LabelOS, LabelArch, LabelZone, LabelRegion,
	"beta.kubernetes.io/os", "beta.kubernetes.io/arch",
	"failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region",
}

// Node labels that name a node pool, in the order an import prefers them for a group's name.
var importPoolLabels = []string{
	"eks.amazonaws.com/nodegroup", "cloud.google.com/gke-nodepool", "kubernetes.azure.com/agentpool",
	"agentpool", "karpenter.sh/nodepool", "kops.k8s.io/instancegroup", "node.kubernetes.io/instance-type",
}

// Import writes a scenario from a cluster dump, the output of
// `kubectl get deploy,rs,sts,ds,svc,pdb,hpa,nodes -A -o yaml` (or any multi-document
// stream of manifests; see model.DecodeManifestsWith for what is dropped and skipped). The
// Nodes become node groups (capacity, allocatable, zone and region, labels and taints;
// identical nodes form one group with a count); the other objects are kept as settled
// objects where settling means something (SettledKinds: their pods running from the start),
// their namespaces listed in cluster.namespaces.
// A commented timeline and expectation show where to go from there. The scenario's name is
// the file's base name. The warnings are the decoder's (what was dropped, skipped or
// ignored); they are also written as comments at the top of the scenario. A dump without
// Nodes, or one that does not decode, is an error (model.DecodeErrors with positions).
func Import(file string, data []byte) ([]byte, []model.Warning, error) {
	objs, positions, warns, err := model.DecodeManifestsAt(file, data, model.ManifestOptions{KeepNodes: true, ExistingNamespaces: systemNamespaceSet()})
	if err != nil {
		return nil, warns, err
	}
	var nodes []*model.Node
	nodePos := map[*model.Node]model.Position{}
	var workloads []model.Object
	namespaces := map[string]bool{}
	seen := map[string]bool{}
	for i, o := range objs {
		key := string(o.GetKind()) + " " + model.Key(o)
		if seen[key] {
			warns = append(warns, model.Warning{Pos: positions[i], Msg: fmt.Sprintf("skipped %s: it comes twice in the dump", model.Ref(o))})
			continue
		}
		seen[key] = true
		if n, ok := o.(*model.Node); ok {
			nodes = append(nodes, n)
			nodePos[n] = positions[i]
			continue
		}
		// The API server would refuse an invalid object when the run creates it: leave it out
		// here, with upstream's reason, so that the scenario loads.
		probe := o.DeepCopyObject()
		model.SetDefaults(probe)
		if errs := model.Validate(probe); len(errs) > 0 {
			warns = append(warns, model.Warning{Pos: positions[i], Path: errs[0].Field,
				Msg: fmt.Sprintf("skipped %s: the API server would reject it: %s", model.Ref(o), errs[0].ErrorBody())})
			continue
		}
		if ns, ok := o.(*model.Namespace); ok {
			namespaces[ns.Name] = true
			continue
		}
		if ns := probe.Meta().Namespace; ns != "" {
			namespaces[ns] = true
		}
		workloads = append(workloads, o)
	}
	if len(nodes) == 0 {
		return nil, warns, model.DecodeErrors{&model.DecodeError{
			Pos: model.Position{File: file, Line: 1, Column: 1}, Msg: "the dump has no Nodes, so the cluster's shape is unknown",
			Hint: "dump them too: kubectl get deploy,rs,sts,ds,svc,pdb,hpa,nodes -A -o yaml",
		}}
	}
	if len(nodes) > MaxClusterNodes {
		return nil, warns, model.DecodeErrors{&model.DecodeError{
			Pos: model.Position{File: file, Line: 1, Column: 1}, Msg: fmt.Sprintf("the dump has %d Nodes, more than a scenario's limit of %d", len(nodes), MaxClusterNodes),
			Hint: "import a smaller cluster",
		}}
	}
	groups, notes, err := importNodeGroups(nodes, nodePos)
	if err != nil {
		return nil, warns, err
	}
	var extra []string
	//detlint:ordered sorted below
	for ns := range namespaces {
		if !slices.Contains(systemNamespaces, ns) {
			extra = append(extra, ns)
		}
	}
	sort.Strings(extra)

	var b bytes.Buffer
	fmt.Fprintf(&b, "# Imported by `sim import %s`: %d %s in %d node %s, %d %s kept as settled objects.\n",
		commentText(filepath.Base(file)), len(nodes), words.Plural(len(nodes), "node", "nodes"), len(groups), words.Plural(len(groups), "group", "groups"),
		len(workloads), words.Plural(len(workloads), "object", "objects"))
	b.WriteString("# Run it with `sim run FILE`; `sim explain KEY` documents every key, docs/scenario.md the format.\n")
	for _, n := range notes {
		fmt.Fprintf(&b, "# %s\n", commentText(n))
	}
	if len(warns) > 0 {
		b.WriteString("#\n# What the import dropped, skipped or ignored:\n")
		for _, w := range warns {
			fmt.Fprintf(&b, "#   %s\n", commentText(w.String()))
		}
	}
	doc := mappingNode(
		"apiVersion", scalarNode(APIVersion),
		"kind", scalarNode(Kind),
		"name", scalarNode(importName(file)),
		"description", scalarNode(fmt.Sprintf("The cluster dumped in %s, settled, as a starting point.", filepath.Base(file))),
		"duration", scalarNode(importDuration),
	)
	cluster := mappingNode()
	if len(extra) > 0 {
		seq := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, ns := range extra {
			seq.Content = append(seq.Content, scalarNode(ns))
		}
		appendPair(cluster, "namespaces", seq)
	}
	groupSeq := &yaml.Node{Kind: yaml.SequenceNode, Content: groups}
	appendPair(cluster, "nodeGroups", groupSeq)
	appendPair(doc, "cluster", cluster)
	if len(workloads) > 0 {
		objSeq := &yaml.Node{Kind: yaml.SequenceNode}
		for _, o := range workloads {
			m, err := manifestNode(o)
			if err != nil {
				return nil, warns, fmt.Errorf("%s: %s: %w", file, model.Ref(o), err)
			}
			entry := mappingNode("manifest", m)
			if containsKind(SettledKinds, o.GetKind()) {
				// Its pods (or endpoints) exist from the start; the other kinds (a
				// PodDisruptionBudget, an HPA) have nothing to settle.
				entry = mappingNode("settled", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"}, "manifest", m)
			}
			objSeq.Content = append(objSeq.Content, entry)
		}
		appendPair(doc, "objects", objSeq)
	}
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, warns, err
	}
	if err := enc.Close(); err != nil {
		return nil, warns, err
	}
	b.WriteString(importTimelineExample(groups))
	// What Import writes must load. Import leaves out what it knows would not; anything else
	// the checks find (settled workloads that cannot fit the nodes, for example) is reported
	// against the dump, as the user's to fix.
	if _, _, err := Parse("imported-"+filepath.Base(file), b.Bytes(), ""); err != nil {
		var errs Errors
		if !errors.As(err, &errs) {
			return nil, warns, err
		}
		out := make(model.DecodeErrors, 0, len(errs))
		for _, e := range errs {
			out = append(out, &model.DecodeError{Pos: model.Position{File: file, Line: 1, Column: 1},
				Msg: "the scenario written from this dump does not load: " + e.Error(), Hint: "fix the dump, or edit the scenario by hand"})
		}
		return nil, warns, out
	}
	return b.Bytes(), warns, nil
}

// importTimelineExample is the commented timeline and expectation an import ends with.
func importTimelineExample(groups []*yaml.Node) string {
	// Crash a node of the first group without taints (one that runs workloads), or of the
	// first group.
	first := "NODE"
	for _, g := range groups {
		if p := mappingValueOf(g, "name"); p != nil && (first == "NODE" || mappingValueOf(g, "taints") == nil) {
			first = p.Value + "-0"
			if mappingValueOf(g, "taints") == nil {
				break
			}
		}
	}
	return `
# What next: a timeline of faults and changes, and what must hold. For example, crash a node
# a minute in, bring it back five minutes later, and expect the cluster to have settled again
# within 3 minutes of that ('sim explain timeline' lists the actions, 'sim explain expect'
# the expectations):
#
# timeline:
# - name: crash
#   at: 60s
#   action: node-crash
#   nodes: {names: [` + first + `]}
# - name: recover
#   at: {after: crash, delay: 5m}
#   action: node-recover
#   nodes: {names: [` + first + `]}
# expect:
# - name: settled
#   converged: {after: recover, within: 3m}
`
}

// importName turns a file name into a scenario name: its base name without the extension,
// lower case, with runs of characters a DNS label cannot hold turned into "-".
func importName(file string) string {
	base := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	name := dnsLabel(base)
	if name == "" {
		return "imported"
	}
	return name
}

var notDNSLabel = regexp.MustCompile(`[^a-z0-9]+`)

// dnsLabel turns s into a DNS-1123 label ("" if nothing is left), at most 40 characters so
// that node names built from it stay short.
func dnsLabel(s string) string {
	s = strings.Trim(notDNSLabel.ReplaceAllString(strings.ToLower(s), "-"), "-")
	if len(s) > 40 {
		s = strings.Trim(s[:40], "-")
	}
	return s
}

// importGroup is the part of a node that decides its group.
type importGroup struct {
	key    string
	name   string
	zone   string
	region string
	count  int
	node   *model.Node
	labels map[string]string
	taints []model.Taint
	first  string // the first node's name in the dump
}

// importNodeGroups groups identical nodes (same capacity, allocatable, zone, region, labels
// other than the per-node ones, and taints other than the node lifecycle's) and returns one
// node group mapping per group, in the order the groups' first nodes come in the dump, and
// notes on what did not carry over.
func importNodeGroups(nodes []*model.Node, pos map[*model.Node]model.Position) ([]*yaml.Node, []string, error) {
	var groups []*importGroup
	index := map[string]*importGroup{}
	var notes []string
	var cordoned, arm []string
	for _, n := range nodes {
		labels := map[string]string{}
		//detlint:ordered builds a map
		for k, v := range n.Labels {
			if slices.Contains(importNodeLabelsSet, k) || v == n.Name ||
				len(validation.IsQualifiedName(k)) > 0 || len(validation.IsValidLabelValue(v)) > 0 {
				continue
			}
			labels[k] = v
		}
		var taints []model.Taint
		taintSeen := map[string]bool{}
		for _, t := range n.Spec.Taints {
			// Taints under node.kubernetes.io/ are the node lifecycle controller's and the
			// kubelet's (not-ready, unreachable, unschedulable, ...): the simulation sets its own.
			// The API server would have refused an invalid one.
			key := t.Key + ":" + string(t.Effect)
			if strings.HasPrefix(t.Key, "node.kubernetes.io/") || taintSeen[key] || !slices.Contains(taintEffects, string(t.Effect)) ||
				len(validation.IsQualifiedName(t.Key)) > 0 || len(validation.IsValidLabelValue(t.Value)) > 0 {
				continue
			}
			taintSeen[key] = true
			taints = append(taints, model.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect})
		}
		if n.Spec.Unschedulable {
			cordoned = append(cordoned, n.Name)
		}
		if a := n.Labels[LabelArch]; a != "" && a != "amd64" {
			arm = append(arm, n.Name)
		}
		zone := firstLabel(n.Labels, LabelZone, "failure-domain.beta.kubernetes.io/zone")
		region := firstLabel(n.Labels, LabelRegion, "failure-domain.beta.kubernetes.io/region")
		key := groupKey(n, zone, region, labels, taints)
		if g := index[key]; g != nil {
			g.count++
			continue
		}
		if len(groups) >= MaxImportNodeGroups {
			return nil, nil, model.DecodeErrors{&model.DecodeError{Pos: pos[n],
				Msg: fmt.Sprintf("the nodes fall into more than %d groups", MaxImportNodeGroups), Hint: "import a dump of fewer, more alike nodes"}}
		}
		g := &importGroup{key: key, zone: zone, region: region, count: 1, node: n, labels: labels, taints: taints, first: n.Name}
		index[key] = g
		groups = append(groups, g)
	}
	nameGroups(groups)
	if len(cordoned) > 0 {
		notes = append(notes, fmt.Sprintf("Cordoned in the dump, not here (add a cordon action to the timeline): %s.", strings.Join(cordoned, ", ")))
	}
	if len(arm) > 0 {
		notes = append(notes, fmt.Sprintf("Not amd64 in the dump; simulated nodes are linux/amd64: %s.", strings.Join(arm, ", ")))
	}
	out := make([]*yaml.Node, len(groups))
	for i, g := range groups {
		m := mappingNode("name", scalarNode(g.name), "count", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(g.count)})
		if g.zone != "" {
			appendPair(m, "zone", scalarNode(g.zone))
		}
		if g.region != "" {
			appendPair(m, "region", scalarNode(g.region))
		}
		capacity := usableResources(g.node.Status.Capacity, nil)
		if _, ok := capacity[model.ResourceCPU]; !ok {
			return nil, nil, model.DecodeErrors{&model.DecodeError{Pos: pos[g.node],
				Msg: fmt.Sprintf("node %s has no cpu in status.capacity", g.first), Hint: "dump the nodes with kubectl get nodes -o yaml, which prints their status"}}
		}
		if _, ok := capacity[model.ResourceMemory]; !ok {
			return nil, nil, model.DecodeErrors{&model.DecodeError{Pos: pos[g.node],
				Msg: fmt.Sprintf("node %s has no memory in status.capacity", g.first), Hint: "dump the nodes with kubectl get nodes -o yaml, which prints their status"}}
		}
		appendPair(m, "capacity", resourceMapping(capacity, nil))
		if alloc := resourceMapping(usableResources(g.node.Status.Allocatable, capacity), capacity); len(alloc.Content) > 0 {
			appendPair(m, "allocatable", alloc)
		}
		if len(g.labels) > 0 {
			lm := mappingNode()
			for _, k := range slices.Sorted(maps.Keys(g.labels)) {
				appendPair(lm, k, scalarNode(g.labels[k]))
			}
			appendPair(m, "labels", lm)
		}
		if len(g.taints) > 0 {
			seq := &yaml.Node{Kind: yaml.SequenceNode}
			for _, t := range g.taints {
				tm := mappingNode("key", scalarNode(t.Key))
				if t.Value != "" {
					appendPair(tm, "value", scalarNode(t.Value))
				}
				appendPair(tm, "effect", scalarNode(string(t.Effect)))
				tm.Style = yaml.FlowStyle
				seq.Content = append(seq.Content, tm)
			}
			appendPair(m, "taints", seq)
		}
		out[i] = m
	}
	return out, notes, nil
}

// groupKey is what nodes of one group share.
func groupKey(n *model.Node, zone, region string, labels map[string]string, taints []model.Taint) string {
	var b strings.Builder
	for _, rl := range []model.ResourceList{n.Status.Capacity, n.Status.Allocatable} {
		for _, r := range slices.Sorted(maps.Keys(rl)) {
			q := rl[r]
			fmt.Fprintf(&b, "%s=%s,", r, q.String())
		}
		b.WriteString("|")
	}
	fmt.Fprintf(&b, "%q|%q|", zone, region)
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		fmt.Fprintf(&b, "%q=%q,", k, labels[k])
	}
	b.WriteString("|")
	for _, t := range taints {
		fmt.Fprintf(&b, "%q=%q:%s,", t.Key, t.Value, t.Effect)
	}
	return b.String()
}

// nameGroups names each group after its pool label (or control-plane, or nodes), with the
// zone added when several groups share that name, and a number when that is not enough.
func nameGroups(groups []*importGroup) {
	base := make([]string, len(groups))
	count := map[string]int{}
	for i, g := range groups {
		name := ""
		for _, l := range importPoolLabels {
			if v := g.labels[l]; v != "" {
				name = dnsLabel(v)
				break
			}
		}
		if name == "" {
			if _, cp := g.node.Labels["node-role.kubernetes.io/control-plane"]; cp {
				name = "control-plane"
			} else {
				name = "nodes"
			}
		}
		base[i] = name
		count[name]++
	}
	used := map[string]bool{}
	for i, g := range groups {
		name := base[i]
		if count[name] > 1 && g.zone != "" {
			if z := dnsLabel(g.zone); z != "" {
				name = dnsLabel(name + "-" + z)
			}
		}
		unique := name
		for k := 2; used[unique]; k++ {
			unique = dnsLabel(name) + "-" + strconv.Itoa(k)
		}
		used[unique] = true
		g.name = unique
	}
}

func firstLabel(labels map[string]string, keys ...string) string {
	for _, k := range keys {
		if v := labels[k]; v != "" {
			if len(validation.IsValidLabelValue(v)) == 0 {
				return v
			}
		}
	}
	return ""
}

// usableResources returns the resources of rl a node group accepts (the known ones, huge
// pages and extended resources; not negative; pods a whole number), and with capacity, only
// those that capacity has and that do not exceed it.
func usableResources(rl, capacity model.ResourceList) model.ResourceList {
	out := model.ResourceList{}
	//detlint:ordered builds a map
	for r, q := range rl {
		if !slices.Contains(knownResources, r) && !strings.Contains(r, "/") && !strings.HasPrefix(r, "hugepages-") {
			continue
		}
		if q.Sign() < 0 {
			continue
		}
		if r == model.ResourcePods {
			if v, whole := q.AsInt64(); !whole || v > int64(maxFlagInt) {
				continue
			}
		}
		if capacity != nil {
			if c, ok := capacity[r]; !ok || q.Cmp(c) > 0 {
				continue
			}
		}
		out[r] = q
	}
	return out
}

// resourceMapping writes a resource list in a flow mapping, cpu, memory and pods first;
// with same, the resources equal to it there are left out (allocatable defaults to
// capacity).
func resourceMapping(rl, same model.ResourceList) *yaml.Node {
	m := mappingNode()
	m.Style = yaml.FlowStyle
	keys := slices.Sorted(maps.Keys(rl))
	sort.SliceStable(keys, func(i, j int) bool { return resourceRank(keys[i]) < resourceRank(keys[j]) })
	for _, r := range keys {
		q := rl[r]
		if s, ok := same[r]; ok && s.Cmp(q) == 0 {
			continue
		}
		appendPair(m, r, quantityNode(q))
	}
	return m
}

func resourceRank(r string) int {
	switch r {
	case model.ResourceCPU:
		return 0
	case model.ResourceMemory:
		return 1
	case model.ResourcePods:
		return 2
	}
	return 3
}

func quantityNode(q resource.Quantity) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: q.String(), Style: yaml.DoubleQuotedStyle}
}

// manifestNode writes obj as a manifest: apiVersion and kind, then its fields as the model
// holds them (so only what the simulator models), without status, empty values and the
// bookkeeping annotations in importDroppedAnnotations.
func manifestNode(obj model.Object) (*yaml.Node, error) {
	c := obj.DeepCopyObject()
	m := c.Meta()
	for _, a := range importDroppedAnnotations {
		delete(m.Annotations, a)
	}
	if len(m.Annotations) == 0 {
		m.Annotations = nil
	}
	data, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("unexpected encoding of %s", model.Ref(obj))
	}
	body := doc.Content[0]
	ki, _ := model.LookupKind(obj.GetKind())
	out := mappingNode("apiVersion", scalarNode(ki.APIVersion), "kind", scalarNode(string(ki.Kind)))
	for i := 0; i+1 < len(body.Content); i += 2 {
		if body.Content[i].Value == "status" {
			continue
		}
		if v := blockStyle(body.Content[i+1]); v != nil {
			out.Content = append(out.Content, blockStyle(body.Content[i]), v)
		}
	}
	return out, nil
}

// blockStyle returns n in block style with plain scalars where YAML reads them back the
// same, dropping nulls and empty mappings and sequences; nil when nothing is left.
func blockStyle(n *yaml.Node) *yaml.Node {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return nil
		}
		n.Style = 0
		return n
	case yaml.MappingNode:
		var kept []*yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if v := blockStyle(n.Content[i+1]); v != nil {
				kept = append(kept, blockStyle(n.Content[i]), v)
			}
		}
		if len(kept) == 0 {
			return nil
		}
		n.Content, n.Style = kept, 0
		return n
	case yaml.SequenceNode:
		var kept []*yaml.Node
		for _, c := range n.Content {
			if v := blockStyle(c); v != nil {
				kept = append(kept, v)
			}
		}
		if len(kept) == 0 {
			return nil
		}
		n.Content, n.Style = kept, 0
		return n
	}
	return n
}

func scalarNode(v string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}
}

// mappingNode builds a block mapping from key, value pairs.
func mappingNode(kv ...any) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for i := 0; i+1 < len(kv); i += 2 {
		appendPair(m, kv[i].(string), kv[i+1].(*yaml.Node))
	}
	return m
}

func appendPair(m *yaml.Node, key string, v *yaml.Node) {
	m.Content = append(m.Content, scalarNode(key), v)
}

func mappingValueOf(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// systemNamespaceSet returns systemNamespaces as a set.
func systemNamespaceSet() map[string]bool {
	out := make(map[string]bool, len(systemNamespaces))
	for _, ns := range systemNamespaces {
		out[ns] = true
	}
	return out
}

// commentText makes s safe in a one-line YAML comment: characters that are not printable
// (control characters, line and paragraph separators) are written as Go escapes.
func commentText(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsPrint(r) || r == ' ' {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteRune(r)
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}
