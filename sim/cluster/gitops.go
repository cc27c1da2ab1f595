package cluster

import (
	"time"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/scenarios"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/gitops"
)

// gitopsAppName names the GitOps agent's Application (or Kustomization), in events and series
// (gitops.app.synced).
const gitopsAppName = "app"

// gitopsConfig reads the gitops-agent flags, with the defaults of the Argo CD version the
// scenario names where a flag is not set.
func (w *world) gitopsConfig() gitops.Config {
	c, g := w.comps, scenarios.ComponentGitOpsAgent
	cfg := gitops.Config{
		Mode: gitops.Mode(c.String(g, "mode")), Name: gitopsAppName,
		Resync: c.Duration(g, "app-resync"), ResyncJitter: c.Duration(g, "app-resync-jitter"),
		Automated: c.Bool(g, "automated"), SelfHeal: c.Bool(g, "self-heal"), Prune: c.Bool(g, "prune"),
		IgnoreHPAReplicas: c.Bool(g, "ignore-hpa-replicas"),
		SelfHealTimeout:   secs(c.Int(g, "self-heal-timeout-seconds")),
		CompareTime:       c.Dist(g, "compare-time"),
		Interval:          c.Duration(g, "interval"), JitterPercent: c.Int(g, "interval-jitter-percentage"),
	}
	major, minor, _ := scenarios.ArgoCDVersion(c.String(g, "argocd-version"))
	before := func(maj, min int) bool { return major < maj || (major == maj && minor < min) }
	// v3.0 (commit fe598a831e, argoproj/argo-cd#22342): 120s + 60s jitter; before, 180s, none.
	if before(3, 0) {
		if !c.IsSet(g, "app-resync") {
			cfg.Resync = 180 * secs(1)
		}
		if !c.IsSet(g, "app-resync-jitter") {
			cfg.ResyncJitter = 0
		}
	}
	// v2.14 (argoproj/argo-cd#20275): the exponential self-heal back-off; before, a fixed
	// --self-heal-timeout-seconds of 5.
	if before(2, 14) {
		if !c.IsSet(g, "self-heal-timeout-seconds") {
			cfg.SelfHealTimeout = 5 * secs(1)
		}
	} else if t := c.Int(g, "self-heal-backoff-timeout-seconds"); t > 0 {
		cfg.SelfHealBackoff = &gitops.Backoff{Duration: secs(t), Factor: float64(c.Int(g, "self-heal-backoff-factor")),
			Cap: secs(c.Int(g, "self-heal-backoff-cap-seconds"))}
	}
	return cfg
}

// buildGitOps builds the agent on the scenario's objects (its source at revision 1); it
// starts with the world.
func (w *world) buildGitOps() error {
	if !w.comps.GitOpsAgent() {
		return nil
	}
	cfg := w.gitopsConfig()
	name, kind := "argocd-application-controller", "Application"
	if cfg.Mode == gitops.ModeFlux {
		name, kind = "kustomize-controller", "Kustomization"
	}
	g := scenarios.ComponentGitOpsAgent
	c := client.New(w.srv, name, client.Config{QPS: w.comps.Float(g, "kube-api-qps"), Burst: w.comps.Int(g, "kube-api-burst")})
	f := client.NewSharedInformerFactory(c, 0)
	var objs []model.Object
	for _, src := range w.scn.Objects {
		objs = append(objs, src.Objects...)
	}
	a, err := gitops.New(w.k, c, f, objs, cfg, w.k.Rand("gitops-agent"))
	if err != nil {
		return err
	}
	series := "gitops." + gitopsAppName
	a.OnStatus = func(synced bool, outOfSync int) {
		v := 0.0
		if synced {
			v = 1
		}
		w.obs.sample(series+".synced", "", v)
		w.obs.sample(series+".out_of_sync", "resources", float64(outOfSync))
	}
	a.OnEvent = func(eventType, reason, message string) {
		w.events = append(w.events, report.EventRecord{
			Time: w.k.Now().Seconds(), Type: eventType, Reason: reason, Kind: kind, Name: gitopsAppName,
			Message: message, Source: name, Count: 1,
		})
	}
	w.gitops = a
	return nil
}

// startGitOps starts the agent (after the scenario's objects exist).
func (w *world) startGitOps() {
	if w.gitops == nil {
		return
	}
	w.obs.sample("gitops."+gitopsAppName+".synced", "", 1)
	w.obs.sample("gitops."+gitopsAppName+".out_of_sync", "resources", 0)
	w.gitops.Start()
}

// gitopsVerdict says, at the end of a run, that the Application is OutOfSync and why.
func (w *world) gitopsVerdict() []report.Verdict {
	if w.gitops == nil {
		return nil
	}
	synced, out := w.gitops.Synced()
	if synced {
		return nil
	}
	msg := "OutOfSync: " + joinLimited(out, 5)
	cfg := w.gitopsConfig()
	switch {
	case cfg.Mode == gitops.ModeFlux:
		msg += "; Flux corrects drift at its next interval (" + w.comps.Text(scenarios.ComponentGitOpsAgent, "interval") + ")"
	case !cfg.Automated:
		msg += "; automated sync is off, so the agent only reports the drift"
	case !cfg.SelfHeal:
		msg += "; self-heal is off, so drift from an already synced revision is only reported"
	}
	// Desired: the declared resources; Ready: those in sync; Short: those out of sync (a
	// resource that needs pruning is out of sync without being declared).
	declared := int32(w.gitops.Declared())
	short := int32(len(out))
	return []report.Verdict{{Workload: "Application " + gitopsAppName, Kind: "Application", Name: gitopsAppName,
		Desired: declared, Ready: max(declared-short, 0), Short: short, Reason: scenarios.VerdictOutOfSync, Message: msg}}
}

func joinLimited(items []string, n int) string {
	out := ""
	for i, s := range items {
		if i == n {
			out += "; ..."
			break
		}
		if i > 0 {
			out += "; "
		}
		out += s
	}
	return out
}

func secs(n int) time.Duration { return time.Duration(n) * time.Second }
