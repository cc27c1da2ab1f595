package docs

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// repoRoot is the repository's top directory, seen from this package.
const repoRoot = ".."

// outsideRefs are the mentions a self-contained repository must not have. They are built by
// concatenation so that this file does not mention them itself.
var outsideRefs = []*regexp.Regexp{
	regexp.MustCompile(regexp.QuoteMeta(".." + "/shared")),
	regexp.MustCompile(regexp.QuoteMeta("kubernetes-" + "behavior.md")),
	// Citations of that document's numbered sections: "reference", optionally "doc", then
	// "section" or "sections" and a number.
	regexp.MustCompile(`(?i)\breference (doc )?` + `sections? [0-9]`),
}

// skipped are build outputs, not repository files: the .gitignore's entries (out/, bin/,
// *.test, *.prof) and the git metadata (a directory, or a file in a worktree).
func skipped(rel string, d fs.DirEntry) bool {
	name := d.Name()
	if name == ".git" {
		return true
	}
	if d.IsDir() {
		return rel == "out" || rel == "bin"
	}
	return strings.HasSuffix(name, ".test") || strings.HasSuffix(name, ".prof")
}

// findOutsideRefs returns "path:line: text" for every line of every file under root that
// mentions one of outsideRefs.
func findOutsideRefs(root string) ([]string, error) {
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		if rel != "." && skipped(filepath.ToSlash(rel), d) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range bytes.Split(b, []byte("\n")) {
			for _, re := range outsideRefs {
				if re.Match(line) {
					found = append(found, fmt.Sprintf("%s:%d: %s", filepath.ToSlash(rel), i+1, strings.TrimSpace(string(line))))
					break
				}
			}
		}
		return nil
	})
	return found, err
}

// TestRepositoryIsSelfContained fails when any file in the repository points outside it.
func TestRepositoryIsSelfContained(t *testing.T) {
	found, err := findOutsideRefs(repoRoot)
	require.NoError(t, err)
	assert.Empty(t, found, "cite the upstream source or docs/upstream.md#anchor instead")
}

// TestFindOutsideRefsFindsPlantedMentions shows the check above can fail: it plants each kind of
// mention in a scratch tree, and one in each place the check skips.
func TestFindOutsideRefsFindsPlantedMentions(t *testing.T) {
	root := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	write("README.md", "intro\nThe design is in `"+".."+"/shared/design/architecture.md`.\n")
	write("scenarios/flags.go", `Source: "kubernetes-`+`behavior.md section 8"`+"\n")
	write("sim/x_test.go", "// (reference doc "+"section 12): timeline\n")
	write("docs/ok.md", "See docs/upstream.md#kubelet.\n")
	write(".git/config", ".."+"/shared\n")
	write("out/node-failure/trace.txt", ".."+"/shared\n")
	write("cmd/sim/sim.test", ".."+"/shared\n")

	found, err := findOutsideRefs(root)
	require.NoError(t, err)
	assert.Equal(t, []string{
		"README.md:2: The design is in `" + ".." + "/shared/design/architecture.md`.",
		"scenarios/flags.go:1: Source: \"kubernetes-" + "behavior.md section 8\"",
		"sim/x_test.go:1: // (reference doc " + "section 12): timeline",
	}, found)
}

// docCitation matches a citation of a section of upstream.md or architecture.md.
var docCitation = regexp.MustCompile(`\b(upstream|architecture)\.md#([A-Za-z0-9_-]+)`)

// slug is the anchor GitHub gives a Markdown heading: lower case, punctuation other than '-'
// and '_' dropped, spaces turned into '-'.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors returns the anchors of the headings of a Markdown file, skipping fenced code.
func anchors(t *testing.T, file string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	out := map[string]bool{}
	fenced := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		out[slug(strings.TrimLeft(line, "#"))] = true
	}
	return out
}

func TestSlug(t *testing.T) {
	for heading, want := range map[string]string{
		" Node lifecycle":               "node-lifecycle",
		" API server":                   "api-server",
		" HPA test vectors":             "hpa-test-vectors",
		" CronJob":                      "cronjob",
		" Known gaps (code vs. design)": "known-gaps-code-vs-design",
		" controller-runtime":           "controller-runtime",
	} {
		assert.Equal(t, want, slug(heading), heading)
	}
}

// TestCitedAnchorsExist checks every "upstream.md#x" and "architecture.md#x" in the repository
// against the headings of those files.
func TestCitedAnchorsExist(t *testing.T) {
	have := map[string]map[string]bool{
		"upstream":     anchors(t, "upstream.md"),
		"architecture": anchors(t, "architecture.md"),
	}
	var missing []string
	cited := map[string]bool{}
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repoRoot, path)
		if rel != "." && skipped(filepath.ToSlash(rel), d) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() || filepath.Base(path) == "docs_test.go" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, m := range docCitation.FindAllStringSubmatch(line, -1) {
				cited[m[1]+"#"+m[2]] = true
				if !have[m[1]][m[2]] {
					missing = append(missing, fmt.Sprintf("%s:%d: %s.md#%s", filepath.ToSlash(rel), i+1, m[1], m[2]))
				}
			}
		}
		return nil
	})
	require.NoError(t, err)
	assert.Empty(t, missing, "these citations name no heading of docs/upstream.md or docs/architecture.md")
	keys := make([]string, 0, len(cited))
	for k := range cited {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	assert.True(t, slices.Contains(keys, "upstream#node-failure-timeline"), "the walk reads the repository (found %v)", keys)
}

// TestBriefAnchors pins the anchors that other documents and engineers were told to cite.
func TestBriefAnchors(t *testing.T) {
	have := anchors(t, "upstream.md")
	for _, a := range []string{
		"sources", "versions", "workqueue", "client-rate-limits", "informers", "api-server", "apf",
		"events", "admission", "garbage-collector", "replicaset", "deployment", "statefulset",
		"daemonset", "disruption", "drain", "endpointslice", "hpa", "hpa-test-vectors",
		"node-lifecycle", "taint-eviction", "kubelet", "pod-gc", "scheduler", "slos",
		"node-failure-timeline", "job", "cronjob", "ttl-after-finished", "leader-election",
		"gitops", "controller-runtime", "cluster-sizes",
	} {
		assert.True(t, have[a], "docs/upstream.md has no heading with anchor #%s", a)
	}
}

// mdLink matches the target of a Markdown link or image: ](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestMarkdownLinksResolve checks that every relative link in the README and in docs/*.md
// names a file in the repository, and that a link into upstream.md or architecture.md names one
// of its headings.
func TestMarkdownLinksResolve(t *testing.T) {
	files, err := filepath.Glob("*.md")
	require.NoError(t, err)
	files = append(files, filepath.Join(repoRoot, "README.md"))
	have := map[string]map[string]bool{
		"upstream.md":     anchors(t, "upstream.md"),
		"architecture.md": anchors(t, "architecture.md"),
	}
	var broken []string
	checked := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for i, line := range strings.Split(string(b), "\n") {
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				path, anchor, _ := strings.Cut(target, "#")
				file := f
				if path != "" {
					file = filepath.Join(filepath.Dir(f), filepath.FromSlash(path))
				}
				checked++
				where := fmt.Sprintf("%s:%d: %s", filepath.ToSlash(f), i+1, target)
				abs, err := filepath.Abs(file)
				require.NoError(t, err)
				root, err := filepath.Abs(repoRoot)
				require.NoError(t, err)
				if !strings.HasPrefix(abs, root+string(filepath.Separator)) {
					broken = append(broken, where+" (outside the repository)")
					continue
				}
				if _, err := os.Stat(file); err != nil {
					broken = append(broken, where+" (no such file)")
					continue
				}
				if a, ok := have[filepath.Base(file)]; ok && anchor != "" && !a[anchor] {
					broken = append(broken, where+" (no such heading)")
				}
			}
		}
	}
	assert.Empty(t, broken)
	assert.Greater(t, checked, 10, "the links were found")
}

// repoPath matches a backticked path into this repository as the documents write it.
var repoPath = regexp.MustCompile("`((?:cmd|internal|sim|scenarios|model|report|docs)/[A-Za-z0-9_./*-]*)`")

// TestDocumentedPathsExist keeps the documents describing the code as it is: every repository
// path architecture.md names, and every package upstream.md says a behaviour is "Modelled in",
// exists. A package that moves must take its description along.
func TestDocumentedPathsExist(t *testing.T) {
	var missing []string
	checked := 0
	for _, doc := range []string{"architecture.md", "upstream.md"} {
		b, err := os.ReadFile(doc)
		require.NoError(t, err)
		fenced := false
		for i, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "```") {
				fenced = !fenced
			}
			if fenced || doc == "upstream.md" && !strings.Contains(line, "Modelled in") {
				continue
			}
			for _, m := range repoPath.FindAllStringSubmatch(line, -1) {
				checked++
				matches, err := filepath.Glob(filepath.Join(repoRoot, filepath.FromSlash(strings.TrimSuffix(m[1], "/"))))
				require.NoError(t, err)
				if len(matches) == 0 {
					missing = append(missing, fmt.Sprintf("%s:%d: %s", doc, i+1, m[1]))
				}
			}
		}
	}
	assert.Empty(t, missing, "the documents name paths that do not exist")
	assert.Greater(t, checked, 30, "the paths were found")
}
