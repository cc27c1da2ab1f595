package model

import (
	"encoding/json"
	"slices"

	"gopkg.in/yaml.v3"
)

// KindCustomResourceDefinition is apiextensions.k8s.io/v1 CustomResourceDefinition.
const KindCustomResourceDefinition Kind = "CustomResourceDefinition"

// CustomResourceDefinition is apiextensions.k8s.io/v1 CustomResourceDefinition
// (k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1/types.go), with the fields the
// simulator uses: the group, names, scope, versions with their schemas and subresources.
// Conversion webhooks are not modelled: every version holds the same fields (the "None"
// conversion strategy).
type CustomResourceDefinition struct {
	ObjectMeta `json:"metadata"`
	Spec       CustomResourceDefinitionSpec   `json:"spec"`
	Status     CustomResourceDefinitionStatus `json:"status,omitempty"`
}

// ResourceScope is Namespaced or Cluster.
type ResourceScope string

// The scopes of a custom resource.
const (
	NamespaceScoped ResourceScope = "Namespaced"
	ClusterScoped   ResourceScope = "Cluster"
)

// CustomResourceDefinitionSpec is apiextensions/v1 CustomResourceDefinitionSpec.
type CustomResourceDefinitionSpec struct {
	Group    string                            `json:"group"`
	Names    CustomResourceDefinitionNames     `json:"names"`
	Scope    ResourceScope                     `json:"scope"`
	Versions []CustomResourceDefinitionVersion `json:"versions"`
	// Conversion is kept as written; only the None strategy is modelled (validation refuses
	// a Webhook).
	Conversion *CustomResourceConversion `json:"conversion,omitempty"`
	// PreserveUnknownFields must be false in apiextensions/v1 (validation says so).
	PreserveUnknownFields bool `json:"preserveUnknownFields,omitempty"`
}

// CustomResourceConversion is apiextensions/v1 CustomResourceConversion.
type CustomResourceConversion struct {
	Strategy string `json:"strategy"`
	Webhook  *JSON  `json:"webhook,omitempty"`
}

// CustomResourceDefinitionNames is apiextensions/v1 CustomResourceDefinitionNames.
type CustomResourceDefinitionNames struct {
	Plural     string   `json:"plural"`
	Singular   string   `json:"singular,omitempty"`
	ShortNames []string `json:"shortNames,omitempty"`
	Kind       string   `json:"kind"`
	ListKind   string   `json:"listKind,omitempty"`
	Categories []string `json:"categories,omitempty"`
}

// CustomResourceDefinitionVersion is apiextensions/v1 CustomResourceDefinitionVersion.
type CustomResourceDefinitionVersion struct {
	Name               string                      `json:"name"`
	Served             bool                        `json:"served"`
	Storage            bool                        `json:"storage"`
	Deprecated         bool                        `json:"deprecated,omitempty"`
	DeprecationWarning *string                     `json:"deprecationWarning,omitempty"`
	Schema             *CustomResourceValidation   `json:"schema,omitempty"`
	Subresources       *CustomResourceSubresources `json:"subresources,omitempty"`
	// AdditionalPrinterColumns and SelectableFields are kept as written; the simulator has
	// no kubectl table output and no custom field selectors.
	AdditionalPrinterColumns []JSON `json:"additionalPrinterColumns,omitempty"`
	SelectableFields         []JSON `json:"selectableFields,omitempty"`
}

// CustomResourceValidation is apiextensions/v1 CustomResourceValidation.
type CustomResourceValidation struct {
	OpenAPIV3Schema *JSONSchemaProps `json:"openAPIV3Schema,omitempty"`
}

// CustomResourceSubresources is apiextensions/v1 CustomResourceSubresources.
type CustomResourceSubresources struct {
	Status *CustomResourceSubresourceStatus `json:"status,omitempty"`
	Scale  *CustomResourceSubresourceScale  `json:"scale,omitempty"`
}

// CustomResourceSubresourceStatus enables the status subresource (an empty object).
type CustomResourceSubresourceStatus struct{}

// CustomResourceSubresourceScale is apiextensions/v1 CustomResourceSubresourceScale: JSON
// paths (".spec.replicas") of the fields the scale subresource reads and writes.
type CustomResourceSubresourceScale struct {
	SpecReplicasPath   string  `json:"specReplicasPath"`
	StatusReplicasPath string  `json:"statusReplicasPath"`
	LabelSelectorPath  *string `json:"labelSelectorPath,omitempty"`
}

// CustomResourceDefinitionStatus is apiextensions/v1 CustomResourceDefinitionStatus.
type CustomResourceDefinitionStatus struct {
	Conditions     []CustomResourceDefinitionCondition `json:"conditions,omitempty"`
	AcceptedNames  CustomResourceDefinitionNames       `json:"acceptedNames,omitempty"`
	StoredVersions []string                            `json:"storedVersions,omitempty"`
}

// CustomResourceDefinitionCondition is apiextensions/v1 CustomResourceDefinitionCondition
// (times are not kept).
type CustomResourceDefinitionCondition struct {
	Type    string          `json:"type"`
	Status  ConditionStatus `json:"status"`
	Reason  string          `json:"reason,omitempty"`
	Message string          `json:"message,omitempty"`
}

// JSONSchemaProps is apiextensions/v1 JSONSchemaProps: an OpenAPI v3 schema with
// Kubernetes' extensions. Every keyword upstream accepts is here, so a CRD written for a
// real cluster decodes; the validator (CustomResourceSchema) enforces what kube-apiserver
// enforces except x-kubernetes-validations (CEL rules), which are kept and not evaluated.
type JSONSchemaProps struct {
	ID                     string                     `json:"id,omitempty"`
	Schema                 string                     `json:"$schema,omitempty"`
	Ref                    *string                    `json:"$ref,omitempty"`
	Description            string                     `json:"description,omitempty"`
	Type                   string                     `json:"type,omitempty"`
	Format                 string                     `json:"format,omitempty"`
	Title                  string                     `json:"title,omitempty"`
	Default                *JSON                      `json:"default,omitempty"`
	Maximum                *float64                   `json:"maximum,omitempty"`
	ExclusiveMaximum       bool                       `json:"exclusiveMaximum,omitempty"`
	Minimum                *float64                   `json:"minimum,omitempty"`
	ExclusiveMinimum       bool                       `json:"exclusiveMinimum,omitempty"`
	MaxLength              *int64                     `json:"maxLength,omitempty"`
	MinLength              *int64                     `json:"minLength,omitempty"`
	Pattern                string                     `json:"pattern,omitempty"`
	MaxItems               *int64                     `json:"maxItems,omitempty"`
	MinItems               *int64                     `json:"minItems,omitempty"`
	UniqueItems            bool                       `json:"uniqueItems,omitempty"`
	MultipleOf             *float64                   `json:"multipleOf,omitempty"`
	Enum                   []JSON                     `json:"enum,omitempty"`
	MaxProperties          *int64                     `json:"maxProperties,omitempty"`
	MinProperties          *int64                     `json:"minProperties,omitempty"`
	Required               []string                   `json:"required,omitempty"`
	Items                  *JSONSchemaProps           `json:"items,omitempty"`
	AllOf                  []JSONSchemaProps          `json:"allOf,omitempty"`
	OneOf                  []JSONSchemaProps          `json:"oneOf,omitempty"`
	AnyOf                  []JSONSchemaProps          `json:"anyOf,omitempty"`
	Not                    *JSONSchemaProps           `json:"not,omitempty"`
	Properties             map[string]JSONSchemaProps `json:"properties,omitempty"`
	AdditionalProperties   *JSONSchemaPropsOrBool     `json:"additionalProperties,omitempty"`
	PatternProperties      map[string]JSONSchemaProps `json:"patternProperties,omitempty"`
	ExternalDocs           *JSON                      `json:"externalDocs,omitempty"`
	Example                *JSON                      `json:"example,omitempty"`
	Nullable               bool                       `json:"nullable,omitempty"`
	XPreserveUnknownFields *bool                      `json:"x-kubernetes-preserve-unknown-fields,omitempty"`
	XEmbeddedResource      bool                       `json:"x-kubernetes-embedded-resource,omitempty"`
	XIntOrString           bool                       `json:"x-kubernetes-int-or-string,omitempty"`
	XListMapKeys           []string                   `json:"x-kubernetes-list-map-keys,omitempty"`
	XListType              *string                    `json:"x-kubernetes-list-type,omitempty"`
	XMapType               *string                    `json:"x-kubernetes-map-type,omitempty"`
	XValidations           []JSON                     `json:"x-kubernetes-validations,omitempty"`
}

// JSONSchemaPropsOrBool is additionalProperties: a schema, or a boolean (false forbids
// other properties; true allows any).
type JSONSchemaPropsOrBool struct {
	Allows bool
	Schema *JSONSchemaProps
}

// MarshalJSON writes the schema, or the boolean when there is none.
func (s JSONSchemaPropsOrBool) MarshalJSON() ([]byte, error) {
	if s.Schema != nil {
		return json.Marshal(s.Schema)
	}
	if s.Allows {
		return []byte("true"), nil
	}
	return []byte("false"), nil
}

// UnmarshalJSON reads a schema or a boolean.
func (s *JSONSchemaPropsOrBool) UnmarshalJSON(data []byte) error {
	switch string(data) {
	case "true":
		*s = JSONSchemaPropsOrBool{Allows: true}
		return nil
	case "false", "null":
		*s = JSONSchemaPropsOrBool{}
		return nil
	}
	var sch JSONSchemaProps
	if err := json.Unmarshal(data, &sch); err != nil {
		return err
	}
	*s = JSONSchemaPropsOrBool{Allows: true, Schema: &sch}
	return nil
}

// DecodeYAMLWith decodes a boolean or a schema (see DecoderUnmarshaler).
func (s *JSONSchemaPropsOrBool) DecodeYAMLWith(d *Decoder, n *yaml.Node) {
	r := d.Resolve(n)
	if r != nil && r.Kind == yaml.ScalarNode && r.ShortTag() == "!!bool" {
		var b bool
		d.Decode(r, &b)
		*s = JSONSchemaPropsOrBool{Allows: b}
		return
	}
	sch := &JSONSchemaProps{}
	d.Decode(n, sch)
	*s = JSONSchemaPropsOrBool{Allows: true, Schema: sch}
}

// GetKind returns KindCustomResourceDefinition.
func (o *CustomResourceDefinition) GetKind() Kind { return KindCustomResourceDefinition }

// DeepCopyObject returns a deep copy.
func (o *CustomResourceDefinition) DeepCopyObject() Object { return o.DeepCopy() }

// DeepCopy returns a deep copy.
func (o *CustomResourceDefinition) DeepCopy() *CustomResourceDefinition {
	if o == nil {
		return nil
	}
	out := &CustomResourceDefinition{}
	o.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec = o.Spec
	out.Spec.Names = o.Spec.Names.deepCopy()
	if c := o.Spec.Conversion; c != nil {
		out.Spec.Conversion = &CustomResourceConversion{Strategy: c.Strategy, Webhook: c.Webhook.deepCopy()}
	}
	out.Spec.Versions = copyEach(o.Spec.Versions, CustomResourceDefinitionVersion.deepCopy)
	out.Status.AcceptedNames = o.Status.AcceptedNames.deepCopy()
	out.Status.Conditions = slices.Clone(o.Status.Conditions)
	out.Status.StoredVersions = slices.Clone(o.Status.StoredVersions)
	return out
}

func (v CustomResourceDefinitionVersion) deepCopy() CustomResourceDefinitionVersion {
	v.DeprecationWarning = CopyPtr(v.DeprecationWarning)
	if v.Schema != nil {
		v.Schema = &CustomResourceValidation{OpenAPIV3Schema: v.Schema.OpenAPIV3Schema.DeepCopy()}
	}
	if sr := v.Subresources; sr != nil {
		c := &CustomResourceSubresources{}
		if sr.Status != nil {
			c.Status = &CustomResourceSubresourceStatus{}
		}
		if sc := sr.Scale; sc != nil {
			c.Scale = &CustomResourceSubresourceScale{SpecReplicasPath: sc.SpecReplicasPath, StatusReplicasPath: sc.StatusReplicasPath, LabelSelectorPath: CopyPtr(sc.LabelSelectorPath)}
		}
		v.Subresources = c
	}
	v.AdditionalPrinterColumns = copyJSONs(v.AdditionalPrinterColumns)
	v.SelectableFields = copyJSONs(v.SelectableFields)
	return v
}

func (j *JSON) deepCopy() *JSON {
	if j == nil {
		return nil
	}
	return &JSON{V: DeepCopyJSON(j.V)}
}

func copyJSONs(in []JSON) []JSON {
	return copyEach(in, func(j JSON) JSON { return JSON{V: DeepCopyJSON(j.V)} })
}

// DeepCopy returns a deep copy of a schema.
func (s *JSONSchemaProps) DeepCopy() *JSONSchemaProps {
	if s == nil {
		return nil
	}
	out := *s
	out.Ref = CopyPtr(s.Ref)
	out.Default = s.Default.deepCopy()
	out.Maximum = CopyPtr(s.Maximum)
	out.Minimum = CopyPtr(s.Minimum)
	out.MaxLength = CopyPtr(s.MaxLength)
	out.MinLength = CopyPtr(s.MinLength)
	out.MaxItems = CopyPtr(s.MaxItems)
	out.MinItems = CopyPtr(s.MinItems)
	out.MultipleOf = CopyPtr(s.MultipleOf)
	out.MaxProperties = CopyPtr(s.MaxProperties)
	out.MinProperties = CopyPtr(s.MinProperties)
	out.Enum = copyJSONs(s.Enum)
	out.Required = slices.Clone(s.Required)
	out.Items = s.Items.DeepCopy()
	copySchemas := func(in []JSONSchemaProps) []JSONSchemaProps {
		return copyEach(in, func(s JSONSchemaProps) JSONSchemaProps { return *s.DeepCopy() })
	}
	out.AllOf = copySchemas(s.AllOf)
	out.OneOf = copySchemas(s.OneOf)
	out.AnyOf = copySchemas(s.AnyOf)
	out.Not = s.Not.DeepCopy()
	copyMap := func(in map[string]JSONSchemaProps) map[string]JSONSchemaProps {
		if in == nil {
			return nil
		}
		out := make(map[string]JSONSchemaProps, len(in))
		for k, v := range in { //detlint:ordered copying a map; order cannot matter
			out[k] = *v.DeepCopy()
		}
		return out
	}
	out.Properties = copyMap(s.Properties)
	out.PatternProperties = copyMap(s.PatternProperties)
	if a := s.AdditionalProperties; a != nil {
		out.AdditionalProperties = &JSONSchemaPropsOrBool{Allows: a.Allows, Schema: a.Schema.DeepCopy()}
	}
	out.ExternalDocs = s.ExternalDocs.deepCopy()
	out.Example = s.Example.deepCopy()
	out.XPreserveUnknownFields = CopyPtr(s.XPreserveUnknownFields)
	out.XListMapKeys = slices.Clone(s.XListMapKeys)
	out.XListType = CopyPtr(s.XListType)
	out.XMapType = CopyPtr(s.XMapType)
	out.XValidations = copyJSONs(s.XValidations)
	return &out
}

func (n CustomResourceDefinitionNames) deepCopy() CustomResourceDefinitionNames {
	n.ShortNames = slices.Clone(n.ShortNames)
	n.Categories = slices.Clone(n.Categories)
	return n
}

// StorageVersion returns the version marked storage, or "".
func (o *CustomResourceDefinition) StorageVersion() string {
	for _, v := range o.Spec.Versions {
		if v.Storage {
			return v.Name
		}
	}
	return ""
}

// ServedVersion returns the version named name if it is served.
func (o *CustomResourceDefinition) ServedVersion(name string) (*CustomResourceDefinitionVersion, bool) {
	for i := range o.Spec.Versions {
		if v := &o.Spec.Versions[i]; v.Name == name && v.Served {
			return v, true
		}
	}
	return nil, false
}
