package apiserver

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
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
	// PriorityLevels and FlowSchemas configure the filter. Nil: the bootstrap objects
	// (BootstrapPriorityLevels, BootstrapFlowSchemas). The mandatory exempt and catch-all
	// objects are added when missing, as the config controller does.
	PriorityLevels []*flowcontrolv1.PriorityLevelConfiguration
	FlowSchemas    []*flowcontrolv1.FlowSchema
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
		if errs := ValidatePriorityLevelConfiguration(pl); len(errs) > 0 {
			return fmt.Errorf("PriorityLevelConfiguration %s: %v", pl.Name, errs.ToAggregate())
		}
	}
	for _, fs := range c.FlowSchemas {
		if errs := ValidateFlowSchema(fs); len(errs) > 0 {
			return fmt.Errorf("FlowSchema %s: %v", fs.Name, errs.ToAggregate())
		}
	}
	return nil
}

// maxAPFObjects bounds the configuration objects (a sanity limit, not upstream's).
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
	schemas []*flowcontrolv1.FlowSchema // matching order
	classes map[classKey]*classification
	// nominalCLSum is the sum of the levels' nominal limits, the pool borrowing divides.
	nominalCLSum int
	borrowTimer  *sim.Timer
}

// priorityLevel is apf_controller.go's priorityLevelState.
type priorityLevel struct {
	a         *apf
	pl        *flowcontrolv1.PriorityLevelConfiguration
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

	stats APFLevelStats
}

type classKey struct {
	client    string
	kind      model.Kind
	sub       string
	verb      model.Verb
	namespace string
}

type classification struct {
	fs   string
	pl   *priorityLevel
	hash uint64
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
	pls, fss := cfg.PriorityLevels, cfg.FlowSchemas
	if pls == nil {
		pls = BootstrapPriorityLevels()
	}
	if fss == nil {
		fss = BootstrapFlowSchemas()
	}
	a.digest(pls, fss)
	a.borrowTimer = a.k.Every(borrowingAdjustmentPeriod, a.updateBorrowing)
	return a, nil
}

// digest is lockAndDigestConfigObjects for a fresh controller: levels from the objects
// (the mandatory ones imagined when missing), flow schemas sorted by precedence then name
// with the mandatory ones added, and the limits of finishQueueSetReconfigsLocked.
func (a *apf) digest(pls []*flowcontrolv1.PriorityLevelConfiguration, fss []*flowcontrolv1.FlowSchema) {
	boot := BootstrapPriorityLevels()
	have := map[string]bool{}
	var all []*flowcontrolv1.PriorityLevelConfiguration
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
	for _, pl := range all {
		l := &priorityLevel{a: a, pl: pl, name: pl.Name, exempt: pl.Spec.Type == flowcontrolv1.PriorityLevelEnablementExempt}
		l.stats.Name = pl.Name
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
		l.currentCL = l.nominalCL - lendableCL/2
		numQueues, handSize, qll := 0, 0, 0
		switch {
		case l.exempt:
			numQueues = -1
		case pl.Spec.Limited.LimitResponse.Queuing != nil:
			q := pl.Spec.Limited.LimitResponse.Queuing
			numQueues, handSize, qll = int(q.Queues), int(q.HandSize), int(q.QueueLengthLimit)
			l.maxSeats = int(math.Max(1, math.Min(math.Ceil(float64(l.nominalCL)*priorityLevelMaxSeatsPercent), float64(l.nominalCL/handSize))))
		}
		l.demand.reset(a.k.Now(), 0)
		l.qs = newQueueSet(a.k, numQueues, handSize, qll, func(v float64) { l.demand.set(a.k.Now(), v) })
		l.qs.concurrencyLimit = l.currentCL
		l.retry.retryAfter = 1
		a.nominalCLSum += l.nominalCL
		a.levels = append(a.levels, l)
		a.byName[l.name] = l
	}
	// digestFlowSchemasLocked: schemas naming a missing level are ignored.
	var seq []*flowcontrolv1.FlowSchema
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
	bootFS := BootstrapFlowSchemas()
	if !haveFS["exempt"] {
		seq = append([]*flowcontrolv1.FlowSchema{bootFS[0]}, seq...)
	}
	if !haveFS["catch-all"] {
		seq = append(seq, bootFS[len(bootFS)-1])
	}
	a.schemas = seq
	clear(a.classes)
}

func shares(pl *flowcontrolv1.PriorityLevelConfiguration) int32 {
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
func limits(pl *flowcontrolv1.PriorityLevelConfiguration) (lendable, borrowing *int32) {
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
func (a *apf) serve(p *sim.Proc, req *Request, vi int) Response {
	c := a.classify(req)
	l := c.pl
	est := a.estimateWork(req, l.maxSeats)
	r, reason := l.qs.startRequest(p, c.fs, est, c.hash)
	if r == nil {
		return a.reject(l, reason)
	}
	if r.decision == 0 {
		r.timeout = a.k.NewTimer(func() {
			if l.qs.timeOut(r) {
				r.proc.Unpark()
			}
		})
		r.timeout.Reset(a.waitLimit)
		a.wait(p, r)
		if r.decision == decisionReject {
			l.stats.WaitSum += a.k.Now().Sub(r.arrival)
			return a.reject(l, rejectTimeOut)
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
	return a.srv.execute(p, req, vi)
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

// reject answers 429 with the level's Retry-After (tooManyRequests in
// pkg/server/filters/priority-and-fairness.go; the delay from dropped_requests_tracker.go).
func (a *apf) reject(l *priorityLevel, reason string) Response {
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
	return Response{Err: apierrors.NewTooManyRequests(tooManyRequestsMsg, int(l.retry.retryAfter))}
}

// classify is startRequest's matching: the first flow schema (in matching order) whose rules
// match the request names the level; the flow is the schema plus its distinguisher
// (computeFlowDistinguisher) hashed with hashFlowID when the level has more than one queue.
// Results are cached per client, kind, subresource, verb and namespace.
func (a *apf) classify(req *Request) *classification {
	kind := req.Kind
	if kind == "" && req.Object != nil {
		kind = req.Object.GetKind()
	}
	key := classKey{client: req.Client, kind: kind, sub: req.Subresource, verb: req.Verb, namespace: rawNamespace(req)}
	if c := a.classes[key]; c != nil {
		return c
	}
	ns := a.requestNamespace(kind, req)
	user := a.user(req.Client)
	group, resource := a.groupResource(kind)
	if req.Subresource != "" {
		resource += "/" + req.Subresource
	}
	var chosen *flowcontrolv1.FlowSchema
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
			case flowcontrolv1.FlowDistinguisherMethodByUserType:
				dist = user.Name
			case flowcontrolv1.FlowDistinguisherMethodByNamespaceType:
				dist = ns
			}
		}
		c.hash = hashFlowID(chosen.Name, dist)
	}
	if len(a.classes) < maxClassCache {
		a.classes[key] = c
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
func matchesFlowSchema(fs *flowcontrolv1.FlowSchema, user UserInfo, verb, group, resource, ns string) bool {
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

func matchesSubjects(subjects []flowcontrolv1.Subject, user UserInfo) bool {
	for _, s := range subjects {
		switch s.Kind {
		case flowcontrolv1.SubjectKindUser:
			if s.User != nil && (s.User.Name == flowcontrolv1.NameAll || s.User.Name == user.Name) {
				return true
			}
		case flowcontrolv1.SubjectKindGroup:
			if s.Group != nil && (s.Group.Name == flowcontrolv1.NameAll || slices.Contains(user.Groups, s.Group.Name)) {
				return true
			}
		case flowcontrolv1.SubjectKindServiceAccount:
			if sa := s.ServiceAccount; sa != nil {
				if sa.Name == flowcontrolv1.NameAll {
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

func matchesResourceRule(rr flowcontrolv1.ResourcePolicyRule, verb, group, resource, ns string) bool {
	if !containsOrAll(rr.Verbs, verb, flowcontrolv1.VerbAll) || !containsOrAll(rr.APIGroups, group, flowcontrolv1.APIGroupAll) ||
		!containsOrAll(rr.Resources, resource, flowcontrolv1.ResourceAll) {
		return false
	}
	if ns == "" {
		return rr.ClusterScope
	}
	return containsOrAll(rr.Namespaces, ns, flowcontrolv1.NamespaceEvery)
}

func containsOrAll(list []string, v, all string) bool {
	for _, x := range list {
		if x == v || x == all {
			return true
		}
	}
	return false
}
