package apiserver

import (
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/reconsim/reconsim/model"
)

// Custom resources: a CustomResourceDefinition written to the store registers its kind in
// this store (and no other: kinds from CRDs are per run, so parallel runs of a sweep never
// share them), served by the strategy of apiextensions-apiserver's customresource registry
// (k8s.io/apiextensions-apiserver pkg/registry/customresource, release-1.32). Custom
// resources are stored as *model.Unstructured.
//
// What differs from upstream, on purpose: a CRD is Established and its names accepted at
// once, in the write that creates it (upstream's establishing and naming controllers do it a
// moment later); a CRD cannot be deleted (upstream deletes every custom resource of the kind
// first, through the customresourcecleanup finalizer); the group, kind, plural and scope of a
// CRD cannot change; objects are stored in the storage version and read back in it (every
// version has the same fields: the None conversion strategy).

// crdKind is what a kind registered from a CRD needs beyond KindInfo.
type crdKind struct {
	crd     *model.CustomResourceDefinition
	schemas map[string]*model.CustomResourceSchema // by version name
	storage string
	status  bool
	scale   *model.CustomResourceSubresourceScale
}

// crdKindInfo is the KindInfo of the kind crd defines.
func crdKindInfo(crd *model.CustomResourceDefinition, c *crdKind) model.KindInfo {
	kind := model.Kind(crd.Spec.Names.Kind)
	apiVersion := crd.Spec.Group + "/" + c.storage
	return model.KindInfo{
		Kind:       kind,
		APIVersion: apiVersion,
		Resource:   crd.Spec.Names.Plural,
		Namespaced: crd.Spec.Scope == model.NamespaceScoped,
		HasStatus:  c.status,
		New:        func() model.Object { return &model.Unstructured{APIVersion: apiVersion, Kind: kind} },
	}
}

// newCRDKind compiles a CRD's schemas and subresources. The status and scale subresources
// are those of the storage version (the simulator serves one shape for every version).
func newCRDKind(crd *model.CustomResourceDefinition) *crdKind {
	c := &crdKind{crd: crd, schemas: map[string]*model.CustomResourceSchema{}, storage: crd.StorageVersion()}
	for i := range crd.Spec.Versions {
		v := &crd.Spec.Versions[i]
		var props *model.JSONSchemaProps
		if v.Schema != nil {
			props = v.Schema.OpenAPIV3Schema
		}
		c.schemas[v.Name] = model.NewCustomResourceSchema(props)
		if v.Storage && v.Subresources != nil {
			c.status = v.Subresources.Status != nil
			c.scale = v.Subresources.Scale
		}
	}
	return c
}

// registerCRD registers (or, after an update, refreshes) the kind a stored CRD defines.
func (s *Store) registerCRD(crd *model.CustomResourceDefinition) {
	c := newCRDKind(crd)
	info := crdKindInfo(crd, c)
	if ks := s.kinds[info.Kind]; ks != nil {
		ks.info = info
		ks.strat = customResourceStrategy(c, &ks.info)
		return
	}
	ks := s.addKind(info)
	ks.strat = customResourceStrategy(c, &ks.info)
	for _, fn := range s.kindsChanged {
		fn()
	}
}

// OnKindsChanged registers fn to be called, synchronously, whenever the store starts
// serving a new kind (a CustomResourceDefinition was created). It stands in for what a
// discovery client would see on its next poll; the caller decides when to look.
func (s *Store) OnKindsChanged(fn func()) { s.kindsChanged = append(s.kindsChanged, fn) }

// admitCRD checks what only the store knows about a new CRD: its kind must not be served
// already (by a built-in kind or another CRD), since the simulator keys kinds by name.
func (s *Store) admitCRD(obj model.Object) error {
	crd, ok := obj.(*model.CustomResourceDefinition)
	if !ok {
		return nil
	}
	if ks := s.kinds[model.Kind(crd.Spec.Names.Kind)]; ks != nil && crd.Spec.Names.Kind != "" {
		return apierrors.NewInvalid(schema.GroupKind{Group: "apiextensions.k8s.io", Kind: string(model.KindCustomResourceDefinition)}, crd.Name, field.ErrorList{
			field.Invalid(field.NewPath("spec", "names", "kind"), crd.Spec.Names.Kind,
				fmt.Sprintf("kind %s is served already (apiVersion %s); the simulator serves each kind name once", ks.info.Kind, ks.info.APIVersion)),
		})
	}
	return nil
}

// crdStrategy is the CRD's own registry strategy (apiextensions-apiserver
// pkg/registry/customresourcedefinition/strategy.go): generation 1 on create and bumped on
// spec changes, status reset on create; the status the establishing and naming controllers
// would write is written at once.
func crdStrategy(info model.KindInfo) *strategy {
	st := genericStrategy(info)
	st.allowUnconditionalUpdate = false // strategy.AllowUnconditionalUpdate: false
	create := st.prepareForCreate
	st.prepareForCreate = func(obj model.Object) {
		create(obj)
		crd := obj.(*model.CustomResourceDefinition)
		crd.Status = model.CustomResourceDefinitionStatus{
			Conditions: []model.CustomResourceDefinitionCondition{
				{Type: "NamesAccepted", Status: model.ConditionTrue, Reason: "NoConflicts", Message: "no conflicts found"},
				{Type: "Established", Status: model.ConditionTrue, Reason: "InitialNamesAccepted", Message: "the initial names have been accepted"},
			},
			AcceptedNames:  crd.Spec.Names,
			StoredVersions: []string{crd.StorageVersion()},
		}
	}
	return st
}

// customResourceStrategy follows apiextensions-apiserver pkg/registry/customresource
// strategy.go and status_strategy.go (release-1.32).
func customResourceStrategy(c *crdKind, info *model.KindInfo) *strategy {
	st := &strategy{
		allowUnconditionalUpdate: false, // customResourceStrategy.AllowUnconditionalUpdate
		allowCreateOnUpdate:      false,
		gc:                       gcDeleteDependents,
	}
	st.prepareForCreate = func(obj model.Object) {
		// PrepareForCreate: with the status subresource a create may not set status;
		// generation starts at 1.
		u := obj.(*model.Unstructured)
		if c.status {
			delete(u.Content, "status")
		}
		u.Generation = 1
	}
	st.prepareForUpdate = func(obj, old model.Object) {
		// PrepareForUpdate: with the status subresource the stored status is kept; any
		// change outside metadata bumps generation (status changes too, without the
		// subresource).
		u, o := obj.(*model.Unstructured), old.(*model.Unstructured)
		if u.Content == nil {
			u.Content = map[string]any{}
		}
		if c.status {
			if st, ok := o.Content["status"]; ok {
				u.Content["status"] = st
			} else {
				delete(u.Content, "status")
			}
		}
		if !model.EqualJSON(u.Content, nonNilContent(o.Content)) {
			u.Generation = o.Generation + 1
		}
	}
	st.prepareForStatusUpdate = func(obj, old model.Object) {
		// statusStrategy.PrepareForUpdate: everything but status is the stored object's,
		// metadata included.
		u, o := obj.(*model.Unstructured), old.(*model.Unstructured)
		status, ok := u.Content["status"]
		cp := o.DeepCopy()
		cp.Content = nonNilContent(cp.Content)
		if ok {
			cp.Content["status"] = status
		} else {
			delete(cp.Content, "status")
		}
		*u = *cp
	}
	st.normalize = func(obj model.Object) error {
		u, ok := obj.(*model.Unstructured)
		if !ok {
			return apierrors.NewBadRequest(fmt.Sprintf("a %s must be a custom resource object", info.Kind))
		}
		sch, err := c.servedSchema(u, info)
		if err != nil {
			return err
		}
		u.APIVersion = info.APIVersion // stored in the storage version (None conversion)
		u.Content = nonNilContent(u.Content)
		sch.Prune(u.Content)
		sch.Default(u.Content)
		return nil
	}
	st.validateCreate = func(obj model.Object) field.ErrorList {
		return model.ValidateCustomResource(obj.(*model.Unstructured), info.Namespaced, c.schemas[c.storage], c.scale)
	}
	st.validateUpdate = func(old, obj model.Object) field.ErrorList {
		return model.ValidateCustomResourceUpdate(old.(*model.Unstructured), obj.(*model.Unstructured), c.schemas[c.storage], c.scale)
	}
	if c.scale != nil {
		st.scale = customScaleTarget(c.scale)
	}
	return st
}

func nonNilContent(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// servedSchema returns the schema of the version u is written in: its group must be the
// CRD's and the version one the CRD serves (else 404, as no such endpoint exists).
func (c *crdKind) servedSchema(u *model.Unstructured, info *model.KindInfo) (*model.CustomResourceSchema, error) {
	if u.APIVersion == "" {
		return c.schemas[c.storage], nil
	}
	if u.Group() != c.crd.Spec.Group {
		return nil, errUnknownResource(info.Kind)
	}
	if _, ok := c.crd.ServedVersion(u.Version()); !ok {
		return nil, errUnknownResource(info.Kind)
	}
	return c.schemas[u.Version()], nil
}

// customScaleTarget is the scale subresource of a custom resource
// (apiextensions-apiserver pkg/registry/customresource/etcd.go ScaleREST): spec and status
// replicas at the CRD's paths, the selector string at labelSelectorPath.
func customScaleTarget(sc *model.CustomResourceSubresourceScale) *scaleTarget {
	steps := func(p string) []string { return strings.Split(strings.TrimPrefix(p, "."), ".") }
	spec, status := steps(sc.SpecReplicasPath), steps(sc.StatusReplicasPath)
	replicas := func(o model.Object, path []string) int32 {
		v, _ := model.NestedField(o.(*model.Unstructured).Content, path...)
		if i, ok := v.(int64); ok {
			return int32(i)
		}
		return 0
	}
	t := &scaleTarget{
		specReplicas:   func(o model.Object) int32 { return replicas(o, spec) },
		statusReplicas: func(o model.Object) int32 { return replicas(o, status) },
		selector:       func(model.Object) *metav1.LabelSelector { return nil },
		withReplicas: func(o model.Object, n int32) model.Object {
			u := o.(*model.Unstructured).DeepCopy()
			u.Content = nonNilContent(u.Content)
			setNested(u.Content, int64(n), spec...)
			return u
		},
	}
	if sc.LabelSelectorPath != nil {
		sel := steps(*sc.LabelSelectorPath)
		t.selectorString = func(o model.Object) string {
			v, _ := model.NestedField(o.(*model.Unstructured).Content, sel...)
			s, _ := v.(string)
			return s
		}
	}
	return t
}

// setNested sets the value at path, creating the objects on the way.
func setNested(obj map[string]any, v any, path ...string) {
	for _, p := range path[:len(path)-1] {
		next, ok := obj[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			obj[p] = next
		}
		obj = next
	}
	obj[path[len(path)-1]] = v
}

// ServedKinds returns every kind the store serves now, as discovery would list them: the
// built-in kinds in registry order, then the kinds of CustomResourceDefinitions in the order
// they were created.
func (s *Store) ServedKinds() []model.KindInfo {
	out := make([]model.KindInfo, len(s.kindList))
	for i, ks := range s.kindList {
		out[i] = ks.info
	}
	return out
}

// LookupKind returns how the store serves kind (a built-in kind or one a CRD defines).
func (s *Store) LookupKind(kind model.Kind) (model.KindInfo, bool) {
	if ks := s.kinds[kind]; ks != nil {
		return ks.info, true
	}
	return model.LookupKind(kind)
}
