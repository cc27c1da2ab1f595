// Package model holds the Kubernetes API object types the simulator understands, their deep
// copies, the kind registry, and the decoder that turns real Kubernetes manifests into them.
//
// The types mirror the upstream API (same JSON field names, same meaning) but keep only the
// fields the simulator models. Times are virtual (sim.Time). Quantities, label selectors and
// int-or-string values are the k8s.io/apimachinery types, so parsing and arithmetic are
// upstream's own.
//
// Contract for objects: an object handed to the API server or read from it (store, informer
// cache, watch event) is shared and must be treated as immutable; code that wants to change
// one works on DeepCopyObject() of it.
package model
