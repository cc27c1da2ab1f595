package apiserver

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
)

// APFConfig configures API Priority and Fairness (kube-apiserver
// --enable-priority-and-fairness, [apiserver@v0.37] pkg/server/options/feature.go; GA in
// 1.29, KEP-1040). When Enabled, it replaces the max-in-flight filter: the server's
// concurrency limit is MaxRequestsInflight + MaxMutatingRequestsInflight seats, shared among
// the priority levels.
type APFConfig struct {
	Enabled bool
	// PriorityLevels and FlowSchemas are the configuration kube-apiserver's bootstrap
	// ensurer maintains. Nil: the bootstrap objects (model.BootstrapPriorityLevels,
	// model.BootstrapFlowSchemas). The stored FlowSchemas and PriorityLevelConfigurations
	// are layered on them (effectiveConfig), and the mandatory exempt and catch-all objects
	// are added when missing, as the config controller does.
	PriorityLevels []*model.PriorityLevelConfiguration
	FlowSchemas    []*model.FlowSchema
	// RequestTimeout is --request-timeout; a request waits in its queue at most a quarter of
	// it, and never more than a minute. Zero: 60s.
	RequestTimeout time.Duration
	// SizeBasedListCost is the SizeBasedListCostEstimate feature gate (on since 1.34): a
	// LIST costs a seat per 100 kB loaded instead of a seat per 100 objects.
	SizeBasedListCost bool
	// ObjectBytes is the average object size the size-based estimate uses (simulator knob).
	// Zero: DefaultAPFObjectBytes.
	ObjectBytes int
	// Users maps a client name to the identity it authenticates as. Nil: the client's name as
	// a user in system:authenticated.
	Users func(client string) UserInfo
}

// DefaultRequestTimeout is --request-timeout ([apiserver@v0.37] pkg/server/config.go
// NewConfig: RequestTimeout: time.Duration(60) * time.Second).
const DefaultRequestTimeout = 60 * time.Second

// The filter's constants.
const (
	// maxRequestWaitLimit caps the queue wait ([apiserver@v0.37]
	// pkg/server/filters/priority-and-fairness.go getRequestWaitContext: 1 minute).
	maxRequestWaitLimit = time.Minute
	// borrowingAdjustmentPeriod and seatDemandSmoothingCoefficient are apf_controller.go's.
	borrowingAdjustmentPeriod      = 10 * time.Second
	seatDemandSmoothingCoefficient = 0.977
	// priorityLevelMaxSeatsPercent is apf_controller.go's.
	priorityLevelMaxSeatsPercent = 0.15
	// maxRetryAfter is dropped_requests_tracker.go's.
	maxRetryAfter = 32
)

// Validate reports the first unusable field.
func (c APFConfig) Validate() error {
	if c.RequestTimeout < 0 {
		return fmt.Errorf("request timeout must not be negative, got %s", c.RequestTimeout)
	}
	if c.ObjectBytes < 0 {
		return fmt.Errorf("object bytes must not be negative, got %d", c.ObjectBytes)
	}
	if len(c.PriorityLevels) > maxAPFObjects || len(c.FlowSchemas) > maxAPFObjects {
		return fmt.Errorf("at most %d priority levels and %d flow schemas", maxAPFObjects, maxAPFObjects)
	}
	for _, pl := range c.PriorityLevels {
		if errs := model.Validate(pl); len(errs) > 0 {
			return fmt.Errorf("PriorityLevelConfiguration %s: %v", pl.Name, errs.ToAggregate())
		}
	}
	for _, fs := range c.FlowSchemas {
		if errs := model.Validate(fs); len(errs) > 0 {
			return fmt.Errorf("FlowSchema %s: %v", fs.Name, errs.ToAggregate())
		}
	}
	return nil
}

// maxAPFObjects bounds the configuration objects (a sanity limit, not upstream's): the
// configuration given in APFConfig, and the stored FlowSchemas and
// PriorityLevelConfigurations the config controller digests (past it, the first
// maxAPFObjects by name).
const maxAPFObjects = 1000

// apf is the priority-and-fairness filter and its config controller
// ([apiserver@v0.37] pkg/util/flowcontrol/apf_controller.go configController).
type apf struct {
	srv       *Server
	k         *sim.Kernel
	cfg       APFConfig
	serverCL  int
	waitLimit time.Duration

	levels  []*priorityLevel // configuration order
	byName  map[string]*priorityLevel
	schemas []*model.FlowSchema // matching order
	classes map[classKey]*classification
	// gen counts the digests: a client's first classifications, kept in its Caller's routes
	// in front of classes (found with no hashing, by a scan), are valid while their
	// generation (route.cgen) is gen.
	gen uint64
	// nominalCLSum is the sum of the levels' nominal limits, the pool borrowing divides.
	nominalCLSum int
	borrowTimer  *sim.Timer

	// resync is the config controller's next digest of the stored objects, armed by a
	// write of a FlowSchema or PriorityLevelConfiguration (configChanged); resyncRand draws
	// the informer's delay, created at the first such write.
	resync     *sim.Timer
	resyncRand *rand.Rand
	// digestedStored is whether the last digest saw stored configuration objects.
	digestedStored bool
	// draining are levels a reconfiguration removed or replaced that still hold requests
	// (upstream's quiescing priority levels): their requests finish under the old
	// configuration, and new requests go to the new one.
	draining []*priorityLevel
}

// priorityLevel is apf_controller.go's priorityLevelState.
type priorityLevel struct {
	a         *apf
	pl        *model.PriorityLevelConfiguration
	name      string
	exempt    bool
	nominalCL int
	minCL     int
	maxCL     int
	currentCL int
	maxSeats  int
	qs        *queueSet

	demand      integrator
	demandStats seatDemandStats
	retry       droppedRequests

	// stats are shared by the levels of one name across reconfigurations, so the counters
	// of a replaced level go on.
	stats *APFLevelStats
}

type classKey struct {
	client    string
	kind      model.Kind
	sub       string
	verb      model.Verb
	namespace string
}

// classification is where a flow's requests go. What each of them reads (the level, the
// flow's hash and a hand of up to 7 cards) is in the first 64 bytes, the cache line an
// allocation of this size starts: a client's classification is cold at its next request.
type classification struct {
	pl   *priorityLevel
	hash uint64
	// dealt is the flow's hand of its level's queues (queueSet.shuffleShard).
	dealt dealtHand
	fs    string
	// The padding makes a classification 128 bytes, a size class whose allocations start
	// on a cache line (112 bytes would not).
	_ [16]byte
}

func newAPF(s *Server, cfg APFConfig) (*apf, error) {
	serverCL := s.cfg.MaxRequestsInflight + s.cfg.MaxMutatingRequestsInflight
	if serverCL <= 0 {
		// feature.go ApplyTo: the two limits must sum to more than 0.
		return nil, errors.New("max-requests-inflight plus max-mutating-requests-inflight must be positive with priority and fairness")
	}
	a := &apf{srv: s, k: s.k, cfg: cfg, serverCL: serverCL, byName: map[string]*priorityLevel{}, classes: map[classKey]*classification{}}
	timeout := cfg.RequestTimeout
	if timeout == 0 {
		timeout = DefaultRequestTimeout
	}
	// getRequestWaitContext: a quarter of the request's deadline, at most a minute.
	a.waitLimit = min(timeout/4, maxRequestWaitLimit)
	a.digest(a.effectiveConfig())
	a.borrowTimer = a.k.Every(borrowingAdjustmentPeriod, a.updateBorrowing)
	a.resync = a.k.NewTimer(a.sync)
	s.store.onAPFConfig = a.configChanged
	return a, nil
}

// baseConfig is the configuration kube-apiserver's bootstrap ensurer maintains: APFConfig's
// objects, or the bootstrap ones.
func (a *apf) baseConfig() ([]*model.PriorityLevelConfiguration, []*model.FlowSchema) {
	pls, fss := a.cfg.PriorityLevels, a.cfg.FlowSchemas
	if pls == nil {
		pls = model.BootstrapPriorityLevels()
	}
	if fss == nil {
		fss = model.BootstrapFlowSchemas()
	}
	return pls, fss
}

// effectiveConfig is what the config controller's informers hold once the bootstrap ensurer
// ([k8s] pkg/registry/flowcontrol/rest/storage_flowcontrol.go ensure, which runs at start and
// every minute, and pkg/registry/flowcontrol/ensurer/strategy.go) has acted on the stored
// objects: the base objects (baseConfig) stand in for the bootstrap objects upstream stores,
// and a stored object of the same name takes a base object's place unless it is mandatory
// (exempt, catch-all: always reset) or the ensurer would reset its spec; a stored object of
// another name is used unless the ensurer deletes it (model.APFEnsurerKeeps). Here the
// ensurer's effect is immediate, where upstream it may come up to a minute after a write; the
// stored objects are not rewritten. With no stored object the result is the base
// configuration itself.
func (a *apf) effectiveConfig() ([]*model.PriorityLevelConfiguration, []*model.FlowSchema) {
	basePL, baseFS := a.baseConfig()
	return ensured(basePL, storedAPF[*model.PriorityLevelConfiguration](a.srv.store, model.KindPriorityLevelConfiguration)),
		ensured(baseFS, storedAPF[*model.FlowSchema](a.srv.store, model.KindFlowSchema))
}

// storedAPF lists the stored objects of kind, sorted by name, at most maxAPFObjects.
func storedAPF[T model.Object](s *Store, kind model.Kind) []T {
	objs, _, err := s.List(kind, model.ListOptions{})
	if err != nil {
		return nil
	}
	out := make([]T, 0, min(len(objs), maxAPFObjects))
	for _, o := range objs[:min(len(objs), maxAPFObjects)] {
		out = append(out, o.(T))
	}
	return out
}

// ensured is effectiveConfig for one kind: base in its order, each entry replaced by the
// stored object of its name when the ensurer leaves that one alone, then the other stored
// objects the ensurer keeps, by name.
func ensured[T model.Object](base, stored []T) []T {
	if len(stored) == 0 {
		return base
	}
	byName := make(map[string]T, len(stored))
	for _, s := range stored {
		byName[s.Meta().Name] = s
	}
	inBase := make(map[string]bool, len(base))
	out := make([]T, 0, len(base)+len(stored))
	for _, b := range base {
		name := b.Meta().Name
		inBase[name] = true
		if s, ok := byName[name]; ok && model.APFEnsurerKeeps(s.Meta(), true) {
			out = append(out, s)
			continue
		}
		out = append(out, b)
	}
	for _, s := range stored {
		if m := s.Meta(); !inBase[m.Name] && model.APFEnsurerKeeps(m, false) {
			out = append(out, s)
		}
	}
	return out
}

// configChanged is the config controller's informers seeing a write of a FlowSchema or
// PriorityLevelConfiguration: a digest follows after the watch delay (the informer's), once
// for every write before it.
func (a *apf) configChanged() {
	if _, armed := a.resync.When(); armed {
		return
	}
	if a.resyncRand == nil {
		a.resyncRand = a.k.Rand(component + "/apf-config-controller")
	}
	a.resync.Reset(a.srv.cfg.Store.WatchDelay.Sample(a.resyncRand))
}

// sync is the config controller's syncOne: digest the stored objects now. While no
// FlowSchema or PriorityLevelConfiguration is stored, or has been, the configuration is the
// base one newAPF digested, and nothing is done.
func (a *apf) sync() {
	a.resync.Stop()
	stored := a.srv.store.Count(model.KindFlowSchema)+a.srv.store.Count(model.KindPriorityLevelConfiguration) > 0
	if !stored && !a.digestedStored {
		return
	}
	a.digestedStored = stored
	a.digest(a.effectiveConfig())
}

// SyncAPFConfig makes API Priority and Fairness digest the stored FlowSchemas and
// PriorityLevelConfigurations now, as the config controller's first sync does before the
// server serves (its informers' initial list). The simulator calls it once the scenario's
// objects are stored at time 0, so that those are the configuration the dispatcher starts
// with. Nothing happens when API Priority and Fairness is off.
func (s *Server) SyncAPFConfig() {
	if s.apf != nil {
		s.apf.sync()
	}
}

// digest is lockAndDigestConfigObjects: levels from the objects (the mandatory ones
// imagined when missing), flow schemas sorted by precedence then name with the mandatory ones
// added, and the limits of finishQueueSetReconfigsLocked. A level whose name and spec are
// unchanged keeps its state (queues, requests, seat demand, borrowed seats); a new or changed
// level starts afresh, and the level it replaces, or one no longer configured, drains: its
// queued and executing requests finish under its old limit (upstream keeps one queue set per
// name and reconfigures it; the old limit stays until the level is empty), and new requests
// go to the new configuration.
func (a *apf) digest(pls []*model.PriorityLevelConfiguration, fss []*model.FlowSchema) {
	boot := model.BootstrapPriorityLevels()
	have := map[string]bool{}
	var all []*model.PriorityLevelConfiguration
	for _, pl := range pls {
		if have[pl.Name] {
			continue
		}
		have[pl.Name] = true
		all = append(all, pl)
	}
	for _, pl := range boot[:2] { // exempt, catch-all
		if !have[pl.Name] {
			all = append(all, pl)
		}
	}
	shareSum := 0.0
	for _, pl := range all {
		shareSum += float64(shares(pl))
	}
	old := a.byName
	a.levels, a.byName, a.nominalCLSum = nil, map[string]*priorityLevel{}, 0
	for _, pl := range all {
		prev := old[pl.Name]
		delete(old, pl.Name)
		kept := prev != nil && equality.Semantic.DeepEqual(prev.pl.Spec, pl.Spec)
		l := prev
		if !kept {
			l = &priorityLevel{a: a, pl: pl, name: pl.Name, exempt: pl.Spec.Type == model.PriorityLevelEnablementExempt}
			if prev != nil {
				l.stats = prev.stats
				a.retire(prev)
			} else {
				l.stats = &APFLevelStats{Name: pl.Name}
			}
		}
		s := shares(pl)
		// finishQueueSetReconfigsLocked
		l.nominalCL = int(math.Ceil(float64(a.serverCL) * float64(s) / shareSum))
		lendable, borrowing := limits(pl)
		lendableCL, borrowingCL := 0, a.serverCL
		if lendable != nil {
			lendableCL = int(math.Round(float64(l.nominalCL) * float64(*lendable) / 100))
		}
		if borrowing != nil {
			borrowingCL = int(math.Round(float64(l.nominalCL) * float64(*borrowing) / 100))
		}
		l.minCL = l.nominalCL - lendableCL
		l.maxCL = l.nominalCL + borrowingCL
		handSize := 0
		if !l.exempt && pl.Spec.Limited.LimitResponse.Queuing != nil {
			handSize = int(pl.Spec.Limited.LimitResponse.Queuing.HandSize)
			l.maxSeats = int(math.Max(1, math.Min(math.Ceil(float64(l.nominalCL)*priorityLevelMaxSeatsPercent), float64(l.nominalCL/handSize))))
		}
		if kept {
			// A kept level keeps its borrowed limit within its new bounds until the next
			// borrowing adjustment.
			l.currentCL = max(l.minCL, min(l.maxCL, l.currentCL))
			l.qs.setConcurrencyLimit(l.currentCL)
		} else {
			l.currentCL = l.nominalCL - lendableCL/2
			numQueues, qll := 0, 0
			switch {
			case l.exempt:
				numQueues = -1
			case pl.Spec.Limited.LimitResponse.Queuing != nil:
				q := pl.Spec.Limited.LimitResponse.Queuing
				numQueues, qll = int(q.Queues), int(q.QueueLengthLimit)
			}
			l.demand.reset(a.k.Now(), 0)
			l.qs = newQueueSet(a.k, numQueues, handSize, qll, func(v float64) { l.demand.set(a.k.Now(), v) })
			l.qs.concurrencyLimit = l.currentCL
			l.retry.retryAfter = 1
		}
		a.nominalCLSum += l.nominalCL
		a.levels = append(a.levels, l)
		a.byName[l.name] = l
	}
	for _, l := range old { //detlint:ordered retire only appends to a list that is sorted below
		a.retire(l)
	}
	slices.SortStableFunc(a.draining, func(x, y *priorityLevel) int { return strings.Compare(x.name, y.name) })
	// digestFlowSchemasLocked: schemas naming a missing level are ignored.
	var seq []*model.FlowSchema
	haveFS := map[string]bool{}
	for _, fs := range fss {
		if a.byName[fs.Spec.PriorityLevelConfiguration.Name] == nil || haveFS[fs.Name] {
			continue
		}
		haveFS[fs.Name] = true
		seq = append(seq, fs)
	}
	// apihelpers.FlowSchemaSequence.Less: by matchingPrecedence, then name.
	sort.SliceStable(seq, func(i, j int) bool {
		if seq[i].Spec.MatchingPrecedence != seq[j].Spec.MatchingPrecedence {
			return seq[i].Spec.MatchingPrecedence < seq[j].Spec.MatchingPrecedence
		}
		return seq[i].Name < seq[j].Name
	})
	bootFS := model.BootstrapFlowSchemas()
	if !haveFS["exempt"] {
		seq = append([]*model.FlowSchema{bootFS[0]}, seq...)
	}
	if !haveFS["catch-all"] {
		seq = append(seq, bootFS[len(bootFS)-1])
	}
	a.schemas = seq
	clear(a.classes)
	a.gen++ // every Caller's classifications are stale
	a.dropDrained()
}

// retire moves a level out of the configuration: it drains if it still holds requests.
func (a *apf) retire(l *priorityLevel) {
	if l.qs.totRequestsWaiting > 0 || l.qs.totRequestsExecuting > 0 || l.qs.totSeatsInUse > 0 {
		a.draining = append(a.draining, l)
	}
}

// dropDrained forgets draining levels that have emptied.
func (a *apf) dropDrained() {
	a.draining = slices.DeleteFunc(a.draining, func(l *priorityLevel) bool {
		return l.qs.totRequestsWaiting == 0 && l.qs.totRequestsExecuting == 0 && l.qs.totSeatsInUse == 0
	})
}

func shares(pl *model.PriorityLevelConfiguration) int32 {
	var p *int32
	if pl.Spec.Limited != nil {
		p = pl.Spec.Limited.NominalConcurrencyShares
	} else if pl.Spec.Exempt != nil {
		p = pl.Spec.Exempt.NominalConcurrencyShares
	}
	if p == nil {
		// v1 defaulting: nominalConcurrencyShares 30 for limited levels, 0 for exempt.
		if pl.Spec.Limited != nil {
			return 30
		}
		return 0
	}
	return *p
}

// limits is plSpecCommons's lendablePercent and borrowingLimitPercent (exempt levels have no
// borrowing limit).
func limits(pl *model.PriorityLevelConfiguration) (lendable, borrowing *int32) {
	if pl.Spec.Limited != nil {
		return pl.Spec.Limited.LendablePercent, pl.Spec.Limited.BorrowingLimitPercent
	}
	if pl.Spec.Exempt != nil {
		return pl.Spec.Exempt.LendablePercent, nil
	}
	return nil, nil
}

// serve runs a request through the filter (WithPriorityAndFairness): classify, estimate,
// queue or reject, and execute holding the seats.
func (a *apf) serve(p *sim.Proc, req *Request, vi int, rt *route, resp *Response) {
	c := a.classifyRoute(req, rt)
	l := c.pl
	routeKS := rt.ks  // read before the request waits (Server.Do)
	var ks *kindStore // the store of req.Kind, which the route's kind is when req names one
	if rt.kind == req.Kind {
		ks = routeKS
	}
	est := a.estimateWork(req, l.maxSeats, ks)
	r, reason := l.qs.startRequest(p, est, c.hash, &c.dealt)
	if r == nil {
		a.reject(l, reason, resp)
		return
	}
	if r.decision == 0 {
		r.timeout.Reset(a.waitLimit)
		a.wait(p, r)
		if r.decision == decisionReject {
			l.stats.WaitSum += a.k.Now().Sub(r.arrival)
			a.reject(l, rejectTimeOut, resp)
			return
		}
	}
	wait := r.start.Sub(r.arrival)
	l.stats.Dispatched++
	l.stats.WaitSum += wait
	l.stats.WaitMax = max(l.stats.WaitMax, wait)
	// The in-flight gauges keep counting executing requests (upstream's APF filter updates
	// apiserver_current_inflight_requests by read-only and mutating too), with no limit.
	st := a.srv.stats
	mutating := isMutating(req.Verb)
	if mutating {
		st.inflightMutating++
		st.peakInflightMutating = max(st.peakInflightMutating, st.inflightMutating)
	} else {
		st.inflightReadonly++
		st.peakInflightReadonly = max(st.peakInflightReadonly, st.inflightReadonly)
	}
	defer func() {
		a.srv.release(mutating)
		l.qs.finish(r)
	}()
	a.srv.execute(p, req, vi, routeKS, resp)
}

// wait parks the process until its request is dispatched or times out; a process killed while
// waiting leaves its queue.
func (a *apf) wait(p *sim.Proc, r *apfRequest) {
	done := false
	defer func() {
		if !done && r.decision == 0 {
			r.timeout.Stop()
			r.qs.timeOut(r)
		}
	}()
	for r.decision == 0 {
		p.Park()
	}
	done = true
}

// reject answers 429 with the level's Retry-After in resp (tooManyRequests in
// pkg/server/filters/priority-and-fairness.go; the delay from dropped_requests_tracker.go).
//
//go:noinline
func (a *apf) reject(l *priorityLevel, reason string, resp *Response) {
	switch reason {
	case rejectQueueFull:
		l.stats.RejectedQueueFull++
	case rejectTimeOut:
		l.stats.RejectedTimeOut++
	default:
		l.stats.RejectedConcurrencyLimit++
	}
	now := int64(a.k.Now().Sub(0) / time.Second)
	l.retry.record(now)
	*resp = Response{Err: apierrors.NewTooManyRequests(tooManyRequestsMsg, int(l.retry.retryAfter))}
}

// classify is startRequest's matching: the first flow schema (in matching order) whose rules
// match the request names the level; the flow is the schema plus its distinguisher
// (computeFlowDistinguisher) hashed with hashFlowID when the level has more than one queue.
// Results are cached per client, kind, subresource, verb and namespace: in the client's
// routes, and in a map for the rest.
func (a *apf) classify(req *Request) *classification {
	kind := req.Kind
	if kind == "" && req.Object != nil {
		kind = req.Object.GetKind()
	}
	var scratch route
	return a.classifyRoute(req, a.srv.routeOf(req, kind, &scratch))
}

// classifyRoute is classify for a request whose route is rt.
// The route's classification is used only under the configuration that made it: a request
// may sleep between finding its route and its classification (a fault's extra latency), and
// a digest meanwhile makes every kept classification stale.
func (a *apf) classifyRoute(req *Request, rt *route) *classification {
	if rt.c != nil && rt.cgen == a.gen {
		return rt.c
	}
	return a.classifyStale(req, rt)
}

// classifyStale is classifyRoute for a route without a classification under the current
// configuration: found in the cache by client, kind, subresource, verb and namespace, or
// made. Its key (five strings) stays out of the request path's frames (Server.Do).
//
//go:noinline
func (a *apf) classifyStale(req *Request, rt *route) *classification {
	key := classKey{client: req.Client, kind: rt.kind, sub: rt.sub, verb: rt.verb, namespace: rt.namespace}
	c := a.classes[key]
	if c == nil {
		c = a.classifyAnew(req, rt.kind)
		if len(a.classes) < maxClassCache {
			a.classes[key] = c
		}
	}
	rt.c, rt.cgen = c, a.gen
	return c
}

// classifyAnew is classify's matching without the caches.
func (a *apf) classifyAnew(req *Request, kind model.Kind) *classification {
	ns := a.requestNamespace(kind, req)
	user := a.user(req.Client)
	group, resource := a.groupResource(kind)
	if req.Subresource != "" {
		resource += "/" + req.Subresource
	}
	var chosen *model.FlowSchema
	for _, fs := range a.schemas {
		if matchesFlowSchema(fs, user, string(req.Verb), group, resource, ns) {
			chosen = fs
			break
		}
	}
	if chosen == nil {
		chosen = a.schemas[len(a.schemas)-1]
	}
	l := a.byName[chosen.Spec.PriorityLevelConfiguration.Name]
	c := &classification{fs: chosen.Name, pl: l}
	if l.qs.numQueues > 1 {
		dist := ""
		if dm := chosen.Spec.DistinguisherMethod; dm != nil {
			switch dm.Type {
			case model.FlowDistinguisherMethodByUserType:
				dist = user.Name
			case model.FlowDistinguisherMethodByNamespaceType:
				dist = ns
			}
		}
		c.hash = hashFlowID(chosen.Name, dist)
	}
	return c
}

// maxClassCache bounds the classification cache (a simulator limit).
const maxClassCache = 1 << 16

// hashFlowID is apf_controller.go hashFlowID: the first 8 bytes, little-endian, of
// SHA-256(fsName, 0, distinguisher).
func hashFlowID(fsName, distinguisher string) uint64 {
	h := sha256.New()
	h.Write([]byte(fsName))
	h.Write([]byte{0})
	h.Write([]byte(distinguisher))
	var sum [32]byte
	return binary.LittleEndian.Uint64(h.Sum(sum[:0])[:8])
}

func (a *apf) user(client string) UserInfo {
	if a.cfg.Users != nil {
		return a.cfg.Users(client)
	}
	return UserInfo{Name: client, Groups: []string{GroupAuthenticated}}
}

// rawNamespace is the namespace a request names, before the kind says whether it has one:
// what the classification cache is keyed by (requestNamespace is a function of it and the
// kind).
func rawNamespace(req *Request) string {
	if req.Verb == model.VerbList {
		if req.List.Namespace != "" {
			return req.List.Namespace
		}
		return req.Namespace
	}
	if req.Namespace != "" || req.Object == nil {
		return req.Namespace
	}
	return req.Object.Meta().Namespace
}

// requestNamespace is RequestInfo.Namespace: "" for cluster-scoped kinds and for lists and
// watches across all namespaces.
func (a *apf) requestNamespace(kind model.Kind, req *Request) string {
	info, ok := a.kindInfo(kind)
	if ok && !info.Namespaced {
		return ""
	}
	return rawNamespace(req)
}

func (a *apf) kindInfo(kind model.Kind) (model.KindInfo, bool) {
	if ks := a.srv.store.kinds[kind]; ks != nil {
		return ks.info, true
	}
	return model.LookupKind(kind)
}

func (a *apf) groupResource(kind model.Kind) (group, resource string) {
	info, ok := a.kindInfo(kind)
	if !ok {
		return "", strings.ToLower(string(kind))
	}
	if g, _, found := strings.Cut(info.APIVersion, "/"); found {
		group = g
	}
	return group, info.Resource
}

// matchesFlowSchema is apf_controller.go's matchesFlowSchema / matchesPolicyRule for a
// resource request.
func matchesFlowSchema(fs *model.FlowSchema, user UserInfo, verb, group, resource, ns string) bool {
	for _, rule := range fs.Spec.Rules {
		if !matchesSubjects(rule.Subjects, user) {
			continue
		}
		for _, rr := range rule.ResourceRules {
			if matchesResourceRule(rr, verb, group, resource, ns) {
				return true
			}
		}
	}
	return false
}

func matchesSubjects(subjects []model.Subject, user UserInfo) bool {
	for _, s := range subjects {
		switch s.Kind {
		case model.SubjectKindUser:
			if s.User != nil && (s.User.Name == model.NameAll || s.User.Name == user.Name) {
				return true
			}
		case model.SubjectKindGroup:
			if s.Group != nil && (s.Group.Name == model.NameAll || slices.Contains(user.Groups, s.Group.Name)) {
				return true
			}
		case model.SubjectKindServiceAccount:
			if sa := s.ServiceAccount; sa != nil {
				if sa.Name == model.NameAll {
					if strings.HasPrefix(user.Name, ServiceAccountUserPrefix+sa.Namespace+":") {
						return true
					}
				} else if user.Name == ServiceAccountUserPrefix+sa.Namespace+":"+sa.Name {
					return true
				}
			}
		}
	}
	return false
}

func matchesResourceRule(rr model.ResourcePolicyRule, verb, group, resource, ns string) bool {
	if !containsOrAll(rr.Verbs, verb, model.VerbAll) || !containsOrAll(rr.APIGroups, group, model.APIGroupAll) ||
		!containsOrAll(rr.Resources, resource, model.ResourceAll) {
		return false
	}
	if ns == "" {
		return rr.ClusterScope
	}
	return containsOrAll(rr.Namespaces, ns, model.NamespaceEvery)
}

func containsOrAll(list []string, v, all string) bool {
	for _, x := range list {
		if x == v || x == all {
			return true
		}
	}
	return false
}
