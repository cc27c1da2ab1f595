package operator

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
	simclient "github.com/reconsim/reconsim/sim/client"
	simrecord "github.com/reconsim/reconsim/sim/client/record"
	"github.com/reconsim/reconsim/sim/cluster"
	"github.com/reconsim/reconsim/vtime"
)

// harness is a simulated API server with one user controller's Manager on it, for tests that
// drive the client directly from a simulated process.
type harness struct {
	k      *sim.Kernel
	srv    *apiserver.Server
	m      *manager
	faults *faultSwitch
}

// faultSwitch answers every request of verb with err while on (the api-errors fault).
type faultSwitch struct {
	verb model.Verb
	err  error
}

func (f *faultSwitch) Intercept(_ vtime.Time, req *apiserver.Request) (time.Duration, error) {
	if f.err != nil && req.Verb == f.verb && req.Client == "test-controller" {
		return 0, f.err
	}
	return 0, nil
}

func newHarness(t testing.TB) *harness {
	k := sim.New(1)
	srv := apiserver.NewServer(k, apiserver.DefaultConfig())
	for _, ns := range []string{"other"} { // the server makes default and the system namespaces
		_, err := srv.Store().Create(&model.Namespace{ObjectMeta: model.ObjectMeta{Name: ns}})
		require.NoError(t, err)
	}
	fs := &faultSwitch{}
	srv.AddFault(fs)
	c := simclient.New(srv, "test-controller", simclient.Config{QPS: 20, Burst: 30})
	f := simclient.NewSharedInformerFactory(c, 0)
	locals := map[any]any{}
	env := cluster.ControllerEnv{
		Kernel: k, Client: c, Factory: f,
		Recorder: func(component string) simrecord.Recorder {
			return simrecord.New(k, &simrecord.FakeSink{}, component, "")
		},
		Local: func(key any, mk func() any) any {
			if v, ok := locals[key]; ok {
				return v
			}
			locals[key] = mk()
			return locals[key]
		},
	}
	f.Start(k)
	return &harness{k: k, srv: srv, m: newManager("test-controller", env), faults: fs}
}

// run runs body in a simulated process and the kernel until it returns.
func (h *harness) run(t testing.TB, body func(ctx context.Context)) {
	done := false
	h.k.Spawn("test", func(p *sim.Proc) {
		body(withGoroutine(p))
		done = true
		h.k.Stop("done")
	})
	h.k.Run(sim.Limits{MaxTime: vtime.FromDuration(1000 * time.Hour)})
	require.True(t, done, "the test process did not finish")
}

func deployment(name string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "app", Image: "app:1",
					Env:   []corev1.EnvVar{{Name: "MODE", Value: "fast"}},
					Ports: []corev1.ContainerPort{{ContainerPort: 8080}},
				}}},
			},
		},
	}
}

// settle lets the watch deliver recent writes to the cache.
func settle(ctx context.Context) { sim.ProcFromContext(ctx).Sleep(2 * time.Second) }

// TestClientVerbs is a table of client.Client calls against the simulated API server, each
// with the outcome a real kube-apiserver gives (errors as apierrors, so the IsXxx helpers
// controller-runtime users branch on take the same paths).
func TestClientVerbs(t *testing.T) {
	tests := []struct {
		name string
		// do runs against a server holding Deployment default/web (2 replicas, created by
		// the controller) and returns the call's error; check inspects it.
		do    func(ctx context.Context, h *harness, c client.Client) error
		check func(t *testing.T, err error)
	}{
		{"get from the cache finds the object", func(ctx context.Context, h *harness, c client.Client) error {
			var d appsv1.Deployment
			if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "web"}, &d); err != nil {
				return err
			}
			if d.Spec.Template.Spec.Containers[0].Env[0].Value != "fast" || d.Spec.Template.Spec.Containers[0].Ports[0].ContainerPort != 8080 {
				return fmt.Errorf("unmodelled fields lost: %+v", d.Spec.Template.Spec.Containers[0])
			}
			if d.GroupVersionKind().Kind != "Deployment" {
				return fmt.Errorf("the cache sets the GVK (controller-runtime cache_reader.go); got %v", d.GroupVersionKind())
			}
			return nil
		}, noError},
		// registry/generic/registry/store.go Get: a missing object is 404 NotFound.
		{"get of a missing object is NotFound", func(ctx context.Context, h *harness, c client.Client) error {
			return c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "nope"}, &appsv1.Deployment{})
		}, isErr(apierrors.IsNotFound)},
		{"API reader get of a missing object is NotFound", func(ctx context.Context, h *harness, c client.Client) error {
			return h.m.GetAPIReader().Get(ctx, types.NamespacedName{Namespace: "default", Name: "nope"}, &appsv1.Deployment{})
		}, isErr(apierrors.IsNotFound)},
		// store.go Create: a name taken is 409 AlreadyExists.
		{"create of an existing name is AlreadyExists", func(ctx context.Context, h *harness, c client.Client) error {
			return c.Create(ctx, deployment("web"))
		}, isErr(apierrors.IsAlreadyExists)},
		{"create sets uid, resourceVersion and generation", func(ctx context.Context, h *harness, c client.Client) error {
			d := deployment("api")
			if err := c.Create(ctx, d); err != nil {
				return err
			}
			if d.UID == "" || d.ResourceVersion == "" || d.Generation != 1 {
				return fmt.Errorf("uid %q rv %q generation %d", d.UID, d.ResourceVersion, d.Generation)
			}
			return nil
		}, noError},
		// store.go Update / GuaranteedUpdate: a stale resourceVersion is 409 Conflict.
		{"update with a stale resourceVersion is Conflict", func(ctx context.Context, h *harness, c client.Client) error {
			var a, b appsv1.Deployment
			key := types.NamespacedName{Namespace: "default", Name: "web"}
			if err := h.m.GetAPIReader().Get(ctx, key, &a); err != nil {
				return err
			}
			b = *a.DeepCopy()
			a.Spec.Replicas = ptr.To[int32](3)
			if err := c.Update(ctx, &a); err != nil {
				return err
			}
			b.Spec.Replicas = ptr.To[int32](4)
			return c.Update(ctx, &b)
		}, isErr(apierrors.IsConflict)},
		{"update of a missing object is NotFound", func(ctx context.Context, h *harness, c client.Client) error {
			d := deployment("ghost")
			d.ResourceVersion = "5"
			return c.Update(ctx, d)
		}, isErr(apierrors.IsNotFound)},
		{"update bumps generation on a spec change and keeps unmodelled fields", func(ctx context.Context, h *harness, c client.Client) error {
			var d appsv1.Deployment
			key := types.NamespacedName{Namespace: "default", Name: "web"}
			if err := c.Get(ctx, key, &d); err != nil {
				return err
			}
			d.Spec.Template.Spec.Containers[0].Image = "app:2"
			d.Spec.Template.Spec.Containers[0].Env = append(d.Spec.Template.Spec.Containers[0].Env, corev1.EnvVar{Name: "X", Value: "1"})
			if err := c.Update(ctx, &d); err != nil {
				return err
			}
			settle(ctx)
			var got appsv1.Deployment
			if err := c.Get(ctx, key, &got); err != nil {
				return err
			}
			if got.Generation != 2 || len(got.Spec.Template.Spec.Containers[0].Env) != 2 || got.Spec.Template.Spec.Containers[0].Image != "app:2" {
				return fmt.Errorf("generation %d, container %+v", got.Generation, got.Spec.Template.Spec.Containers[0])
			}
			return nil
		}, noError},
		{"merge patch", func(ctx context.Context, h *harness, c client.Client) error {
			d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}}
			if err := c.Patch(ctx, d, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"tier":"front"}}}`))); err != nil {
				return err
			}
			return expect(d.Labels["tier"] == "front", "label not set: %v", d.Labels)
		}, noError},
		{"MergeFrom patch keeps unmodelled fields it sets", func(ctx context.Context, h *harness, c client.Client) error {
			var d appsv1.Deployment
			if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "web"}, &d); err != nil {
				return err
			}
			base := d.DeepCopy()
			d.Spec.Replicas = ptr.To[int32](5)
			d.Spec.Template.Spec.Containers[0].Env[0].Value = "slow"
			if err := c.Patch(ctx, &d, client.MergeFrom(base)); err != nil {
				return err
			}
			return expect(*d.Spec.Replicas == 5 && d.Spec.Template.Spec.Containers[0].Env[0].Value == "slow", "patched: %v %+v", *d.Spec.Replicas, d.Spec.Template.Spec.Containers[0].Env)
		}, noError},
		{"strategic merge patch", func(ctx context.Context, h *harness, c client.Client) error {
			d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}}
			err := c.Patch(ctx, d, client.RawPatch(types.StrategicMergePatchType, []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"app:3"}]}}}}`)))
			if err != nil {
				return err
			}
			return expect(d.Spec.Template.Spec.Containers[0].Image == "app:3", "image %s", d.Spec.Template.Spec.Containers[0].Image)
		}, noError},
		{"JSON patch", func(ctx context.Context, h *harness, c client.Client) error {
			d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}}
			if err := c.Patch(ctx, d, client.RawPatch(types.JSONPatchType, []byte(`[{"op":"replace","path":"/spec/replicas","value":7}]`))); err != nil {
				return err
			}
			return expect(*d.Spec.Replicas == 7, "replicas %d", *d.Spec.Replicas)
		}, noError},
		{"patch of a missing object is NotFound", func(ctx context.Context, h *harness, c client.Client) error {
			d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "ghost"}}
			return c.Patch(ctx, d, client.RawPatch(types.MergePatchType, []byte(`{}`)))
		}, isErr(apierrors.IsNotFound)},
		{"server-side apply names the limitation", func(ctx context.Context, h *harness, c client.Client) error {
			d := deployment("web")
			//lint:ignore SA1019 the deprecated form must fail clearly too
			return c.Patch(ctx, d, client.Apply)
		}, func(t *testing.T, err error) {
			require.True(t, apierrors.IsBadRequest(err), "%v", err)
			assert.Contains(t, err.Error(), "server-side apply is not supported")
		}},
		{"delete, then get is NotFound", func(ctx context.Context, h *harness, c client.Client) error {
			if err := c.Delete(ctx, deployment("web"), client.PropagationPolicy(metav1.DeletePropagationForeground)); err != nil {
				return err
			}
			return h.m.GetAPIReader().Get(ctx, types.NamespacedName{Namespace: "default", Name: "web"}, &appsv1.Deployment{})
		}, func(t *testing.T, err error) {
			// Foreground: the object stays with a deletionTimestamp until its dependents are
			// gone (none here, and no garbage collector runs): it is still found.
			assert.NoError(t, err)
		}},
		{"delete of a missing object is NotFound", func(ctx context.Context, h *harness, c client.Client) error {
			return c.Delete(ctx, deployment("ghost"))
		}, isErr(apierrors.IsNotFound)},
		// store.go Delete with preconditions: a UID mismatch is 409 Conflict.
		{"delete with a wrong UID precondition is Conflict", func(ctx context.Context, h *harness, c client.Client) error {
			return c.Delete(ctx, deployment("web"), client.Preconditions{UID: ptr.To(types.UID("not-its-uid"))})
		}, isErr(apierrors.IsConflict)},
		{"delete-all-of by label", func(ctx context.Context, h *harness, c client.Client) error {
			if err := c.Create(ctx, deployment("api")); err != nil {
				return err
			}
			if err := c.DeleteAllOf(ctx, &appsv1.Deployment{}, client.InNamespace("default"), client.MatchingLabels{"app": "api"}); err != nil {
				return err
			}
			var l appsv1.DeploymentList
			if err := h.m.GetAPIReader().List(ctx, &l, client.InNamespace("default")); err != nil {
				return err
			}
			return expect(len(l.Items) == 1 && l.Items[0].Name == "web", "left %d", len(l.Items))
		}, noError},
		{"list from the cache with namespace and labels", func(ctx context.Context, h *harness, c client.Client) error {
			other := deployment("api")
			other.Namespace = "other"
			if err := c.Create(ctx, other); err != nil {
				return err
			}
			if err := c.Create(ctx, deployment("db")); err != nil {
				return err
			}
			settle(ctx)
			var all, inDefault, web appsv1.DeploymentList
			if err := c.List(ctx, &all); err != nil {
				return err
			}
			if err := c.List(ctx, &inDefault, client.InNamespace("default")); err != nil {
				return err
			}
			if err := c.List(ctx, &web, client.MatchingLabels{"app": "web"}); err != nil {
				return err
			}
			return expect(len(all.Items) == 3 && len(inDefault.Items) == 2 && len(web.Items) == 1, "%d %d %d", len(all.Items), len(inDefault.Items), len(web.Items))
		}, noError},
		{"unstructured get", func(ctx context.Context, h *harness, c client.Client) error {
			u := &unstructured.Unstructured{}
			u.SetAPIVersion("apps/v1")
			u.SetKind("Deployment")
			if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "web"}, u); err != nil {
				return err
			}
			n, _, _ := unstructured.NestedInt64(u.Object, "spec", "replicas")
			return expect(n == 2, "replicas %d", n)
		}, noError},
		// apiextensions-apiserver pkg/registry/customresource/validator.go: a custom resource
		// that violates its CRD's openAPIV3Schema is 422 Invalid, with the field path.
		{"create of a custom resource that violates its schema is Invalid", func(ctx context.Context, h *harness, c client.Client) error {
			crds, _, err := model.DecodeManifests("crd.yaml", []byte(backupCRD))
			if err != nil {
				return err
			}
			if _, err := h.srv.Store().Create(crds[0]); err != nil {
				return err
			}
			u := &unstructured.Unstructured{}
			u.SetAPIVersion("example.com/v1")
			u.SetKind("Backup")
			u.SetNamespace("default")
			u.SetName("nightly")
			if err := unstructured.SetNestedField(u.Object, "often", "spec", "retainDays"); err != nil {
				return err
			}
			err = c.Create(ctx, u)
			if !apierrors.IsInvalid(err) {
				return err
			}
			if !strings.Contains(err.Error(), "spec.retainDays") {
				return fmt.Errorf("the error does not name the field: %w", err)
			}
			return err
		}, isErr(apierrors.IsInvalid)},
		{"status update changes status only", func(ctx context.Context, h *harness, c client.Client) error {
			var d appsv1.Deployment
			if err := h.m.GetAPIReader().Get(ctx, types.NamespacedName{Namespace: "default", Name: "web"}, &d); err != nil {
				return err
			}
			d.Status.ObservedGeneration = 1
			d.Status.Replicas = 2
			d.Spec.Replicas = ptr.To[int32](9)
			if err := c.Status().Update(ctx, &d); err != nil {
				return err
			}
			return expect(d.Status.Replicas == 2 && *d.Spec.Replicas == 2, "status %d spec %d", d.Status.Replicas, *d.Spec.Replicas)
		}, noError},
		{"scale subresource get and update", func(ctx context.Context, h *harness, c client.Client) error {
			d := deployment("web")
			var sc autoscalingv1.Scale
			if err := c.SubResource("scale").Get(ctx, d, &sc); err != nil {
				return err
			}
			if sc.Spec.Replicas != 2 {
				return fmt.Errorf("scale %d", sc.Spec.Replicas)
			}
			sc.Spec.Replicas = 4
			if err := c.SubResource("scale").Update(ctx, d, client.WithSubResourceBody(&sc)); err != nil {
				return err
			}
			return expect(sc.Spec.Replicas == 4, "scale %d", sc.Spec.Replicas)
		}, noError},
		// An api-errors fault answers 429 without Retry-After: the client does not retry it
		// (client-go with_retry.go) and the caller sees IsTooManyRequests.
		{"TooManyRequests under api-errors", func(ctx context.Context, h *harness, c client.Client) error {
			h.faults.verb, h.faults.err = model.VerbUpdate, apierrors.NewTooManyRequests("injected", 0)
			defer func() { h.faults.err = nil }()
			var d appsv1.Deployment
			if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "web"}, &d); err != nil {
				return err
			}
			return c.Update(ctx, &d)
		}, isErr(apierrors.IsTooManyRequests)},
		{"a kind the server does not serve is NoKindMatch", func(ctx context.Context, h *harness, c client.Client) error {
			return c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "x"}, &corev1.ConfigMap{})
		}, func(t *testing.T, err error) {
			require.Error(t, err)
			assert.Contains(t, err.Error(), "no matches for kind \"ConfigMap\"")
		}},
		{"a call from another goroutine fails saying why", func(ctx context.Context, h *harness, c client.Client) error {
			errc := make(chan error, 1)
			go func() { errc <- c.Create(ctx, deployment("from-goroutine")) }()
			return <-errc
		}, func(t *testing.T, err error) {
			require.Error(t, err)
			assert.Contains(t, err.Error(), "goroutine")
		}},
		{"a call with a context from outside the simulation fails saying why", func(ctx context.Context, h *harness, c client.Client) error {
			return c.Create(context.Background(), deployment("bg"))
		}, func(t *testing.T, err error) {
			require.Error(t, err)
			assert.Contains(t, err.Error(), "does not come from a simulated process")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			c := h.m.GetClient()
			var err error
			h.run(t, func(ctx context.Context) {
				require.NoError(t, c.Create(ctx, deployment("web")))
				settle(ctx)
				err = tc.do(ctx, h, c)
			})
			tc.check(t, err)
		})
	}
}

func noError(t *testing.T, err error) { require.NoError(t, err) }

func isErr(is func(error) bool) func(t *testing.T, err error) {
	return func(t *testing.T, err error) {
		require.Error(t, err)
		assert.True(t, is(err), "unexpected error: %v", err)
	}
}

func expect(ok bool, format string, args ...any) error {
	if ok {
		return nil
	}
	return fmt.Errorf(format, args...)
}

// TestRecorderAndVirtualTime: GetEventRecorderFor records Kubernetes Events through the
// simulator's recorder, and Now and Clock read virtual time (epoch 2026-01-01T00:00:00Z).
func TestRecorderAndVirtualTime(t *testing.T) {
	h := newHarness(t)
	sink := &simrecord.FakeSink{}
	h.m.env.Recorder = func(component string) simrecord.Recorder { return simrecord.New(h.k, sink, component, "") }
	clk := Clock(h.m)
	h.run(t, func(ctx context.Context) {
		d := deployment("web")
		require.NoError(t, h.m.GetClient().Create(ctx, d))
		p := sim.ProcFromContext(ctx)
		p.Sleep(90 * time.Second)
		h.m.GetEventRecorderFor("webapp-controller").Eventf(d, corev1.EventTypeNormal, "Scaled", "scaled to %d", 2)
		now := epoch.Add(p.Now().Duration())
		assert.Greater(t, p.Now().Duration(), 90*time.Second)
		assert.Equal(t, now, Now(ctx).Time)
		assert.Equal(t, now, clk.Now())
		clk.Sleep(10 * time.Second)
		assert.Equal(t, 10*time.Second, clk.Since(now))
	})
	assert.Equal(t, []string{"Normal Scaled"}, sink.Reasons())
	assert.True(t, Now(context.Background()).Time.IsZero(), "outside a simulated process there is no virtual time")
}

// backupCRD defines Backup (example.com/v1) whose spec.retainDays must be an integer.
//
//go:embed testdata/backup-crd.yaml
var backupCRD string
