//go:build genupstream

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
//	go run -tags genupstream ./model/internal/genupstream
//
// The build tag keeps k8s.io/api (some 50 packages) out of `go build ./...`; the model
// package's own tests check that the tables name the k8s.io/api version in go.mod and hold
// every field the model decodes, and `go test -tags genupstream ./model/internal/genupstream`
// that the file is exactly what the generator writes.
package main
