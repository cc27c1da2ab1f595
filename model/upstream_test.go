package model

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/internal/testsupport"
)

// TestUpstreamTablesMatchGoMod fails when go.mod moves to another k8s.io/api release and
// upstream_gen.go was not regenerated (go run -tags genupstream ./model/internal/genupstream).
func TestUpstreamTablesMatchGoMod(t *testing.T) {
	v, err := testsupport.RequiredVersion("../go.mod", "k8s.io/api")
	require.NoError(t, err)
	assert.Equal(t, v, upstreamAPIVersion)
}

// TestModelFieldsAreUpstreamFields: every field the model decodes for a type named after an
// upstream type is a field of that upstream type, so the table of real fields is complete
// for what the model knows and a model field never counts as "not modelled".
func TestModelFieldsAreUpstreamFields(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(ty reflect.Type) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice || ty.Kind() == reflect.Map {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || seen[ty] || ty.PkgPath() != modelPkgPath {
			return
		}
		seen[ty] = true
		if _, known := upstreamSets()[ty.Name()]; known {
			for name := range structInfoOf(ty).fields {
				assert.True(t, IsUpstreamField(ty.Name(), name), "model %s has field %q, which upstream %s does not", ty.Name(), name, ty.Name())
			}
		}
		for i := 0; i < ty.NumField(); i++ {
			walk(ty.Field(i).Type)
		}
	}
	for _, ki := range Kinds() {
		walk(reflect.TypeOf(ki.New()).Elem())
	}
	assert.Greater(t, len(seen), 30)
}
