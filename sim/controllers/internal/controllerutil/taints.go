package controllerutil

// The well-known taint keys the controllers set, match or tolerate (upstream k8s.io/api
// core/v1/well_known_taints.go): the node lifecycle controller sets them, the scheduler's
// TaintToleration and NodeUnschedulable plugins read them, and the DaemonSet controller's pods
// tolerate them. They are API constants; they live here, once for every controller, because
// package model does not carry them yet.
const (
	TaintNodeNotReady           = "node.kubernetes.io/not-ready"
	TaintNodeUnreachable        = "node.kubernetes.io/unreachable"
	TaintNodeUnschedulable      = "node.kubernetes.io/unschedulable"
	TaintNodeMemoryPressure     = "node.kubernetes.io/memory-pressure"
	TaintNodeDiskPressure       = "node.kubernetes.io/disk-pressure"
	TaintNodeNetworkUnavailable = "node.kubernetes.io/network-unavailable"
	TaintNodePIDPressure        = "node.kubernetes.io/pid-pressure"
)
