package scenarios

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Override is one --set KEY=VALUE: KEY is "component.flag" (a registered flag) or one of the
// scenario fields seed, duration, stop.maxEvents, stop.quiescence; VALUE is written as on the
// command line.
type Override struct {
	Key   string
	Value string
}

// String writes the override as KEY=VALUE.
func (o Override) String() string { return o.Key + "=" + o.Value }

// OverrideError is a problem with one override.
type OverrideError struct {
	Override Override
	Msg      string
	Hint     string
	// Arg is the argument as written when it is not KEY=VALUE at all (it has no "="), so the
	// message quotes what the user wrote instead of a reconstruction.
	Arg string
}

// Error formats the problem as "--set KEY=VALUE: message (hint)".
func (e *OverrideError) Error() string {
	arg := e.Override.String()
	if e.Arg != "" {
		arg = e.Arg
	}
	s := "--set " + arg + ": " + e.Msg
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

// scenarioOverrideKeys are the scenario fields --set accepts.
var scenarioOverrideKeys = []string{"seed", "duration", "stop.maxEvents", "stop.quiescence"}

// maxOverrides bounds how many overrides one Apply takes.
const maxOverrides = 1000

// ParseOverride splits "KEY=VALUE" at the first '=' and checks that KEY names something that
// can be overridden. The value is checked by Apply. It returns an *OverrideError saying what
// is wrong (with a did-you-mean for a misspelt key).
func ParseOverride(s string) (Override, error) {
	key, value, ok := strings.Cut(s, "=")
	o := Override{Key: strings.TrimSpace(key), Value: value}
	if !ok {
		return Override{}, &OverrideError{Override: Override{Key: s}, Arg: s, Msg: "want KEY=VALUE",
			Hint: "e.g. --set kube-controller-manager.node-monitor-grace-period=30s"}
	}
	if msg, hint := overrideKeyProblem(o.Key); msg != "" {
		return Override{}, &OverrideError{Override: o, Msg: msg, Hint: hint}
	}
	return o, nil
}

// overrideKeys returns every key --set accepts, sorted, for did-you-mean hints.
func overrideKeys() []string {
	return append(append([]string(nil), scenarioOverrideKeys...), sortedFlagKeys()...)
}

// OverrideKeys returns every KEY that --set KEY=VALUE accepts: the scenario fields seed,
// duration, stop.maxEvents and stop.quiescence, then every component.flag, sorted.
func OverrideKeys() []string { return overrideKeys() }

// overrideKeyProblem says what is wrong with an override key, or returns "".
func overrideKeyProblem(key string) (msg, hint string) {
	if slices.Contains(scenarioOverrideKeys, key) {
		return "", ""
	}
	component, flag, ok := strings.Cut(key, ".")
	if ok {
		if _, found := LookupFlag(component, flag); found {
			return "", ""
		}
	}
	msg = fmt.Sprintf("unknown key %q", key)
	if cs := componentsWithFlag(key); !ok && len(cs) > 0 {
		keys := make([]string, len(cs))
		for i, c := range cs {
			keys[i] = c + "." + key
		}
		return msg, "name the component: " + strings.Join(keys, " or ")
	}
	if h := didYouMean(key, overrideKeys()); h != "" {
		return msg, h
	}
	if !ok {
		return msg, "keys are component.flag (see `sim explain COMPONENT`) or " + strings.Join(scenarioOverrideKeys, ", ")
	}
	if !isComponent(component) {
		return msg, "components: " + strings.Join(componentNames, ", ")
	}
	_, h := unknownFlagMessage(component, flag)
	return msg, h
}

// Apply applies overrides in order (a later one wins over an earlier one for the same key),
// validating every value as loading would, and records them in s.Overrides. It is atomic: if
// any override is bad, s is unchanged and the error lists every problem, one *OverrideError
// per line (errors.Join). A new duration is checked against the timeline and node startup
// times as at load time.
func (s *Scenario) Apply(overrides []Override) error {
	if len(overrides) > maxOverrides {
		return fmt.Errorf("%d overrides, more than the limit of %d", len(overrides), maxOverrides)
	}
	comps := s.Components.clone()
	seed, duration, stop := s.Seed, s.Duration, s.Stop
	var errs []error
	for _, o := range overrides {
		fail := func(msg, hint string) { errs = append(errs, &OverrideError{Override: o, Msg: msg, Hint: hint}) }
		if msg, hint := overrideKeyProblem(o.Key); msg != "" {
			fail(msg, hint)
			continue
		}
		switch o.Key {
		case "seed":
			v, err := strconv.ParseUint(strings.TrimSpace(o.Value), 10, 64)
			if err != nil {
				fail(fmt.Sprintf("want a non-negative integer, got %q", o.Value), "")
				continue
			}
			seed = v
		case "duration":
			d, err := parseDuration(o.Value)
			if err != nil {
				fail(err.Error(), "")
				continue
			}
			if msg := durationProblem(d); msg != "" {
				fail(msg, "")
				continue
			}
			duration = d
		case "stop.maxEvents":
			v, err := strconv.ParseUint(strings.TrimSpace(o.Value), 10, 64)
			if err != nil || v == 0 || v > MaxMaxEvents {
				fail(fmt.Sprintf("want an integer between 1 and %d, got %q", uint64(MaxMaxEvents), o.Value), "")
				continue
			}
			stop.MaxEvents = v
		case "stop.quiescence":
			d, err := parseDuration(o.Value)
			if err != nil {
				fail(err.Error(), "")
				continue
			}
			if d < 0 {
				fail(fmt.Sprintf("must not be negative, got %s", o.Value), "0 disables the quiescence stop")
				continue
			}
			stop.Quiescence = d
		default:
			component, flag, _ := strings.Cut(o.Key, ".")
			f, _ := LookupFlag(component, flag)
			v, err := parseFlagText(f, o.Value)
			if err != nil {
				fail(err.Error(), fmt.Sprintf("%s is %s; the default is %s", f.Key(), typeWords[f.Type], f.Default))
				continue
			}
			if comps.set == nil {
				comps.set = map[flagKey]flagValue{}
			}
			comps.set[flagKey{component, flag}] = v
		}
	}
	for _, problem := range comps.crossCheck() {
		errs = append(errs, fmt.Errorf("--set: %s", problem))
	}
	if duration != s.Duration {
		times := staticTimes(s.Timeline)
		for i, e := range s.Timeline {
			if times[i].known && times[i].at > duration {
				errs = append(errs, fmt.Errorf("--set duration=%s: timeline[%d]%s runs at %s, after the run would end",
					formatDuration(duration), i, entryLabel(e), formatDuration(times[i].at)))
			}
		}
		for i, g := range s.Cluster.NodeGroups {
			if g.StartupTime > 0 && g.StartupTime >= duration {
				errs = append(errs, fmt.Errorf("--set duration=%s: node group %q (cluster.nodeGroups[%d]) joins at %s, not before the run would end",
					formatDuration(duration), g.Name, i, formatDuration(g.StartupTime)))
			}
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	s.Components = *comps
	s.Seed, s.Duration, s.Stop = seed, duration, stop
	s.Overrides = append(s.Overrides, overrides...)
	return nil
}

func entryLabel(e TimelineEntry) string {
	if e.Name == "" {
		return ""
	}
	return " (" + e.Name + ")"
}
