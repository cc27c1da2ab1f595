package controller

import (
	"context"
	"fmt"
	"maps"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	webappv1alpha1 "github.com/reconsim/reconsim/examples/operator/api/v1alpha1"
)

const (
	// ContainerName is the name of the WebApp's container in its pods.
	ContainerName = "web"
	// ServicePort is the port the WebApp's Service listens on.
	ServicePort = 80
	// ConditionAvailable is True when every replica the spec asks for is ready.
	ConditionAvailable = "Available"
	// statusAttempts bounds the status writes one reconcile makes when they meet conflicts;
	// past it the conflict goes back to the work queue, which retries with back-off.
	statusAttempts = 5
)

// WebAppReconciler reconciles a WebApp object.
type WebAppReconciler struct {
	client.Client
	// APIReader reads from the API server instead of the informer cache. After a 409 the
	// reconciler re-reads the WebApp there: the cache may not have the newer version yet.
	// Optional: nil reads through Client.
	APIReader client.Reader
	Scheme    *runtime.Scheme
	// Recorder records the Created and Updated Events about the WebApp. Optional.
	Recorder record.EventRecorder
	// Clock stamps the conditions' lastTransitionTime. Optional: nil is the wall clock. It
	// is a field, not metav1.Now(), so that a test (or reconsim's virtual clock) can set
	// the time.
	Clock clock.PassiveClock
}

// +kubebuilder:rbac:groups=webapp.example.com,resources=webapps,verbs=get;list;watch
// +kubebuilder:rbac:groups=webapp.example.com,resources=webapps/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=services,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=policy,resources=poddisruptionbudgets,verbs=get;list;watch;create;update;patch;delete

// Reconcile makes the WebApp's Deployment, Service and PodDisruptionBudget match its spec
// and reports the Deployment's readiness in the WebApp's status.
func (r *WebAppReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return r.reconcile(ctx, req, r.updateStatus)
}

// reconcile is Reconcile with its status write, writeStatus, given: the one step in which
// NaiveStatusReconciler differs.
func (r *WebAppReconciler) reconcile(ctx context.Context, req ctrl.Request,
	writeStatus func(context.Context, *webappv1alpha1.WebApp, *appsv1.Deployment) error) (ctrl.Result, error) {
	var app webappv1alpha1.WebApp
	if err := r.Get(ctx, req.NamespacedName, &app); err != nil {
		// Deleted: the garbage collector removes what it owned.
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !app.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	dep, err := r.ReconcileChildren(ctx, &app)
	if err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, writeStatus(ctx, &app, dep)
}

// ReconcileChildren creates or updates the WebApp's Deployment, Service and
// PodDisruptionBudget, and returns the Deployment as the cache has it.
func (r *WebAppReconciler) ReconcileChildren(ctx context.Context, app *webappv1alpha1.WebApp) (*appsv1.Deployment, error) {
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace}}
	if err := r.createOrUpdate(ctx, app, "Deployment", dep, func() error { return r.mutateDeployment(app, dep) }); err != nil {
		return nil, err
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace}}
	if err := r.createOrUpdate(ctx, app, "Service", svc, func() error { return r.mutateService(app, svc) }); err != nil {
		return nil, err
	}
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace}}
	if err := r.createOrUpdate(ctx, app, "PodDisruptionBudget", pdb, func() error { return r.mutatePDB(app, pdb) }); err != nil {
		return nil, err
	}
	return dep, nil
}

// createOrUpdate is controllerutil.CreateOrUpdate with a log line and an Event when it wrote.
func (r *WebAppReconciler) createOrUpdate(ctx context.Context, app *webappv1alpha1.WebApp, kind string, obj client.Object, mutate controllerutil.MutateFn) error {
	op, err := controllerutil.CreateOrUpdate(ctx, r.Client, obj, mutate)
	if err != nil {
		return fmt.Errorf("%s %s: %w", kind, obj.GetName(), err)
	}
	if op == controllerutil.OperationResultNone {
		return nil
	}
	logf.FromContext(ctx).Info("wrote child", "kind", kind, "name", obj.GetName(), "operation", op)
	if r.Recorder != nil {
		reason := "Updated"
		if op == controllerutil.OperationResultCreated {
			reason = "Created"
		}
		r.Recorder.Eventf(app, corev1.EventTypeNormal, reason, "%s %s %s", op, kind, obj.GetName())
	}
	return nil
}

// Labels are the labels of the WebApp's pods, and the selector of its Deployment, Service and
// PodDisruptionBudget.
func Labels(app *webappv1alpha1.WebApp) map[string]string {
	return map[string]string{"app.kubernetes.io/name": "webapp", "app.kubernetes.io/instance": app.Name}
}

// Replicas is the WebApp's replica count, 1 when the spec leaves it out (the CRD's default).
func Replicas(app *webappv1alpha1.WebApp) int32 {
	if app.Spec.Replicas == nil {
		return 1
	}
	return *app.Spec.Replicas
}

// port is the WebApp's container port, 8080 when the spec leaves it out (the CRD's default).
func port(app *webappv1alpha1.WebApp) int32 {
	if app.Spec.Port == 0 {
		return 8080
	}
	return app.Spec.Port
}

// mutateDeployment sets the fields the operator owns and leaves the rest (what the API
// server defaulted, what others set) as read: a mutate function that rebuilt the whole spec
// would differ from the defaulted object on every reconcile and update forever.
func (r *WebAppReconciler) mutateDeployment(app *webappv1alpha1.WebApp, dep *appsv1.Deployment) error {
	labels := Labels(app)
	if dep.Spec.Selector == nil { // immutable once created
		dep.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels}
	}
	dep.Spec.Replicas = ptr.To(Replicas(app))
	if dep.Spec.Template.Labels == nil {
		dep.Spec.Template.Labels = map[string]string{}
	}
	maps.Copy(dep.Spec.Template.Labels, labels)
	c := container(&dep.Spec.Template.Spec, ContainerName)
	c.Image = app.Spec.Image
	p := containerPort(c, "http")
	p.ContainerPort = port(app)
	p.Protocol = corev1.ProtocolTCP
	if c.Resources.Requests == nil {
		c.Resources.Requests = corev1.ResourceList{}
	}
	// Requests, so that the scheduler places the pods by what they use; values someone set
	// are kept.
	if _, ok := c.Resources.Requests[corev1.ResourceCPU]; !ok {
		c.Resources.Requests[corev1.ResourceCPU] = resource.MustParse("250m")
	}
	if _, ok := c.Resources.Requests[corev1.ResourceMemory]; !ok {
		c.Resources.Requests[corev1.ResourceMemory] = resource.MustParse("128Mi")
	}
	return controllerutil.SetControllerReference(app, dep, r.Scheme)
}

func (r *WebAppReconciler) mutateService(app *webappv1alpha1.WebApp, svc *corev1.Service) error {
	svc.Spec.Selector = Labels(app)
	var sp *corev1.ServicePort
	for i := range svc.Spec.Ports {
		if svc.Spec.Ports[i].Name == "http" {
			sp = &svc.Spec.Ports[i]
		}
	}
	if sp == nil {
		svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{Name: "http"})
		sp = &svc.Spec.Ports[len(svc.Spec.Ports)-1]
	}
	sp.Port = ServicePort
	sp.Protocol = corev1.ProtocolTCP
	sp.TargetPort = intstr.FromString("http")
	return controllerutil.SetControllerReference(app, svc, r.Scheme)
}

// mutatePDB lets voluntary disruptions (a drain) take one pod at a time.
func (r *WebAppReconciler) mutatePDB(app *webappv1alpha1.WebApp, pdb *policyv1.PodDisruptionBudget) error {
	pdb.Spec.Selector = &metav1.LabelSelector{MatchLabels: Labels(app)}
	pdb.Spec.MinAvailable = nil
	pdb.Spec.MaxUnavailable = ptr.To(intstr.FromInt32(1))
	return controllerutil.SetControllerReference(app, pdb, r.Scheme)
}

// container returns the container called name, appending it when there is none.
func container(spec *corev1.PodSpec, name string) *corev1.Container {
	for i := range spec.Containers {
		if spec.Containers[i].Name == name {
			return &spec.Containers[i]
		}
	}
	spec.Containers = append(spec.Containers, corev1.Container{Name: name})
	return &spec.Containers[len(spec.Containers)-1]
}

// containerPort returns the container's port called name, appending it when there is none.
func containerPort(c *corev1.Container, name string) *corev1.ContainerPort {
	for i := range c.Ports {
		if c.Ports[i].Name == name {
			return &c.Ports[i]
		}
	}
	c.Ports = append(c.Ports, corev1.ContainerPort{Name: name})
	return &c.Ports[len(c.Ports)-1]
}

// Status is the status the WebApp app should report, given the status old it has now (app's
// own, or a newer version's), the Deployment's ready replicas and the time now.
func Status(old webappv1alpha1.WebAppStatus, app *webappv1alpha1.WebApp, ready int32, now metav1.Time) webappv1alpha1.WebAppStatus {
	st := *old.DeepCopy()
	st.ObservedGeneration = app.Generation
	st.ReadyReplicas = ready
	want := Replicas(app)
	cond := metav1.Condition{
		Type:               ConditionAvailable,
		Status:             metav1.ConditionFalse,
		Reason:             "ReplicasNotReady",
		Message:            fmt.Sprintf("%d of %d replicas ready", ready, want),
		ObservedGeneration: app.Generation,
		// Set here, not left zero: SetStatusCondition would stamp a zero time with
		// time.Now(), the wall clock.
		LastTransitionTime: now,
	}
	if ready >= want {
		cond.Status, cond.Reason = metav1.ConditionTrue, "ReplicasReady"
	}
	meta.SetStatusCondition(&st.Conditions, cond)
	return st
}

// updateStatus writes the status the WebApp should report, when it differs from the one it
// has. A 409 Conflict (someone wrote the WebApp since the cache saw it) is retried on the
// WebApp as the API server has it, up to statusAttempts times; then it is returned, and
// the work queue retries the request with back-off.
func (r *WebAppReconciler) updateStatus(ctx context.Context, app *webappv1alpha1.WebApp, dep *appsv1.Deployment) error {
	now := metav1.NewTime(r.now())
	// target is the version written to; the status describes app, the version this
	// reconcile acted on, even when target is newer.
	target := app.DeepCopy()
	for attempt := 1; ; attempt++ {
		st := Status(target.Status, app, dep.Status.ReadyReplicas, now)
		if equality.Semantic.DeepEqual(st, target.Status) {
			return nil
		}
		target.Status = st
		err := r.Status().Update(ctx, target)
		if err == nil || !apierrors.IsConflict(err) || attempt == statusAttempts {
			return err
		}
		logf.FromContext(ctx).V(1).Info("status update conflict, retrying on the newest WebApp", "attempt", attempt)
		target = &webappv1alpha1.WebApp{}
		if err := r.reader().Get(ctx, client.ObjectKeyFromObject(app), target); err != nil {
			return client.IgnoreNotFound(err)
		}
	}
}

func (r *WebAppReconciler) reader() client.Reader {
	if r.APIReader != nil {
		return r.APIReader
	}
	return r.Client
}

func (r *WebAppReconciler) now() time.Time {
	if r.Clock == nil {
		return clock.RealClock{}.Now()
	}
	return r.Clock.Now()
}
