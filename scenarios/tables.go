package scenarios

import (
	"fmt"
	"time"

	"github.com/reconsim/reconsim/internal/flagtab"
	"github.com/reconsim/reconsim/sim/client/record"
	"github.com/reconsim/reconsim/sim/controllers/cronjob"
	"github.com/reconsim/reconsim/sim/controllers/daemonset"
	"github.com/reconsim/reconsim/sim/controllers/deployment"
	"github.com/reconsim/reconsim/sim/controllers/gc"
	"github.com/reconsim/reconsim/sim/controllers/hpa"
	"github.com/reconsim/reconsim/sim/controllers/job"
	"github.com/reconsim/reconsim/sim/controllers/nodelifecycle"
	"github.com/reconsim/reconsim/sim/controllers/podgc"
	"github.com/reconsim/reconsim/sim/controllers/replicaset"
	"github.com/reconsim/reconsim/sim/controllers/scheduler"
	"github.com/reconsim/reconsim/sim/controllers/statefulset"
	"github.com/reconsim/reconsim/sim/controllers/ttlafterfinished"
	"github.com/reconsim/reconsim/sim/gitops"
	"github.com/reconsim/reconsim/sim/kubeapiserver"
	"github.com/reconsim/reconsim/sim/kubecontrollermanager"
	"github.com/reconsim/reconsim/sim/leaderelection"
	"github.com/reconsim/reconsim/sim/metrics"
	"github.com/reconsim/reconsim/sim/node"
)

// componentTables are the flag tables the components export (internal/flagtab). The registry
// takes each of their flags' type, default and upstream source from them, so a default is
// written once, beside the component's DefaultConfig, and TestDocumentedDefaultsAreDefaultConfigs
// checks the two agree. scenarios imports the component packages only for these tables (see
// docs/architecture.md#layers); the API server's flags come from sim/kubeapiserver, its options
// package, since scenarios does not import the server.
var componentTables = []flagtab.Described{
	kubeapiserver.Flags,
	kubeapiserver.SimulatorFlags,
	kubecontrollermanager.Flags,
	nodelifecycle.Flags,
	replicaset.Flags,
	deployment.Flags,
	statefulset.Flags,
	daemonset.Flags,
	job.Flags,
	cronjob.Flags,
	ttlafterfinished.Flags,
	hpa.Flags,
	gc.Flags,
	podgc.Flags,
	scheduler.Flags,
	node.Flags,
	metrics.Flags,
	leaderelection.Flags(ComponentControllerManager),
	leaderelection.Flags(ComponentScheduler),
	leaderelection.ProcessFlags(ComponentControllerManager),
	leaderelection.ProcessFlags(ComponentScheduler),
	record.Flags,
	gitops.Flags,
}

// withTables fills each registry entry that has no Type from the component tables (type,
// default, source). It panics, at package initialisation, when an entry has no table flag or
// a table flag has no entry: both are programming errors.
func withTables(entries []Flag, tables []flagtab.Described) []Flag {
	type key struct{ component, name string }
	byKey := map[key]flagtab.Info{}
	for _, t := range tables {
		for _, in := range t.Infos() {
			k := key{in.Component, in.Name}
			if _, dup := byKey[k]; dup {
				panic(fmt.Sprintf("scenarios: %s.%s is in two flag tables", in.Component, in.Name))
			}
			byKey[k] = in
		}
	}
	used := 0
	for i, f := range entries {
		in, ok := byKey[key{f.Component, f.Name}]
		switch {
		case ok && f.Type != "":
			panic(fmt.Sprintf("scenarios: %s has a flag table entry; its registry entry must not repeat type, default and source", f.Key()))
		case ok:
			entries[i].Type, entries[i].Default, entries[i].Source = in.Type, in.Default, in.Source
			entries[i].Field = in.Config + "." + in.Field
			used++
		case f.Type == "":
			panic(fmt.Sprintf("scenarios: %s has no type and no flag table entry", f.Key()))
		}
	}
	if used != len(byKey) {
		panic(fmt.Sprintf("scenarios: %d flag table entries have no registry entry (Help, checks)", len(byKey)-used))
	}
	return entries
}

// Configure sets every field of cfg that the component's flag table t names to the scenario's
// effective value of that flag (the explicit setting, or the default of its upstream version).
func Configure[C any](c *Components, t flagtab.Table[C], cfg *C) {
	t.Apply(cfg, func(in flagtab.Info) flagtab.Value {
		return c.value(in.Component, in.Name, in.Type)
	})
}

// ConfigureExplicit sets only the fields of cfg whose flags the scenario set explicitly,
// leaving the others as the caller's defaults have them (the defaults of another version than
// the scenario's upstream version: gitops.DefaultOptionsFor an Argo CD release).
func ConfigureExplicit[C any](c *Components, t flagtab.Table[C], cfg *C) {
	t.ApplySome(cfg, func(in flagtab.Info) (flagtab.Value, bool) {
		if !c.IsSet(in.Component, in.Name) {
			return nil, false
		}
		return c.value(in.Component, in.Name, in.Type), true
	})
}

// flagValue implements flagtab.Value.
func (v flagValue) Int() int64              { return v.i }
func (v flagValue) Float() float64          { return v.f }
func (v flagValue) Duration() time.Duration { return v.dur }
func (v flagValue) Bool() bool              { return v.b }
func (v flagValue) StringValue() string     { return v.s }
func (v flagValue) Dist() any               { return v.dist }
