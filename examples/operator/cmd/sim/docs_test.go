package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fence matches a fenced block of a Markdown document: its language and its text.
var fence = regexp.MustCompile("(?ms)^```([a-z]*)\n(.*?)^```$")

// exampleFiles returns the text of every file of the example, by path.
func exampleFiles(t *testing.T) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir("../..", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if ext := filepath.Ext(path); ext == ".go" || ext == ".yaml" {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			files[path] = string(b)
		}
		return nil
	})
	require.NoError(t, err)
	return files
}

// documentedCommands are the shell commands the documents give for the example; TestCustomSim
// runs them.
var documentedCommands = "go build ./examples/operator/cmd/sim\n./sim run examples/operator/scenarios/webapp-node-failure.yaml\n"

// TestDocumentedExamples keeps every example of docs/operators.md, of the README's "Your own
// controller" and of the example's README true: each Go or YAML block is a verbatim piece of
// a file of the example (which the other tests compile and run), and each shell block is the
// commands TestCustomSim runs.
func TestDocumentedExamples(t *testing.T) {
	files := exampleFiles(t)
	checked := 0
	for _, doc := range []string{"../../../../docs/operators.md", "../../../../README.md", "../../README.md"} {
		b, err := os.ReadFile(doc)
		require.NoError(t, err)
		text := string(b)
		if strings.HasSuffix(doc, "../../../../README.md") {
			start := strings.Index(text, "## Your own controller")
			require.GreaterOrEqual(t, start, 0, "the README has a Your own controller section")
			end := strings.Index(text[start+1:], "\n## ")
			text = text[start : start+1+end]
		}
		for _, m := range fence.FindAllStringSubmatch(text, -1) {
			lang, block := m[1], m[2]
			switch lang {
			// docs/operators.md writes the example's YAML as yml: internal/cli plays every yaml
			// block of docs/ in its own world, which has no WebApp CRD; this test checks them.
			case "go", "yaml", "yml":
				if lang == "go" { // a Go excerpt may be shown less indented than in its file
					block = unindent(block)
				}
				found := false
				for _, content := range files { //detlint:ordered any file will do
					if lang == "go" {
						content = unindent(content)
					}
					found = found || strings.Contains(content, block)
				}
				assert.True(t, found, "%s: this %s block is in no file of the example:\n%s", doc, lang, block)
			case "sh":
				assert.Equal(t, documentedCommands, block, "%s: a shell block", doc)
			default:
				continue
			}
			checked++
		}
	}
	assert.GreaterOrEqual(t, checked, 8, "the blocks were found")
}

// unindent removes the leading tabs of every line.
func unindent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimLeft(l, "\t")
	}
	return strings.Join(lines, "\n")
}

// docTextBlocks returns the text blocks (```text) of docs/operators.md: the outputs it quotes.
func docTextBlocks(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../../../docs/operators.md")
	require.NoError(t, err)
	var out []string
	for _, m := range fence.FindAllStringSubmatch(string(b), -1) {
		if m[1] == "text" {
			out = append(out, m[2])
		}
	}
	require.Len(t, out, 2, "docs/operators.md quotes the node failure's output and the naive variant's failure")
	return out
}
