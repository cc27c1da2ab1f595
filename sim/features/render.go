package features

import (
	"fmt"
	"strings"

	"github.com/reconsim/reconsim/internal/words"
)

// Text renders the gate table for a terminal (`sim explain simulator.upstream-version`): for
// each gate its default in every supported release, its history, reference and what it
// switches.
func Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "feature gates and behaviour changes (default per release %s; override with --set simulator.feature-gates=Name=true,...):\n", strings.Join(Versions(), " "))
	width := 0
	for _, g := range table {
		width = max(width, len(g.Name))
	}
	for _, g := range table {
		row := make([]string, 0, NewestMinor-OldestMinor+1)
		for m := OldestMinor; m <= NewestMinor; m++ {
			if g.DefaultFor(m) {
				row = append(row, "on ")
			} else {
				row = append(row, "off")
			}
		}
		fmt.Fprintf(&b, "  %-*s  %s  %s\n", width, g.Name, strings.Join(row, " "), kindOf(g))
		fmt.Fprintf(&b, "  %-*s  history   %s\n", width, "", g.History())
		fmt.Fprintf(&b, "  %-*s  reference %s\n", width, "", g.Ref)
		fmt.Fprintf(&b, "  %-*s  switches  %s\n", width, "", g.Switches)
	}
	b.WriteString("Every component follows the one declared version: version skew between components is not modelled.\n")
	return b.String()
}

func kindOf(g Gate) string {
	switch {
	case !g.Modelled:
		return "(not modelled)"
	case g.Upstream:
		return "(upstream feature gate, " + g.Component + ")"
	}
	return "(no upstream gate; " + g.Component + ")"
}

// Markers around the generated gate table in docs/upstream.md.
const (
	MarkdownBegin = "<!-- BEGIN GENERATED GATES: go run ./scenarios/internal/gendocs -->"
	MarkdownEnd   = "<!-- END GENERATED GATES -->"
)

// Markdown renders the gate table for docs/upstream.md#versions.
func Markdown() string {
	var b strings.Builder
	b.WriteString("| Gate | Component | ")
	for _, v := range Versions() {
		b.WriteString(v + " | ")
	}
	b.WriteString("History | Reference | What it switches in reconsim |\n|---|---|")
	for range Versions() {
		b.WriteString("---|")
	}
	b.WriteString("---|---|---|\n")
	for _, g := range table {
		name := "`" + string(g.Name) + "`"
		switch {
		case !g.Modelled:
			name += " (not modelled)"
		case !g.Upstream:
			name += " (no upstream gate)"
		}
		fmt.Fprintf(&b, "| %s | %s | ", name, g.Component)
		for m := OldestMinor; m <= NewestMinor; m++ {
			if g.DefaultFor(m) {
				b.WriteString("on | ")
			} else {
				b.WriteString("off | ")
			}
		}
		fmt.Fprintf(&b, "%s | %s | %s |\n", words.MarkdownCell(g.History()), words.MarkdownCell(g.Ref), words.MarkdownCell(g.Switches))
	}
	return b.String()
}

// ReplaceMarkdownSection returns doc with the text between MarkdownBegin and MarkdownEnd
// replaced by Markdown().
func ReplaceMarkdownSection(doc string) (string, error) {
	i := strings.Index(doc, MarkdownBegin)
	j := strings.Index(doc, MarkdownEnd)
	if i < 0 || j < i {
		return "", fmt.Errorf("markers %q and %q not found in order", MarkdownBegin, MarkdownEnd)
	}
	return doc[:i+len(MarkdownBegin)] + "\n" + Markdown() + doc[j:], nil
}
