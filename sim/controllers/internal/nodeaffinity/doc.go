// Package nodeaffinity is the one reading of a pod's node constraints, as upstream keeps it in
// k8s.io/component-helpers scheduling/corev1/nodeaffinity for kube-scheduler and the DaemonSet
// controller alike: spec.nodeSelector ANDed with the required node affinity (its terms ORed,
// an empty term selecting nothing), and the weighted preferred terms the scheduler scores.
//
// Contract: a term's matchExpressions become an apimachinery label selector built with
// labels.NewRequirement, so operators and their validation are upstream's own; matchFields
// may only name metadata.name with In or NotIn and one value. A term that does not parse
// matches nothing and is otherwise ignored (upstream's LazyErrorNodeSelector), and a
// preferred term that does not parse is dropped. Parsing happens once, in
// GetRequiredNodeAffinity and GetPreferredTerms; Match and ScorePreferred only read.
package nodeaffinity
