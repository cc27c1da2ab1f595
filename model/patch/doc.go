// Package patch applies a patch request's body to an object's JSON, as kube-apiserver's patch
// handler does: RFC 6902 JSON patch, RFC 7386 merge patch, and strategic merge patch with the
// kind's k8s.io/api type as its schema. It is a pure function of its inputs, shared by the
// API server and by the scenario loader (which checks a timeline patch before the run).
// Errors are the apimachinery status errors the real handler answers with (400, 413, 415,
// 422).
package patch
