// Package scenarios defines the scenario format (docs/scenario.md), loads and validates
// scenario files, embeds the built-in scenarios, documents every key of the format, generates
// its JSON Schema, and holds the registry of component flags a scenario can set.
//
// It promises:
//
//   - Every problem at once, with a position: Parse and Load report all problems they find
//     as Errors, each "file:line:col: path: message (hint)": unknown keys with a did-you-mean,
//     an argument of another action named as such, wrong types, bad durations, missing
//     required keys (with an example), references to timeline entries, nodes, zones, clients,
//     components or objects that do not exist, manifests that do not decode, rollouts that
//     would leave an object the API server rejects, load shapes sim/metrics rejects, component
//     flags that do not exist or have bad values. Problems inside a referenced manifest or
//     series file point into that file.
//   - Manifests as they come (model.DecodeManifestsWith): kubectl dumps load, with what the
//     simulator skips or ignores said in warnings; ParseOptions.Strict turns each into a
//     problem. Import writes a scenario from a dump (node groups from its Nodes, the rest
//     settled), and what it writes always loads.
//   - A loaded scenario is complete: every default is filled in (seed, stop limits, node name
//     prefixes, allocatable, namespaces of objects and references, drain's ignoreDaemonSets,
//     api-errors' Retry-After, loads' names and metrics, series files read into points), every
//     limit is checked (duration at most 30 days, at most 10000 nodes, ...), so the simulator
//     reads plain values and never meets user input it has to reject.
//   - Tagged unions: timeline actions (Action) and expectation kinds (Expectation, Condition)
//     are structs with one pointer field per kind, exactly one of which is set in a loaded
//     scenario; field JSON names are the YAML names. Actions and conditions are written flat
//     in YAML (`action: NAME` with the arguments beside it).
//   - One source of documentation: Keys derives every key of the format from the Go types and
//     documents it from one table (meaning, type, default, example); Explain, Schema and the
//     reference in docs/scenario.md are made from it, and tests fail when a key has no
//     documentation, when an example does not load, or when schema.json or the docs are stale.
//   - Component flags by their upstream names: Components answers typed questions
//     (Duration, Int, Float, Bool, String, Dist) for any registered flag, returning the value
//     the scenario or an override set, or the default of the chosen upstream version; every
//     default cites its upstream source (Flags, Explain). Each flag's type, default, source
//     and the field it sets come from its component's flag table (internal/flagtab), and
//     Configure sets a component's Config through that table.
//   - No panics on input: Parse never panics, whatever the bytes (a fuzz test checks it).
//     The typed flag getters panic only on programming errors (an unregistered flag name).
//
// Nothing here reads the clock or a global random source; NodeTarget.Select draws only from
// the stream it is given, and the helpers the simulator calls during a run
// (RolloutArgs.ApplyTo, RequestFilter.Matches, MatchClient) are pure.
package scenarios
