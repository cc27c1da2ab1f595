package operator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	goruntime "runtime"
	"strconv"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/reconsim/reconsim/model"
	simclient "github.com/reconsim/reconsim/sim/client"
)

// simClient is controller-runtime's client.Client on the simulated API server. With cached
// set, Get and List read the informer cache (the manager's client); otherwise they are API
// requests (the API reader). Every API request is sent by the controller's own simulated
// client, so it is throttled by its token bucket, retried on Retry-After, and blocks the
// calling process in virtual time.
type simClient struct {
	m      *manager
	cached bool
}

var _ client.Client = (*simClient)(nil)

// maxListItems bounds one List's result (the cache holds at most what the API server does,
// which is bounded by the scenario's limits; this is a second guard).
const maxListItems = 1 << 20

func (c *simClient) Scheme() *runtime.Scheme     { return c.m.scheme }
func (c *simClient) RESTMapper() meta.RESTMapper { return c.m.mapper }

func (c *simClient) GroupVersionKindFor(obj runtime.Object) (schema.GroupVersionKind, error) {
	return gvkForObject(obj, c.m.scheme)
}

func (c *simClient) IsObjectNamespaced(obj runtime.Object) (bool, error) {
	gvk, err := gvkForObject(obj, c.m.scheme)
	if err != nil {
		return false, err
	}
	ki, ok := c.m.kindFor(gvk)
	if !ok {
		return false, noKind(gvk)
	}
	return ki.Namespaced, nil
}

// target resolves obj's kind on the simulated API server.
func (c *simClient) target(obj runtime.Object) (schema.GroupVersionKind, model.KindInfo, error) {
	gvk, err := gvkForObject(obj, c.m.scheme)
	if err != nil {
		return gvk, model.KindInfo{}, err
	}
	ki, ok := c.m.kindFor(gvk)
	if !ok {
		return gvk, ki, noKind(gvk)
	}
	return gvk, ki, nil
}

// noKind is the error for a kind the simulated API server does not serve: the RESTMapper's
// (a real client fails the same way before sending anything).
func noKind(gvk schema.GroupVersionKind) error {
	return &meta.NoKindMatchError{GroupKind: gvk.GroupKind(), SearchedVersions: []string{gvk.Version}}
}

func groupResource(gvk schema.GroupVersionKind, ki model.KindInfo) schema.GroupResource {
	return schema.GroupResource{Group: gvk.Group, Resource: ki.Resource}
}

// apiCall checks that ctx belongs to the simulated process that is running now: an API request
// blocks in virtual time, which only that process can do.
func (c *simClient) apiCall(ctx context.Context) error {
	p, err := procOf(ctx)
	if err != nil {
		return err
	}
	if id, ok := ctx.Value(goroutineKey{}).(uint64); (ok && id != goroutineID()) || p.Kernel().Running() != p {
		return fmt.Errorf("operator: %s: client call from a goroutine other than the reconcile process %s: the simulator runs one process at a time in virtual time, so API calls must be made by Reconcile itself (do the work in Reconcile, or return a Result that requeues)", c.m.name, p.Name())
	}
	return nil
}

// begin starts a request about obj: a dry run (which the simulated API server does not
// offer) is refused, obj's kind resolved, and the caller checked to be the running reconcile
// process (apiCall).
func (c *simClient) begin(ctx context.Context, obj runtime.Object, dryRun []string) (schema.GroupVersionKind, model.KindInfo, error) {
	if err := unsupportedDryRun(dryRun); err != nil {
		return schema.GroupVersionKind{}, model.KindInfo{}, err
	}
	gvk, ki, err := c.target(obj)
	if err != nil {
		return gvk, ki, err
	}
	return gvk, ki, c.apiCall(ctx)
}

// namespaceOf is the namespace a request about obj names: obj's, or none for a
// cluster-scoped kind.
func namespaceOf(obj client.Object, ki model.KindInfo) string {
	if !ki.Namespaced {
		return ""
	}
	return obj.GetNamespace()
}

// goroutineKey keys the id of the goroutine Reconcile was called on in its context.
type goroutineKey struct{}

// withGoroutine records the calling goroutine in ctx: calls with ctx from another goroutine
// are then refused (apiCall).
func withGoroutine(ctx context.Context) context.Context {
	return context.WithValue(ctx, goroutineKey{}, goroutineID())
}

// goroutineID returns the calling goroutine's id, read from the first line of its stack
// ("goroutine 42 [running]:"); Go offers no other way, and this costs about a microsecond.
func goroutineID() uint64 {
	var buf [64]byte
	b := buf[:goruntime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, _ := strconv.ParseUint(string(b), 10, 64)
	return id
}

// Get reads the object named key into obj: from the informer cache (the manager's client,
// started for obj's kind at the first Get, which then waits for it to sync) or from the API
// server (the API reader). A missing object is a NotFound error.
func (c *simClient) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	gvk, ki, err := c.target(obj)
	if err != nil {
		return err
	}
	if !ki.Namespaced {
		key.Namespace = ""
	}
	if c.cached {
		inf, err := c.m.informer(ctx, ki.Kind)
		if err != nil {
			return err
		}
		mo, ok := inf.Get(key.Namespace, key.Name)
		if !ok {
			return apierrors.NewNotFound(groupResource(gvk, ki), key.Name)
		}
		if err := c.m.fromModel(mo, obj, gvk); err != nil {
			return err
		}
		// controller-runtime's cache reader sets the GVK on what it returns
		// (pkg/cache/internal/cache_reader.go Get).
		obj.GetObjectKind().SetGroupVersionKind(gvk)
		return nil
	}
	if err := c.apiCall(ctx); err != nil {
		return err
	}
	mo, err := c.m.env.Client.GetShared(ctx, ki.Kind, key.Namespace, key.Name)
	if err != nil {
		return err
	}
	return c.m.fromModel(mo, obj, gvk)
}

// List reads the objects list's item kind selects (namespace, labels, fields, limit) into list,
// sorted by namespace and name.
func (c *simClient) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	lo := (&client.ListOptions{}).ApplyOptions(opts)
	gvk, err := gvkForObject(list, c.m.scheme)
	if err != nil {
		return err
	}
	if len(gvk.Kind) <= len("List") || gvk.Kind[len(gvk.Kind)-len("List"):] != "List" {
		return fmt.Errorf("operator: %T is not a list type (its kind %q does not end in List)", list, gvk.Kind)
	}
	gvk.Kind = gvk.Kind[:len(gvk.Kind)-len("List")]
	ki, ok := c.m.kindFor(gvk)
	if !ok {
		return noKind(gvk)
	}
	mopts := model.ListOptions{LabelSelector: lo.LabelSelector, FieldSelector: lo.FieldSelector}
	if ki.Namespaced {
		mopts.Namespace = lo.Namespace
	}
	var items []model.Object
	if c.cached {
		inf, err := c.m.informer(ctx, ki.Kind)
		if err != nil {
			return err
		}
		sel := lo.LabelSelector
		if sel == nil {
			sel = labels.Everything()
		}
		if mopts.Namespace != "" {
			items = inf.ListNamespace(mopts.Namespace, sel)
		} else {
			items = inf.List(sel)
		}
		if lo.FieldSelector != nil && !lo.FieldSelector.Empty() {
			items, err = filterFields(items, lo.FieldSelector)
			if err != nil {
				return err
			}
		}
	} else {
		if err := c.apiCall(ctx); err != nil {
			return err
		}
		items, _, err = c.m.env.Client.List(ctx, ki.Kind, mopts)
		if err != nil {
			return err
		}
	}
	if lo.Limit > 0 && int64(len(items)) > lo.Limit {
		items = items[:lo.Limit]
	}
	if len(items) > maxListItems {
		return apierrors.NewInternalError(fmt.Errorf("list of %s holds %d objects, more than %d", ki.Kind, len(items), maxListItems))
	}
	return c.m.fillList(list, gvk, items)
}

// filterFields keeps the objects whose metadata.name and metadata.namespace match sel. As
// controller-runtime's cache, other fields need an index, which the simulator does not
// offer: they are an error (pkg/cache/internal/cache_reader.go requiresExact/field index).
func filterFields(items []model.Object, sel fields.Selector) ([]model.Object, error) {
	for _, r := range sel.Requirements() {
		if r.Field != "metadata.name" && r.Field != "metadata.namespace" {
			return nil, fmt.Errorf("operator: field selector %q: the cache only selects on metadata.name and metadata.namespace; use the API reader (mgr.GetAPIReader()) for other fields", sel.String())
		}
	}
	out := items[:0:0]
	for _, o := range items {
		m := o.Meta()
		if sel.Matches(fields.Set{"metadata.name": m.Name, "metadata.namespace": m.Namespace}) {
			out = append(out, o)
		}
	}
	return out, nil
}

// Create creates obj; on success obj holds what the server stored (name, uid,
// resourceVersion, defaults).
func (c *simClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	co := (&client.CreateOptions{}).ApplyOptions(opts)
	return c.write(ctx, obj, co.DryRun, func(mo model.Object) (model.Object, error) {
		return c.m.env.Client.Create(ctx, mo)
	})
}

// Update replaces obj (a stale resourceVersion is a Conflict); status is not changed.
func (c *simClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	uo := (&client.UpdateOptions{}).ApplyOptions(opts)
	return c.write(ctx, obj, uo.DryRun, func(mo model.Object) (model.Object, error) {
		return c.m.env.Client.Update(ctx, mo)
	})
}

// write converts obj, sends it with send, and converts the server's answer back into obj,
// remembering obj's unmodelled fields for the reads that follow.
func (c *simClient) write(ctx context.Context, obj client.Object, dryRun []string, send func(model.Object) (model.Object, error)) error {
	gvk, _, err := c.begin(ctx, obj, dryRun)
	if err != nil {
		return err
	}
	mo, err := c.m.toModel(obj, gvk)
	if err != nil {
		return apierrors.NewBadRequest(err.Error())
	}
	out, err := send(mo)
	if err != nil {
		return err
	}
	if err := c.m.intoSent(out, obj, gvk); err != nil {
		return err
	}
	c.m.shadow.remember(out.Meta().UID, obj)
	return nil
}

// Patch sends patch (JSON, merge or strategic merge) for obj and reads the result into obj.
// Server-side apply is not offered (see Apply).
func (c *simClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	return c.patch(ctx, obj, "", patch, opts...)
}

func (c *simClient) patch(ctx context.Context, obj client.Object, subresource string, patch client.Patch, opts ...client.PatchOption) error {
	po := (&client.PatchOptions{}).ApplyOptions(opts)
	if err := unsupportedDryRun(po.DryRun); err != nil {
		return err
	}
	if patch.Type() == types.ApplyPatchType || patch.Type() == types.ApplyCBORPatchType {
		return errServerSideApply
	}
	gvk, ki, err := c.begin(ctx, obj, nil)
	if err != nil {
		return err
	}
	data, err := patch.Data(obj)
	if err != nil {
		return err
	}
	out, err := c.m.env.Client.PatchSubresource(ctx, ki.Kind, namespaceOf(obj, ki), obj.GetName(), subresource, model.PatchType(patch.Type()), data)
	if err != nil {
		return err
	}
	// The patch may also set fields the model does not hold: apply it to the remembered
	// object too, so they are read back.
	c.m.shadow.patch(out.Meta().UID, patch.Type(), data, c.m.scheme)
	return c.m.fromModel(out, obj, gvk)
}

// errServerSideApply is returned for server-side apply.
var errServerSideApply = apierrors.NewBadRequest("operator: server-side apply is not supported by the simulated API server: it keeps no managedFields, so field ownership and apply conflicts cannot be computed; use Update, or Patch with client.MergeFrom / a strategic merge patch")

// Apply is server-side apply, which the simulator does not offer (errServerSideApply).
func (c *simClient) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
	return errServerSideApply
}

func unsupportedDryRun(dryRun []string) error {
	if len(dryRun) > 0 {
		return apierrors.NewBadRequest("operator: dry-run requests are not supported by the simulated API server")
	}
	return nil
}

// Delete deletes obj with the options' grace period, propagation policy and preconditions.
func (c *simClient) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	do := (&client.DeleteOptions{}).ApplyOptions(opts)
	_, ki, err := c.begin(ctx, obj, do.DryRun)
	if err != nil {
		return err
	}
	mopts, err := deleteOptions(do)
	if err != nil {
		return err
	}
	return c.m.env.Client.Delete(ctx, ki.Kind, namespaceOf(obj, ki), obj.GetName(), mopts)
}

func deleteOptions(do *client.DeleteOptions) (model.DeleteOptions, error) {
	var out model.DeleteOptions
	out.GracePeriodSeconds = do.GracePeriodSeconds
	if do.PropagationPolicy != nil {
		p := model.DeletionPropagation(*do.PropagationPolicy)
		out.PropagationPolicy = &p
	}
	if pc := do.Preconditions; pc != nil {
		out.Preconditions = &model.Preconditions{}
		if pc.UID != nil {
			uid := string(*pc.UID)
			out.Preconditions.UID = &uid
		}
		if pc.ResourceVersion != nil {
			var rv uint64
			if err := convertValue(&rv, pc.ResourceVersion); err != nil {
				return out, apierrors.NewBadRequest(err.Error())
			}
			out.Preconditions.ResourceVersion = &rv
		}
	}
	return out, nil
}

// DeleteAllOf deletes every object of obj's kind the options select. The simulated API server
// has no deletecollection verb, so it is a List and one Delete per object, all from this
// client (upstream's is one request; the objects deleted are the same).
func (c *simClient) DeleteAllOf(ctx context.Context, obj client.Object, opts ...client.DeleteAllOfOption) error {
	dao := (&client.DeleteAllOfOptions{}).ApplyOptions(opts)
	_, ki, err := c.begin(ctx, obj, dao.DryRun)
	if err != nil {
		return err
	}
	mopts := model.ListOptions{LabelSelector: dao.LabelSelector, FieldSelector: dao.FieldSelector}
	if ki.Namespaced {
		mopts.Namespace = dao.Namespace
	}
	items, _, err := c.m.env.Client.List(ctx, ki.Kind, mopts)
	if err != nil {
		return err
	}
	delOpts, err := deleteOptions(&dao.DeleteOptions)
	if err != nil {
		return err
	}
	for _, it := range items {
		m := it.Meta()
		if err := c.m.env.Client.Delete(ctx, ki.Kind, m.Namespace, m.Name, delOpts); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// Status returns the writer of the status subresource.
func (c *simClient) Status() client.SubResourceWriter {
	return &subResourceClient{c: c, name: "status"}
}

// SubResource returns the client of a subresource: "status" or "scale".
func (c *simClient) SubResource(name string) client.SubResourceClient {
	return &subResourceClient{c: c, name: name}
}

type subResourceClient struct {
	c    *simClient
	name string
}

func (s *subResourceClient) check() error {
	if s.name != "status" && s.name != "scale" {
		return apierrors.NewNotFound(schema.GroupResource{Resource: s.name}, "")
	}
	return nil
}

// Get reads the subresource: for status the object itself (into subResource), for scale an
// autoscaling/v1 Scale.
func (s *subResourceClient) Get(ctx context.Context, obj, subResource client.Object, opts ...client.SubResourceGetOption) error {
	if err := s.check(); err != nil {
		return err
	}
	if err := s.c.apiCall(ctx); err != nil {
		return err
	}
	if s.name == "status" {
		return (&simClient{m: s.c.m}).Get(ctx, client.ObjectKeyFromObject(obj), subResource)
	}
	_, ki, err := s.c.target(obj)
	if err != nil {
		return err
	}
	sc, err := s.c.m.env.Client.GetScale(ctx, ki.Kind, obj.GetNamespace(), obj.GetName())
	if err != nil {
		return err
	}
	return scaleOut(sc, subResource)
}

func scaleOut(sc *model.Scale, into client.Object) error {
	out, ok := into.(*autoscalingv1.Scale)
	if !ok {
		return fmt.Errorf("operator: the scale subresource is read into an *autoscalingv1.Scale, not %T", into)
	}
	*out = autoscalingv1.Scale{}
	return convertValue(out, sc)
}

// Create creates a subresource; the simulated API server has none that are created.
func (s *subResourceClient) Create(ctx context.Context, obj, subResource client.Object, opts ...client.SubResourceCreateOption) error {
	return apierrors.NewMethodNotSupported(schema.GroupResource{Resource: s.name}, "create")
}

// Update writes the subresource: for status obj's status; for scale the Scale given as
// client.WithSubResourceBody, or obj's spec.replicas.
func (s *subResourceClient) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	if err := s.check(); err != nil {
		return err
	}
	uo := (&client.SubResourceUpdateOptions{}).ApplyOptions(opts)
	if s.name == "status" {
		return s.c.write(ctx, obj, uo.DryRun, func(mo model.Object) (model.Object, error) {
			return s.c.m.env.Client.UpdateStatus(ctx, mo)
		})
	}
	_, ki, err := s.c.begin(ctx, obj, uo.DryRun)
	if err != nil {
		return err
	}
	body, ok := uo.SubResourceBody.(*autoscalingv1.Scale)
	if !ok {
		return fmt.Errorf("operator: a scale update needs client.WithSubResourceBody(*autoscalingv1.Scale), not %T", uo.SubResourceBody)
	}
	var sc model.Scale
	if err := convertValue(&sc, body); err != nil {
		return apierrors.NewBadRequest(err.Error())
	}
	out, err := s.c.m.env.Client.UpdateScale(ctx, ki.Kind, obj.GetNamespace(), obj.GetName(), &sc)
	if err != nil {
		return err
	}
	return scaleOut(out, body)
}

// Patch patches the status subresource (the scale subresource is updated, not patched).
func (s *subResourceClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	if err := s.check(); err != nil {
		return err
	}
	if s.name != "status" {
		return apierrors.NewMethodNotSupported(schema.GroupResource{Resource: s.name}, "patch")
	}
	po := (&client.SubResourcePatchOptions{}).ApplyOptions(opts)
	return s.c.patch(ctx, obj, "status", patch, &po.PatchOptions)
}

// Apply is server-side apply of a subresource, which the simulator does not offer.
func (s *subResourceClient) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.SubResourceApplyOption) error {
	return errServerSideApply
}

// fillList sets list's items from the model objects (of kind gvk).
func (m *manager) fillList(list client.ObjectList, gvk schema.GroupVersionKind, items []model.Object) error {
	if ul, ok := list.(*unstructured.UnstructuredList); ok {
		ul.Items = make([]unstructured.Unstructured, len(items))
		for i, mo := range items {
			if err := m.fromModel(mo, &ul.Items[i], gvk); err != nil {
				return err
			}
		}
		return nil
	}
	itemsPtr, err := meta.GetItemsPtr(list)
	if err != nil {
		return err
	}
	slice := reflect.ValueOf(itemsPtr).Elem()
	elemType := slice.Type().Elem()
	out := reflect.MakeSlice(slice.Type(), len(items), len(items))
	for i, mo := range items {
		var target client.Object
		if elemType.Kind() == reflect.Pointer {
			v := reflect.New(elemType.Elem())
			out.Index(i).Set(v)
			target, _ = v.Interface().(client.Object)
		} else {
			target, _ = out.Index(i).Addr().Interface().(client.Object)
		}
		if target == nil {
			return fmt.Errorf("operator: the items of %T are not client.Objects", list)
		}
		if err := m.fromModel(mo, target, gvk); err != nil {
			return err
		}
	}
	slice.Set(out)
	if len(items) > 0 {
		list.SetResourceVersion(model.RV(maxRV(items)))
	}
	return nil
}

func maxRV(items []model.Object) uint64 {
	var rv uint64
	for _, o := range items {
		rv = max(rv, o.Meta().ResourceVersion)
	}
	return rv
}

// informer returns the cache informer of kind, starting it (and waiting for it to sync, which
// blocks the calling process) when this is its first use.
func (m *manager) informer(ctx context.Context, kind model.Kind) (*simclient.Informer, error) {
	inf := m.env.Factory.For(kind)
	if !inf.Running() {
		inf.Run(m.env.Kernel)
	}
	if !inf.HasSynced() {
		p, err := procOf(ctx)
		if err != nil {
			return nil, fmt.Errorf("operator: the cache of %s has not synced yet and %w", kind, err)
		}
		if p.Kernel().Running() != p {
			return nil, fmt.Errorf("operator: %s: the cache of %s has not synced and the call does not come from the reconcile process (a goroutine cannot wait in virtual time)", m.name, kind)
		}
		inf.WaitForSync(ctx)
	}
	return inf, nil
}

// ---- conversion at the boundary ----

// builtin reports whether ki is one of the simulator's own kinds (converted field by field);
// other kinds (custom resources) are converted through JSON.
func builtin(ki model.KindInfo) bool {
	_, ok := builtinKinds[ki.Kind]
	return ok
}

// builtinKinds are the simulator's own kinds, whose model types mirror k8s.io/api's field for
// field (kinds registered later, custom resources, are not among them).
var builtinKinds = map[model.Kind]bool{
	model.KindNamespace: true, model.KindNode: true, model.KindLease: true, model.KindPod: true,
	model.KindReplicaSet: true, model.KindEvent: true, model.KindDeployment: true,
	model.KindStatefulSet: true, model.KindDaemonSet: true, model.KindControllerRevision: true,
	model.KindPodDisruptionBudget: true, model.KindService: true, model.KindEndpointSlice: true,
	model.KindHorizontalPodAutoscaler: true, model.KindJob: true, model.KindCronJob: true,
}

// toModel converts a user's object (typed, unstructured, or a custom type) to the model.
func (m *manager) toModel(obj client.Object, gvk schema.GroupVersionKind) (model.Object, error) {
	ki, ok := m.kindFor(gvk)
	if !ok {
		return nil, noKind(gvk)
	}
	mo := ki.New()
	if !builtin(ki) {
		return customToModel(obj, mo)
	}
	src := runtime.Object(obj)
	if u, ok := obj.(*unstructured.Unstructured); ok {
		typed, err := m.scheme.New(gvk)
		if err != nil {
			return nil, err
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, typed); err != nil {
			return nil, err
		}
		src = typed
	}
	if err := convertValue(mo, src); err != nil {
		return nil, err
	}
	return mo, nil
}

// fromModel converts a model object into the user's obj, replacing its content: the fields the
// model holds come from mo, the others from the object last written under the same UID (the
// shadow), so unmodelled fields survive the round trip.
func (m *manager) fromModel(mo model.Object, obj client.Object, gvk schema.GroupVersionKind) error {
	ki, ok := m.kindFor(gvk)
	if !ok {
		return noKind(gvk)
	}
	if !builtin(ki) {
		return customFromModel(mo, obj)
	}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		typed, err := m.scheme.New(gvk)
		if err != nil {
			return err
		}
		tobj, ok := typed.(client.Object)
		if !ok {
			return fmt.Errorf("operator: %s is not a client.Object", gvk)
		}
		if err := m.fromModel(mo, tobj, gvk); err != nil {
			return err
		}
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(tobj)
		if err != nil {
			return err
		}
		u.Object = content
		u.SetGroupVersionKind(gvk)
		return nil
	}
	if base := m.shadow.base(mo.Meta().UID, obj); base != nil {
		reflect.ValueOf(obj).Elem().Set(reflect.ValueOf(base).Elem())
		if rv := mo.Meta().ResourceVersion; rv != 0 && base.GetResourceVersion() == model.RV(rv) {
			// The remembered object is the answer to this controller's write of this very
			// version: every modelled field already is the model's.
			obj.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
			return nil
		}
	} else {
		zero(obj)
	}
	if err := convertValue(obj, mo); err != nil {
		return err
	}
	obj.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	return nil
}

// intoSent converts the server's answer to a write into obj, the object that was sent: obj
// already holds the unmodelled fields, so only the modelled ones are written (no copy of the
// remembered object is needed).
func (m *manager) intoSent(mo model.Object, obj client.Object, gvk schema.GroupVersionKind) error {
	ki, ok := m.kindFor(gvk)
	if !ok {
		return noKind(gvk)
	}
	if _, isU := obj.(*unstructured.Unstructured); isU || !builtin(ki) {
		return m.fromModel(mo, obj, gvk)
	}
	if err := convertValue(obj, mo); err != nil {
		return err
	}
	obj.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	return nil
}

// customToModel converts a custom resource (a typed Go struct, or unstructured) into mo, a
// *model.Unstructured: the metadata through the typed metadata conversion (the model's
// ObjectMeta is not shaped as metav1's JSON: resourceVersion is a number, times are
// virtual), the rest as JSON values.
func customToModel(obj client.Object, mo model.Object) (model.Object, error) {
	u, ok := mo.(*model.Unstructured)
	if !ok {
		return nil, fmt.Errorf("operator: custom kind %s is stored as %T, not unstructured", mo.GetKind(), mo)
	}
	var content map[string]any
	if uo, ok := obj.(*unstructured.Unstructured); ok {
		content = runtime.DeepCopyJSON(uo.Object)
	} else {
		c, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return nil, err
		}
		content = c
	}
	var om metav1.ObjectMeta
	if md, ok := content["metadata"].(map[string]any); ok {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(md, &om); err != nil {
			return nil, fmt.Errorf("operator: metadata: %w", err)
		}
	}
	if err := convertValue(&u.ObjectMeta, &om); err != nil {
		return nil, err
	}
	delete(content, "apiVersion")
	delete(content, "kind")
	delete(content, "metadata")
	u.Content = content
	return u, nil
}

// customFromModel converts mo, a *model.Unstructured, into obj (typed or unstructured),
// replacing its content.
func customFromModel(mo model.Object, obj client.Object) error {
	u, ok := mo.(*model.Unstructured)
	if !ok {
		return fmt.Errorf("operator: custom kind %s is stored as %T, not unstructured", mo.GetKind(), mo)
	}
	var om metav1.ObjectMeta
	if err := convertValue(&om, &u.ObjectMeta); err != nil {
		return err
	}
	md, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&om)
	if err != nil {
		return err
	}
	content := map[string]any{}
	if u.Content != nil {
		content = model.DeepCopyJSON(u.Content).(map[string]any)
	}
	content["apiVersion"] = u.APIVersion
	content["kind"] = string(u.Kind)
	content["metadata"] = md
	if uo, ok := obj.(*unstructured.Unstructured); ok {
		uo.Object = content
		return nil
	}
	zero(obj)
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(content, obj); err != nil {
		return err
	}
	obj.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	return nil
}

// zero resets *obj to its zero value.
func zero(obj any) {
	v := reflect.ValueOf(obj)
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		v.Elem().SetZero()
	}
}

// errNotInProcess is wrapped by errors of calls made outside a simulated process.
var errNotInProcess = errors.New("not in a simulated process")

var _ = errNotInProcess
var _ = metav1.Now
