package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
)

// client-go defaults (rest/config.go DefaultQPS, DefaultBurst; rest/request.go NewRequest sets
// maxRetries to 10). Components set their own QPS and burst (kube-controller-manager 20/30,
// scheduler and kubelet 50/100); these apply only when a Config leaves them zero.
const (
	DefaultQPS        = 5.0
	DefaultBurst      = 10
	DefaultMaxRetries = 10
)

// The verbs a client sends (the server's names, repeated here so callers of this package
// need not import apiserver for them).
const (
	VerbGet    = model.VerbGet
	VerbList   = model.VerbList
	VerbWatch  = model.VerbWatch
	VerbCreate = model.VerbCreate
	VerbUpdate = model.VerbUpdate
	VerbPatch  = model.VerbPatch
	VerbDelete = model.VerbDelete
)

// verbs fixes the order in which per-verb counters are kept and reported.
var verbs = [...]model.Verb{VerbGet, VerbList, VerbWatch, VerbCreate, VerbUpdate, VerbPatch, VerbDelete}

// verbIndex returns v's position in verbs, or -1: a switch, which compares the length first,
// rather than a scan of string comparisons (every request counts its verb).
func verbIndex(v model.Verb) int {
	switch v {
	case VerbGet:
		return 0
	case VerbList:
		return 1
	case VerbWatch:
		return 2
	case VerbCreate:
		return 3
	case VerbUpdate:
		return 4
	case VerbPatch:
		return 5
	case VerbDelete:
		return 6
	}
	return -1
}

// Config is a client's rest.Config, reduced to what the simulator models.
type Config struct {
	// QPS is the steady request rate the client allows itself; 0 means DefaultQPS and a
	// negative value disables client-side throttling (rest.Config QPS).
	QPS float64
	// Burst is the token bucket size; 0 means DefaultBurst.
	Burst int
	// MaxRetries is how many times a request answered with Retry-After is retried; 0 means
	// DefaultMaxRetries and a negative value means never.
	MaxRetries int
}

// withDefaults fills zero fields with client-go's defaults.
func (c Config) withDefaults() Config {
	if c.QPS == 0 {
		c.QPS = DefaultQPS
	}
	if c.Burst == 0 {
		c.Burst = DefaultBurst
	}
	switch {
	case c.MaxRetries == 0:
		c.MaxRetries = DefaultMaxRetries
	case c.MaxRetries < 0:
		c.MaxRetries = 0
	}
	return c
}

// Stats are a client's request counters.
type Stats struct {
	Name string
	// Requests counts attempts sent to the server per verb, retries included, in the order
	// get, list, watch, create, update, patch, delete (see RequestsFor).
	Requests [len(verbs)]uint64
	// Retries counts attempts repeated after a Retry-After answer.
	Retries uint64
	// TooManyRequests counts 429 answers; Conflicts counts 409 Conflict answers; Errors counts
	// every failed final answer.
	TooManyRequests, Conflicts, Errors uint64
	// RetryAfterTotal is the summed time slept honouring Retry-After.
	RetryAfterTotal time.Duration
	// Throttle is the token bucket's record.
	Throttle ThrottleStats
}

// RequestsFor returns the attempt count for verb v.
func (s Stats) RequestsFor(v model.Verb) uint64 {
	if i := verbIndex(v); i >= 0 {
		return s.Requests[i]
	}
	return 0
}

// Client sends requests to the simulated API server on behalf of one component.
//
// A kubelet's client sends one request every few seconds, long after its memory left the
// processor's caches, so what every request reads or writes sits together at the start
// (TestClientHotFieldsShareThreeCacheLines): the server, the name and its record there, the
// request slot's flag, the per-verb counters, and the token bucket's limiter and wait count;
// then the client's own request, from a cache line's start, so that the fields a request
// fills take two lines.
type Client struct {
	// caller is the server's record of this client, sent with every request.
	caller *apiserver.Caller
	name   string
	srv    *apiserver.Server
	// ownBusy says own is in use (takeRequest).
	ownBusy bool
	// hasBucket says ownBucket was made: the token bucket is made at the first request
	// (throttle), and held in the client, one object less to find cold on every request.
	hasBucket bool
	// requests counts attempts per verb (Stats.Requests, which Stats fills from it).
	requests  [len(verbs)]uint64
	ownBucket TokenBucket
	cfg       Config
	// spare are requests whose calls have returned, for the calls made while own is in use
	// (several processes may share a client, each with a call in flight).
	spare sim.FreeList[apiserver.Request]
	// retries are Stats.Retries and RetryAfterTotal, nil until a request is first retried
	// (retried): apart, as a client of at most 512 bytes is allocated at a cache line's start
	// (larger objects start 8 bytes past one, after the allocator's header), and made only for
	// the clients that need them.
	retries *Stats
	// own is the request of a call when no other call of the client is in flight (ownBusy),
	// nearly always: held in the client, it is at hand with the client's other fields where a
	// spare one was a pointer chase away. The server keeps no request after Do returns.
	own apiserver.Request
	// errors, conflicts and tooManyRequests are Stats.Errors, Conflicts and TooManyRequests.
	errors, conflicts, tooManyRequests uint64
}

// New returns a client named name (the identity the server sees, as a user agent) with cfg's
// throttling and retries; zero Config fields take client-go's defaults.
func New(srv *apiserver.Server, name string, cfg Config) *Client {
	cfg = cfg.withDefaults()
	return &Client{
		srv:    srv,
		name:   name,
		caller: srv.Caller(name),
		cfg:    cfg,
	}
}

// Name returns the client's name.
func (c *Client) Name() string { return c.name }

// Config returns the client's configuration with defaults applied.
func (c *Client) Config() Config { return c.cfg }

// RateLimiter returns the client's token bucket, or nil before the first request.
func (c *Client) RateLimiter() *TokenBucket {
	if !c.hasBucket {
		return nil
	}
	return &c.ownBucket
}

// throttle waits on the token bucket, creating it at the first request from the kernel of the
// calling process. A bucket made then is as full as one made at construction would be, since
// a bucket never holds more than its burst.
func (c *Client) throttle(ctx context.Context, p *sim.Proc) {
	if !c.hasBucket {
		c.ownBucket.init(p.Kernel(), c.cfg.QPS, c.cfg.Burst)
		c.hasBucket = true
	}
	c.ownBucket.Wait(ctx)
}

// Stats returns the client's counters.
func (c *Client) Stats() Stats {
	s := Stats{Name: c.name, Requests: c.requests, Errors: c.errors, Conflicts: c.conflicts, TooManyRequests: c.tooManyRequests}
	if c.retries != nil {
		s.Retries, s.RetryAfterTotal = c.retries.Retries, c.retries.RetryAfterTotal
	}
	if c.hasBucket {
		s.Throttle = c.ownBucket.Stats()
	}
	return s
}

// do sends req through the token bucket and the retry loop of client-go rest.Request: throttle,
// send, and while the answer is a 429 or 5xx carrying Retry-After and retries remain, sleep
// Retry-After seconds, throttle again and resend. The request the server sees is the
// client's own one, or a spare one while another call of the client is in flight
// (takeRequest), filled from r (Server.Do keeps none after it returns).
func (c *Client) do(ctx context.Context, r apiserver.Request) apiserver.Response {
	req := c.takeRequest()
	*req = r
	return c.send(ctx, req)
}

// send is do for a request takeRequest returned, filled in by the caller (the hot calls fill
// it in place rather than copy a Request of 232 bytes into it); send gives it back.
func (c *Client) send(ctx context.Context, req *apiserver.Request) apiserver.Response {
	req.Client, req.Caller = c.name, c.caller
	defer c.putRequest(req)
	p := sim.ProcFromContext(ctx)
	c.throttle(ctx, p)
	for attempt := 1; ; attempt++ {
		c.count(req.Verb)
		resp := c.srv.Do(ctx, req)
		wait, retry := c.observe(resp.Err, attempt)
		if !retry {
			if resp.Err != nil {
				c.errors++
			}
			return resp
		}
		c.retried().Retries++
		c.retried().RetryAfterTotal += wait
		p.Sleep(wait)
		c.throttle(ctx, p)
	}
}

// takeRequest returns a request for a call to fill, cleared: the client's own one when it is
// free, else a spare one.
func (c *Client) takeRequest() *apiserver.Request {
	if !c.ownBusy {
		c.ownBusy = true
		return &c.own
	}
	if req := c.spare.Take(); req != nil {
		return req
	}
	return new(apiserver.Request)
}

// putRequest gives back a request takeRequest returned, cleared so that it keeps nothing of
// its call alive.
func (c *Client) putRequest(req *apiserver.Request) {
	*req = apiserver.Request{}
	if req == &c.own {
		c.ownBusy = false
		return
	}
	c.spare.Put(req)
}

// retried returns the client's retry counters (Retries, RetryAfterTotal), made at the first
// retry.
func (c *Client) retried() *Stats {
	if c.retries == nil {
		c.retries = new(Stats)
	}
	return c.retries
}

func (c *Client) count(v model.Verb) {
	if i := verbIndex(v); i >= 0 {
		c.requests[i]++
	}
}

// observe counts err and decides whether attempt number attempt should be retried, and after
// how long (client-go with_retry.go IsNextRetry and checkWait: a 429 or any 5xx with a
// Retry-After, for every verb, while attempts do not exceed maxRetries).
func (c *Client) observe(err error, attempt int) (time.Duration, bool) {
	if err == nil {
		return 0, false
	}
	if isConflict(err) {
		c.conflicts++
	}
	code := statusCode(err)
	if code == 429 {
		c.tooManyRequests++
	}
	if attempt > c.cfg.MaxRetries || (code != 429 && code < 500) {
		return 0, false
	}
	// The server sends a Retry-After header only for a positive delay; without one the
	// answer is final.
	seconds, ok := apierrors.SuggestsClientDelay(err)
	if !ok || seconds <= 0 {
		return 0, false
	}
	return time.Duration(seconds) * time.Second, true
}

// statusCode is the HTTP code of err's API status (0 when err carries none). The server's
// errors are API statuses themselves: the type assertion finds them without errors.As, whose
// target escapes (an allocation per failed request); errors.As, which would have found err
// itself first, still looks through wrapped errors.
func statusCode(err error) int32 {
	if status, ok := err.(apierrors.APIStatus); ok {
		return status.Status().Code
	}
	return wrappedStatusCode(err)
}

// isConflict is apierrors.IsConflict(err), without its allocation (its errors.As target
// escapes) for the server's errors, which are API statuses themselves: one with the Conflict
// reason is a conflict and one with neither that reason nor code 409 is not, whatever else
// IsConflict looks at; the rest (a 409 with another reason, wrapped errors) ask IsConflict.
func isConflict(err error) bool {
	if status, ok := err.(apierrors.APIStatus); ok {
		switch st := status.Status(); {
		case st.Reason == metav1.StatusReasonConflict:
			return true
		case st.Code != http.StatusConflict:
			return false
		}
	}
	return apierrors.IsConflict(err)
}

// wrappedStatusCode is statusCode of an error that is not an API status itself.
func wrappedStatusCode(err error) int32 {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return status.Status().Code
	}
	return 0
}

func copyOut(obj model.Object) model.Object {
	if obj == nil {
		return nil
	}
	return obj.DeepCopyObject()
}

// Get reads one object. It returns a private copy, or the server's error (NotFound etc.).
func (c *Client) Get(ctx context.Context, kind model.Kind, namespace, name string) (model.Object, error) {
	obj, err := c.GetShared(ctx, kind, namespace, name)
	if err != nil {
		return nil, err
	}
	return copyOut(obj), nil
}

// GetShared is Get without the copy: the request is the same (throttled, retried and served
// alike), but the object returned is the server's stored one, shared and immutable. The caller
// must not modify anything it reaches; one that needs to change the object copies what it
// changes first. It is for callers that mostly only read what they get, as the kubelet's node
// status check compares the Node and writes only when its status changed (informers' lists
// are shared the same way, see listShared).
func (c *Client) GetShared(ctx context.Context, kind model.Kind, namespace, name string) (model.Object, error) {
	req := c.takeRequest()
	req.Verb, req.Kind, req.Namespace, req.Name = VerbGet, kind, namespace, name
	resp := c.send(ctx, req)
	if resp.Err != nil {
		return nil, resp.Err
	}
	return resp.Object, nil
}

// List reads every object of kind that opts selects, sorted by key, with the list's
// resourceVersion. The objects are private copies.
func (c *Client) List(ctx context.Context, kind model.Kind, opts model.ListOptions) ([]model.Object, uint64, error) {
	items, _, rv, err := c.listShared(ctx, kind, opts)
	if err != nil {
		return nil, 0, err
	}
	out := make([]model.Object, len(items))
	for i, obj := range items {
		out[i] = obj.DeepCopyObject()
	}
	return out, rv, nil
}

// listShared is List without the copies, for informers, whose caches are read-only. keys
// are the items' keys (model.Key), shared and read-only too, or nil when the server gave
// none.
func (c *Client) listShared(ctx context.Context, kind model.Kind, opts model.ListOptions) (items []model.Object, keys []string, rv uint64, err error) {
	resp := c.do(ctx, apiserver.Request{Verb: VerbList, Kind: kind, Namespace: opts.Namespace, List: opts})
	if resp.Err != nil {
		return nil, nil, 0, resp.Err
	}
	if len(resp.Keys) != len(resp.Items) {
		return resp.Items, nil, resp.ResourceVersion, nil
	}
	return resp.Items, resp.Keys, resp.ResourceVersion, nil
}

// Create creates obj (a copy of it is sent) and returns a private copy of the stored object.
func (c *Client) Create(ctx context.Context, obj model.Object) (model.Object, error) {
	return c.write(ctx, VerbCreate, "", obj)
}

// Update replaces obj's main resource; a stale resourceVersion gives a Conflict error.
func (c *Client) Update(ctx context.Context, obj model.Object) (model.Object, error) {
	return c.write(ctx, VerbUpdate, "", obj)
}

// UpdateStatus replaces obj's status subresource; a stale resourceVersion gives a Conflict.
func (c *Client) UpdateStatus(ctx context.Context, obj model.Object) (model.Object, error) {
	return c.write(ctx, VerbUpdate, "status", obj)
}

// CreateShared, UpdateShared and UpdateStatusShared are Create, Update and UpdateStatus for a
// caller that hands obj over, in the spirit of GetShared: the caller must not touch obj (or
// anything it reaches) again, and gets back the server's stored object, shared and immutable.
// The request is the same; what they spare is the two deep copies, of the request and of the
// answer, that the plain methods make so that the caller may keep editing its object. They are
// for writers that build a fresh object for each write and only read the answer, as the
// kubelet's status manager and lease renewal do (docs/architecture.md, "Object ownership").
func (c *Client) CreateShared(ctx context.Context, obj model.Object) (model.Object, error) {
	return c.writeShared(ctx, VerbCreate, "", obj)
}

// UpdateShared is Update with obj handed over and the stored object returned (CreateShared).
func (c *Client) UpdateShared(ctx context.Context, obj model.Object) (model.Object, error) {
	return c.writeShared(ctx, VerbUpdate, "", obj)
}

// UpdateStatusShared is UpdateStatus with obj handed over and the stored object returned
// (CreateShared).
func (c *Client) UpdateStatusShared(ctx context.Context, obj model.Object) (model.Object, error) {
	return c.writeShared(ctx, VerbUpdate, "status", obj)
}

func (c *Client) write(ctx context.Context, verb model.Verb, subresource string, obj model.Object) (model.Object, error) {
	if obj == nil {
		return nil, fmt.Errorf("client %s: %s with a nil object", c.name, verb)
	}
	stored, err := c.writeShared(ctx, verb, subresource, obj.DeepCopyObject())
	if err != nil {
		return nil, err
	}
	return copyOut(stored), nil
}

// writeShared sends obj itself, which the server may keep, and returns the stored object.
func (c *Client) writeShared(ctx context.Context, verb model.Verb, subresource string, obj model.Object) (model.Object, error) {
	if obj == nil {
		return nil, fmt.Errorf("client %s: %s with a nil object", c.name, verb)
	}
	m := obj.Meta()
	req := c.takeRequest()
	req.Verb, req.Kind, req.Subresource = verb, obj.GetKind(), subresource
	req.Namespace, req.Name, req.Object = m.Namespace, m.Name, obj
	resp := c.send(ctx, req)
	if resp.Err != nil {
		return nil, resp.Err
	}
	return resp.Object, nil
}

// Patch applies patch (a JSON merge patch) to the named object and returns a private copy of
// the result.
func (c *Client) Patch(ctx context.Context, kind model.Kind, namespace, name string, patch []byte) (model.Object, error) {
	resp := c.do(ctx, apiserver.Request{
		Verb: VerbPatch, Kind: kind, Namespace: namespace, Name: name,
		Patch: append([]byte(nil), patch...),
	})
	if resp.Err != nil {
		return nil, resp.Err
	}
	return copyOut(resp.Object), nil
}

// PatchAs applies patch of type pt (JSON patch, merge patch or strategic merge patch, as
// `kubectl patch --type` sends) to the named object and returns a private copy of the result.
func (c *Client) PatchAs(ctx context.Context, kind model.Kind, namespace, name string, pt model.PatchType, patch []byte) (model.Object, error) {
	resp := c.do(ctx, apiserver.Request{
		Verb: VerbPatch, Kind: kind, Namespace: namespace, Name: name,
		Patch: append([]byte(nil), patch...), PatchType: pt,
	})
	if resp.Err != nil {
		return nil, resp.Err
	}
	return copyOut(resp.Object), nil
}

// PatchStatus is Patch on the status subresource.
func (c *Client) PatchStatus(ctx context.Context, kind model.Kind, namespace, name string, patch []byte) (model.Object, error) {
	resp := c.do(ctx, apiserver.Request{
		Verb: VerbPatch, Kind: kind, Subresource: "status", Namespace: namespace, Name: name,
		Patch: append([]byte(nil), patch...),
	})
	if resp.Err != nil {
		return nil, resp.Err
	}
	return copyOut(resp.Object), nil
}

// Delete deletes the named object with opts (grace period, propagation, preconditions).
func (c *Client) Delete(ctx context.Context, kind model.Kind, namespace, name string, opts model.DeleteOptions) error {
	return c.do(ctx, apiserver.Request{Verb: VerbDelete, Kind: kind, Namespace: namespace, Name: name, Delete: opts}).Err
}

// Watch opens a watch on kind from resourceVersion fromRV; events go to sink on the kernel.
// It is throttled and retried like any request; a fromRV older than the server's history gives
// a 410 Expired error.
func (c *Client) Watch(ctx context.Context, kind model.Kind, opts model.ListOptions, fromRV uint64, sink apiserver.WatchSink) (*apiserver.Watch, error) {
	p := sim.ProcFromContext(ctx)
	c.throttle(ctx, p)
	for attempt := 1; ; attempt++ {
		c.count(VerbWatch)
		w, err := c.srv.Watch(ctx, c.name, kind, opts, fromRV, sink)
		wait, retry := c.observe(err, attempt)
		if !retry {
			if err != nil {
				c.errors++
			}
			return w, err
		}
		c.retried().Retries++
		c.retried().RetryAfterTotal += wait
		p.Sleep(wait)
		c.throttle(ctx, p)
	}
}

// ServedKinds returns the kinds the API server serves now, built-in and from
// CustomResourceDefinitions (what discovery lists). Discovery is not modelled as a request:
// it costs no time and no rate-limit token.
func (c *Client) ServedKinds() []model.KindInfo { return c.srv.Store().ServedKinds() }

// OnServedKindsChanged registers fn to be called when the API server starts serving a new
// kind (a CustomResourceDefinition was created): what a discovery poll would find next.
func (c *Client) OnServedKindsChanged(fn func()) { c.srv.Store().OnKindsChanged(fn) }

// LookupKind returns how the API server serves kind (discovery and the REST mapper), for a
// built-in kind or one a CustomResourceDefinition defines.
func (c *Client) LookupKind(kind model.Kind) (model.KindInfo, bool) {
	return c.srv.Store().LookupKind(kind)
}
