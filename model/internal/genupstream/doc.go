// Command genupstream writes model/upstream_gen.go: what the real Kubernetes API has, read by
// reflection from k8s.io/api (the version in go.mod), for the manifest decoder to tell a field
// or kind that Kubernetes has but the simulator does not model from a typo. It records
//
//   - every kind the built-in API groups serve, with the apiVersions that serve it (list,
//     option and watch types left out), and
//   - for every struct type reachable from those kinds, its JSON field names (inlined
//     structs flattened); types of the same name in several groups get the union.
//
// Run it from the repository root after changing the k8s.io/api version:
//
//	go run ./model/internal/genupstream
//
// Its test fails while model/upstream_gen.go is stale.
package main
