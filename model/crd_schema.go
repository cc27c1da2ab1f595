package model

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	openapierrors "k8s.io/kube-openapi/pkg/validation/errors"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	openapivalidate "k8s.io/kube-openapi/pkg/validation/validate"
)

// CustomResourceSchema is one version's openAPIV3Schema compiled for the three things
// kube-apiserver does with it on every write of a custom resource, in its order: prune the
// fields the schema does not declare, apply the schema's defaults, and validate
// (k8s.io/apiextensions-apiserver pkg/apiserver/schema/pruning, schema/defaulting and
// pkg/apiserver/validation, release-1.32). Validation is kube-openapi's validator, the one
// kube-apiserver runs, and its errors are converted to field errors as
// apiserver/validation/validation.go kubeOpenAPIResultToFieldErrors converts them, so the
// 422 a client sees names the same field paths with the same messages.
//
// A CustomResourceSchema is immutable once built and safe to share between runs.
type CustomResourceSchema struct {
	props     *JSONSchemaProps
	validator *openapivalidate.SchemaValidator
}

// NewCustomResourceSchema compiles a schema (nil: no validation, everything is kept).
func NewCustomResourceSchema(props *JSONSchemaProps) *CustomResourceSchema {
	if props == nil {
		return &CustomResourceSchema{}
	}
	openapi := &spec.Schema{}
	convertSchema(props, openapi)
	return &CustomResourceSchema{
		props:     props,
		validator: openapivalidate.NewSchemaValidator(openapi, nil, "", strfmt.Default),
	}
}

// supportedFormats are the string formats kube-apiserver validates; others are dropped from
// the schema before validation (apiextensions-apiserver pkg/apiserver/validation/formats.go
// supportedFormats and StripUnsupportedFormatsPostProcess, release-1.32).
var supportedFormats = []string{
	"bsonobjectid", "uri", "email", "hostname", "ipv4", "ipv6", "cidr", "mac", "uuid", "uuid3",
	"uuid4", "uuid5", "isbn", "isbn10", "isbn13", "creditcard", "ssn", "hexcolor", "rgbcolor",
	"byte", "password", "date", "duration", "datetime", "date-time",
}

// convertSchema is apiextensions-apiserver pkg/apiserver/validation/validation.go
// ConvertJSONSchemaPropsWithPostProcess (with StripUnsupportedFormatsPostProcess): the CRD's
// schema as the kube-openapi schema the validator takes.
func convertSchema(in *JSONSchemaProps, out *spec.Schema) {
	out.ID = in.ID
	out.Schema = spec.SchemaURL(in.Schema)
	out.Description = in.Description
	if in.Type != "" {
		out.Type = spec.StringOrArray{in.Type}
	}
	if in.XIntOrString {
		out.AddExtension("x-kubernetes-int-or-string", true)
		out.Type = spec.StringOrArray{"integer", "string"}
	}
	out.Nullable = in.Nullable
	if slices.Contains(supportedFormats, in.Format) {
		out.Format = in.Format
	}
	out.Title = in.Title
	out.Maximum = in.Maximum
	out.ExclusiveMaximum = in.ExclusiveMaximum
	out.Minimum = in.Minimum
	out.ExclusiveMinimum = in.ExclusiveMinimum
	out.MaxLength = in.MaxLength
	out.MinLength = in.MinLength
	out.Pattern = in.Pattern
	out.MaxItems = in.MaxItems
	out.MinItems = in.MinItems
	out.UniqueItems = in.UniqueItems
	out.MultipleOf = in.MultipleOf
	out.MaxProperties = in.MaxProperties
	out.MinProperties = in.MinProperties
	out.Required = in.Required
	if in.Default != nil {
		out.Default = in.Default.V
	}
	if in.Enum != nil {
		out.Enum = make([]any, len(in.Enum))
		for i, v := range in.Enum {
			out.Enum[i] = v.V
		}
	}
	convertList := func(in []JSONSchemaProps) []spec.Schema {
		var out []spec.Schema
		for i := range in {
			var s spec.Schema
			convertSchema(&in[i], &s)
			out = append(out, s)
		}
		return out
	}
	out.AllOf = convertList(in.AllOf)
	out.OneOf = convertList(in.OneOf)
	out.AnyOf = convertList(in.AnyOf)
	if in.Not != nil {
		out.Not = &spec.Schema{}
		convertSchema(in.Not, out.Not)
	}
	convertMap := func(in map[string]JSONSchemaProps) map[string]spec.Schema {
		if in == nil {
			return nil
		}
		out := make(map[string]spec.Schema, len(in))
		for k, v := range in { //detlint:ordered building a map; order cannot matter
			var s spec.Schema
			convertSchema(&v, &s)
			out[k] = s
		}
		return out
	}
	out.Properties = convertMap(in.Properties)
	out.PatternProperties = convertMap(in.PatternProperties)
	if in.Ref != nil {
		if ref, err := spec.NewRef(*in.Ref); err == nil {
			out.Ref = ref
		}
	}
	if in.AdditionalProperties != nil {
		out.AdditionalProperties = &spec.SchemaOrBool{Allows: in.AdditionalProperties.Allows}
		if in.AdditionalProperties.Schema != nil {
			out.AdditionalProperties.Schema = &spec.Schema{}
			convertSchema(in.AdditionalProperties.Schema, out.AdditionalProperties.Schema)
		}
	}
	if in.Items != nil {
		out.Items = &spec.SchemaOrArray{Schema: &spec.Schema{}}
		convertSchema(in.Items, out.Items.Schema)
	}
	if in.XPreserveUnknownFields != nil {
		out.AddExtension("x-kubernetes-preserve-unknown-fields", *in.XPreserveUnknownFields)
	}
	if in.XEmbeddedResource {
		out.AddExtension("x-kubernetes-embedded-resource", true)
	}
}

// Validate validates a custom resource's whole content (apiVersion, kind, metadata and the
// rest, as Unstructured.UnstructuredContent gives it) and returns the errors kube-apiserver
// would put in its 422, sorted by field path (kube-openapi walks properties in map order;
// the sort makes the list deterministic).
func (s *CustomResourceSchema) Validate(content map[string]any) field.ErrorList {
	if s == nil || s.validator == nil {
		return nil
	}
	result := s.validator.Validate(content)
	if result.IsValid() {
		return nil
	}
	errs := resultToFieldErrors(result)
	slices.SortStableFunc(errs, func(a, b *field.Error) int {
		if c := strings.Compare(a.Field, b.Field); c != 0 {
			return c
		}
		return strings.Compare(a.Error(), b.Error())
	})
	return errs
}

// resultToFieldErrors is apiextensions-apiserver pkg/apiserver/validation/validation.go
// kubeOpenAPIResultToFieldErrors (release-1.32) with a nil root path.
func resultToFieldErrors(result *openapivalidate.Result) field.ErrorList {
	var errs field.ErrorList
	for _, err := range result.Errors {
		verr, ok := err.(*openapierrors.Validation)
		if !ok {
			errs = append(errs, field.Invalid(nil, "", err.Error()))
			continue
		}
		var path *field.Path
		if len(verr.Name) > 0 && verr.Name != "." {
			path = field.NewPath(strings.TrimPrefix(verr.Name, "."))
		}
		value := verr.Value
		if value == nil {
			value = ""
		}
		switch verr.Code() {
		case openapierrors.RequiredFailCode:
			errs = append(errs, field.Required(path, ""))
		case openapierrors.EnumFailCode:
			values := []string{}
			for _, allowed := range verr.Values {
				if s, ok := allowed.(string); ok {
					values = append(values, s)
				} else {
					b, _ := json.Marshal(allowed)
					values = append(values, string(b))
				}
			}
			errs = append(errs, field.NotSupported(path, verr.Value, values))
		case openapierrors.TooLongFailCode:
			maxLen := int64(-1)
			if i, ok := verr.Valid.(int64); ok {
				maxLen = i
			}
			errs = append(errs, field.TooLongMaxLength(path, value, int(maxLen)))
		case openapierrors.MaxItemsFailCode, openapierrors.TooManyPropertiesCode:
			actual, limit := int64(-1), int64(-1)
			if i, ok := verr.Value.(int64); ok {
				actual = i
			}
			if i, ok := verr.Valid.(int64); ok {
				limit = i
			}
			errs = append(errs, field.TooMany(path, int(actual), int(limit)))
		case openapierrors.InvalidTypeCode:
			errs = append(errs, field.TypeInvalid(path, value, verr.Error()))
		default:
			errs = append(errs, field.Invalid(path, value, verr.Error()))
		}
	}
	return errs
}

// Prune drops from a custom resource's content every field the schema does not declare,
// except under x-kubernetes-preserve-unknown-fields, and returns the paths it dropped
// (sorted), which kube-apiserver reports as `unknown field "spec.foo"` warnings
// (apiextensions-apiserver pkg/apiserver/schema/pruning/algorithm.go PruneWithOptions,
// release-1.32). apiVersion, kind and metadata at the root are kept; metadata is the typed
// ObjectMeta here and is not part of content. Without a schema nothing is pruned.
func (s *CustomResourceSchema) Prune(content map[string]any) []string {
	if s == nil || s.props == nil {
		return nil
	}
	var pruned []string
	pruneObject(content, s.props, "", true, &pruned)
	slices.Sort(pruned)
	return pruned
}

func preserves(s *JSONSchemaProps) bool {
	return s != nil && s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields
}

// pruneObject prunes the fields of an object value against s.
func pruneObject(obj map[string]any, s *JSONSchemaProps, path string, root bool, pruned *[]string) {
	for k, v := range obj { //detlint:ordered every key is visited; the pruned paths are sorted
		if root && (k == "apiVersion" || k == "kind" || k == "metadata") {
			continue
		}
		child := k
		if path != "" {
			child = path + "." + k
		}
		var sub *JSONSchemaProps
		if p, ok := s.Properties[k]; ok {
			sub = &p
		} else if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
			sub = s.AdditionalProperties.Schema
		} else if s.AdditionalProperties != nil && s.AdditionalProperties.Allows || preserves(s) || s.XEmbeddedResource && (k == "apiVersion" || k == "kind" || k == "metadata") {
			continue
		} else {
			delete(obj, k)
			*pruned = append(*pruned, child)
			continue
		}
		pruneValue(v, sub, child, pruned)
	}
}

func pruneValue(v any, s *JSONSchemaProps, path string, pruned *[]string) {
	switch x := v.(type) {
	case map[string]any:
		if len(s.Properties) > 0 || s.AdditionalProperties != nil || !preserves(s) {
			pruneObject(x, s, path, false, pruned)
		}
	case []any:
		if s.Items != nil {
			for i, e := range x {
				pruneValue(e, s.Items, fmt.Sprintf("%s[%d]", path, i), pruned)
			}
		}
	}
}

// Default applies the schema's defaults to a custom resource's content: a property missing
// from an object (or null where the schema does not allow null) gets a copy of its default,
// at every level, objects before their properties (apiextensions-apiserver
// pkg/apiserver/schema/defaulting/algorithm.go Default, release-1.32).
func (s *CustomResourceSchema) Default(content map[string]any) {
	if s == nil || s.props == nil {
		return
	}
	defaultValue(content, s.props)
}

func defaultValue(v any, s *JSONSchemaProps) {
	switch x := v.(type) {
	case map[string]any:
		//detlint:ordered each property is defaulted on its own; order cannot matter
		for k, p := range s.Properties {
			if p.Default == nil {
				continue
			}
			if cur, ok := x[k]; !ok || cur == nil && !p.Nullable {
				x[k] = DeepCopyJSON(p.Default.V)
			}
		}
		for k, e := range x { //detlint:ordered each value is defaulted on its own
			if p, ok := s.Properties[k]; ok {
				defaultValue(e, &p)
			} else if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
				defaultValue(e, s.AdditionalProperties.Schema)
			}
		}
	case []any:
		if s.Items != nil {
			for _, e := range x {
				defaultValue(e, s.Items)
			}
		}
	}
}
