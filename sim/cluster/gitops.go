package cluster

import (
	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/scenarios"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/gitops"
)

// gitopsAppName names the GitOps agent's Application (or Kustomization), in events and series
// (gitops.app.synced).
const gitopsAppName = "app"

// gitopsOptions are the gitops-agent flags: the defaults of the Argo CD version the scenario
// names, with the flags it set explicitly over them.
func (w *world) gitopsOptions() gitops.Options {
	o := gitops.DefaultOptions()
	scenarios.Configure(w.comps, gitops.Flags, &o)
	o = gitops.DefaultOptionsFor(o.ArgoCDVersion)
	scenarios.ConfigureExplicit(w.comps, gitops.Flags, &o)
	return o
}

// buildGitOps builds the agent on the scenario's objects (its source at revision 1); it
// starts with the world.
func (w *world) buildGitOps() error {
	if !w.comps.GitOpsAgent() {
		return nil
	}
	opts := w.gitopsOptions()
	cfg := opts.Config(gitopsAppName)
	name, kind := "argocd-application-controller", "Application"
	if cfg.Mode == gitops.ModeFlux {
		name, kind = "kustomize-controller", "Kustomization"
	}
	c := client.New(w.srv, name, client.Config{QPS: opts.KubeAPIQPS, Burst: opts.KubeAPIBurst})
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
		w.events.add(report.EventRecord{
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
	cfg := w.gitopsOptions().Config(gitopsAppName)
	switch {
	case cfg.Mode == gitops.ModeFlux:
		msg += "; Flux corrects drift at its next interval (" + scenarios.FormatDuration(cfg.Interval) + ")"
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
