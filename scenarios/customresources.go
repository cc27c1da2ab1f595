package scenarios

import (
	"fmt"
	"sort"
	"strings"

	"github.com/reconsim/reconsim/model"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Custom resources in a scenario: a CustomResourceDefinition declared in objects: or an
// apply serves its kind to the rest of the scenario (objects, applies, expectation targets),
// and each custom resource is checked against its CRD at load time the way kube-apiserver
// would check it when the run creates it: a kind no CRD defines, a version the CRD does not
// serve, and a schema violation are errors at file:line:col (the violation at the offending
// field, with the field path kube-apiserver prints); fields the schema does not declare are
// warnings, as kube-apiserver warns `unknown field` and drops them.

// declaredCRDs returns the CRDs the scenario declares, by kind (the first declaration of a
// kind wins; a second one is reported by checkObjects as declared twice, or by the API
// server at run time).
func (l *loader) declaredCRDs() map[model.Kind]*model.CustomResourceDefinition {
	if l.crds != nil {
		return l.crds
	}
	l.crds = map[model.Kind]*model.CustomResourceDefinition{}
	for _, d := range l.declared {
		crd, ok := d.obj.(*model.CustomResourceDefinition)
		if !ok {
			continue
		}
		k := model.Kind(crd.Spec.Names.Kind)
		if _, seen := l.crds[k]; !seen && k != "" {
			l.crds[k] = crd
		}
	}
	return l.crds
}

// lookupKind is model.LookupKind extended by the kinds the scenario's CRDs define.
func (l *loader) lookupKind(k model.Kind) (model.KindInfo, bool) {
	if ki, ok := model.LookupKind(k); ok {
		return ki, true
	}
	crd := l.declaredCRDs()[k]
	if crd == nil {
		return model.KindInfo{}, false
	}
	return model.KindInfo{
		Kind:       k,
		APIVersion: crd.Spec.Group + "/" + crd.StorageVersion(),
		Resource:   crd.Spec.Names.Plural,
		Namespaced: crd.Spec.Scope == model.NamespaceScoped,
		HasStatus:  hasStatusSubresource(crd),
		New:        func() model.Object { return &model.Unstructured{Kind: k} },
	}, true
}

func hasStatusSubresource(crd *model.CustomResourceDefinition) bool {
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			return v.Subresources != nil && v.Subresources.Status != nil
		}
	}
	return false
}

// scenarioKindNames is kindNames with the kinds the scenario's CRDs define.
func (l *loader) scenarioKindNames() []string {
	names := kindNames()
	for k := range l.declaredCRDs() { //detlint:ordered sorted below
		names = append(names, string(k))
	}
	sort.Strings(names)
	return names
}

// checkCustomResource checks a declared custom resource against its CRD and reports whether
// it has one (the caller's checks that need the kind's scope run only then).
func (l *loader) checkCustomResource(d declaredObject, u *model.Unstructured) bool {
	crd := l.declaredCRDs()[u.Kind]
	if crd == nil {
		hint := fmt.Sprintf("declare a CustomResourceDefinition with spec.group: %s and spec.names.kind: %s in objects:", u.Group(), u.Kind)
		if s := didYouMean(string(u.Kind), l.scenarioKindNames()); s != "" {
			hint = s + " Otherwise " + hint
		}
		l.errCustom(d, u, "kind", fmt.Sprintf("no CustomResourceDefinition in this scenario defines kind %s (apiVersion %s)", u.Kind, u.APIVersion), hint)
		return false
	}
	if d.inObjects && !l.crdInObjects(u.Kind) {
		l.errCustom(d, u, "kind", fmt.Sprintf("%s %s is created at the start of the run, but its CustomResourceDefinition is only applied later", u.Kind, model.Key(u)),
			"declare the CustomResourceDefinition in objects: too, or apply this object after it")
		return false
	}
	if u.Group() != crd.Spec.Group {
		l.errCustom(d, u, "apiVersion", fmt.Sprintf("kind %s is served in group %s, not %s", u.Kind, crd.Spec.Group, u.Group()), fmt.Sprintf("use apiVersion: %s/%s", crd.Spec.Group, crd.StorageVersion()))
		return false
	}
	_, ok := crd.ServedVersion(u.Version())
	if !ok {
		var served []string
		for _, v := range crd.Spec.Versions {
			if v.Served {
				served = append(served, crd.Spec.Group+"/"+v.Name)
			}
		}
		l.errCustom(d, u, "apiVersion", fmt.Sprintf("CustomResourceDefinition %s does not serve version %s", crd.Name, u.Version()), "served: "+strings.Join(served, ", "))
		return false
	}
	pruned, errs := l.customResourceErrors(u)
	for _, p := range pruned {
		pos, path := l.customField(d, u, p)
		l.warns = append(l.warns, model.Warning{Pos: pos, Path: path, Msg: fmt.Sprintf("unknown field %q: the schema of %s does not declare it, and the API server drops it", p, crd.Name)})
	}
	for _, fe := range errs {
		field := strings.TrimPrefix(fe.Field, ".")
		l.errCustom(d, u, field, fmt.Sprintf("%s: %s", fe.Field, fe.ErrorBody()),
			fmt.Sprintf("the API server would reject it with 422 Invalid (%s.%s %q is invalid)", u.Kind, crd.Spec.Group, u.Name))
	}
	return true
}

// customResourceErrors does to a copy of u what the API server does when it creates it (u's
// CRD and version exist): prune, default, drop status under the status subresource,
// validate. It returns the pruned field paths and the validation errors.
func (l *loader) customResourceErrors(u *model.Unstructured) (pruned []string, errs field.ErrorList) {
	crd := l.declaredCRDs()[u.Kind]
	if crd == nil {
		return nil, nil
	}
	v, ok := crd.ServedVersion(u.Version())
	if !ok {
		return nil, nil
	}
	var props *model.JSONSchemaProps
	if v.Schema != nil {
		props = v.Schema.OpenAPIV3Schema
	}
	sch := model.NewCustomResourceSchema(props)
	probe := u.DeepCopy()
	if probe.Content == nil {
		probe.Content = map[string]any{}
	}
	pruned = sch.Prune(probe.Content)
	sch.Default(probe.Content)
	var scale *model.CustomResourceSubresourceScale
	if v.Subresources != nil {
		scale = v.Subresources.Scale
		if v.Subresources.Status != nil {
			delete(probe.Content, "status") // the API server drops it on create
		}
	}
	return pruned, model.ValidateCustomResource(probe, crd.Spec.Scope == model.NamespaceScoped, sch, scale)
}

// customKinds returns the kinds the scenario's CRDs define, sorted.
func (l *loader) customKinds() []model.Kind {
	var out []model.Kind
	for k := range l.declaredCRDs() { //detlint:ordered sorted below
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// crdInObjects reports whether the CRD of kind k is declared in objects: (so it exists at the
// start of the run).
func (l *loader) crdInObjects(k model.Kind) bool {
	for _, d := range l.declared {
		if crd, ok := d.obj.(*model.CustomResourceDefinition); ok && d.inObjects && model.Kind(crd.Spec.Names.Kind) == k {
			return true
		}
	}
	return false
}

// customField returns where the field at fieldPath of a custom resource is written: in its
// manifest (inline in the scenario, or in the manifest file), and the scenario path to
// report.
func (l *loader) customField(d declaredObject, u *model.Unstructured, fieldPath string) (model.Position, string) {
	path := joinPath(l.declPath(d), fieldPath)
	if pos, ok := u.FieldPosition(fieldPath); ok {
		if l.declFile(d) != "" {
			return pos, l.declPath(d)
		}
		return pos, path
	}
	return l.objectField(d, fieldPath)
}

// errCustom reports a problem of a custom resource at fieldPath.
func (l *loader) errCustom(d declaredObject, u *model.Unstructured, fieldPath, msg, hint string) {
	pos, path := l.customField(d, u, fieldPath)
	if l.declFile(d) != "" {
		msg = fmt.Sprintf("%s %s in %s: %s", u.Kind, model.Key(u), l.declFile(d), msg)
	}
	l.add(&model.DecodeError{Pos: pos, Path: path, Msg: msg, Hint: hint})
}

// skipDumpedCustomResources leaves out the custom resources of a cluster dump
// (`kubectl get -o yaml` output) whose kind no CRD in the scenario defines, with one warning
// per kind, as the manifest decoder skips the other kinds the simulated cluster cannot
// create; under --strict they stay, and are errors. A hand-written custom resource of an
// undefined kind is always an error (checkCustomResource).
func (l *loader) skipDumpedCustomResources() {
	if l.opts.Strict {
		return
	}
	crds := l.declaredCRDs()
	drop := map[model.Object]bool{}
	warned := map[model.Kind]bool{}
	kept := l.declared[:0]
	for _, d := range l.declared {
		u, ok := d.obj.(*model.Unstructured)
		if !ok || !u.FromClusterDump() || crds[u.Kind] != nil {
			kept = append(kept, d)
			continue
		}
		drop[d.obj] = true
		if !warned[u.Kind] {
			warned[u.Kind] = true
			l.warns = append(l.warns, model.Warning{Pos: l.pos(d), Path: l.declPath(d),
				Msg: fmt.Sprintf("%s %s is a custom resource and the scenario declares no CustomResourceDefinition for it: its objects are left out (declare the CRD in objects: to create them)", u.APIVersion, u.Kind)})
		}
	}
	if len(drop) == 0 {
		return
	}
	l.declared = kept
	filter := func(objs []model.Object) []model.Object {
		out := objs[:0]
		for _, o := range objs {
			if !drop[o] {
				out = append(out, o)
			}
		}
		return out
	}
	for i := range l.s.Objects {
		l.s.Objects[i].Objects = filter(l.s.Objects[i].Objects)
	}
	for i := range l.s.Timeline {
		if a := l.s.Timeline[i].Action.Apply; a != nil {
			a.Objects = filter(a.Objects)
		}
	}
}

// customResourceNames returns the resources of the scenario's CRDs as a request filter
// names them: the plural, and plural/status and plural/scale for the subresources a CRD has.
func (l *loader) customResourceNames() []string {
	var out []string
	for _, k := range l.customKinds() {
		crd := l.declaredCRDs()[k]
		plural := crd.Spec.Names.Plural
		out = append(out, plural)
		for _, v := range crd.Spec.Versions {
			if !v.Storage || v.Subresources == nil {
				continue
			}
			if v.Subresources.Status != nil {
				out = append(out, plural+"/status")
			}
			if v.Subresources.Scale != nil {
				out = append(out, plural+"/scale")
			}
		}
	}
	return out
}
