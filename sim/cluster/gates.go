package cluster

import (
	"github.com/reconsim/reconsim/scenarios"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/controllers/hpa"
	"github.com/reconsim/reconsim/sim/controllers/job"
	"github.com/reconsim/reconsim/sim/controllers/scheduler"
	"github.com/reconsim/reconsim/sim/controllers/statefulset"
	"github.com/reconsim/reconsim/sim/features"
	"github.com/reconsim/reconsim/sim/node"
)

// The components follow the one declared upstream version through their configuration: each
// function here copies the gates of sim/features (resolved for simulator.upstream-version and
// simulator.feature-gates) into the fields of one component's configuration. Every modelled
// gate is copied by exactly one of them (TestEveryGateHasAnEffect).

func gateScheduler(g features.Set, cfg *scheduler.Config) {
	cfg.PopFromBackoffQ = g.Enabled(features.SchedulerPopFromBackoffQ)
	cfg.FitErrorSinglePeriod = g.Enabled(features.SchedulerFitErrorSinglePeriod)
	cfg.TaintMessageWithoutKey = g.Enabled(features.TaintTolerationGenericMessage)
}

func gateKubelet(g features.Set, cfg *node.Config) {
	cfg.RetryAtBackOffExpiry = g.Enabled(features.KubeletPodWorkerRetryAtBackOff)
	cfg.SidecarContainers = g.Enabled(features.SidecarContainers)
}

func gateStatefulSet(g features.Set, cfg *statefulset.Config) {
	cfg.MaxUnavailableStatefulSet = g.Enabled(features.MaxUnavailableStatefulSet)
}

func gateHPA(g features.Set, cfg *hpa.Config) {
	cfg.ConfigurableTolerance = g.Enabled(features.HPAConfigurableTolerance)
}

func gateJob(g features.Set, cfg *job.Config) {
	cfg.HonourManagedBy = g.Enabled(features.JobManagedBy)
	cfg.MaxPodFailureBackOff = job.MaxJobPodFailureBackOff
	if !g.Enabled(features.JobPodFailureBackOffMax10m) {
		cfg.MaxPodFailureBackOff = job.LegacyMaxJobBackOff
	}
}

// admissionPlugins turns the modelled admission plugins on or off as the scenario's
// kube-apiserver.disable-admission-plugins says (all on by default, as upstream's).
func admissionPlugins(comps *scenarios.Components, cfg *apiserver.StoreConfig) {
	cfg.TaintNodesByCondition = comps.AdmissionPluginEnabled(apiserver.PluginTaintNodesByCondition)
	cfg.Priority = comps.AdmissionPluginEnabled(apiserver.PluginPriority)
	cfg.DisableDefaultTolerationSeconds = !comps.AdmissionPluginEnabled(apiserver.PluginDefaultTolerationSeconds)
}

// gateAPIServer applies kube-apiserver's gates to API Priority and Fairness: the work
// estimator's LIST cost (SizeBasedListCostEstimate).
func gateAPIServer(g features.Set, c *apiserver.APFConfig) {
	c.SizeBasedListCost = g.Enabled(features.SizeBasedListCostEstimate)
}
