package scenarios

import (
	"fmt"
	"strings"

	"github.com/reconsim/reconsim/internal/words"
)

// Markers around the generated reference in docs/scenario.md.
const (
	ReferenceBegin = "<!-- BEGIN GENERATED REFERENCE: go run ./scenarios/internal/gendocs -->"
	ReferenceEnd   = "<!-- END GENERATED REFERENCE -->"
)

// ReferenceMarkdown renders the key registry (Keys) as the reference part of
// docs/scenario.md: every action, expectation kind, condition and shared value
// with its arguments and an example, the loads and their shapes, the shared values, then a
// table of every key. The docs test fails when the
// file differs; regenerate with `go run ./scenarios/internal/gendocs`.
func ReferenceMarkdown() string {
	var b strings.Builder
	section := func(title, intro, parent, role string) {
		fmt.Fprintf(&b, "### %s\n\n%s\n\n", title, intro)
		p, _ := LookupKey(parent)
		for _, c := range p.Children {
			k, _ := LookupKey(c)
			if k.Role == role {
				writeMember(&b, k)
			}
		}
	}
	section("Timeline actions", "Each timeline entry has `at`, optionally `name`, `action: NAME` and the action's arguments beside it.",
		"timeline", "action")
	section("Expectation kinds", "Each `expect` entry has a `name` and exactly one of these.", "expect", "expectation")
	section("Conditions", "The conditions of `eventually`, `always` and `never`, written `condition: NAME` with the arguments beside it (a bare name for conditions without arguments). Pods a workload owns are those whose controller is the workload or one of its ReplicaSets; active pods are neither terminating nor finished; available pods are active and Ready for at least the workload's `minReadySeconds`. Counts come from the pods at that moment, not from the workload's status.",
		"condition", "condition")
	b.WriteString("### Loads\n\n")
	for _, name := range []string{"loads", "shape"} {
		k, _ := LookupKey(name)
		writeMember(&b, k)
	}
	b.WriteString("### Shared values\n\n")
	for _, name := range []string{"nodes", "target", "window"} {
		k, _ := LookupKey(name)
		writeMember(&b, k)
	}
	b.WriteString("### Every key\n\n`sim explain KEY` prints any of these with an example.\n\n")
	b.WriteString("| Key | Type | Required / default |\n|---|---|---|\n")
	for _, k := range Keys() {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", k.Path, words.MarkdownCell(k.Type), words.MarkdownCell(requirement(k)))
	}
	return b.String()
}

// requirement says whether a key is required, or what its default is.
func requirement(k Key) string {
	switch {
	case k.Required:
		return "required"
	case k.Default != "":
		return "default " + k.Default
	case k.Role != "field":
		return "one of the " + k.Role + "s"
	}
	return "optional"
}

// writeMember writes one action, shape, expectation kind, condition or shared value.
func writeMember(b *strings.Builder, k Key) {
	name := k.Path[strings.LastIndexByte(k.Path, '.')+1:]
	fmt.Fprintf(b, "#### `%s`\n\n%s\n\n", name, k.Doc)
	if len(k.Children) > 0 {
		b.WriteString("| Argument | Type | Required / default | Meaning |\n|---|---|---|---|\n")
		var rows func(children []string)
		rows = func(children []string) {
			for _, c := range children {
				ck, _ := LookupKey(c)
				writeArgRow(b, ck, k.Path)
				rows(ck.Children)
			}
		}
		rows(k.Children)
		b.WriteString("\n")
	}
	if k.Example != "" {
		fmt.Fprintf(b, "```yaml\n%s\n```\n\n", k.Example)
	}
}

func writeArgRow(b *strings.Builder, k Key, parent string) {
	meaning := k.Doc
	if s := sharedOf(k); s != "" {
		meaning += " See " + s + "."
	}
	if len(k.Enum) > 0 && len(k.Enum) <= 12 {
		meaning += " One of: " + strings.Join(k.Enum, ", ") + "."
	}
	fmt.Fprintf(b, "| `%s` | %s | %s | %s |\n", strings.TrimPrefix(k.Path, parent+"."), words.MarkdownCell(k.Type), words.MarkdownCell(requirement(k)), words.MarkdownCell(meaning))
}

// ReplaceReferenceSection returns doc with the text between ReferenceBegin and ReferenceEnd
// replaced by ReferenceMarkdown, or an error if a marker is missing.
func ReplaceReferenceSection(doc string) (string, error) {
	return replaceGeneratedSection(doc, "reference", ReferenceBegin, ReferenceEnd, ReferenceMarkdown())
}

// replaceGeneratedSection returns doc with the text between the markers begin and end
// replaced by content, or an error naming the section (what: "reference") if a marker is
// missing or they are out of order.
func replaceGeneratedSection(doc, what, begin, end, content string) (string, error) {
	b := strings.Index(doc, begin)
	e := strings.Index(doc, end)
	if b < 0 || e < 0 || e < b {
		return "", fmt.Errorf("the %s markers %q and %q are missing or out of order", what, begin, end)
	}
	return doc[:b+len(begin)] + "\n" + content + doc[e:], nil
}
