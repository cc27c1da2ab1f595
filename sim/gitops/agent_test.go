package gitops

import (
	"bytes"
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

type world struct {
	t       testing.TB
	k       *sim.Kernel
	store   *apiserver.Store
	agent   *Agent
	trace   bytes.Buffer
	printed int
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
	w := &world{t: t, k: sim.New(1)}
	w.k.Trace().SetWriter(&w.trace)
	cfgSrv := apiserver.DefaultConfig()
	cfgSrv.Store.WatchDelay = sim.Constant(10 * time.Millisecond)
	srv := apiserver.NewServer(w.k, cfgSrv)
	w.store = srv.Store()
	if cfg.IgnoreHPAReplicas {
		// An HPA that is not part of the source scales web.
		h := &model.HorizontalPodAutoscaler{ObjectMeta: model.ObjectMeta{Name: "web", Namespace: "default"}}
		h.Spec.ScaleTargetRef.Kind, h.Spec.ScaleTargetRef.Name, h.Spec.ScaleTargetRef.APIVersion = "Deployment", "web", "apps/v1"
		h.Spec.MinReplicas = model.Ptr(int32(1))
		h.Spec.MaxReplicas = 10
		_, err := w.store.Create(h)
		require.NoError(t, err)
	}
	objs := []model.Object{deployment(3, "nginx:1.27"), service()}
	for _, o := range objs {
		_, err := w.store.Create(o.DeepCopyObject())
		require.NoError(t, err)
	}
	c := client.New(srv, "argocd-application-controller", client.Config{QPS: 50, Burst: 100})
	a, err := New(w.k, c, client.NewSharedInformerFactory(c, 0), objs, cfg, w.k.Rand("gitops"))
	require.NoError(t, err)
	w.agent = a
	a.Start()
	return w
}

func (w *world) newTrace() string {
	all := w.trace.String()[w.printed:]
	w.printed = w.trace.Len()
	var b strings.Builder
	for _, line := range strings.Split(all, "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && (f[1] == Component || f[1] == "test") {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

func (w *world) setImage(image string) {
	obj, err := w.store.Get(model.KindDeployment, "default", "web")
	require.NoError(w.t, err)
	d := obj.(*model.Deployment).DeepCopy()
	d.Spec.Template.Spec.Containers[0].Image = image
	_, err = w.store.Update(d)
	require.NoError(w.t, err)
	w.k.Emit("test", "drift", "Deployment default/web", 0, "image="+image)
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
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var w *world
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			dur := func(key string, def time.Duration) time.Duration {
				if !d.HasArg(key) {
					return def
				}
				var s string
				d.ScanArgs(t, key, &s)
				v, err := time.ParseDuration(s)
				require.NoError(t, err)
				return v
			}
			switch d.Cmd {
			case "init":
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
				w = newWorld(t, cfg)
				return ""
			case "run":
				w.k.Run(sim.Limits{MaxTime: w.k.Now().Add(dur("for", 0))})
				return w.newTrace()
			case "drift":
				var image string
				d.ScanArgs(t, "image", &image)
				w.setImage(image)
				return ""
			case "scale":
				var n int
				d.ScanArgs(t, "replicas", &n)
				obj, err := w.store.Get(model.KindDeployment, "default", "web")
				require.NoError(t, err)
				dep := obj.(*model.Deployment).DeepCopy()
				dep.Spec.Replicas = model.Ptr(int32(n))
				_, err = w.store.Update(dep)
				require.NoError(t, err)
				w.k.Emit("test", "scale", "Deployment default/web", 0, fmt.Sprintf("replicas=%d", n))
				return ""
			case "delete-service":
				_, err := w.store.Delete(model.KindService, "default", "web", model.DeleteOptions{})
				require.NoError(t, err)
				w.k.Emit("test", "delete", "Service default/web", 0, "")
				return ""
			case "commit":
				var n int
				d.ScanArgs(t, "replicas", &n)
				require.NoError(t, w.agent.Commit([]model.Object{deployment(int32(n), "nginx:1.27")}))
				return w.newTrace()
			case "commit-delete-service":
				require.NoError(t, w.agent.CommitDelete(model.KindService, "default", "web"))
				return w.newTrace()
			case "replicas":
				obj, err := w.store.Get(model.KindDeployment, "default", "web")
				require.NoError(t, err)
				return fmt.Sprintf("replicas=%d\n", *obj.(*model.Deployment).Spec.Replicas)
			case "status":
				synced, out := w.agent.Synced()
				return fmt.Sprintf("synced=%t %s\n", synced, strings.Join(out, "; "))
			}
			t.Fatalf("unknown command %s", d.Cmd)
			return ""
		})
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
		w.k.Run(sim.Limits{MaxTime: w.k.Now().Add(time.Second)})
		require.NoError(t, w.agent.Commit([]model.Object{deployment(4, "nginx:1.27")}))
		var at time.Duration
		for step := 0; step < 400 && at == 0; step++ {
			w.k.Run(sim.Limits{MaxTime: w.k.Now().Add(time.Second)})
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
