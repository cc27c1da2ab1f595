package scenarios

import (
	"fmt"
	"strings"

	"github.com/reconsim/reconsim/internal/flagtab"
	"github.com/reconsim/reconsim/internal/words"
	"github.com/reconsim/reconsim/sim/features"
)

// Explain returns what a key means. KEY is a scenario key (timeline.node-crash,
// expect.converged, cluster.nodeGroups.zone; see Keys; the last part alone works when it is
// unambiguous, like node-crash or pods-at-most), a component flag as component.flag (also
// under components.), a bare flag name (explained for every component that has it), or a
// component (its flags and defaults), or a pod-behaviour annotation (sim.reconsim.dev/never-ready,
// or sim.reconsim.dev for the list). For a scenario key it gives the meaning, type,
// default, accepted values, arguments and an example; for a flag its meaning, type, default
// per upstream version, upstream source and how to set it. An unknown or ambiguous key is an
// error saying what to try, with a did-you-mean.
func Explain(key string) (string, error) {
	key = strings.TrimPrefix(strings.TrimSpace(key), "--")
	if newName, ok := DeprecatedConditionNames[strings.TrimPrefix(key, "condition.")]; ok {
		text, err := Explain("condition." + newName)
		return fmt.Sprintf("%s is a deprecated name of condition %s (accepted with a warning; write %s)\n%s",
			strings.TrimPrefix(key, "condition."), newName, newName, text), err
	}
	if k, ok := LookupKey(key); ok {
		return explainKey(k), nil
	}
	if strings.HasPrefix(key, AnnotationPrefix) || key == strings.TrimSuffix(AnnotationPrefix, "/") || key == "annotations" {
		if d, ok := lookupAnnotation(key); ok {
			return explainAnnotation(d), nil
		}
		if key == AnnotationPrefix || key == strings.TrimSuffix(AnnotationPrefix, "/") || key == "annotations" {
			return explainAnnotations(), nil
		}
		msg := fmt.Sprintf("no pod annotation is called %q", key)
		if h := didYouMean(key, annotationKeys()); h != "" {
			msg += "; " + h
		}
		return "", fmt.Errorf("%s; the annotations: %s", msg, strings.Join(annotationKeys(), ", "))
	}
	if doc, ok := explainKind(key); ok {
		return doc, nil
	}
	flagKey := strings.TrimPrefix(key, "components.")
	if isComponent(flagKey) {
		return explainComponent(flagKey), nil
	}
	if component, flag, ok := strings.Cut(flagKey, "."); ok {
		if f, found := LookupFlag(component, flag); found {
			return explainFlag(f), nil
		}
	}
	if cs := componentsWithFlag(flagKey); len(cs) > 0 {
		var b strings.Builder
		for i, c := range cs {
			if i > 0 {
				b.WriteString("\n")
			}
			f, _ := LookupFlag(c, flagKey)
			b.WriteString(explainFlag(f))
		}
		return b.String(), nil
	}
	k, several, ok := resolveKey(key)
	if ok {
		return explainKey(k), nil
	}
	if d, ok := lookupAnnotation(key); ok && len(several) == 0 {
		return explainAnnotation(d), nil
	}
	if len(several) > 0 {
		return "", fmt.Errorf("several keys are called %q: %s; name one", key, strings.Join(several, ", "))
	}
	msg := fmt.Sprintf("nothing is called %q", key)
	if h := didYouMean(key, ExplainTopics()); h != "" {
		return "", fmt.Errorf("%s; %s", msg, h)
	}
	return "", fmt.Errorf("%s; try a scenario key (timeline, expect, cluster, ...), a component (%s) to list its flags, or component.flag", msg, strings.Join(componentNames, ", "))
}

// ExplainTopics returns every KEY Explain answers for by name: the scenario keys, the
// components, the component flags as component.flag, the bare flag names and the
// pod-behaviour annotations (sim.reconsim.dev/...); in that order, without duplicates.
func ExplainTopics() []string {
	out := keyPaths()
	seen := map[string]bool{}
	for _, k := range out {
		seen[k] = true
	}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, c := range componentNames {
		add(c)
	}
	for _, f := range flags {
		add(f.Key())
	}
	for _, f := range flags {
		add(f.Name)
	}
	for _, a := range annotationKeys() {
		add(a)
	}
	for _, k := range kindTopics() {
		add(k)
	}
	return out
}

func explainComponent(component string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s flags (defaults for Kubernetes %s; `sim explain %s.FLAG` for details)\n", component, DefaultUpstreamVersion, component)
	width := 0
	for _, f := range flags {
		if f.Component == component {
			width = max(width, len(f.Name))
		}
	}
	for _, f := range flags {
		if f.Component == component {
			fmt.Fprintf(&b, "  %-*s  %-8s  %s\n", width, f.Name, f.Type, f.Default)
		}
	}
	return b.String()
}

func explainFlag(f Flag) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s)\n", f.Key(), f.Type)
	fmt.Fprintf(&b, "  %s\n", f.Help)
	fmt.Fprintf(&b, "  default    %s (Kubernetes %s)\n", f.Default, DefaultUpstreamVersion)
	for _, od := range f.OlderDefaults {
		fmt.Fprintf(&b, "             %s before %s: %s\n", od.Default, od.Before, od.Source)
	}
	if f.DefaultFollows != "" {
		fmt.Fprintf(&b, "             %s when %s is set and this is not\n", f.DefaultFollows, f.DefaultFollows)
	}
	fmt.Fprintf(&b, "  source     %s\n", f.Source)
	if f.ConfigField != "" {
		fmt.Fprintf(&b, "  config     %s (the component's configuration file field)\n", f.ConfigField)
	}
	if f.Field != "" {
		fmt.Fprintf(&b, "  sets       %s\n", f.Field)
	}
	if f.Simulator {
		b.WriteString("  note       a simulator setting, not an upstream one\n")
	}
	if f.Type == flagtab.Dist {
		b.WriteString("  syntax     a duration (constant), uniform(1ms..5ms), exponential(min=1ms,mean=3ms),\n" +
			"             lognormal(median=2ms,p99=20ms,max=1s); in YAML also {kind: lognormal, median: 2ms, p99: 20ms}\n")
	}
	fmt.Fprintf(&b, "  set it     --set %s=%s, or in the scenario:\n", f.Key(), f.Default)
	fmt.Fprintf(&b, "             components: {%s: {%s: %s}}\n", f.Component, f.Name, yamlScalar(f.Default))
	if f.Component == ComponentSimulator && (f.Name == "upstream-version" || f.Name == "feature-gates") {
		b.WriteString(versionedDefaultsText())
		b.WriteString(features.Text())
	}
	return b.String()
}

// versionedDefaultsText lists the flags whose default depends on the upstream version.
func versionedDefaultsText() string {
	var b strings.Builder
	b.WriteString("flag defaults that changed between releases:\n")
	for _, f := range flags {
		for _, od := range f.OlderDefaults {
			note := ""
			if minorOf(od.Before) <= minorOf(SupportedUpstreamVersions[0]) {
				note = " (outside the supported releases)"
			}
			fmt.Fprintf(&b, "  %s: %s, %s before %s%s; %s\n", f.Key(), f.Default, od.Default, od.Before, note, f.Source)
		}
	}
	return b.String()
}

// yamlScalar quotes a value that YAML would not read back as the same string.
func yamlScalar(v string) string {
	if strings.ContainsAny(v, "(),:{}[]#") {
		return fmt.Sprintf("%q", v)
	}
	return v
}

// FlagsMarkdown renders the flag registry as the Markdown table in docs/scenario.md (between
// the markers FlagsBegin and FlagsEnd). The docs test fails when the two differ; regenerate
// with `go run ./scenarios/internal/gendocs`.
func FlagsMarkdown() string {
	var b strings.Builder
	b.WriteString("| Component | Flag | Type | Default | Upstream source | Meaning |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, f := range flags {
		def := "`" + f.Default + "`"
		for _, od := range f.OlderDefaults {
			def += fmt.Sprintf(" (`%s` before %s)", od.Default, od.Before)
		}
		source := f.Source
		for _, od := range f.OlderDefaults {
			source += "; before " + od.Before + ": " + od.Source
		}
		help := f.Help
		if f.ConfigField != "" {
			help += " Config field `" + f.ConfigField + "`."
		}
		if f.Simulator {
			help += " Simulator setting."
		}
		fmt.Fprintf(&b, "| %s | `%s` | %s | %s | %s | %s |\n",
			f.Component, f.Name, f.Type, def, words.MarkdownCell(source), words.MarkdownCell(help))
	}
	return b.String()
}

// Markers around the generated flag table in docs/scenario.md.
const (
	FlagsBegin = "<!-- BEGIN GENERATED FLAGS: go run ./scenarios/internal/gendocs -->"
	FlagsEnd   = "<!-- END GENERATED FLAGS -->"
)

// ReplaceFlagsSection returns doc with the text between FlagsBegin and FlagsEnd replaced by
// the current FlagsMarkdown, or an error if a marker is missing.
func ReplaceFlagsSection(doc string) (string, error) {
	return replaceGeneratedSection(doc, "flag table", FlagsBegin, FlagsEnd, FlagsMarkdown())
}
