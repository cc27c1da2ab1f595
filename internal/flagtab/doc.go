// Package flagtab is the shape of a component's flag table: each simulated component
// (kube-apiserver, kube-controller-manager and its controllers, kube-scheduler, the kubelet,
// leader election, the metrics pipeline, the GitOps agent, Event routing) exports a Table that
// names, for every upstream flag it honours, the flag's type, its documented default, the
// upstream source of that default, and the field of the component's Config it sets.
//
// scenarios builds its flag registry (the documented defaults, `sim explain`, validation) from
// these tables, and sim/cluster configures each component through its table; neither looks a
// Config field up by a flag name of its own. The package is a leaf (standard library only) so
// that both can use it without importing each other.
//
// Promises:
//   - Apply sets exactly the fields the table names, each from the value the caller gives for
//     that flag, and nothing else; ApplySome sets only the flags the caller gives a value for
//     (a scenario's explicit settings over defaults of the caller's choosing).
//   - Mismatches reports every flag whose documented default differs from the field's value in
//     the component's DefaultConfig; a test of scenarios requires it to be empty.
//   - A table whose Ptr does not point to a field of the flag's type panics in Apply and
//     Mismatches (a programming error, caught by that test).
package flagtab
