package scenarios

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/model/patch"
)

// PatchArgs changes an object as `kubectl patch` does: one PATCH request of the given type,
// applied by the API server to the object as it is then (patch.Apply: a JSON patch,
// a JSON merge patch, or a strategic merge patch that merges lists such as containers by
// their merge key).
type PatchArgs struct {
	// Target is the object; any kind but Node (cordon, uncordon) and Pod by its runtime name.
	Target ObjectRef `json:"target"`
	// Type is strategic (the default, as kubectl's), merge or json.
	Type string `json:"type,omitempty"`
	// Body is the patch document: a mapping for merge and strategic, a list of operations
	// ({op, path, value}) for json.
	Body *yaml.Node `json:"body"`
}

// patchTypeNames are the values of PatchArgs.Type, kubectl patch's --type.
var patchTypeNames = []string{"strategic", "merge", "json"}

// PatchType returns the API patch type of a.Type.
func (a *PatchArgs) PatchType() model.PatchType {
	name := a.Type
	if name == "" {
		name = "strategic"
	}
	pt, _ := model.PatchTypeNamed(name)
	return pt
}

// JSON returns the patch as the JSON kubectl sends.
func (a *PatchArgs) JSON() ([]byte, error) {
	if a.Body == nil {
		return nil, fmt.Errorf("the patch is empty")
	}
	v, err := yamlValue(a.Body, 0)
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

// ApplyTo returns obj patched as the API server would patch it, decoded as its kind; obj is
// not modified. The error says why the patch does not apply.
func (a *PatchArgs) ApplyTo(obj model.Object) (model.Object, error) {
	body, err := a.JSON()
	if err != nil {
		return nil, err
	}
	cur, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	out, err := patch.Apply(obj.GetKind(), cur, a.PatchType(), body)
	if err != nil {
		return nil, err
	}
	return decodeAs(obj, out)
}

// EditArgs replaces fields of an object, as `kubectl edit` does: it reads the object, changes
// the fields and writes the whole object back (an update with the resourceVersion it read;
// a conflict with a concurrent writer is retried with a fresh read).
type EditArgs struct {
	// Target is the object; any kind but Node and Pod by its runtime name.
	Target ObjectRef `json:"target"`
	// Set maps field paths to their new values: dot-separated names, with [i] for a list
	// item and [key] for a map key that holds dots ("spec.replicas",
	// "spec.template.spec.containers[0].image", "metadata.labels[app.kubernetes.io/name]").
	// A null value removes the field.
	Set *yaml.Node `json:"set"`
}

// maxEditFields bounds the fields one edit sets.
const maxEditFields = 100

// fieldEdit is one parsed entry of EditArgs.Set.
type fieldEdit struct {
	path  string
	steps []pathStep
	value any
}

// pathStep is one step of a field path: a map key, or a list index when isIndex.
type pathStep struct {
	key     string
	index   int
	isIndex bool
}

// edits parses Set, in the order the file writes it.
func (a *EditArgs) edits() ([]fieldEdit, error) {
	n := resolve(a.Set)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("set must be a mapping of field paths to values")
	}
	if len(n.Content)/2 > maxEditFields {
		return nil, fmt.Errorf("set has %d fields, more than the limit of %d", len(n.Content)/2, maxEditFields)
	}
	var out []fieldEdit
	for i := 0; i+1 < len(n.Content); i += 2 {
		path := n.Content[i].Value
		steps, err := parseFieldPath(path)
		if err != nil {
			return nil, err
		}
		v, err := yamlValue(n.Content[i+1], 0)
		if err != nil {
			return nil, err
		}
		out = append(out, fieldEdit{path: path, steps: steps, value: v})
	}
	return out, nil
}

// parseFieldPath parses "a.b[0].c[key.with.dots]".
func parseFieldPath(path string) ([]pathStep, error) {
	bad := func(why string) error { return fmt.Errorf("field path %q: %s", path, why) }
	if path == "" {
		return nil, bad("empty")
	}
	var steps []pathStep
	rest := path
	for rest != "" {
		switch rest[0] {
		case '[':
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, bad("[ without ]")
			}
			inner := rest[1:end]
			if inner == "" {
				return nil, bad("empty []")
			}
			if i, err := strconv.Atoi(inner); err == nil {
				if i < 0 {
					return nil, bad("negative index")
				}
				steps = append(steps, pathStep{index: i, isIndex: true})
			} else {
				steps = append(steps, pathStep{key: inner})
			}
			rest = rest[end+1:]
			if strings.HasPrefix(rest, ".") {
				rest = rest[1:]
				if rest == "" {
					return nil, bad("ends with a dot")
				}
			}
		default:
			end := strings.IndexAny(rest, ".[")
			if end == 0 {
				return nil, bad("empty name")
			}
			name := rest
			if end > 0 {
				name = rest[:end]
				rest = rest[end:]
				if rest[0] == '.' {
					rest = rest[1:]
					if rest == "" {
						return nil, bad("ends with a dot")
					}
				}
			} else {
				rest = ""
			}
			steps = append(steps, pathStep{key: name})
		}
	}
	if steps[0].isIndex {
		return nil, bad("starts with an index")
	}
	return steps, nil
}

// setField sets (or with nil removes) the value at steps in doc, creating maps on the way;
// a list index must exist.
func setField(doc any, steps []pathStep, value any, path string) (any, error) {
	if len(steps) == 0 {
		return value, nil
	}
	st := steps[0]
	if st.isIndex {
		list, ok := doc.([]any)
		if !ok || st.index >= len(list) {
			return nil, fmt.Errorf("%s: no list item %d", path, st.index)
		}
		v, err := setField(list[st.index], steps[1:], value, path)
		if err != nil {
			return nil, err
		}
		list[st.index] = v
		return list, nil
	}
	m, ok := doc.(map[string]any)
	if doc == nil {
		m, ok = map[string]any{}, true
	}
	if !ok {
		return nil, fmt.Errorf("%s: %s is not a mapping", path, st.key)
	}
	if len(steps) == 1 && value == nil {
		delete(m, st.key)
		return m, nil
	}
	v, err := setField(m[st.key], steps[1:], value, path)
	if err != nil {
		return nil, err
	}
	m[st.key] = v
	return m, nil
}

// ApplyTo returns obj with the fields set, decoded as its kind; obj is not modified.
func (a *EditArgs) ApplyTo(obj model.Object) (model.Object, error) {
	edits, err := a.edits()
	if err != nil {
		return nil, err
	}
	cur, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(cur))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	for _, e := range edits {
		if e.steps[0].key == "metadata" && len(e.steps) > 1 && !e.steps[1].isIndex {
			switch e.steps[1].key {
			case "name", "namespace", "uid", "resourceVersion", "creationTimestamp":
				return nil, fmt.Errorf("%s cannot be edited", e.path)
			}
		}
		if doc, err = setField(doc, e.steps, e.value, e.path); err != nil {
			return nil, err
		}
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	return decodeAs(obj, out)
}

// decodeAs decodes an object's JSON as the kind of like, refusing fields the kind does not
// have (the API server's strict decoding of a patched or edited object); a custom resource
// takes any field (its schema prunes or refuses them).
func decodeAs(like model.Object, data []byte) (model.Object, error) {
	kind := like.GetKind()
	if u, ok := like.(*model.Unstructured); ok {
		out := &model.Unstructured{APIVersion: u.APIVersion, Kind: u.Kind}
		if err := json.Unmarshal(data, out); err != nil {
			return nil, fmt.Errorf("the result is not a %s: %v", kind, err)
		}
		return out, nil
	}
	ki, ok := model.LookupKind(kind)
	if !ok {
		return nil, fmt.Errorf("unknown kind %s", kind)
	}
	obj := ki.New()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(obj); err != nil {
		return nil, fmt.Errorf("the result is not a %s: %v", kind, err)
	}
	return obj, nil
}

// KillContainerArgs makes a container exit now, as a process exit, a `kill` inside the
// container or the kernel's OOM killer does; the kubelet restarts it as the pod's
// restartPolicy says, with the CrashLoopBackOff back-off (10s doubling to 5m) on repeated
// exits.
type KillContainerArgs struct {
	// Target is a Pod by name, or a workload (Deployment, ReplicaSet, StatefulSet,
	// DaemonSet) one of whose running pods is picked (by the run's seed).
	Target ObjectRef `json:"target"`
	// Container is the container's name; default the pod's first container.
	Container string `json:"container,omitempty"`
	// ExitCode is the exit status: 0 to 255, default 137 (killed by SIGKILL).
	ExitCode *int32 `json:"exitCode,omitempty"`
	// OOMKilled reports the exit as the OOM killer's: reason OOMKilled, exit code 137.
	OOMKilled bool `json:"oomKilled,omitempty"`
}

// DefaultKillExitCode is kill-container's default exit code: 128+9, killed by SIGKILL.
const DefaultKillExitCode = 137

// Code returns the exit code the container exits with.
func (a *KillContainerArgs) Code() int32 {
	if a.OOMKilled || a.ExitCode == nil {
		return DefaultKillExitCode
	}
	return *a.ExitCode
}

// killKinds are the kinds kill-container's target accepts.
var killKinds = []model.Kind{model.KindPod, model.KindDeployment, model.KindReplicaSet, model.KindStatefulSet, model.KindDaemonSet}

// editKinds are the kinds patch and edit accept: every kind but Node (cordon, uncordon, the
// node actions) and Event, and the kinds the scenario's CRDs define.
func (l *loader) editKinds() []model.Kind {
	var out []model.Kind
	for _, k := range model.Kinds() {
		if k.Kind != model.KindNode && k.Kind != model.KindEvent {
			out = append(out, k.Kind)
		}
	}
	return append(out, l.customKinds()...)
}

// checkPatch checks a patch action, and applies it to the declared object: a patch that
// does not apply, or whose result the API server would reject, is an error at the patch.
func (l *loader) checkPatch(a *PatchArgs, p string) {
	before := l.problems()
	l.checkRef(a.Target, childPath(p, "target"), l.editKinds())
	tp, pp := childPath(p, "type"), childPath(p, "body")
	if a.Type != "" && !slices.Contains(patchTypeNames, a.Type) {
		l.errPath(tp, fmt.Sprintf("unknown patch type %q", a.Type), "strategic (the default), merge or json, as kubectl patch --type")
	}
	if !l.ix.has(pp) {
		return // reported by checkRequired
	}
	n := resolve(a.Body)
	switch {
	case n == nil || isNull(n):
		l.errPath(pp, "missing value", "the patch document")
	case a.PatchType() == model.JSONPatchType && n.Kind != yaml.SequenceNode:
		l.errPath(pp, "a json patch is a list of operations", `[{op: replace, path: /spec/replicas, value: 5}]`)
	case a.PatchType() != model.JSONPatchType && n.Kind != yaml.MappingNode:
		l.errPath(pp, "a "+strings.TrimSuffix(a.Type+" ", " ")+" patch is a mapping", `{spec: {replicas: 5}}; a list of operations needs type: json`)
	}
	if l.problems() > before {
		return
	}
	l.tryOnDeclared(a.Target, pp, "patch", a.ApplyTo)
}

// checkEdit checks an edit action and applies it to the declared object.
func (l *loader) checkEdit(a *EditArgs, p string) {
	before := l.problems()
	l.checkRef(a.Target, childPath(p, "target"), l.editKinds())
	sp := childPath(p, "set")
	if !l.ix.has(sp) {
		return
	}
	if _, err := a.edits(); err != nil {
		l.errPath(sp, err.Error(), `set: {spec.replicas: 5, "spec.template.spec.containers[0].image": nginx:1.28}`)
	}
	if l.problems() > before {
		return
	}
	l.tryOnDeclared(a.Target, sp, "edit", a.ApplyTo)
}

// tryOnDeclared applies change to the declared object of ref (with the API server's
// defaults, as the object is stored) and reports at path when it fails or the result would
// be rejected, naming the API server's field path.
func (l *loader) tryOnDeclared(ref ObjectRef, path, what string, change func(model.Object) (model.Object, error)) {
	decl := l.declaredAs(ref.Kind, ref.Namespace, ref.Name)
	if len(decl) == 0 {
		return
	}
	// The object as the scenario first declares it.
	d := decl[0]
	base := d.obj.DeepCopyObject()
	model.SetDefaults(base)
	next, err := change(base)
	if err != nil {
		l.errPath(path, fmt.Sprintf("the %s does not apply to %s %s: %v", what, ref.Kind, model.Key(d.obj), err), "")
		return
	}
	m, bm := next.Meta(), base.Meta()
	if m.Name != bm.Name || m.Namespace != bm.Namespace {
		l.errPath(path, fmt.Sprintf("the %s renames %s %s", what, ref.Kind, model.Key(d.obj)), "metadata.name and metadata.namespace cannot change")
		return
	}
	model.SetDefaults(next)
	var errs field.ErrorList
	if u, ok := next.(*model.Unstructured); ok {
		_, errs = l.customResourceErrors(u)
	} else {
		errs = model.Validate(next)
	}
	for _, fe := range errs {
		l.errPath(path, fmt.Sprintf("after this %s %s %s would be invalid: %s: %s", what, ref.Kind, model.Key(d.obj), fe.Field, fe.ErrorBody()),
			"the API server would reject it")
	}
}

// checkKillContainer checks a kill-container action.
func (l *loader) checkKillContainer(a *KillContainerArgs, p string) {
	l.checkRef(a.Target, childPath(p, "target"), killKinds)
	if a.ExitCode != nil && (*a.ExitCode < 0 || *a.ExitCode > 255) {
		l.errPath(childPath(p, "exitCode"), fmt.Sprintf("exitCode must be between 0 and 255, got %d", *a.ExitCode), "")
	}
	if a.ExitCode != nil && a.OOMKilled && *a.ExitCode != DefaultKillExitCode {
		l.errPath(childPath(p, "exitCode"), "an OOM-killed container exits with 137", "drop exitCode, or oomKilled")
	}
	if a.Container == "" || a.Target.Kind == model.KindPod {
		return
	}
	for _, d := range l.declaredAs(a.Target.Kind, a.Target.Namespace, a.Target.Name) {
		tmpl := model.WorkloadTemplate(d.obj)
		if tmpl == nil {
			continue
		}
		names := containerNames(*tmpl)
		if !slices.Contains(names, a.Container) {
			l.errPath(childPath(p, "container"), fmt.Sprintf("the pod template of %s %s has no container %q", a.Target.Kind, model.Key(d.obj), a.Container),
				"containers: "+strings.Join(names, ", "))
		}
		return
	}
}
