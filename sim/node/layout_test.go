package node

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"

	"github.com/reconsim/reconsim/model"
)

// cacheLine is the cache line size the layouts below are arranged for (amd64, arm64).
const cacheLine = 64

// TestKubeletPeriodicFieldsShareCacheLines holds the Kubelet's layout to what its comment
// promises: the fields the lease renewal, the node status check, the status manager's tick
// and the stall gate read every period sit in the first two cache lines, the per-period
// settings in the first line of cfg, which starts a cache line.
func TestKubeletPeriodicFieldsShareCacheLines(t *testing.T) {
	var kl Kubelet
	hot := map[string]uintptr{
		"k":               unsafe.Offsetof(kl.k) + unsafe.Sizeof(kl.k),
		"c":               unsafe.Offsetof(kl.c) + unsafe.Sizeof(kl.c),
		"stallUntil":      unsafe.Offsetof(kl.stallUntil) + unsafe.Sizeof(kl.stallUntil),
		"latestLease":     unsafe.Offsetof(kl.latestLease) + unsafe.Sizeof(kl.latestLease),
		"rand":            unsafe.Offsetof(kl.rand) + unsafe.Sizeof(kl.rand),
		"unchangedNode":   unsafe.Offsetof(kl.unchangedNode) + unsafe.Sizeof(kl.unchangedNode),
		"lastReportTime":  unsafe.Offsetof(kl.lastReportTime) + unsafe.Sizeof(kl.lastReportTime),
		"deleted":         unsafe.Offsetof(kl.deleted) + unsafe.Sizeof(kl.deleted),
		"registered":      unsafe.Offsetof(kl.registered) + unsafe.Sizeof(kl.registered),
		"hasReported":     unsafe.Offsetof(kl.hasReported) + unsafe.Sizeof(kl.hasReported),
		"component":       unsafe.Offsetof(kl.component) + unsafe.Sizeof(kl.component),
		"leaseObjectName": unsafe.Offsetof(kl.leaseObjectName) + unsafe.Sizeof(kl.leaseObjectName),
		"nodeName":        unsafe.Offsetof(kl.nodeName) + unsafe.Sizeof(kl.nodeName),
	}
	// Where a Kubelet starts within its cache line: the allocator's header before it.
	w := newWorld(t, 1)
	first := w.addNode("n0", model.ResourceList{model.ResourceCPU: mustQuantity(t, "4")}, DefaultConfig(), false)
	start := uintptr(unsafe.Pointer(first)) % cacheLine
	for _, name := range []string{"n1", "n2", "n3"} {
		got := w.addNode(name, model.ResourceList{model.ResourceCPU: mustQuantity(t, "4")}, DefaultConfig(), false)
		assert.Equal(t, start, uintptr(unsafe.Pointer(got))%cacheLine, "every Kubelet starts at the same place in its cache line")
	}
	for name, end := range hot {
		assert.LessOrEqual(t, start+end, uintptr(2*cacheLine), "Kubelet.%s ends past the second cache line", name)
	}
	assert.Zero(t, (start+unsafe.Offsetof(kl.cfg))%cacheLine, "Kubelet.cfg starts on a cache line")
	var cfg Config
	for name, end := range map[string]uintptr{
		"NodeStatusUpdateFrequency":      unsafe.Offsetof(cfg.NodeStatusUpdateFrequency) + unsafe.Sizeof(cfg.NodeStatusUpdateFrequency),
		"NodeStatusReportFrequency":      unsafe.Offsetof(cfg.NodeStatusReportFrequency) + unsafe.Sizeof(cfg.NodeStatusReportFrequency),
		"NodeLeaseDurationSeconds":       unsafe.Offsetof(cfg.NodeLeaseDurationSeconds) + unsafe.Sizeof(cfg.NodeLeaseDurationSeconds),
		"NodeLeaseRenewIntervalFraction": unsafe.Offsetof(cfg.NodeLeaseRenewIntervalFraction) + unsafe.Sizeof(cfg.NodeLeaseRenewIntervalFraction),
		"LeaseMaxUpdateRetries":          unsafe.Offsetof(cfg.LeaseMaxUpdateRetries) + unsafe.Sizeof(cfg.LeaseMaxUpdateRetries),
		"NodeStatusUpdateRetry":          unsafe.Offsetof(cfg.NodeStatusUpdateRetry) + unsafe.Sizeof(cfg.NodeStatusUpdateRetry),
	} {
		assert.LessOrEqual(t, end, uintptr(cacheLine), "Config.%s ends past its first cache line", name)
	}
}

// TestStatusManagerIsTwoCacheLines holds the statusManager to its layout: the fields an idle
// status manager's tick and check read in its first cache line and the queue in its second,
// and the struct 128 bytes, whose allocations start on a cache line.
func TestStatusManagerIsTwoCacheLines(t *testing.T) {
	var sm statusManager
	assert.Equal(t, uintptr(2*cacheLine), unsafe.Sizeof(sm), "statusManager's size")
	for name, end := range map[string]uintptr{
		"kl":          unsafe.Offsetof(sm.kl) + unsafe.Sizeof(sm.kl),
		"proc":        unsafe.Offsetof(sm.proc) + unsafe.Sizeof(sm.proc),
		"batch":       unsafe.Offsetof(sm.batch) + unsafe.Sizeof(sm.batch),
		"unsettled":   unsafe.Offsetof(sm.unsettled) + unsafe.Sizeof(sm.unsettled),
		"batchDue":    unsafe.Offsetof(sm.batchDue) + unsafe.Sizeof(sm.batchDue),
		"stopped":     unsafe.Offsetof(sm.stopped) + unsafe.Sizeof(sm.stopped),
		"idle":        unsafe.Offsetof(sm.idle) + unsafe.Sizeof(sm.idle),
		"tickPending": unsafe.Offsetof(sm.tickPending) + unsafe.Sizeof(sm.tickPending),
		"syncPeriod":  unsafe.Offsetof(sm.syncPeriod) + unsafe.Sizeof(sm.syncPeriod),
	} {
		assert.LessOrEqual(t, end, uintptr(cacheLine), "statusManager.%s ends past the first cache line", name)
	}
	w := newWorld(t, 1)
	kl := w.addNode("n1", model.ResourceList{model.ResourceCPU: mustQuantity(t, "4")}, DefaultConfig(), false)
	kl.Start()
	assert.Zero(t, uintptr(unsafe.Pointer(kl.status))%cacheLine, "the statusManager starts on a cache line")
}
