package model

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/reconsim/reconsim/internal/words"
)

// Cluster dumps: what `kubectl get deploy,rs,sts,ds,svc,pdb,hpa,nodes -A -o yaml` prints. Its
// objects carry what the API server set (uid, resourceVersion, creationTimestamp, generation,
// managedFields, status) and objects that the cluster's own controllers and kubelets made.
// The simulated cluster makes its own, so the decoder drops the first and skips the second,
// and says so in a few lines rather than one per field.

// maxSkipWarnings caps the warnings for groups of skipped objects; the rest share one.
const maxSkipWarnings = 100

// dumpSummary collects, over one decoding run, what was dropped from dump objects and which
// objects were skipped, for finishDump.
type dumpSummary struct {
	objects  int
	firstPos Position
	// metaFields are the server-set metadata fields dropped, by name.
	metaFields []string
	status     int
	ownerRefs  int
	nodeNames  int
	namespaces []string
	nsSeen     map[string]bool
	taintTimes int
	skips      []*skipGroup
	skipIndex  map[string]*skipGroup
}

// skipGroup is the objects skipped for one reason (a kind the simulator does not model, the
// ReplicaSets a Deployment owns, ...).
type skipGroup struct {
	key    string
	reason string
	pos    Position
	count  int
}

// isDumpObject reports whether metadata carries a value the API server sets, so that the
// object was read back from a cluster rather than written by hand. `creationTimestamp: null`,
// which `kubectl create --dry-run -o yaml` prints, is not one.
func (d *Decoder) isDumpObject(metadata *yaml.Node) bool {
	m := d.flattenMerges(metadata)
	if m == nil || m.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Kind == yaml.ScalarNode && slices.Contains(serverSetMetadata, k.Value) && !isNull(resolveQuiet(m.Content[i+1])) {
			return true
		}
	}
	return false
}

// kindName is what a kind looks like (a Go type name, as upstream and CRDs name kinds).
var kindName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]{0,62}$`)

// builtinGroup reports whether group is served by Kubernetes itself (so that an unknown kind
// in it is a typo, not a custom resource).
func builtinGroup(group string) bool {
	if group == "" || !strings.Contains(group, ".") {
		return true
	}
	//detlint:ordered a yes/no answer; the order of the search does not matter
	for _, versions := range upstreamKinds {
		for _, v := range versions {
			if g, _, ok := strings.Cut(v, "/"); ok && g == group {
				return true
			}
		}
	}
	return strings.HasSuffix(group, ".k8s.io")
}

// skipUnmodelledKind skips (or, when strict, refuses) an object of a kind that Kubernetes or
// a custom resource definition has and the simulator does not model, and reports whether it
// did. A kind that neither has, or a built-in kind under the wrong apiVersion, is left to
// the caller (an error).
func (d *Decoder) skipUnmodelledKind(n, apiVersionNode, kindNode *yaml.Node, apiVersion, kind, path string) bool {
	group, _, hasGroup := strings.Cut(apiVersion, "/")
	if !hasGroup {
		group = ""
	}
	if versions, ok := upstreamKinds[kind]; ok {
		if slices.Contains(versions, apiVersion) {
			d.skip(n, path, "kind "+kind, fmt.Sprintf("the simulator does not model %s", kind))
			return true
		}
		if apiVersionNode != nil && apiVersion != "" && builtinGroup(group) {
			d.fail(apiVersionNode, childPath(path, "apiVersion"), fmt.Sprintf("apiVersion %q does not serve kind %s", apiVersion, kind),
				fmt.Sprintf("Kubernetes serves it as apiVersion: %s", strings.Join(versions, ", ")))
			return true
		}
	}
	if hasGroup && !builtinGroup(group) && kindName.MatchString(kind) {
		d.skip(n, path, "custom "+apiVersion+" "+kind, fmt.Sprintf("%s %s is a custom resource, which the simulator does not model", apiVersion, kind))
		return true
	}
	return false
}

// ownedByModelledController returns the kind of the object's controller (its owner
// reference with controller: true) when the simulator models that kind: in a cluster dump
// such an object is skipped, as the simulated controller makes its own.
func ownedByModelledController(meta *yaml.Node) (ownerKind string, ok bool) {
	refs := mappingValue(resolveQuiet(meta), "ownerReferences")
	if refs == nil || refs.Kind != yaml.SequenceNode {
		return "", false
	}
	for _, ref := range refs.Content {
		r := resolveQuiet(ref)
		if r == nil || r.Kind != yaml.MappingNode {
			continue
		}
		c := mappingValue(r, "controller")
		k := mappingValue(r, "kind")
		if c == nil || c.Value != "true" || k == nil {
			continue
		}
		if _, modelled := LookupKind(Kind(k.Value)); modelled {
			return k.Value, true
		}
	}
	return "", false
}

// skipDumpObject skips (or, when strict, refuses) an object of a cluster dump that the
// simulated cluster makes itself, and reports whether it did.
func (d *Decoder) skipDumpObject(n *yaml.Node, kind Kind, meta *yaml.Node, path string) bool {
	if owner, owned := ownedByModelledController(meta); owned {
		reason := fmt.Sprintf("%s objects of a cluster dump owned by a %s: the simulated cluster's controllers make their own", kind, owner)
		if owner == string(KindNode) {
			reason = fmt.Sprintf("%s objects of a cluster dump owned by a Node (mirror pods of static pods): the simulated kubelets run none", kind)
		}
		d.skip(n, path, "owned "+string(kind)+" "+owner, reason)
		return true
	}
	switch kind {
	case KindNode:
		if d.manifest.KeepNodes {
			return false
		}
		d.skip(n, path, "dump Node",
			"Nodes of a cluster dump are not created: the simulated nodes, each with its kubelet, come from cluster.nodeGroups (`sim import FILE` writes node groups from them)")
		return true
	case KindEvent:
		d.skip(n, path, "dump Event", "Events of a cluster dump are the real cluster's history")
		return true
	case KindLease:
		d.skip(n, path, "dump Lease", "Leases of a cluster dump are held by the real cluster's processes")
		return true
	case KindFlowSchema, KindPriorityLevelConfiguration:
		// The bootstrap configuration kube-apiserver keeps (the ensurer marks what it
		// maintains with apf.kubernetes.io/autoupdate-spec: "true" and resets it), which the
		// simulated API server has of its own.
		m := resolveQuiet(meta)
		name := mappingValue(m, "name")
		auto := mappingValue(resolveQuiet(mappingValue(m, "annotations")), AutoUpdateAnnotationKey)
		if name != nil && auto != nil && autoUpdates(auto.Value) && isBootstrapAPFName(kind, name.Value) {
			d.skip(n, path, "dump bootstrap "+string(kind),
				fmt.Sprintf("the bootstrap %ss of a cluster dump (annotated %s: \"true\"): the simulated API server has its own", kind, AutoUpdateAnnotationKey))
			return true
		}
	case KindNamespace:
		if name := mappingValue(resolveQuiet(meta), "name"); name != nil && d.manifest.ExistingNamespaces[name.Value] {
			d.noteDump(n)
			if d.dump.nsSeen == nil {
				d.dump.nsSeen = map[string]bool{}
			}
			if !d.dump.nsSeen[name.Value] {
				d.dump.nsSeen[name.Value] = true
				d.dump.namespaces = append(d.dump.namespaces, name.Value)
			}
			return true
		}
	}
	return false
}

// skip records a skipped object under key, or refuses it in strict mode.
func (d *Decoder) skip(n *yaml.Node, path, key, reason string) {
	if d.manifest.Strict {
		d.fail(n, path, reason+"; --strict refuses to skip it", "remove it from the file, or run without --strict")
		return
	}
	if g := d.dump.skipIndex[key]; g != nil {
		g.count++
		return
	}
	if d.dump.skipIndex == nil {
		d.dump.skipIndex = map[string]*skipGroup{}
	}
	g := &skipGroup{key: key, reason: reason, pos: d.pos(n), count: 1}
	d.dump.skipIndex[key] = g
	d.dump.skips = append(d.dump.skips, g)
}

func (d *Decoder) noteDump(n *yaml.Node) {
	if d.dump.objects == 0 {
		d.dump.firstPos = d.pos(n)
	}
	d.dump.objects++
}

// pruneDumpObject returns the top level of a dump object without what the API server set:
// server-set metadata, ownerReferences (their uids name objects of the real cluster), status
// (a Node's capacity and allocatable stay with KeepNodes), a pod's spec.nodeName (the
// scheduler's choice in the real cluster) and taints' timeAdded.
func (d *Decoder) pruneDumpObject(kind Kind, top *yaml.Node) *yaml.Node {
	d.noteDump(top)
	return withoutKeys(top, func(key string, v *yaml.Node) (*yaml.Node, bool) {
		switch key {
		case "metadata":
			m := d.stripServerSetMetadata(v)
			return withoutKeys(m, func(key string, v *yaml.Node) (*yaml.Node, bool) {
				if key == "ownerReferences" && !isNull(resolveQuiet(v)) {
					d.dump.ownerRefs++
					return nil, false
				}
				return v, true
			}), true
		case "status":
			if isNull(resolveQuiet(v)) {
				return nil, false
			}
			d.dump.status++
			if kind == KindNode && d.manifest.KeepNodes {
				return withoutKeys(v, func(key string, v *yaml.Node) (*yaml.Node, bool) {
					return v, key == "capacity" || key == "allocatable"
				}), true
			}
			return nil, false
		case "spec":
			switch kind {
			case KindPod:
				return withoutKeys(v, func(key string, v *yaml.Node) (*yaml.Node, bool) {
					if key == "nodeName" && !isNull(resolveQuiet(v)) {
						d.dump.nodeNames++
						return nil, false
					}
					return v, true
				}), true
			case KindNode:
				return withoutKeys(v, func(key string, v *yaml.Node) (*yaml.Node, bool) {
					if key != "taints" {
						return v, true
					}
					return d.withoutTaintTimes(v), true
				}), true
			}
		}
		return v, true
	})
}

// withoutTaintTimes returns a taint list without timeAdded, an RFC 3339 time of the real
// cluster.
func (d *Decoder) withoutTaintTimes(taints *yaml.Node) *yaml.Node {
	r := resolveQuiet(taints)
	if r == nil || r.Kind != yaml.SequenceNode {
		return taints
	}
	out := *r
	out.Content = make([]*yaml.Node, len(r.Content))
	for i, t := range r.Content {
		out.Content[i] = withoutKeys(t, func(key string, v *yaml.Node) (*yaml.Node, bool) {
			if key == "timeAdded" && !isNull(resolveQuiet(v)) {
				d.dump.taintTimes++
				return nil, false
			}
			return v, true
		})
	}
	return &out
}

// withoutServerSetMetadata returns the top level of a manifest with its metadata stripped of
// the server-set fields (see stripServerSetMetadata).
func (d *Decoder) withoutServerSetMetadata(top *yaml.Node) *yaml.Node {
	return withoutKeys(top, func(key string, v *yaml.Node) (*yaml.Node, bool) {
		if key == "metadata" {
			return d.stripServerSetMetadata(v), true
		}
		return v, true
	})
}

// stripServerSetMetadata returns metadata without the server-set fields, counting those that
// have a value.
func (d *Decoder) stripServerSetMetadata(meta *yaml.Node) *yaml.Node {
	return withoutKeys(d.flattenMerges(meta), func(key string, v *yaml.Node) (*yaml.Node, bool) {
		if !slices.Contains(serverSetMetadata, key) {
			return v, true
		}
		if !isNull(resolveQuiet(v)) && !slices.Contains(d.dump.metaFields, key) {
			d.dump.metaFields = append(d.dump.metaFields, key)
		}
		return nil, false
	})
}

// flattenMerges returns mapping n with its merge keys (<<) applied, so that a field merged
// in from an anchor is seen like one written out; n itself when it has none or is not a
// mapping.
func (d *Decoder) flattenMerges(n *yaml.Node) *yaml.Node {
	r := resolveQuiet(n)
	if r == nil || r.Kind != yaml.MappingNode {
		return r
	}
	merges := false
	for i := 0; i+1 < len(r.Content); i += 2 {
		if k := r.Content[i]; k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merges = true
		}
	}
	if !merges {
		return r
	}
	out := *r
	out.Content = nil
	for _, e := range d.mappingEntries(r, "metadata", 0) {
		out.Content = append(out.Content, e.key, e.value)
	}
	return &out
}

// withoutKeys returns mapping n (n itself when it is not a mapping) with only the entries
// keep returns true for, with the value keep returns: n resolved when that is every entry as
// it is (the common case, which then costs no memory), else a copy. The input is not
// changed: an anchored node may be used elsewhere.
func withoutKeys(n *yaml.Node, keep func(key string, v *yaml.Node) (*yaml.Node, bool)) *yaml.Node {
	r := resolveQuiet(n)
	if r == nil || r.Kind != yaml.MappingNode {
		return n
	}
	var out *yaml.Node // the copy, made at the first entry that changes
	for i := 0; i+1 < len(r.Content); i += 2 {
		k, v := r.Content[i], r.Content[i+1]
		nv, ok := v, true
		if k.Kind == yaml.ScalarNode && k.ShortTag() != "!!merge" {
			nv, ok = keep(k.Value, v)
		}
		if out == nil && (!ok || nv != v) {
			c := *r
			out = &c
			out.Content = make([]*yaml.Node, i, len(r.Content))
			copy(out.Content, r.Content[:i])
		}
		if out != nil && ok {
			out.Content = append(out.Content, k, nv)
		}
	}
	if out == nil {
		return r
	}
	return out
}

// mappingValue returns the value under key in mapping m, resolved, or nil.
func mappingValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i]; k.Kind == yaml.ScalarNode && k.Value == key {
			return resolveQuiet(m.Content[i+1])
		}
	}
	return nil
}

// finishDump writes the dump warnings: one per group of skipped objects, and one summary of
// what was dropped from dump objects.
func (d *Decoder) finishDump() {
	for i, g := range d.dump.skips {
		if i == maxSkipWarnings {
			more, objects := len(d.dump.skips)-i, 0
			for _, g := range d.dump.skips[i:] {
				objects += g.count
			}
			d.addWarning(Warning{Pos: g.pos, Msg: fmt.Sprintf("skipped %d more %s of %d other kinds", objects, words.Plural(objects, "object", "objects"), more)})
			break
		}
		d.addWarning(Warning{Pos: g.pos, Msg: fmt.Sprintf("skipped %d %s: %s", g.count, words.Plural(g.count, "object", "objects"), g.reason)})
	}
	s := d.dump
	if s.objects > 0 || len(s.metaFields) > 0 {
		var parts []string
		if len(s.metaFields) > 0 {
			fields := slices.Clone(s.metaFields)
			slices.Sort(fields)
			parts = append(parts, "metadata "+strings.Join(fields, ", "))
		}
		if s.status > 0 {
			parts = append(parts, fmt.Sprintf("status of %d", s.status))
		}
		if s.ownerRefs > 0 {
			parts = append(parts, fmt.Sprintf("ownerReferences of %d", s.ownerRefs))
		}
		if s.nodeNames > 0 {
			parts = append(parts, fmt.Sprintf("spec.nodeName of %d %s", s.nodeNames, words.Plural(s.nodeNames, "pod", "pods")))
		}
		if s.taintTimes > 0 {
			parts = append(parts, fmt.Sprintf("timeAdded of %d %s", s.taintTimes, words.Plural(s.taintTimes, "taint", "taints")))
		}
		if len(s.namespaces) > 0 {
			listed := s.namespaces
			more := ""
			if len(listed) > maxListedUnmodelled {
				listed, more = listed[:maxListedUnmodelled], fmt.Sprintf(" and %d more", len(s.namespaces)-maxListedUnmodelled)
			}
			parts = append(parts, "the Namespaces the simulated cluster creates itself ("+strings.Join(listed, ", ")+more+")")
		}
		pos := s.firstPos
		if s.objects == 0 {
			pos = Position{File: d.opts.File, Line: 1, Column: 1}
		}
		d.addWarning(Warning{Pos: pos, Msg: fmt.Sprintf("dropped what the API server set in %d %s (%s): the simulated cluster sets its own",
			max(s.objects, 1), words.Plural(max(s.objects, 1), "object", "objects"), strings.Join(parts, "; "))})
	}
	d.dump = dumpSummary{}
}
