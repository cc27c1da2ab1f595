package deployment

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/internal/testworld"
)

// TestTraces runs the datadriven scripts in testdata/ (regenerate with -rewrite and read the
// diff). Commands:
//
//	init [workers=N] [ready-after=D]       new world; the fake kubelet makes pods Ready D after binding (default 2s)
//	create name=X replicas=N [strategy=RollingUpdate|Recreate] [surge=S] [unavailable=U] [image=I]
//	       [min-ready=S] [deadline=S] [history=N] [paused] [never-ready]
//	                                       a user creates a Deployment (defaults: RollingUpdate 25%/25%, image v1,
//	                                       deadline 600, history 10); its steps are recorded from then on
//	rollout name=X image=I [never-ready]   a user changes the template's image
//	scale name=X replicas=N                a user changes spec.replicas
//	pause name=X / resume name=X           a user sets spec.paused
//	rollback name=X [revision=N]           kubectl rollout undo [--to-revision=N] (Rollback), run in a process
//	squat name=X hash-of=Y                 create an unrelated ReplicaSet named <Y>-<hash of Y's template>
//	orphan-rs name=X app=A image=I replicas=N
//	                                       a ReplicaSet without owner, selecting app=A
//	relabel-rs name=X labels=k=v,...       replace a ReplicaSet's labels
//	invariants name=X on|off               enforce pods <= replicas+maxSurge and available >= replicas-maxUnavailable
//	run for=D [show=steps,controller,events]
//	                                       advance virtual time; print what the show list asks for (default steps)
//	extremes name=X                        most active pods and fewest available pods since invariants on
//	status name=X / rs name=X / events     the Deployment's status, its ReplicaSets, events since last shown
func TestTraces(t *testing.T) {
	testworld.Walk(t, "testdata", func(t *testing.T, d *datadriven.TestData) (*world, string) {
		cfg := DefaultConfig()
		d.MaybeScanArgs(t, "workers", &cfg.ConcurrentDeploymentSyncs)
		readyAfter := 2 * time.Second
		d.MaybeScanArgs(t, "ready-after", &readyAfter)
		return newWorld(t, cfg, readyAfter), ""
	}, func(t *testing.T, w *world) testworld.Commands {
		pause := func(d *datadriven.TestData) string {
			name := nameArg(t, d)
			paused := d.Cmd == "pause"
			w.updateDeployment(name, func(dep *model.Deployment) { dep.Spec.Paused = paused })
			w.emit(d.Cmd, name, "")
			return ""
		}
		return testworld.Commands{
			"create": func(d *datadriven.TestData) string {
				name := nameArg(t, d)
				s := deploymentSpec{name: name, strategy: model.RollingUpdateDeploymentStrategyType, maxSurge: "25%", maxUnavailable: "25%",
					image: "v1", progressDeadlineSeconds: 600, revisionHistoryLimit: 10}
				replicas := testworld.Arg[int](t, d, "replicas")
				s.replicas = int32(replicas)
				d.MaybeScanArgs(t, "strategy", &s.strategy)
				d.MaybeScanArgs(t, "surge", &s.maxSurge)
				d.MaybeScanArgs(t, "unavailable", &s.maxUnavailable)
				d.MaybeScanArgs(t, "image", &s.image)
				var minReady, deadline, history int = 0, 600, 10
				d.MaybeScanArgs(t, "min-ready", &minReady)
				d.MaybeScanArgs(t, "deadline", &deadline)
				d.MaybeScanArgs(t, "history", &history)
				s.minReadySeconds, s.progressDeadlineSeconds, s.revisionHistoryLimit = int32(minReady), int32(deadline), int32(history)
				s.paused = d.HasArg("paused")
				s.neverReady = d.HasArg("never-ready")
				if _, err := w.Store.Create(s.build()); err != nil {
					t.Fatalf("create deployment: %v", err)
				}
				w.watch(name)
				return ""
			},
			"rollout": func(d *datadriven.TestData) string {
				name := nameArg(t, d)
				image := testworld.Arg[string](t, d, "image")
				neverReady := d.HasArg("never-ready")
				w.updateDeployment(name, func(dep *model.Deployment) {
					dep.Spec.Template = podTemplate(name, image, neverReady)
				})
				w.emit("rollout", name, "image="+image)
				return ""
			},
			"scale": func(d *datadriven.TestData) string {
				name := nameArg(t, d)
				replicas := testworld.Arg[int](t, d, "replicas")
				w.updateDeployment(name, func(dep *model.Deployment) { dep.Spec.Replicas = model.Ptr(int32(replicas)) })
				w.emit("scale", name, fmt.Sprintf("replicas=%d", replicas))
				return ""
			},
			"pause":  pause,
			"resume": pause,
			"rollback": func(d *datadriven.TestData) string {
				name := nameArg(t, d)
				var revision int
				d.MaybeScanArgs(t, "revision", &revision)
				var msg string
				var err error
				done := false
				w.K.Spawn("kubectl-rollout-undo", func(p *sim.Proc) {
					msg, err = Rollback(p, w.kubectl, testNS, name, int64(revision))
					done = true
				})
				w.Run(time.Second)
				if !done {
					t.Fatalf("rollback did not finish within 1s")
				}
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				return msg + "\n"
			},
			"squat": func(d *datadriven.TestData) string {
				name := nameArg(t, d)
				of := testworld.Arg[string](t, d, "hash-of")
				target := w.mustDeployment(of).DeepCopy()
				model.SetDefaults(target)
				rs := &model.ReplicaSet{}
				rs.Name, rs.Namespace = of+"-"+ComputeHash(&target.Spec.Template, target.Status.CollisionCount), testNS
				rs.Labels = map[string]string{"app": name}
				rs.Spec.Replicas = model.Ptr(int32(0))
				rs.Spec.Selector = target.Spec.Selector.DeepCopy()
				rs.Spec.Selector.MatchLabels = map[string]string{"app": name}
				rs.Spec.Template = podTemplate(name, "squatter", false)
				if _, err := w.Store.Create(rs); err != nil {
					t.Fatalf("squat: %v", err)
				}
				return rs.Name + "\n"
			},
			"orphan-rs": func(d *datadriven.TestData) string {
				name := nameArg(t, d)
				app := testworld.Arg[string](t, d, "app")
				image := testworld.Arg[string](t, d, "image")
				replicas := testworld.Arg[int](t, d, "replicas")
				rs := &model.ReplicaSet{}
				rs.Name, rs.Namespace = name, testNS
				rs.Labels = map[string]string{"app": app}
				rs.Spec.Replicas = model.Ptr(int32(replicas))
				rs.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}
				rs.Spec.Template = podTemplate(app, image, false)
				if _, err := w.Store.Create(rs); err != nil {
					t.Fatalf("orphan-rs: %v", err)
				}
				return ""
			},
			"relabel-rs": func(d *datadriven.TestData) string {
				name := nameArg(t, d)
				lbl := testworld.Arg[string](t, d, "labels")
				obj, err := w.Store.Get(model.KindReplicaSet, testNS, name)
				if err != nil {
					t.Fatalf("relabel-rs: %v", err)
				}
				rs := obj.(*model.ReplicaSet).DeepCopy()
				rs.Labels = testworld.ParseLabels(t, lbl)
				if _, err := w.Store.Update(rs); err != nil {
					t.Fatalf("relabel-rs: %v", err)
				}
				return ""
			},
			"invariants": func(d *datadriven.TestData) string {
				name := nameArg(t, d)
				on := d.HasArg("on")
				w.checking[name] = on
				if on {
					w.resetExtremes(name)
				}
				return ""
			},
			"run": func(d *datadriven.TestData) string {
				show := "steps"
				d.MaybeScanArgs(t, "show", &show)
				w.Run(testworld.Arg[time.Duration](t, d, "for"))
				var b strings.Builder
				parts := strings.Split(show, ",")
				trace := w.NewTrace(func(f []string) bool {
					component, action := f[1], f[2]
					for _, p := range parts {
						switch {
						case p == "controller" && component == Component && action != "event":
							return true
						case p == "controller" && component == "test":
							return true
						case p == "events" && component == Component && action == "event":
							return true
						}
					}
					return false
				})
				b.WriteString(trace)
				steps := w.takeSteps()
				for _, p := range parts {
					if p == "steps" {
						b.WriteString(steps)
					}
				}
				return b.String()
			},
			"extremes": func(d *datadriven.TestData) string {
				name := nameArg(t, d)
				dep := w.mustDeployment(name).DeepCopy()
				model.SetDefaults(dep)
				replicas := deploymentReplicas(dep)
				return fmt.Sprintf("max active pods=%d (replicas+maxSurge=%d) min available=%d (replicas-maxUnavailable=%d)\n",
					w.maxPods[name], replicas+MaxSurge(dep), w.minAvailable[name], replicas-MaxUnavailable(dep))
			},
			"status": func(d *datadriven.TestData) string {
				name := nameArg(t, d)
				return w.statusLines(name)
			},
			"rs": func(d *datadriven.TestData) string {
				name := nameArg(t, d)
				return w.rsLines(name)
			},
		}
	})
}

func (w *world) emit(action, name, detail string) {
	w.K.Emit("test", action, "Deployment "+model.KeyOf(testNS, name), 0, detail)
}

// nameArg returns the optional name=X argument ("" when absent).
func nameArg(t *testing.T, d *datadriven.TestData) string {
	name := ""
	d.MaybeScanArgs(t, "name", &name)
	return name
}
