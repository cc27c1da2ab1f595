package gc

import (
	"time"

	"github.com/reconsim/reconsim/model"
)

// monitorSyncPeriod is how often the garbage collector rediscovers the deletable resources
// and starts monitors for new ones, such as the kinds of CustomResourceDefinitions created
// during the run (kube-controller-manager's startGarbageCollectorController:
// `go garbageCollector.Sync(ctx, discoveryClient, 30*time.Second)`, release-1.32).
const monitorSyncPeriod = 30 * time.Second

// startSync runs the first discovery now (the CRDs of a scenario's objects exist already)
// and arranges the later ones. Upstream polls discovery every monitorSyncPeriod from the
// start; here the poll that would find a new kind is the only one that runs: when the server
// starts serving a new kind, a sync is scheduled at the next multiple of monitorSyncPeriod
// since the collector started. A run without CustomResourceDefinitions schedules nothing, so
// it processes the same events as before custom resources were modelled.
func (gc *Controller) startSync() {
	start := gc.k.Now()
	gc.syncTimer = gc.k.NewIdleTimer(gc.syncMonitors)
	gc.client.OnServedKindsChanged(func() {
		if gc.stopped {
			return
		}
		if _, armed := gc.syncTimer.When(); armed {
			return
		}
		elapsed := gc.k.Now().Sub(start)
		ticks := elapsed/monitorSyncPeriod + 1
		gc.syncTimer.ResetAt(start.Add(ticks * monitorSyncPeriod))
	})
	gc.syncMonitors()
}

// lookupKind returns how the server serves kind: a built-in kind, or one discovery showed.
func (gc *Controller) lookupKind(kind model.Kind) (model.KindInfo, bool) {
	if ki, ok := model.LookupKind(kind); ok {
		return ki, true
	}
	ki, ok := gc.served[kind]
	return ki, ok
}

// syncMonitors is GarbageCollector.Sync's resync (garbagecollector.go Sync, resyncMonitors):
// every kind the server serves now that has no monitor gets one, started at once, except
// events, which upstream ignores. Kinds are never unmonitored: the simulator does not delete
// CustomResourceDefinitions. Discovery is free here (no API request is modelled for it).
func (gc *Controller) syncMonitors() {
	if gc.stopped || !gc.cfg.EnableGarbageCollector {
		return
	}
	kinds := gc.client.ServedKinds()
	custom := false
	for _, ki := range kinds {
		if _, builtin := model.LookupKind(ki.Kind); !builtin {
			custom = true
		}
	}
	if !custom {
		// Until a CRD exists the CRD kind itself is left unmonitored too, so that a run
		// without custom resources watches exactly the built-in kinds (monitoredKinds).
		return
	}
	for _, ki := range kinds {
		if ki.Kind == model.KindEvent || ki.Kind == model.KindFlowSchema || ki.Kind == model.KindPriorityLevelConfiguration || gc.monitorByKind[ki.Kind] != nil {
			continue // as monitoredKinds
		}
		gc.served[ki.Kind] = ki
		inf := gc.factory.For(ki.Kind)
		gc.monitors = append(gc.monitors, inf)
		gc.monitorByKind[ki.Kind] = inf
		inf.AddEventHandler(&monitorHandler{gc: gc, kind: ki.Kind, apiVersion: ki.APIVersion})
	}
}
