package gitops

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/internal/testworld"
)

// TestBackoffDelay checks selfHealRemainingBackoff's delays (argoproj/argo-cd
// controller/appcontroller.go, with apimachinery wait.Backoff.Step) for the v2.14+ defaults
// (--self-heal-backoff-timeout-seconds 2, -factor 3, -cap-seconds 300): the first attempt
// waits nothing, then 2s, 6s, 18s, 54s, 162s, and 300s from then on.
func TestBackoffDelay(t *testing.T) {
	b := Backoff{Duration: 2 * time.Second, Factor: 3, Cap: 300 * time.Second}
	want := []time.Duration{0, 2, 6, 18, 54, 162, 300, 300, 300}
	for n, w := range want {
		assert.Equal(t, w*time.Second, b.Delay(n), "attempt %d", n)
	}
	assert.Equal(t, 5*time.Second, Backoff{Duration: 5 * time.Second}.Delay(4), "factor 0 keeps the duration")
}

// world is the shared test world with an agent on a Deployment and a Service.
type world struct {
	*testworld.World
	agent *Agent
}

func deployment(replicas int32, image string) *model.Deployment {
	d := &model.Deployment{ObjectMeta: model.ObjectMeta{Name: "web", Namespace: "default"}}
	d.Spec.Replicas = model.Ptr(replicas)
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	d.Spec.Template.Labels = map[string]string{"app": "web"}
	d.Spec.Template.Spec.Containers = []model.Container{{Name: "web", Image: image}}
	return d
}

func service() *model.Service {
	s := &model.Service{ObjectMeta: model.ObjectMeta{Name: "web", Namespace: "default"}}
	s.Spec.Selector = map[string]string{"app": "web"}
	s.Spec.Ports = []model.ServicePort{{Port: 80}}
	return s
}

func newWorld(t testing.TB, cfg Config) *world {
	w := &world{World: testworld.New(t, testworld.Options{Server: func(c *apiserver.Config) {
		c.Store.WatchDelay = sim.Constant(10 * time.Millisecond)
	}})}
	w.Show = testworld.Sources(Component, "test")
	if cfg.IgnoreHPAReplicas {
		// An HPA that is not part of the source scales web.
		h := &model.HorizontalPodAutoscaler{ObjectMeta: model.ObjectMeta{Name: "web", Namespace: "default"}}
		h.Spec.ScaleTargetRef.Kind, h.Spec.ScaleTargetRef.Name, h.Spec.ScaleTargetRef.APIVersion = "Deployment", "web", "apps/v1"
		h.Spec.MinReplicas = model.Ptr(int32(1))
		h.Spec.MaxReplicas = 10
		_, err := w.Store.Create(h)
		require.NoError(t, err)
	}
	objs := []model.Object{deployment(3, "nginx:1.27"), service()}
	for _, o := range objs {
		_, err := w.Store.Create(o.DeepCopyObject())
		require.NoError(t, err)
	}
	c, f := w.ClientWith("argocd-application-controller", client.Config{QPS: 50, Burst: 100})
	a, err := New(w.K, c, f, objs, cfg, w.K.Rand("gitops"))
	require.NoError(t, err)
	w.agent = a
	a.Start()
	return w
}

func (w *world) newTrace() string { return w.NewTrace(func(f []string) bool { return w.Show(nil, f) }) }

func (w *world) setImage(image string) {
	d := testworld.Get[*model.Deployment](w.World, model.KindDeployment, "default", "web").DeepCopy()
	d.Spec.Template.Spec.Containers[0].Image = image
	_, err := w.Store.Update(d)
	require.NoError(w.T, err)
	w.Emit("drift", "Deployment default/web", "image="+image)
}

// TestTraces runs the scripts in testdata/ (rewrite with -rewrite). Commands:
//
//	init [mode=argocd|flux] [automated] [self-heal] [prune] [resync=D] [jitter=D]
//	     [interval=D] [timeout=D] [ignore-hpa-replicas]
//	                                       an agent on a Deployment and a Service, compare time 0
//	                                       (with ignore-hpa-replicas, an HPA scales the Deployment)
//	run for=D                              run; print the agent's trace
//	drift image=I                          set the Deployment's image by hand
//	scale replicas=N                       set the Deployment's replicas (as an HPA would)
//	replicas                               the Deployment's spec.replicas
//	delete-service                         delete the Service by hand
//	commit replicas=N | commit-delete-service
func TestTraces(t *testing.T) {
	testworld.Walk(t, "testdata", func(t *testing.T, d *datadriven.TestData) (*world, string) {
		dur := func(key string, def time.Duration) time.Duration {
			if !d.HasArg(key) {
				return def
			}
			return testworld.Arg[time.Duration](t, d, key)
		}
		mode := "argocd"
		d.MaybeScanArgs(t, "mode", &mode)
		cfg := Config{Mode: Mode(mode), Name: "app", Automated: d.HasArg("automated"), SelfHeal: d.HasArg("self-heal"),
			Prune: d.HasArg("prune"), Resync: dur("resync", 120*time.Second), ResyncJitter: dur("jitter", 60*time.Second),
			Interval: dur("interval", 10*time.Minute), JitterPercent: 5, CompareTime: sim.Constant(0),
			IgnoreHPAReplicas: d.HasArg("ignore-hpa-replicas")}
		if d.HasArg("timeout") {
			cfg.SelfHealTimeout = dur("timeout", 5*time.Second)
		} else {
			cfg.SelfHealBackoff = &Backoff{Duration: 2 * time.Second, Factor: 3, Cap: 300 * time.Second}
		}
		return newWorld(t, cfg), ""
	}, func(t *testing.T, w *world) testworld.Commands {
		return testworld.Commands{
			"drift": func(d *datadriven.TestData) string {
				image := testworld.Arg[string](t, d, "image")
				w.setImage(image)
				return ""
			},
			"scale": func(d *datadriven.TestData) string {
				n := testworld.Arg[int](t, d, "replicas")
				obj, err := w.Store.Get(model.KindDeployment, "default", "web")
				require.NoError(t, err)
				dep := obj.(*model.Deployment).DeepCopy()
				dep.Spec.Replicas = model.Ptr(int32(n))
				_, err = w.Store.Update(dep)
				require.NoError(t, err)
				w.Emit("scale", "Deployment default/web", fmt.Sprintf("replicas=%d", n))
				return ""
			},
			"delete-service": func(d *datadriven.TestData) string {
				_, err := w.Store.Delete(model.KindService, "default", "web", model.DeleteOptions{})
				require.NoError(t, err)
				w.Emit("delete", "Service default/web", "")
				return ""
			},
			"commit": func(d *datadriven.TestData) string {
				n := testworld.Arg[int](t, d, "replicas")
				require.NoError(t, w.agent.Commit([]model.Object{deployment(int32(n), "nginx:1.27")}))
				return w.newTrace()
			},
			"commit-delete-service": func(d *datadriven.TestData) string {
				require.NoError(t, w.agent.CommitDelete(model.KindService, "default", "web"))
				return w.newTrace()
			},
			"replicas": func(d *datadriven.TestData) string {
				obj, err := w.Store.Get(model.KindDeployment, "default", "web")
				require.NoError(t, err)
				return fmt.Sprintf("replicas=%d\n", *obj.(*model.Deployment).Spec.Replicas)
			},
			"status": func(d *datadriven.TestData) string {
				synced, out := w.agent.Synced()
				return fmt.Sprintf("synced=%t %s\n", synced, strings.Join(out, "; "))
			},
		}
	})
}

// TestCommitPickedUpAtPeriodicRefresh: with the v3.0+ defaults (timeout.reconciliation 120s,
// jitter 60s; cmd/argocd-application-controller defaultAppResyncPeriod and
// defaultAppResyncPeriodJitter) a commit made just after the start is synced at the first
// periodic refresh, 120s to 180s after the start, never earlier (no webhook), over many seeds.
func TestCommitPickedUpAtPeriodicRefresh(t *testing.T) {
	var lo, hi time.Duration
	for seed := uint64(1); seed <= 50; seed++ {
		cfg := Config{Mode: ModeArgoCD, Name: "app", Automated: true, Resync: 120 * time.Second, ResyncJitter: 60 * time.Second, CompareTime: sim.Constant(0)}
		w := newWorld(t, cfg)
		w.agent.rand = sim.NewRand(seed, "gitops")
		w.K.Run(sim.Limits{MaxTime: w.K.Now().Add(time.Second)})
		require.NoError(t, w.agent.Commit([]model.Object{deployment(4, "nginx:1.27")}))
		var at time.Duration
		for step := 0; step < 400 && at == 0; step++ {
			w.K.Run(sim.Limits{MaxTime: w.K.Now().Add(time.Second)})
			if w.agent.syncedRevision == 2 {
				at = time.Duration(w.agent.opFinishedAt)
			}
		}
		require.NotZero(t, at, "seed %d: the commit was never synced", seed)
		assert.GreaterOrEqual(t, at, 120*time.Second, "seed %d", seed)
		assert.LessOrEqual(t, at, 181*time.Second, "seed %d", seed)
		if seed == 1 || at < lo {
			lo = at
		}
		hi = max(hi, at)
	}
	t.Logf("commit synced between %s and %s after the start", lo, hi)
}
