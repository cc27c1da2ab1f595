package model

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// SetDefaults fills what apiextensions/v1 defaulting fills
// (k8s.io/apiextensions-apiserver pkg/apis/apiextensions/v1/defaults.go, release-1.32):
// names.singular is the lower-cased kind, names.listKind is kind + "List", the conversion
// strategy is None.
func (o *CustomResourceDefinition) SetDefaults() {
	n := &o.Spec.Names
	if n.Singular == "" {
		n.Singular = strings.ToLower(n.Kind)
	}
	if n.ListKind == "" && n.Kind != "" {
		n.ListKind = n.Kind + "List"
	}
	if o.Spec.Conversion == nil {
		o.Spec.Conversion = &CustomResourceConversion{Strategy: "None"}
	}
}

// Validate checks a CustomResourceDefinition as kube-apiserver does on create
// (apiextensions-apiserver pkg/apis/apiextensions/validation/validation.go
// ValidateCustomResourceDefinition, release-1.32), for what the simulator models: the name is
// plural.group; group, names, scope and versions are present and well formed; exactly one
// version is the storage version; every version has a structural schema (a type at every
// level, object at the root); the scale subresource's paths point into spec and status; the
// only conversion strategy is None. The metadata is checked by Validate (model) itself.
func (o *CustomResourceDefinition) Validate() field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	s := &o.Spec
	if want := s.Names.Plural + "." + s.Group; o.Name != "" && o.Name != want {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), o.Name, `must be spec.names.plural+"."+spec.group`))
	}
	if s.Group == "" {
		errs = append(errs, field.Required(spec.Child("group"), ""))
	} else {
		for _, msg := range dns1123Subdomain(s.Group) {
			errs = append(errs, field.Invalid(spec.Child("group"), s.Group, msg))
		}
		if len(strings.Split(s.Group, ".")) < 2 {
			errs = append(errs, field.Invalid(spec.Child("group"), s.Group, "should be a domain with at least one dot"))
		}
	}
	switch s.Scope {
	case "":
		errs = append(errs, field.Required(spec.Child("scope"), ""))
	case NamespaceScoped, ClusterScoped:
	default:
		errs = append(errs, field.NotSupported(spec.Child("scope"), s.Scope, []string{string(ClusterScoped), string(NamespaceScoped)}))
	}
	errs = append(errs, validateCRDNames(&s.Names, spec.Child("names"))...)
	if s.PreserveUnknownFields {
		errs = append(errs, field.Invalid(spec.Child("preserveUnknownFields"), true, "must be false"))
	}
	if s.Conversion != nil && s.Conversion.Strategy != "None" {
		errs = append(errs, field.NotSupported(spec.Child("conversion", "strategy"), s.Conversion.Strategy, []string{"None"}))
	}
	vpath := spec.Child("versions")
	if len(s.Versions) == 0 {
		errs = append(errs, field.Invalid(vpath, s.Versions, "must have exactly one version marked as storage version"))
	}
	storage, served := 0, 0
	seen := map[string]bool{}
	for i := range s.Versions {
		v := &s.Versions[i]
		p := vpath.Index(i)
		if v.Storage {
			storage++
		}
		if v.Served {
			served++
		}
		if v.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		} else {
			for _, msg := range validation.IsDNS1035Label(v.Name) {
				errs = append(errs, field.Invalid(p.Child("name"), v.Name, msg))
			}
			if seen[v.Name] {
				errs = append(errs, field.Invalid(vpath, s.Versions, "must contain unique version names"))
			}
			seen[v.Name] = true
		}
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			errs = append(errs, field.Required(p.Child("schema", "openAPIV3Schema"), "schemas are required"))
		} else {
			errs = append(errs, validateStructural(v.Schema.OpenAPIV3Schema, p.Child("schema", "openAPIV3Schema"), true)...)
		}
		if v.Subresources != nil && v.Subresources.Scale != nil {
			errs = append(errs, validateScalePaths(v.Subresources.Scale, p.Child("subresources", "scale"))...)
		}
	}
	if len(s.Versions) > 0 && storage != 1 {
		errs = append(errs, field.Invalid(vpath, s.Versions, "must have exactly one version marked as storage version"))
	}
	if len(s.Versions) > 0 && served == 0 {
		errs = append(errs, field.Invalid(vpath, s.Versions, "must have at least one version marked as served"))
	}
	return errs
}

func validateCRDNames(n *CustomResourceDefinitionNames, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if n.Plural == "" {
		errs = append(errs, field.Required(path.Child("plural"), ""))
	} else {
		for _, msg := range validation.IsDNS1035Label(n.Plural) {
			errs = append(errs, field.Invalid(path.Child("plural"), n.Plural, msg))
		}
	}
	if n.Singular != "" {
		for _, msg := range validation.IsDNS1035Label(n.Singular) {
			errs = append(errs, field.Invalid(path.Child("singular"), n.Singular, msg))
		}
	}
	if n.Kind == "" {
		errs = append(errs, field.Required(path.Child("kind"), ""))
	} else if !kindName.MatchString(n.Kind) {
		errs = append(errs, field.Invalid(path.Child("kind"), n.Kind, "may have mixed case, but should otherwise match: "+kindName.String()))
	} else if _, builtin := LookupKind(Kind(n.Kind)); builtin {
		// The simulator keys kinds by name alone, so a custom kind may not reuse a built-in
		// kind's name (a real API server would serve it under its own group).
		errs = append(errs, field.Invalid(path.Child("kind"), n.Kind, "the simulator already serves a built-in kind of this name; choose another kind name"))
	}
	if n.ListKind != "" && n.ListKind == n.Kind {
		errs = append(errs, field.Invalid(path.Child("listKind"), n.ListKind, "kind and listKind may not be the same"))
	}
	return errs
}

// validTypes are the types a structural schema may name.
var validTypes = []string{"array", "boolean", "integer", "number", "object", "string"}

// validateStructural checks that a schema is structural
// (apiextensions-apiserver pkg/apiserver/schema/validation.go ValidateStructural): every
// node names a type, unless it is x-kubernetes-int-or-string or
// x-kubernetes-preserve-unknown-fields; the root is an object; properties and
// additionalProperties are not both set; items is set for arrays.
func validateStructural(s *JSONSchemaProps, path *field.Path, root bool) field.ErrorList {
	var errs field.ErrorList
	switch {
	case s.Type == "" && root:
		errs = append(errs, field.Required(path.Child("type"), "must not be empty at the root"))
	case root && s.Type != "object":
		errs = append(errs, field.Invalid(path.Child("type"), s.Type, "must be object at the root"))
	case s.Type == "" && !s.XIntOrString && !preserves(s):
		errs = append(errs, field.Required(path.Child("type"), "must not be empty for specified object fields"))
	case s.Type != "" && !slices.Contains(validTypes, s.Type):
		errs = append(errs, field.NotSupported(path.Child("type"), s.Type, validTypes))
	}
	if s.Type == "array" && s.Items == nil {
		errs = append(errs, field.Required(path.Child("items"), "must be specified"))
	}
	if len(s.Properties) > 0 && s.AdditionalProperties != nil && (s.AdditionalProperties.Schema != nil || s.AdditionalProperties.Allows) {
		errs = append(errs, field.Forbidden(path.Child("additionalProperties"), "additionalProperties and properties are mutual exclusive"))
	}
	for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
		p := s.Properties[k]
		errs = append(errs, validateStructural(&p, path.Child("properties").Key(k), false)...)
	}
	if s.Items != nil {
		errs = append(errs, validateStructural(s.Items, path.Child("items"), false)...)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		errs = append(errs, validateStructural(s.AdditionalProperties.Schema, path.Child("additionalProperties"), false)...)
	}
	if s.Pattern != "" {
		if _, err := regexp.Compile(s.Pattern); err != nil {
			errs = append(errs, field.Invalid(path.Child("pattern"), s.Pattern, "must be a valid regular expression, but isn't: "+err.Error()))
		}
	}
	return errs
}

// validateScalePaths checks the scale subresource's paths
// (apiextensions validation.go ValidateCustomResourceDefinitionSubresources): spec and
// status replicas paths start with .spec and .status, a label selector path with either.
func validateScalePaths(sc *CustomResourceSubresourceScale, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	check := func(p, name, prefix string, required bool) {
		switch {
		case p == "" && required:
			errs = append(errs, field.Required(path.Child(name), ""))
		case p == "":
		case !strings.HasPrefix(p, prefix+".") || strings.ContainsAny(p, "[]*"):
			errs = append(errs, field.Invalid(path.Child(name), p, fmt.Sprintf("should be a json path under %s", prefix)))
		}
	}
	check(sc.SpecReplicasPath, "specReplicasPath", ".spec", true)
	check(sc.StatusReplicasPath, "statusReplicasPath", ".status", true)
	if sc.LabelSelectorPath != nil {
		p := *sc.LabelSelectorPath
		if !strings.HasPrefix(p, ".spec.") && !strings.HasPrefix(p, ".status.") {
			errs = append(errs, field.Invalid(path.Child("labelSelectorPath"), p, "should be a json path under either .spec or .status"))
		}
	}
	return errs
}

// validateCRDUpdate is ValidateCustomResourceDefinitionUpdate's immutability rules for what
// the simulator keys kinds by: the group, the kind, the plural and the scope may not change.
// (Upstream allows changing names and, before a CRD is established, the scope; the simulator
// registers the kind when the CRD is created, so it keeps them fixed.)
func validateCRDUpdate(n, o *CustomResourceDefinition) field.ErrorList {
	spec := field.NewPath("spec")
	var errs field.ErrorList
	errs = append(errs, apivalidation.ValidateImmutableField(n.Spec.Group, o.Spec.Group, spec.Child("group"))...)
	errs = append(errs, apivalidation.ValidateImmutableField(n.Spec.Scope, o.Spec.Scope, spec.Child("scope"))...)
	errs = append(errs, apivalidation.ValidateImmutableField(n.Spec.Names.Kind, o.Spec.Names.Kind, spec.Child("names", "kind"))...)
	errs = append(errs, apivalidation.ValidateImmutableField(n.Spec.Names.Plural, o.Spec.Names.Plural, spec.Child("names", "plural"))...)
	return errs
}

// ValidateCustomResource checks a custom resource as kube-apiserver's customResourceValidator
// does on create (apiextensions-apiserver pkg/registry/customresource/validator.go Validate,
// release-1.32): apiVersion and kind, the metadata (a DNS-subdomain name, the namespace as
// the scope asks), the content against the version's schema, and the scale subresource's
// replicas fields. The caller prunes and defaults first (CustomResourceSchema).
func ValidateCustomResource(u *Unstructured, namespaced bool, schema *CustomResourceSchema, scale *CustomResourceSubresourceScale) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateObjectMeta(&u.ObjectMeta, namespaced, nameIsDNSSubdomain, metadataPath, nil)...)
	errs = append(errs, validateCustomResourceContent(u, schema, scale)...)
	return nilIfEmpty(errs)
}

// ValidateCustomResourceUpdate is ValidateCustomResource for an update of old: the metadata
// rules of an update (ValidateUpdate's) instead of a create's.
func ValidateCustomResourceUpdate(old, u *Unstructured, schema *CustomResourceSchema, scale *CustomResourceSubresourceScale) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateObjectMeta(&u.ObjectMeta, false, nil, metadataPath, nil)...)
	errs = append(errs, validateObjectMetaUpdate(&u.ObjectMeta, &old.ObjectMeta, metadataPath)...)
	if u.Kind != old.Kind {
		errs = append(errs, field.Invalid(field.NewPath("kind"), string(u.Kind), apivalidation.FieldImmutableErrorMsg))
	}
	errs = append(errs, validateCustomResourceContent(u, schema, scale)...)
	return nilIfEmpty(errs)
}

func validateCustomResourceContent(u *Unstructured, schema *CustomResourceSchema, scale *CustomResourceSubresourceScale) field.ErrorList {
	var errs field.ErrorList
	if u.APIVersion == "" {
		errs = append(errs, field.Required(field.NewPath("apiVersion"), "must not be empty"))
	}
	if u.Kind == "" {
		errs = append(errs, field.Required(field.NewPath("kind"), "must not be empty"))
	}
	errs = append(errs, schema.Validate(u.UnstructuredContent())...)
	if scale != nil {
		// validator.go ValidateScaleSpec / ValidateScaleStatus: the replicas fields, when
		// present, are integers (>= 0 for spec).
		errs = append(errs, validateReplicasField(u.Content, scale.SpecReplicasPath, true)...)
		errs = append(errs, validateReplicasField(u.Content, scale.StatusReplicasPath, false)...)
	}
	return errs
}

// validateReplicasField is validator.go ValidateScaleSpec/ValidateScaleStatus for one path:
// the field, when present, is an int64 (unstructured.NestedInt64's error otherwise) between 0
// and MaxInt32; the error's path is the CRD's JSON path itself, leading dot included.
func validateReplicasField(content map[string]any, jsonPath string, _ bool) field.ErrorList {
	steps := strings.Split(strings.TrimPrefix(jsonPath, "."), ".")
	v, ok := NestedField(content, steps...)
	if !ok {
		return nil
	}
	path := field.NewPath(jsonPath)
	i, isInt := v.(int64)
	switch {
	case !isInt:
		return field.ErrorList{field.Invalid(path, int64(0), fmt.Sprintf("%s accessor error: %v is of the type %T, expected int64", jsonPath, v, v))}
	case i < 0:
		return field.ErrorList{field.Invalid(path, i, "should be a non-negative integer")}
	case i > 1<<31-1:
		return field.ErrorList{field.Invalid(path, i, fmt.Sprintf("should be less than or equal to %d", 1<<31-1))}
	}
	return nil
}

// NestedField returns the value at the given field names inside a JSON object.
func NestedField(obj map[string]any, fields ...string) (any, bool) {
	var cur any = obj
	for _, f := range fields {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = m[f]
		if !ok {
			return nil, false
		}
	}
	return cur, true
}
