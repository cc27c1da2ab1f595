// Package model holds the Kubernetes API object types the simulator understands, their deep
// copies, the kind registry, and the decoder that turns real Kubernetes manifests into them.
//
// The types mirror the upstream API (same JSON field names, same meaning) but keep only the
// fields the simulator models. Times are virtual (vtime.Time). Quantities, label selectors and
// int-or-string values are the k8s.io/apimachinery types, so parsing and arithmetic are
// upstream's own.
//
// The decoder takes manifests as people have them: written by hand or dumped from a cluster
// with `kubectl get -o yaml`. A field Kubernetes has and the simulator does not model is
// ignored with a warning that says what the simulation does differently when it matters
// (the list of real fields is generated from k8s.io/api into upstream_gen.go); a field
// Kubernetes does not have is an error with a did-you-mean. What the API server set in a
// dump is dropped, objects the simulated cluster makes itself and kinds it does not model
// are skipped, each with one warning; ManifestOptions.Strict makes every skip and ignored
// field an error.
//
// Custom resources: CustomResourceDefinition is a registered kind; the objects of the kinds
// CRDs define are *Unstructured (JSON values with typed metadata), decoded when
// ManifestOptions.CustomResources is set, and checked against their CRD with
// CustomResourceSchema (prune, default, validate with kube-openapi's validator) and
// ValidateCustomResource. The kinds CRDs define are never added to the global registry: the
// API server keeps them per run.
//
// Contract for objects: an object handed to the API server or read from it (store, informer
// cache, watch event) is shared and must be treated as immutable; code that wants to change
// one works on DeepCopyObject() of it.
package model
