package node

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
)

// annotationConstants reads every sim.reconsim.dev/ annotation constant declared in the
// package's source, so that a new annotation without documentation fails the test.
func annotationConstants(t *testing.T) []string {
	t.Helper()
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	var keys []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, 0)
		require.NoError(t, err)
		{
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				if v, err := strconv.Unquote(lit.Value); err == nil && strings.HasPrefix(v, "sim.reconsim.dev/") && !strings.ContainsAny(v, " *") {
					keys = append(keys, v)
				}
				return true
			})
		}
	}
	sort.Strings(keys)
	return keys
}

// TestEveryAnnotationIsDocumented: model.AnnotationDocs (what sim explain and docs/scenario.md
// say) documents exactly the annotations this package reads.
func TestEveryAnnotationIsDocumented(t *testing.T) {
	var documented []string
	for _, d := range model.AnnotationDocs() {
		documented = append(documented, d.Key)
		assert.NotEmpty(t, d.Meaning, d.Key)
		assert.NotEmpty(t, d.Value, d.Key)
		assert.NotEmpty(t, d.Default, d.Key)
	}
	sort.Strings(documented)
	assert.Equal(t, annotationConstants(t), documented)
}

func TestAnnotationExamplesAreAccepted(t *testing.T) {
	for _, d := range model.AnnotationDocs() {
		_, errs := parseBehaviour(map[string]string{d.Key: d.Example})
		assert.Empty(t, errs, "%s: %q", d.Key, d.Example)
	}
}
