package apiserver

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

// Request is one API request. The server keeps no request after Do returns (its fault hooks
// and OnWrite hook must not either): a client reuses its requests.
type Request struct {
	// Client names the caller (the component's user agent); faults and watch stalls select
	// by it.
	Client string
	// Caller is the server's record of Client (Server.Caller), which a client that sends many
	// requests keeps and passes along so that the server finds its per-client state without
	// a lookup by name; nil: the server looks it up.
	Caller *Caller
	Verb   model.Verb
	Kind   model.Kind
	// Subresource is "" or "status" (get, update and patch of kinds with status),
	// "eviction" (create on Pod with a *model.Eviction, see Store.Evict) or "scale" (get and
	// update on Deployment, ReplicaSet and StatefulSet, with a *model.Scale, see
	// Store.GetScale and Store.UpdateScale).
	Subresource string
	// Namespace and Name address the object (get, update, patch, delete); for create and
	// update they must agree with the object's metadata where both are set. For list,
	// Namespace is used when List.Namespace is empty.
	Namespace, Name string
	// Object is the body of create and update; it becomes owned by the server.
	Object model.Object
	// Patch is the body of a patch: an RFC 7386 JSON merge patch unless PatchType says
	// otherwise.
	Patch []byte
	// PatchType is the patch's format; "" means MergePatchType.
	PatchType model.PatchType
	// List selects the objects of a list.
	List model.ListOptions
	// Delete holds the options of a delete.
	Delete model.DeleteOptions
}

// Response is the answer to a Request.
type Response struct {
	// Object is the object a get, create, update, patch or delete returns (shared, immutable).
	Object model.Object
	// Items are the objects a list returns, sorted by key (shared, immutable).
	Items []model.Object
	// Keys are the keys of a list's Items (model.Key of each, in the same order), shared
	// and not to be changed: an informer files the items under them.
	Keys []string
	// ResourceVersion is the returned object's resourceVersion, or the list's.
	ResourceVersion uint64
	// Err is nil on success, else an apimachinery *StatusError (apierrors.IsConflict and the
	// like work on it) or the error a Fault returned.
	Err error
}

// Fault is a fault-injection hook. Intercept is called for every request (watches included)
// before admission to the in-flight pool; extraLatency is slept by the caller's process
// before anything else happens, and a non-nil err then fails the request with that error.
// Faults are compared by ==, so implement them on pointer types.
type Fault interface {
	Intercept(now vtime.Time, req *Request) (extraLatency time.Duration, err error)
}

// Server is the API server: the store plus the request path of kube-apiserver — fault
// hooks, the max-in-flight filter, service time, and request statistics.
type Server struct {
	k     *sim.Kernel
	cfg   Config
	store *Store
	rand  *rand.Rand

	serviceTime [numVerbs]sim.Sampler
	retryAfter  int
	faults      []Fault
	stats       *Stats
	onWrite     func(req *Request)
	// apf is API Priority and Fairness, nil when it is off (the max-in-flight filter runs).
	apf *apf
	// callers are the records Caller handed out, by client name.
	callers map[string]*Caller
}

// Caller is the server's record of one client, its per-client state: what serving the
// client's requests found (routes). Server.Caller hands out one per client name; it is only
// valid with the server that made it.
//
// What a request reads of it is one cache line: a Caller is 64 bytes, a size class whose
// allocations start on a line (at 66 bytes it was in the 80-byte class, on two lines, and a
// kubelet's request after 10 s found both cold).
type Caller struct {
	srv  *Server
	name string
	// chunks hold the client's first nroutes kinds of request, routesPerChunk to a chunk,
	// route i at chunks[i/routesPerChunk][i%routesPerChunk]. A chunk is made with its first
	// route and never moved (a request holds its route while it sleeps). Routes kept
	// together rather than each in an allocation of its own: a client's request after a long
	// sleep finds them cold in the processor's caches, and each would be another miss.
	chunks  [maxCallerRoutes / routesPerChunk]*routeChunk
	nroutes uint8
	// recent are the places in routes of the last two routes found, the latest first: a
	// client sends few kinds of request over and over (a kubelet its Lease update, which is
	// its eighth route, and its Node get), and each route a scan passes is another cache line
	// or two of a record no request has touched for seconds.
	recent [2]uint8
}

// route is what serving one kind of request of one client (its kind, subresource, verb and
// namespace as the request names it, rawNamespace) finds on the way: API Priority and
// Fairness's classification, the kind's store and the kind's request counters. A client sends
// the same few kinds of request over and over (a kubelet's Lease update and Node get), and
// its Caller keeps their routes, so that the next such request finds them with a scan of a few
// entries instead of a lookup by string in each of the filter, the store and the statistics.
type route struct {
	kind      model.Kind
	sub       string
	verb      model.Verb
	namespace string
	// c is the classification when cgen is API Priority and Fairness's configuration
	// generation (apf.classifyRoute); nil before the filter classifies a request of the route,
	// and always when the filter is off.
	c    *classification
	cgen uint64
	// ks is the kind's store, nil while the store has none: the request is then served, and
	// answered, by the lookup by name (Store.kind).
	ks *kindStore
	// counts are the kind's request counters, nil until the first request was counted.
	counts *[numVerbs]RequestCount
}

// maxCallerRoutes bounds a client's routes in its Caller; its other requests are served
// with a route of their own, found anew.
const maxCallerRoutes = 16

// routeChunk is routesPerChunk routes: 384 bytes, a size class whose allocations start on a
// cache line, so that each 96-byte route is on two lines. An array of 16 routes did not start
// on a line (32 or 48 bytes into one, as measured), and every other route was on three: a
// kubelet's Lease update read a third line for its route's counters.
type routeChunk [routesPerChunk]route

const routesPerChunk = 4

// route returns the route at place i of c's routes (i < c.nroutes).
func (c *Caller) route(i int) *route { return &c.chunks[i/routesPerChunk][i%routesPerChunk] }

// routeOf returns the route of req, whose kind is kind: the one req's client keeps, or a new
// one, which the client keeps while it has fewer than maxCallerRoutes and which is built in
// scratch otherwise (with scratch nil: nil, and nothing is built).
func (s *Server) routeOf(req *Request, kind model.Kind, scratch *route) *route {
	caller := s.callerOf(req)
	raw := rawNamespace(req)
	var found *route
	// Routes are unique by what they route, so the recent ones looked at first are the ones a
	// scan would find.
	for _, i := range caller.recent {
		if i < caller.nroutes {
			if r := caller.route(int(i)); r.routes(kind, req.Verb, req.Subresource, raw) {
				caller.noteRecent(int(i))
				found = r
				break
			}
		}
	}
	for i := 0; found == nil && i < int(caller.nroutes); i++ {
		if r := caller.route(i); r.routes(kind, req.Verb, req.Subresource, raw) {
			caller.noteRecent(i)
			found = r
		}
	}
	if found != nil {
		if found.ks == nil {
			found.ks = s.store.kinds[kind]
		}
		return found
	}
	r := scratch
	if i := int(caller.nroutes); i < maxCallerRoutes {
		if i%routesPerChunk == 0 {
			caller.chunks[i/routesPerChunk] = new(routeChunk)
		}
		caller.noteRecent(i)
		r = caller.route(i)
		caller.nroutes++
	} else if r == nil {
		return nil
	}
	*r = route{kind: kind, sub: req.Subresource, verb: req.Verb, namespace: raw, ks: s.store.kinds[kind]}
	return r
}

// routes reports whether r is the route of a request of kind, verb, subresource and raw
// namespace (rawNamespace).
func (r *route) routes(kind model.Kind, verb model.Verb, sub, namespace string) bool {
	return r.kind == kind && r.verb == verb && r.sub == sub && r.namespace == namespace
}

// noteRecent makes the route at place i of c.routes the latest found.
func (c *Caller) noteRecent(i int) {
	if int(c.recent[0]) != i {
		c.recent[1], c.recent[0] = c.recent[0], uint8(i)
	}
}

// Caller returns the record of the client named client, the same one for every call with the
// same name.
func (s *Server) Caller(client string) *Caller {
	c := s.callers[client]
	if c == nil {
		c = &Caller{srv: s, name: client}
		if s.callers == nil {
			s.callers = map[string]*Caller{}
		}
		s.callers[client] = c
	}
	return c
}

// callerOf is the record of req's client: the one the request carries when this server made
// it for that client (another server's record holds classifications of another
// configuration), else the one by name.
func (s *Server) callerOf(req *Request) *Caller {
	if c := req.Caller; c != nil && c.srv == s && c.name == req.Client {
		return c
	}
	return s.Caller(req.Client)
}

// OnWrite sets the hook called after every acknowledged write: a create, update, patch or
// delete (of an object or a subresource) that returned no error to its client, called in the
// client's process right after the store served it and before the client sees the answer.
// The simulator counts each component's writes with it (a timeline entry can run right after
// a component's k-th write). The hook must not block or write. Nil removes it.
func (s *Server) OnWrite(f func(req *Request)) { s.onWrite = f }

// NewServer returns a server on kernel k with a new store (NewStore(k, cfg.Store)). cfg must
// pass Validate: an invalid configuration is a programming error and panics with the reason.
// Service times draw from kernel.Rand("kube-apiserver").
func NewServer(k *sim.Kernel, cfg Config) *Server {
	if err := cfg.Validate(); err != nil {
		panic("apiserver: invalid configuration: " + err.Error())
	}
	s := &Server{k: k, cfg: cfg, store: NewStore(k, cfg.Store), rand: k.Rand(component), retryAfter: cfg.RetryAfterSeconds}
	if s.retryAfter == 0 {
		s.retryAfter = model.DefaultRetryAfterSeconds
	}
	for i, v := range allVerbs {
		if d, ok := cfg.ServiceTime[v]; ok {
			s.serviceTime[i] = d.Sampler()
		}
	}
	s.stats = newStats(s.store)
	if cfg.APF.Enabled {
		a, err := newAPF(s, cfg.APF)
		if err != nil {
			panic("apiserver: invalid configuration: " + err.Error())
		}
		s.apf = a
	}
	return s
}

// Store returns the server's store.
func (s *Server) Store() *Store { return s.store }

// Stats returns the server's live statistics.
func (s *Server) Stats() *Stats { return s.stats }

// AddFault installs a fault hook; hooks run in the order they were added.
func (s *Server) AddFault(f Fault) {
	if f != nil {
		s.faults = append(s.faults, f)
	}
}

// RemoveFault uninstalls a fault hook (every installation of it); unknown hooks are ignored.
func (s *Server) RemoveFault(f Fault) {
	kept := s.faults[:0]
	for _, g := range s.faults {
		if g != f {
			kept = append(kept, g)
		}
	}
	clear(s.faults[len(kept):])
	s.faults = kept
}

// Do serves one request from inside a simulated process (ctx carries the *sim.Proc; see
// sim.ProcFromContext — calling Do outside a process panics). In order:
//
//  1. Fault hooks: their extra latency is slept; an error from one fails the request.
//  2. With Config.APF.Enabled, API Priority and Fairness (apf.go): the request is classified
//     by the flow schemas into a priority level, costed in seats by the work estimator, and
//     queued fairly among its level's flows until seats are free; a full queue, a level
//     without queues at its limit, or a wait past a quarter of the request timeout is 429
//     with the level's Retry-After. Otherwise the max-in-flight filter
//     ([apiserver@HEAD] pkg/server/filters/maxinflight.go): get and
//     list take a read-only slot (MaxRequestsInflight), create, update, patch and delete a
//     mutating one (MaxMutatingRequestsInflight). With no slot free the answer is at once
//     429 TooManyRequests "Too many requests, please try again later." with Retry-After
//     (RetryAfterSeconds), after no service time.
//  3. The process sleeps the verb's service time (a hold) holding the slot, then the store
//     serves the request; a list then sleeps ListItemCost per returned item; the slot is
//     released.
//
// Watches go through Watch, not Do (a watch request here is 400); they are long-running and
// skip both filters.
func (s *Server) Do(ctx context.Context, req *Request) (resp Response) {
	vi := -1
	if req != nil {
		vi = verbIndex(req.Verb)
	}
	if vi < 0 || req.Verb == model.VerbWatch {
		return Response{Err: errUnserved(req)}
	}
	kind := req.Kind
	if kind == "" && req.Object != nil {
		kind = req.Object.GetKind()
	}
	p := sim.ProcFromContext(ctx)
	start := s.k.Now()
	rt := s.routeOf(req, kind, nil)
	if rt == nil {
		s.doUnrouted(p, req, vi, kind, start, &resp)
	} else {
		s.doRoute(p, req, vi, kind, rt, start, &resp)
	}
	return resp
}

// The request path (Do down to the store and the watch delivery it schedules) runs on the
// calling process's coroutine stack, which starts small and grows by copying whenever a call
// finds it too short: its frames are kept small so that the whole path fits in fewer
// doublings. Each function on it answers in the Response its caller passes in rather than
// returning one (88 bytes in every frame and a copy at every return), and what only a rare
// request needs (a route built on the stack, error messages, lists, subresources) is in
// functions of its own, kept out of the path's frames with go:noinline where the compiler
// would otherwise inline them.

// doUnrouted is Do for a request whose client keeps no more routes: its route is built in
// this frame.
//
//go:noinline
func (s *Server) doUnrouted(p *sim.Proc, req *Request, vi int, kind model.Kind, start vtime.Time, resp *Response) {
	var scratch route
	s.doRoute(p, req, vi, kind, s.routeOf(req, kind, &scratch), start, resp)
}

// doRoute is Do for a request of kind whose route is rt, from start.
func (s *Server) doRoute(p *sim.Proc, req *Request, vi int, kind model.Kind, rt *route, start vtime.Time, resp *Response) {
	// The route is read before the request sleeps and written after it only when its
	// counters are new: by then other processes have run, and the client's route is cold.
	counts := rt.counts
	s.do(p, req, vi, rt, resp)
	if s.onWrite != nil && resp.Err == nil && isMutating(req.Verb) {
		s.onWrite(req)
	}
	if c := s.stats.observeIn(counts, kind, vi, resp.Err, s.k.Now().Sub(start)); c != counts {
		rt.counts = c
	}
}

// errUnserved is Do's answer to a request it does not serve: none, or one of a verb it does
// not know or a watch.
func errUnserved(req *Request) error {
	if req == nil {
		return apierrors.NewBadRequest("nil request")
	}
	return apierrors.NewBadRequest(fmt.Sprintf("unsupported verb %q for Do (watches use Server.Watch)", req.Verb))
}

// do passes the request through the fault hooks and the filter and executes it, answering
// in resp.
func (s *Server) do(p *sim.Proc, req *Request, vi int, rt *route, resp *Response) {
	if len(s.faults) > 0 {
		if err := s.intercept(p, req); err != nil {
			*resp = Response{Err: err}
			return
		}
	}
	if s.apf != nil {
		s.apf.serve(p, req, vi, rt, resp)
		return
	}
	mutating := isMutating(req.Verb)
	if !s.acquire(mutating) {
		*resp = Response{Err: apierrors.NewTooManyRequests(tooManyRequestsMsg, s.retryAfter)}
		return
	}
	defer s.release(mutating)
	s.execute(p, req, vi, rt.ks, resp)
}

// execute is what a request does once admitted: the verb's service time, the store, and a
// list's per-item cost, answering in resp. ks is its route's kind store (Server.serve), read
// before the request slept (Do).
func (s *Server) execute(p *sim.Proc, req *Request, vi int, ks *kindStore, resp *Response) {
	if d := s.serviceTime[vi].Sample(s.rand); d > 0 {
		p.Sleep(d)
	}
	s.serve(req, ks, resp)
	if req.Verb == model.VerbList && s.cfg.ListItemCost > 0 && len(resp.Items) > 0 {
		p.Sleep(s.cfg.ListItemCost * time.Duration(len(resp.Items)))
	}
}

// intercept runs the fault hooks, sleeping their total extra latency; the first error wins.
func (s *Server) intercept(p *sim.Proc, req *Request) error {
	var extra time.Duration
	var failure error
	hooks := append([]Fault(nil), s.faults...) // a hook may remove itself
	for _, f := range hooks {
		d, err := f.Intercept(s.k.Now(), req)
		if d > 0 {
			extra += d
		}
		if err != nil {
			failure = err
			break
		}
	}
	if extra > 0 {
		p.Sleep(extra)
	}
	return failure
}

// acquire takes an in-flight slot, reporting false when the pool is full. A limit of zero
// or less means no limit, as upstream's filter is disabled at 0.
func (s *Server) acquire(mutating bool) bool {
	st := s.stats
	if mutating {
		if lim := s.cfg.MaxMutatingRequestsInflight; lim > 0 && st.inflightMutating >= lim {
			return false
		}
		st.inflightMutating++
		st.peakInflightMutating = max(st.peakInflightMutating, st.inflightMutating)
		return true
	}
	if lim := s.cfg.MaxRequestsInflight; lim > 0 && st.inflightReadonly >= lim {
		return false
	}
	st.inflightReadonly++
	st.peakInflightReadonly = max(st.peakInflightReadonly, st.inflightReadonly)
	return true
}

func (s *Server) release(mutating bool) {
	if mutating {
		s.stats.inflightMutating--
	} else {
		s.stats.inflightReadonly--
	}
}

// resourceName is the plural resource of a kind for statistics (the kind itself when the
// server does not serve it).
func (s *Server) resourceName(kind model.Kind) string { return s.store.resourceName(kind) }

// resourceName is Server.resourceName.
func (s *Store) resourceName(kind model.Kind) string {
	if ks := s.kinds[kind]; ks != nil {
		return ks.info.Resource
	}
	if info, ok := model.LookupKind(kind); ok {
		return info.Resource
	}
	return string(kind)
}

// serve performs the store operation of a request, answering in resp. ks is the store of the
// request's kind when its route found it (nil: the store looks the kind up by name): it is the
// store of the body's kind too, since checkBody holds the body's kind to the request's.
func (s *Server) serve(req *Request, ks *kindStore, resp *Response) {
	st := s.store
	status := false
	switch req.Subresource {
	case "":
	case "status":
		if err := s.checkStatusRequest(req); err != nil {
			*resp = Response{Err: err}
			return
		}
		status = true
	default:
		s.serveSubresource(req, resp)
		return
	}
	var (
		obj model.Object
		err error
	)
	switch req.Verb {
	case model.VerbGet:
		if ks != nil {
			obj, err = ks.get(req.Namespace, req.Name)
		} else {
			obj, err = st.Get(req.Kind, req.Namespace, req.Name)
		}
	case model.VerbList:
		s.serveList(req, resp)
		return
	case model.VerbCreate:
		if err = checkBody(req, false); err != nil {
			break
		}
		if ks != nil {
			obj, err = st.create(ks, req.Object)
		} else {
			obj, err = st.Create(req.Object)
		}
	case model.VerbUpdate:
		if err = checkBody(req, true); err != nil {
			break
		}
		switch {
		case ks != nil && status:
			obj, err = st.update(ks, req.Object, true, "update-status")
		case ks != nil:
			obj, err = st.update(ks, req.Object, false, "update")
		case status:
			obj, err = st.UpdateStatus(req.Object)
		default:
			obj, err = st.Update(req.Object)
		}
	case model.VerbPatch:
		if status {
			obj, err = st.PatchStatus(req.Kind, req.Namespace, req.Name, req.Patch)
		} else {
			obj, err = st.PatchAs(req.Kind, req.Namespace, req.Name, req.PatchType, req.Patch)
		}
	case model.VerbDelete:
		obj, err = st.Delete(req.Kind, req.Namespace, req.Name, req.Delete)
	}
	if err != nil {
		*resp = Response{Err: err}
		return
	}
	*resp = Response{Object: obj, ResourceVersion: obj.Meta().ResourceVersion}
}

// checkStatusRequest refuses a request on the status subresource that it does not serve: a
// verb other than get, update and patch, or a kind without status.
//
//go:noinline
func (s *Server) checkStatusRequest(req *Request) error {
	switch req.Verb {
	case model.VerbGet, model.VerbUpdate, model.VerbPatch:
	default:
		return apierrors.NewMethodNotSupported(schema.GroupResource{Resource: s.resourceName(req.Kind) + "/status"}, string(req.Verb))
	}
	if info, ok := model.LookupKind(req.Kind); ok && !info.HasStatus {
		return errUnknownResource(req.Kind)
	}
	return nil
}

// serveSubresource serves a request on a subresource other than status, answering in resp.
//
//go:noinline
func (s *Server) serveSubresource(req *Request, resp *Response) {
	switch req.Subresource {
	case SubresourceEviction:
		*resp = s.serveEviction(req)
	case SubresourceScale:
		*resp = s.serveScale(req)
	default:
		*resp = Response{Err: errUnknownResource(req.Kind)}
	}
}

// serveList serves a list, answering in resp.
//
//go:noinline
func (s *Server) serveList(req *Request, resp *Response) {
	opts := req.List
	if opts.Namespace == "" {
		opts.Namespace = req.Namespace
	}
	items, keys, rv, err := s.store.ListKeyed(req.Kind, opts)
	*resp = Response{Items: items, Keys: keys, ResourceVersion: rv, Err: err}
}

// checkBody checks a create or update body against the request's address, as the REST
// handlers do, filling in the namespace when only the request has one.
func checkBody(req *Request, update bool) error {
	if req.Object == nil || req.Object.GetKind() != req.Kind && req.Kind != "" {
		return badBody(req)
	}
	meta := req.Object.Meta()
	if req.Namespace != "" {
		switch meta.Namespace {
		case "":
			meta.Namespace = req.Namespace
		case req.Namespace:
		default:
			return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
		}
	}
	if update && req.Name != "" && meta.Name != req.Name {
		return badName(req, meta.Name)
	}
	return nil
}

// badBody is checkBody's answer to a request without an object or with one of another kind.
func badBody(req *Request) error {
	if req.Object == nil {
		return apierrors.NewBadRequest(fmt.Sprintf("%s needs an object", req.Verb))
	}
	return apierrors.NewBadRequest(fmt.Sprintf("the object's kind %s does not match the request's kind %s", req.Object.GetKind(), req.Kind))
}

// badName is checkBody's answer to an update whose object is not the one the request names.
func badName(req *Request, name string) error {
	return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", name, req.Name))
}

// Watch opens a watch for a client from inside a simulated process: the fault hooks run as
// for Do, the process sleeps the watch service time (establishing the watch), then
// Store.WatchAs registers it. Watches are long-running requests: they take no in-flight slot.
// Errors are Store.WatchAs's and the faults'.
func (s *Server) Watch(ctx context.Context, client string, kind model.Kind, opts model.ListOptions, fromRV uint64, sink WatchSink) (*Watch, error) {
	p := sim.ProcFromContext(ctx)
	vi := verbIndex(model.VerbWatch)
	start := s.k.Now()
	w, err := s.watch(p, client, kind, opts, fromRV, sink, vi)
	s.stats.observe(kind, vi, err, s.k.Now().Sub(start))
	return w, err
}

func (s *Server) watch(p *sim.Proc, client string, kind model.Kind, opts model.ListOptions, fromRV uint64, sink WatchSink, vi int) (*Watch, error) {
	if len(s.faults) > 0 {
		req := &Request{Client: client, Verb: model.VerbWatch, Kind: kind, Namespace: opts.Namespace, List: opts}
		if err := s.intercept(p, req); err != nil {
			return nil, err
		}
	}
	if d := s.serviceTime[vi].Sample(s.rand); d > 0 {
		p.Sleep(d)
	}
	return s.store.WatchAs(client, kind, opts, fromRV, sink)
}

// serveEviction serves a create on pods/eviction (Store.Evict). The pod is named by the
// request, else by the eviction's metadata.
func (s *Server) serveEviction(req *Request) Response {
	if req.Kind != model.KindPod {
		return Response{Err: errUnknownResource(req.Kind)}
	}
	if req.Verb != model.VerbCreate {
		return Response{Err: apierrors.NewMethodNotSupported(schema.GroupResource{Resource: "pods/eviction"}, string(req.Verb))}
	}
	ev, ok := req.Object.(*model.Eviction)
	if !ok {
		return Response{Err: apierrors.NewBadRequest("pods/eviction needs an Eviction object")}
	}
	namespace, name := subresourceTarget(req, ev)
	obj, err := s.store.Evict(namespace, name, ev)
	if err != nil {
		return Response{Err: err}
	}
	return Response{Object: obj, ResourceVersion: obj.Meta().ResourceVersion}
}

// subresourceTarget is the object a subresource write (an eviction, a scale update) is about:
// the namespace and name of the request, each taken from the body's metadata when the request
// leaves it out.
func subresourceTarget(req *Request, body model.Object) (namespace, name string) {
	namespace, name = req.Namespace, req.Name
	if namespace == "" {
		namespace = body.Meta().Namespace
	}
	if name == "" {
		name = body.Meta().Name
	}
	return namespace, name
}

// serveScale serves a get or update on the scale subresource (Store.GetScale,
// Store.UpdateScale). An update's scale is named by the request, else by its metadata.
func (s *Server) serveScale(req *Request) Response {
	var (
		scale *model.Scale
		err   error
	)
	switch req.Verb {
	case model.VerbGet:
		scale, err = s.store.GetScale(req.Kind, req.Namespace, req.Name)
	case model.VerbUpdate:
		body, ok := req.Object.(*model.Scale)
		if !ok {
			return Response{Err: apierrors.NewBadRequest("the scale subresource needs a Scale object")}
		}
		namespace, name := subresourceTarget(req, body)
		scale, err = s.store.UpdateScale(req.Kind, namespace, name, body)
	default:
		return Response{Err: apierrors.NewMethodNotSupported(schema.GroupResource{Resource: s.resourceName(req.Kind) + "/scale"}, string(req.Verb))}
	}
	if err != nil {
		return Response{Err: err}
	}
	return Response{Object: scale, ResourceVersion: scale.ResourceVersion}
}
