package model

import (
	_ "embed"
	"encoding/json"
	"testing"
)

//go:embed testdata/crd/fuzz-seed.yaml
var fuzzCRDSeed string

// FuzzDecodeCustomResources: any stream decodes with custom resources on without panicking;
// every CRD that comes back compiles its schemas, and every custom resource survives
// pruning, defaulting and validation against each of them, deep copy, and a JSON round trip
// that keeps its content.
func FuzzDecodeCustomResources(f *testing.F) {
	f.Add([]byte(fuzzCRDSeed))
	f.Add([]byte("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: &a {x: *a}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, _, err := DecodeManifestsWith("fuzz.yaml", data, ManifestOptions{CustomResources: true})
		if err != nil {
			return // positions of decode errors are FuzzDecodeManifests' concern
		}
		var schemas []*CustomResourceSchema
		for _, o := range objs {
			if crd, ok := o.(*CustomResourceDefinition); ok {
				SetDefaults(crd)
				_ = Validate(crd)
				_ = ValidateUpdate(crd, crd.DeepCopyObject())
				for _, v := range crd.Spec.Versions {
					if v.Schema != nil {
						schemas = append(schemas, NewCustomResourceSchema(v.Schema.OpenAPIV3Schema))
					}
				}
			}
		}
		for _, o := range objs {
			u, ok := o.(*Unstructured)
			if !ok {
				continue
			}
			_, _ = u.FieldPosition("spec.replicas")
			for _, s := range schemas {
				cp := u.DeepCopy()
				if cp.Content == nil {
					cp.Content = map[string]any{}
				}
				s.Prune(cp.Content)
				s.Default(cp.Content)
				_ = ValidateCustomResource(cp, true, s, &CustomResourceSubresourceScale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas"})
			}
			data, err := json.Marshal(u)
			if err != nil {
				t.Fatalf("a custom resource does not encode: %v", err)
			}
			back := &Unstructured{}
			if err := json.Unmarshal(data, back); err != nil {
				t.Fatalf("a custom resource does not decode from its JSON: %v\n%s", err, data)
			}
			if !EqualJSON(nonNil(back.Content), nonNil(u.DeepCopy().Content)) || back.Kind != u.Kind || back.APIVersion != u.APIVersion {
				t.Fatalf("JSON round trip changed the object:\n%s", data)
			}
		}
	})
}

func nonNil(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
