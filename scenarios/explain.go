package scenarios

import (
	"fmt"
	"strings"
)

// scenarioKeyHelp explains the scenario fields --set accepts.
var scenarioKeyHelp = map[string]string{
	"seed": "seed (integer)\n" +
		"  The seed every random draw of the run derives from; the same scenario and seed give the same run.\n" +
		fmt.Sprintf("  default    %d, or the scenario's seed:\n", DefaultSeed) +
		"  set it     sim run NAME --seed 7, or --set seed=7\n",
	"duration": "duration (duration)\n" +
		"  The virtual-time limit of the run; the run stops there if nothing stopped it earlier.\n" +
		"  default    none: every scenario sets duration:\n" +
		fmt.Sprintf("  limit      greater than 0, at most %s\n", MaxDuration) +
		"  set it     --duration 30m, or --set duration=30m\n",
	"stop.maxEvents": "stop.maxEvents (integer)\n" +
		"  Stops the run after this many kernel events, so a runaway scenario ends.\n" +
		fmt.Sprintf("  default    %d\n", DefaultMaxEvents) +
		"  set it     --set stop.maxEvents=1000000, or stop: {maxEvents: 1000000} in the scenario\n",
	"stop.quiescence": "stop.quiescence (duration)\n" +
		"  Stops the run when nothing significant changed for this long and no work is pending; 0 disables it.\n" +
		fmt.Sprintf("  default    %s\n", formatDuration(DefaultQuiescence)) +
		"  set it     --set stop.quiescence=2m, or stop: {quiescence: 2m} in the scenario\n",
}

// Explain returns what a setting means: for "component.flag" (or a bare flag name, which
// explains it for every component that has it) its meaning, type, default per upstream
// version, upstream source and how to set it; for a component, its flags with their
// defaults; for seed, duration, stop.maxEvents and stop.quiescence, the scenario field. An
// unknown key is an error with a did-you-mean.
func Explain(key string) (string, error) {
	key = strings.TrimPrefix(strings.TrimSpace(key), "--")
	if h, ok := scenarioKeyHelp[key]; ok {
		return h, nil
	}
	if isComponent(key) {
		return explainComponent(key), nil
	}
	if component, flag, ok := strings.Cut(key, "."); ok {
		if f, found := LookupFlag(component, flag); found {
			return explainFlag(f), nil
		}
	}
	if cs := componentsWithFlag(key); len(cs) > 0 {
		var b strings.Builder
		for i, c := range cs {
			if i > 0 {
				b.WriteString("\n")
			}
			f, _ := LookupFlag(c, key)
			b.WriteString(explainFlag(f))
		}
		return b.String(), nil
	}
	candidates := append(overrideKeys(), componentNames...)
	for _, f := range flags {
		if !contains(candidates, f.Name) {
			candidates = append(candidates, f.Name)
		}
	}
	msg := fmt.Sprintf("nothing is called %q", key)
	if h := didYouMean(key, candidates); h != "" {
		return "", fmt.Errorf("%s; %s", msg, h)
	}
	return "", fmt.Errorf("%s; try a component (%s) to list its flags", msg, strings.Join(componentNames, ", "))
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
	if f.Simulator {
		b.WriteString("  note       a simulator setting, not an upstream one\n")
	}
	if f.Type == TypeDist {
		b.WriteString("  syntax     a duration (constant), uniform(1ms..5ms), exponential(min=1ms,mean=3ms),\n" +
			"             lognormal(median=2ms,p99=20ms,max=1s); in YAML also {kind: lognormal, median: 2ms, p99: 20ms}\n")
	}
	fmt.Fprintf(&b, "  set it     --set %s=%s, or in the scenario:\n", f.Key(), f.Default)
	fmt.Fprintf(&b, "             components: {%s: {%s: %s}}\n", f.Component, f.Name, yamlScalar(f.Default))
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
			f.Component, f.Name, f.Type, def, mdEscape(source), mdEscape(help))
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
	begin := strings.Index(doc, FlagsBegin)
	end := strings.Index(doc, FlagsEnd)
	if begin < 0 || end < 0 || end < begin {
		return "", fmt.Errorf("the flag table markers %q and %q are missing or out of order", FlagsBegin, FlagsEnd)
	}
	return doc[:begin+len(FlagsBegin)] + "\n" + FlagsMarkdown() + doc[end:], nil
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
