// Package scenarios defines the scenario format (docs/scenario.md), loads and validates
// scenario files, embeds the built-in scenarios, and holds the registry of component flags a
// scenario can set.
//
// It promises:
//
//   - Every problem at once, with a position: Parse and Load report all problems they find
//     as Errors, each "file:line:col: path: message (hint)": unknown keys with a did-you-mean,
//     wrong types, bad durations, missing required keys, references to timeline entries,
//     nodes, zones or objects that do not exist, manifests that do not decode, component
//     flags that do not exist or have bad values.
//   - A loaded scenario is complete: every default is filled in (seed, stop limits, node name
//     prefixes, allocatable, namespaces of objects and references), every limit is checked
//     (duration at most 30 days, at most 10000 nodes, ...), so the simulator reads plain values
//     and never meets user input it has to reject.
//   - Component flags by their upstream names: Components answers typed questions
//     (Duration, Int, Float, Bool, String, Dist) for any registered flag, returning the value
//     the scenario or an override set, or the default of the chosen upstream version; every
//     default cites its upstream source (Flags, Explain).
//   - Tagged unions: timeline actions (Action) and expectation kinds (Expectation, Condition)
//     are structs with one pointer field per kind, exactly one of which is set in a loaded
//     scenario; field JSON names are the YAML names, so a schema can be generated from them.
//   - No panics on input: Parse never panics, whatever the bytes (a fuzz test checks it).
//     The typed flag getters panic only on programming errors (an unregistered flag name).
//
// Nothing here reads the clock or a global random source; NodeTarget.Select draws only from
// the stream it is given.
package scenarios
