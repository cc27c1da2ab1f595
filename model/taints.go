package model

// The well-known taint keys ([api@HEAD] core/v1/well_known_taints.go): the node lifecycle
// controller sets them, the scheduler's TaintToleration and NodeUnschedulable plugins read
// them, the DaemonSet controller's pods tolerate them, the DefaultTolerationSeconds and
// TaintNodesByCondition admission plugins add them, and PodGC looks for the out-of-service
// one. API constants, like the rest of core/v1, so every layer reads them from here.
const (
	TaintNodeNotReady           = "node.kubernetes.io/not-ready"
	TaintNodeUnreachable        = "node.kubernetes.io/unreachable"
	TaintNodeUnschedulable      = "node.kubernetes.io/unschedulable"
	TaintNodeMemoryPressure     = "node.kubernetes.io/memory-pressure"
	TaintNodeDiskPressure       = "node.kubernetes.io/disk-pressure"
	TaintNodeNetworkUnavailable = "node.kubernetes.io/network-unavailable"
	TaintNodePIDPressure        = "node.kubernetes.io/pid-pressure"
	TaintNodeOutOfService       = "node.kubernetes.io/out-of-service"
)
