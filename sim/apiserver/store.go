package apiserver

import (
	"cmp"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
)

// component is the trace component and the name of the server's random streams.
const component = "kube-apiserver"

// objKey identifies an object within its kind; namespace is "" for cluster-scoped kinds.
type objKey struct{ namespace, name string }

// kindStore is one kind's objects, watch-cache history and watchers.
type kindStore struct {
	info  model.KindInfo
	strat *strategy
	gr    schema.GroupResource
	gk    schema.GroupKind

	objects map[objKey]model.Object
	hist    *history
	// schedulingAdmission is whether the kind is Pod or PriorityClass, the kinds whose writes
	// the Priority and DefaultTolerationSeconds admission plugins and the binding of a pod
	// change (admitPriority, admitDefaultTolerations, bindPod): for any other kind they do
	// nothing, and its writes (a kubelet's Lease renewal) skip them.
	schedulingAdmission bool
	// lastCreated is the object the kind's last successful create stored (nil before
	// one): a valid object to validate the next create against (validateCreate).
	lastCreated model.Object

	// byTrigger indexes the objects by the value of the kind's trigger field, as upstream's
	// watch cache indexes pods by spec.nodeName ([k8s] pkg/registry/core/pod/strategy.go
	// Indexers: storage.FieldIndex("spec.nodeName"), registered by
	// pkg/registry/core/pod/storage/storage.go through StoreOptions.Indexers), so a List whose
	// field selector pins that value visits only the objects that have it. Each entry is the
	// set of keys of the objects with that value, not the objects: a write that keeps the
	// value (nearly every pod and node update) leaves the index alone, and a List by the value
	// reads the objects from objects. nil when the kind has no trigger field.
	byTrigger map[string]map[objKey]struct{}

	// listed is the kind's keys in list order, built by the first List that needs it after a
	// create or a delete (which drop it) and shared by the Lists until then: an informer's
	// list of every pod, or a namespace's, costs no sort and no key building but the first.
	// A slice once built is never changed, so a List answer may hand it out.
	listed []string

	watchers  []*Watch            // every registered watch, in the order they were opened
	general   []*Watch            // watches not pinned to a trigger value
	triggered map[string][]*Watch // watches pinned to a trigger value (e.g. a node's pods)
	// dispatching is set while the lists above are being iterated; removals then only mark
	// the watch and sweep compacts the lists afterwards.
	dispatching bool
	// unwatched are the watches removed from the lists above since the last sweep.
	unwatched []*Watch
}

// Store is the versioned object store with admission: what the API server does when it
// serves a request, without latency or capacity. Every method is synchronous and runs on the
// caller (a process, an event handler or setup code). Objects passed in become owned by the
// store, even when the call fails (callers pass copies); objects returned are shared and
// immutable.
//
// One global revision, etcd-like, is every object's resourceVersion: each write (create,
// update, status update, patch, delete marking, final removal) bumps it by one. A write that
// changes nothing is not a write: it returns the stored object and bumps nothing (the etcd3
// store skips identical writes).
type Store struct {
	k   *sim.Kernel
	cfg StoreConfig
	rev uint64

	kinds map[model.Kind]*kindStore
	// recentKinds are the kinds kind found last, the latest first: a settled cluster's
	// requests alternate between few kinds (a kubelet's Lease and its Node), and the map
	// lookup they spare missed the processor's cache on nearly every request (3.8% of an
	// idle 500-node cluster's steady-state CPU samples, 1.3% with this front). A kind's
	// store is never removed or replaced, so an entry stays right.
	recentKinds [2]recentKind
	kindList    []*kindStore // creation order: every iteration over kinds uses it
	// expiries are the pending Event expiries (expireEvent).
	expiries eventExpiries
	// namespaces is the Namespace kind's store (nil before it is added), and
	// recentNamespaces the namespaces admitNamespace found last (namespaceObject), which
	// every commit of a Namespace clears.
	namespaces          *kindStore
	recentNamespaces    [4]recentNamespace
	recentNamespaceNext int
	// kindsChanged are called when a CRD adds a kind (OnKindsChanged).
	kindsChanged []func()

	uids uint64
	// uidTexts holds the texts of a block of consecutive uids (uidText).
	uidTexts  uidBlock
	nameRand  *rand.Rand
	watchRand *rand.Rand
	// watchDelay draws cfg.WatchDelay (its log-normal parameters computed once: a draw per
	// watcher per event).
	watchDelay sim.Sampler

	significant func(kind model.Kind, old, new model.Object) bool
	onCommit    func(kind model.Kind, old, new model.Object)
	// onAPFConfig is API Priority and Fairness's config controller, told of every committed
	// write of a FlowSchema or PriorityLevelConfiguration (nil when APF is off).
	onAPFConfig        func()
	notReadySeconds    int64
	unreachableSeconds int64
	// tolerationsIn and tolerationsOut are admitDefaultTolerations' last defaulting: the
	// tolerations it was given and those it set. The pods of one template arrive with one
	// shared tolerations slice, and stored objects are immutable, so they share the result.
	tolerationsIn, tolerationsOut []model.Toleration
	// admittedPriority and admittedPolicy are the priority and preemption policy
	// admitPodPriority set last, which the next pod given the same values shares.
	admittedPriority *int32
	admittedPolicy   *string
	// skipNodeTaint is set during CreateRunningNode.
	skipNodeTaint bool

	// validateUpdate is validateUpdate (admission.go). It is a field so that a benchmark can
	// measure the store's own cost apart from the model's validation; nothing else changes it.
	validateUpdate func(old, obj model.Object, oldStored bool) field.ErrorList

	// mutations is the ownership check (StoreConfig.CheckMutations); nil when it is off.
	mutations *mutationCheck

	stalls         []stallRule
	closingWatches []*Watch // closed by the server, close notice not yet delivered
	watchers       int
	bookmarkTimer  *sim.Timer
	bookmarkEvery  time.Duration
	watchStats     WatchStats
}

// NewStore returns an empty store at revision 0 on kernel k, then creates the configured
// system namespaces. cfg must pass Validate: an invalid configuration is a programming error
// and panics with the reason (validate user-supplied configuration first).
//
// Random streams: generated names draw from kernel.Rand("kube-apiserver/generate-name"),
// watch delays from kernel.Rand("kube-apiserver/watch-delay").
func NewStore(k *sim.Kernel, cfg StoreConfig) *Store {
	if err := cfg.Validate(); err != nil {
		panic("apiserver: invalid store configuration: " + err.Error())
	}
	s := &Store{
		k:                  k,
		cfg:                cfg,
		kinds:              make(map[model.Kind]*kindStore),
		nameRand:           k.Rand(component + "/generate-name"),
		watchRand:          k.Rand(component + "/watch-delay"),
		watchDelay:         cfg.WatchDelay.Sampler(),
		significant:        cfg.IsSignificantWrite,
		onCommit:           cfg.OnCommit,
		notReadySeconds:    tolerationSecondsOr(cfg.DefaultNotReadyTolerationSeconds),
		unreachableSeconds: tolerationSecondsOr(cfg.DefaultUnreachableTolerationSeconds),
		validateUpdate:     validateUpdate,
	}
	if s.significant == nil {
		s.significant = DefaultSignificantWrite
	}
	if cfg.CheckMutations {
		s.mutations = newMutationCheck()
	}
	if f := cfg.bookmarkFrequency(); f > 0 {
		s.bookmarkEvery = f
		s.bookmarkTimer = k.NewIdleTimer(s.sendBookmarks)
	}
	for _, info := range model.Kinds() {
		s.addKind(info)
	}
	for _, name := range cfg.SystemNamespaces {
		ns := &model.Namespace{ObjectMeta: model.ObjectMeta{Name: name}}
		if _, err := s.Create(ns); err != nil && !apierrors.IsAlreadyExists(err) {
			panic("apiserver: creating system namespace " + name + ": " + err.Error())
		}
	}
	return s
}

func (s *Store) addKind(info model.KindInfo) *kindStore {
	lower, upper := s.cfg.historyBounds()
	group := groupOf(info.APIVersion)
	ks := &kindStore{
		info:      info,
		strat:     strategyFor(info),
		gr:        schema.GroupResource{Group: group, Resource: info.Resource},
		gk:        schema.GroupKind{Group: group, Kind: string(info.Kind)},
		objects:   make(map[objKey]model.Object),
		triggered: make(map[string][]*Watch),

		schedulingAdmission: info.Kind == model.KindPod || info.Kind == model.KindPriorityClass,
	}
	var triggerOf func(model.Object) string
	if ks.strat.triggerField != "" {
		ks.byTrigger = make(map[string]map[objKey]struct{})
		triggerOf = ks.triggerValue
	}
	ks.hist = newHistory(lower, upper, s.cfg.eventFreshDuration(), triggerOf)
	s.kinds[info.Kind] = ks
	s.kindList = append(s.kindList, ks)
	if info.Kind == model.KindNamespace {
		s.namespaces = ks
	}
	return ks
}

// kind returns the store of a kind, picking up kinds registered with the model after the
// store was made; an unknown kind is 404.
func (s *Store) kind(kind model.Kind) (*kindStore, error) {
	r := &s.recentKinds
	if r[0].kind == kind && r[0].ks != nil {
		return r[0].ks, nil
	}
	if r[1].kind == kind && r[1].ks != nil {
		r[0], r[1] = r[1], r[0]
		return r[0].ks, nil
	}
	ks := s.kinds[kind]
	if ks == nil {
		info, ok := model.LookupKind(kind)
		if !ok {
			return nil, errUnknownResource(kind)
		}
		ks = s.addKind(info)
	}
	r[1], r[0] = r[0], recentKind{kind: kind, ks: ks}
	return ks, nil
}

// recentKind is an entry of Store.recentKinds.
type recentKind struct {
	kind model.Kind
	ks   *kindStore
}

// Reserve sizes the store of kind for n objects when it holds none yet, so that a build that
// knows how many objects it will create (150,000 settled pods) does not grow the map step by
// step. It changes nothing else; an unknown kind or a store already in use is left as it is.
func (s *Store) Reserve(kind model.Kind, n int) {
	ks, err := s.kind(kind)
	if err != nil || len(ks.objects) != 0 || n <= 0 {
		return
	}
	ks.objects = make(map[objKey]model.Object, n)
	ks.listed = nil
}

// Kernel returns the kernel the store runs on.
func (s *Store) Kernel() *sim.Kernel { return s.k }

// Revision returns the current revision: the resourceVersion of the latest write.
func (s *Store) Revision() uint64 { return s.rev }

// Count returns the number of stored objects of kind (0 for an unknown kind).
func (s *Store) Count(kind model.Kind) int {
	if ks := s.kinds[kind]; ks != nil {
		return len(ks.objects)
	}
	return 0
}

// WatchStats returns the store's cumulative watch counters.
func (s *Store) WatchStats() WatchStats { return s.watchStats }

// ActiveWatches returns the number of open watches.
func (s *Store) ActiveWatches() int { return s.watchers }

// HistorySize returns how many events the kind's watch-cache history holds and its current
// capacity.
func (s *Store) HistorySize(kind model.Kind) (events, capacity int) {
	if ks := s.kinds[kind]; ks != nil {
		return ks.hist.size(), ks.hist.capacity()
	}
	return 0, 0
}

func (ks *kindStore) keyOf(namespace, name string) objKey {
	if !ks.info.Namespaced {
		namespace = ""
	}
	return objKey{namespace: namespace, name: name}
}

// Get returns the stored object. Errors: 404 NotFound if it does not exist, 404 for an
// unknown kind.
func (s *Store) Get(kind model.Kind, namespace, name string) (model.Object, error) {
	ks, err := s.kind(kind)
	if err != nil {
		return nil, err
	}
	return ks.get(namespace, name)
}

// get is Store.Get in the kind's store.
func (ks *kindStore) get(namespace, name string) (model.Object, error) {
	obj := ks.objects[ks.keyOf(namespace, name)]
	if obj == nil {
		return nil, apierrors.NewNotFound(ks.gr, name)
	}
	return obj, nil
}

// List returns the objects opts selects, sorted by key (namespace/name), and the current
// revision as the list's resourceVersion. Errors: 400 for an unsupported field selector, 404
// for an unknown kind. A field selector that pins the kind's trigger field (pods:
// spec.nodeName, nodes: metadata.name) to a value costs O(objects with that value); a list of
// every object costs O(objects) once the kind's list order is built (kindStore.listed), and a
// sort of the kind's keys when a create or a delete has dropped it; another list uses the
// order when it is built (one namespace: O(its objects)), and sorts what it selects when not.
func (s *Store) List(kind model.Kind, opts model.ListOptions) ([]model.Object, uint64, error) {
	items, _, rv, err := s.list(kind, opts, false)
	return items, rv, err
}

// ListKeyed is List with the objects' keys (model.Key of each item, in the same order), for
// a caller that files the objects by key as an informer does. The keys slice is shared and
// must not be changed.
func (s *Store) ListKeyed(kind model.Kind, opts model.ListOptions) ([]model.Object, []string, uint64, error) {
	return s.list(kind, opts, true)
}

func (s *Store) list(kind model.Kind, opts model.ListOptions, wantKeys bool) ([]model.Object, []string, uint64, error) {
	ks, err := s.kind(kind)
	if err != nil {
		return nil, nil, 0, err
	}
	m, err := compileMatcher(&ks.info, ks.strat, opts)
	if err != nil {
		return nil, nil, 0, err
	}
	if !m.triggered || ks.byTrigger == nil {
		// A selective list uses the order only when it is already built: building it costs a
		// sort of the whole kind, more than a scan when creates keep dropping it.
		if m.everything() || ks.listed != nil {
			items, keys := ks.listInOrder(&m, wantKeys)
			return items, keys, s.rev, nil
		}
	}
	var hits []keyedObject
	if m.triggered && ks.byTrigger != nil {
		// Every object m selects has the pinned trigger value: the index holds them all.
		candidates := ks.byTrigger[m.triggerValue]
		hits = make([]keyedObject, 0, len(candidates))
		for k := range candidates { //detlint:ordered the hits are sorted by key below
			if obj := ks.objects[k]; m.matchesTriggered(obj) {
				hits = append(hits, keyedObject{key: k, obj: obj})
			}
		}
	} else {
		for k, obj := range ks.objects { //detlint:ordered the hits are sorted by key below
			if m.matches(obj) {
				hits = append(hits, keyedObject{key: k, obj: obj})
			}
		}
	}
	slices.SortFunc(hits, func(a, b keyedObject) int { return compareKeys(a.key, b.key) })
	out := make([]model.Object, len(hits))
	for i := range hits {
		out[i] = hits[i].obj
	}
	var keys []string
	if wantKeys {
		keys = make([]string, len(hits))
		for i := range hits {
			keys[i] = model.KeyOf(hits[i].key.namespace, hits[i].key.name)
		}
	}
	return out, keys, s.rev, nil
}

// listInOrder answers a List from the kind's list order, looking only at the keys of
// m.namespace when it is set: a namespace's keys are the contiguous run that starts with its
// name and a '/'. The keys returned (when wantKeys) are the list order's own strings.
func (ks *kindStore) listInOrder(m *matcher, wantKeys bool) ([]model.Object, []string) {
	order := ks.listOrder()
	if m.namespace != "" {
		prefix := m.namespace + "/"
		lo, _ := slices.BinarySearch(order, prefix)
		n, _ := slices.BinarySearchFunc(order[lo:], prefix, func(key, prefix string) int {
			if strings.HasPrefix(key, prefix) {
				return -1
			}
			return 1
		})
		order = order[lo : lo+n]
	}
	if m.everything() || m.namespace != "" && m.label == nil && len(m.fields) == 0 && !m.nothing {
		// Every key in order is a hit.
		out := make([]model.Object, 0, len(order))
		for _, key := range order {
			out = append(out, ks.objects[ks.splitKey(key)])
		}
		if !wantKeys {
			return out, nil
		}
		return out, order
	}
	out := make([]model.Object, 0) // empty, not nil, when nothing matches
	var keys []string
	for _, key := range order {
		if obj := ks.objects[ks.splitKey(key)]; m.matches(obj) {
			out = append(out, obj)
			if wantKeys {
				keys = append(keys, key)
			}
		}
	}
	return out, keys
}

// listOrder returns the kind's keys (model.KeyOf strings) sorted, building them if a create or
// a delete has dropped them.
func (ks *kindStore) listOrder() []string {
	if ks.listed == nil {
		keys := make([]objKey, 0, len(ks.objects))
		for k := range ks.objects { //detlint:ordered the keys are sorted below
			keys = append(keys, k)
		}
		slices.SortFunc(keys, compareKeys)
		listed := make([]string, len(keys))
		for i, k := range keys {
			listed[i] = model.KeyOf(k.namespace, k.name)
		}
		ks.listed = listed
	}
	return ks.listed
}

// splitKey is the objKey of a key of ks.listed: for a namespaced kind, the namespace before
// the first '/' (a namespace has none) and the name after it.
func (ks *kindStore) splitKey(key string) objKey {
	if !ks.info.Namespaced {
		return objKey{name: key}
	}
	ns, name, _ := strings.Cut(key, "/")
	return objKey{namespace: ns, name: name}
}

// keyedObject is a stored object with its key, for sorting a list.
type keyedObject struct {
	key objKey
	obj model.Object
}

// compareKeys orders keys as their "namespace/name" strings (model.KeyOf) order, which is
// not (namespace, name) order ("a-b/x" < "a/x"), without building the strings.
func compareKeys(a, b objKey) int {
	if a.namespace == b.namespace {
		return strings.Compare(a.name, b.name)
	}
	if a.namespace != "" && b.namespace != "" {
		// Both strings start with namespace + "/": the first difference decides, unless one
		// namespace is a prefix of the other; then its '/' meets the other's next byte.
		n := min(len(a.namespace), len(b.namespace))
		if c := strings.Compare(a.namespace[:n], b.namespace[:n]); c != 0 {
			return c
		}
		if len(a.namespace) < len(b.namespace) && b.namespace[n] != '/' {
			return cmp.Compare('/', b.namespace[n])
		}
		if len(b.namespace) < len(a.namespace) && a.namespace[n] != '/' {
			return cmp.Compare(a.namespace[n], '/')
		}
	}
	// A cluster-scoped key against a namespaced one, or a namespace holding '/': neither is
	// stored by a valid write; compare the strings themselves.
	return strings.Compare(model.KeyOf(a.namespace, a.name), model.KeyOf(b.namespace, b.name))
}

// Create stores a new object and returns it as stored. It runs, in upstream's order:
// defaulting (model.SetDefaults), NamespaceLifecycle (the namespace must exist and not be
// terminating), DefaultTolerationSeconds (pods), the kind's PrepareForCreate (status and
// generation reset), name generation from metadata.generateName, validation (generic
// metadata rules and model.Validate), and the write, which assigns uid, creationTimestamp and
// the new revision. Errors: 400 if resourceVersion is set; 404 for a missing namespace; 403
// for a terminating namespace; 422 Invalid naming the field paths; 409 AlreadyExists (for a
// generated name, after 8 attempts, as upstream's RetryGenerateName).
func (s *Store) Create(obj model.Object) (model.Object, error) {
	if obj == nil {
		return nil, apierrors.NewBadRequest("create needs an object")
	}
	ks, err := s.kind(obj.GetKind())
	if err != nil {
		return nil, err
	}
	return s.create(ks, obj)
}

// maxNameGenerationCreateAttempts is how many names a create with generateName tries
// ([apiserver@HEAD] pkg/registry/generic/registry/store.go).
const maxNameGenerationCreateAttempts = 8

func (s *Store) create(ks *kindStore, obj model.Object) (model.Object, error) {
	meta := obj.Meta()
	setDefaults(obj)
	if ks.strat.normalize != nil {
		if err := ks.strat.normalize(obj); err != nil {
			return nil, err
		}
	}
	if meta.ResourceVersion != 0 {
		return nil, errResourceVersionSetOnCreate()
	}
	if !ks.info.Namespaced {
		// rest.EnsureObjectNamespaceMatchesRequestNamespace clears it for cluster-scoped kinds.
		meta.Namespace = ""
	}
	if err := s.admitNamespace(ks, meta.Namespace, meta.Name, true); err != nil {
		return nil, err
	}
	// The mutating plugins in upstream's order (AllOrderedPlugins): TaintNodesByCondition,
	// Priority, DefaultTolerationSeconds.
	s.admitNodeTaints(obj)
	if ks.schedulingAdmission {
		if err := s.admitPriority(obj, nil); err != nil {
			return nil, err
		}
		s.admitDefaultTolerations(obj)
	}
	// rest.BeforeCreate.
	meta.DeletionTimestamp = nil
	meta.DeletionGracePeriodSeconds = nil
	if ks.strat.prepareForCreate != nil {
		ks.strat.prepareForCreate(obj)
	}
	generated := meta.Name == "" && meta.GenerateName != ""
	if generated {
		meta.Name = s.generateName(meta.GenerateName)
	}
	if ks.strat.beforeValidate != nil {
		ks.strat.beforeValidate(obj, s.uidTexts.text(s.uids+1))
	}
	if errs := ks.validateCreate(obj); len(errs) > 0 {
		return nil, ks.errInvalid(meta.Name, errs)
	}
	if err := s.admitCRD(obj); err != nil {
		return nil, err
	}
	key := ks.keyOf(meta.Namespace, meta.Name)
	for attempt := 1; generated && ks.objects[key] != nil && attempt < maxNameGenerationCreateAttempts; attempt++ {
		meta.Name = s.generateName(meta.GenerateName)
		key.name = meta.Name
	}
	if ks.objects[key] != nil {
		if generated {
			// rest.CheckGeneratedNameError.
			return nil, apierrors.NewGenerateNameConflict(ks.gr, meta.Name, 1)
		}
		return nil, apierrors.NewAlreadyExists(ks.gr, meta.Name)
	}
	s.uids++
	meta.UID = s.uidTexts.text(s.uids)
	meta.CreationTimestamp = s.k.Now()
	s.commitPut(ks, key, nil, obj, "create", "")
	ks.lastCreated = obj
	if crd, ok := obj.(*model.CustomResourceDefinition); ok {
		s.registerCRD(crd)
	}
	return obj, nil
}

// Update replaces an object through its main resource and returns it as stored. Upstream's
// rules ([apiserver@HEAD] pkg/registry/generic/registry/store.go Update, rest.BeforeUpdate):
// a resourceVersion other than the stored one is 409 Conflict; none (0) overwrites for kinds
// whose strategy allows unconditional update (every kind but leases) and is 422 for leases; the stored status is kept (kinds with status); uid,
// creationTimestamp and deletionTimestamp cannot change; finalizers cannot be added while the
// object is being deleted; generation moves when the spec changes (pods, replicasets,
// statefulsets, daemonsets, poddisruptionbudgets, kinds registered later that have a Spec;
// deployments also when annotations change; endpointslices when anything outside metadata,
// or the labels, change; services, HPAs and controllerrevisions do not track generation). Removing the last finalizer of an object whose
// deletion grace has run out (deletionGracePeriodSeconds 0) removes it. For pods, setting
// spec.nodeName on an unbound pod models the binding subresource (PodScheduled becomes True);
// changing a set nodeName, or binding a pod that is being deleted, is 409 Conflict on
// pods/binding. An update of a missing object is 404, except for kinds that allow create on
// update (leases, events), where it creates.
func (s *Store) Update(obj model.Object) (model.Object, error) {
	if obj == nil {
		return nil, apierrors.NewBadRequest("update needs an object")
	}
	ks, err := s.kind(obj.GetKind())
	if err != nil {
		return nil, err
	}
	return s.update(ks, obj, false, "update")
}

// UpdateStatus replaces an object's status through the status subresource: the stored spec
// (and, for pods, ownerReferences) is kept, metadata changes follow the same rules as
// Update, and generation does not move. Errors as Update; 404 for a kind without status.
func (s *Store) UpdateStatus(obj model.Object) (model.Object, error) {
	if obj == nil {
		return nil, apierrors.NewBadRequest("update needs an object")
	}
	ks, err := s.kind(obj.GetKind())
	if err != nil {
		return nil, err
	}
	return s.update(ks, obj, true, "update-status")
}

func (s *Store) update(ks *kindStore, obj model.Object, status bool, action string) (model.Object, error) {
	if status && !ks.info.HasStatus {
		return nil, errUnknownResource(ks.info.Kind)
	}
	meta := obj.Meta()
	key := ks.keyOf(meta.Namespace, meta.Name)
	meta.Namespace = key.namespace
	old := ks.objects[key]
	if old == nil {
		if !status && ks.strat.allowCreateOnUpdate {
			// The create-on-update path ignores the resourceVersion the object carries.
			meta.ResourceVersion = 0
			return s.create(ks, obj)
		}
		return nil, apierrors.NewNotFound(ks.gr, meta.Name)
	}
	setDefaults(obj)
	if ks.strat.normalize != nil {
		if err := ks.strat.normalize(obj); err != nil {
			return nil, err
		}
	}
	if err := s.admitNamespace(ks, meta.Namespace, meta.Name, false); err != nil {
		return nil, err
	}
	if !status && ks.schedulingAdmission {
		if err := s.admitPriority(obj, old); err != nil {
			return nil, err
		}
		s.admitDefaultTolerations(obj)
	}
	oldMeta := old.Meta()
	switch {
	case meta.ResourceVersion == 0 && ks.strat.allowUnconditionalUpdate:
		meta.ResourceVersion = oldMeta.ResourceVersion
	case meta.ResourceVersion == 0:
		return nil, ks.errResourceVersionRequired(meta.Name)
	case meta.ResourceVersion != oldMeta.ResourceVersion:
		return nil, ks.errConflict(meta.Name)
	}
	// rest.BeforeUpdate: requests cannot set generation, uid, creation or deletion times.
	meta.Generation = oldMeta.Generation
	prepare := ks.strat.prepareForUpdate
	if status {
		prepare = ks.strat.prepareForStatusUpdate
	}
	if prepare != nil {
		prepare(obj, old)
	}
	if meta.UID == "" {
		meta.UID = oldMeta.UID
	}
	meta.CreationTimestamp = oldMeta.CreationTimestamp
	if oldMeta.DeletionTimestamp != nil {
		meta.DeletionTimestamp = oldMeta.DeletionTimestamp
	}
	if oldMeta.DeletionGracePeriodSeconds != nil && meta.DeletionGracePeriodSeconds == nil {
		meta.DeletionGracePeriodSeconds = oldMeta.DeletionGracePeriodSeconds
	}
	validateAgainst := old
	specChanged, specCompared := false, false
	if !status {
		if ks.schedulingAdmission {
			bound, err := s.bindPod(obj, old)
			if err != nil {
				return nil, err
			}
			validateAgainst = bound
		}
		if ks.strat.specEqual != nil {
			specChanged, specCompared = !ks.strat.specEqual(obj, old), true
			if specChanged {
				meta.Generation = oldMeta.Generation + 1
			}
		}
	}
	if errs := s.validateUpdateOf(ks, validateAgainst, obj, validateAgainst == old); len(errs) > 0 {
		return nil, ks.errInvalid(meta.Name, errs)
	}
	// store.go shouldDeleteDuringUpdate: finalizers emptied after the grace period ran out.
	if len(meta.Finalizers) == 0 && oldMeta.DeletionGracePeriodSeconds != nil && *oldMeta.DeletionGracePeriodSeconds == 0 {
		return s.commitDelete(ks, key, old, "finalizers emptied"), nil
	}
	// The etcd3 store skips a write whose object is unchanged; a changed spec settles it, as
	// does the kind's glance (strategy.changed).
	if !specChanged && (ks.strat.changed == nil || !ks.strat.changed(obj, old)) &&
		(specCompared && semanticEqualExceptSpec(obj, old) || !specCompared && objectsEqual(obj, old)) {
		return old, nil
	}
	s.commitPut(ks, key, old, obj, action, "")
	if crd, ok := obj.(*model.CustomResourceDefinition); ok {
		s.registerCRD(crd)
	}
	return obj, nil
}

// errResourceVersionSetOnCreate is the 400 of a create whose object has a resourceVersion
// (etcd3 store Create: storage.ErrResourceVersionSetOnCreate).
//
//go:noinline
func errResourceVersionSetOnCreate() error {
	return apierrors.NewBadRequest("resourceVersion should not be set on objects to be created")
}

// errResourceVersionRequired is the 422 of an update without a resourceVersion to a kind
// that needs one (store.go Update: the Invalid names the resource where the kind would go).
func (ks *kindStore) errResourceVersionRequired(name string) error {
	gk := schema.GroupKind{Group: ks.gr.Group, Kind: ks.gr.Resource}
	return apierrors.NewInvalid(gk, name, field.ErrorList{
		field.Invalid(field.NewPath("metadata", "resourceVersion"), uint64(0), "must be specified for an update"),
	})
}

// putIfChanged writes obj over old unless they are semantically equal, in which case the
// write is a no-op and old is returned (the etcd3 store skips an identical write).
func (s *Store) putIfChanged(ks *kindStore, key objKey, old, obj model.Object, action, detail string) model.Object {
	if objectsEqual(obj, old) {
		return old
	}
	s.commitPut(ks, key, old, obj, action, detail)
	return obj
}

// commitPut stores obj at the next revision and records the event (old nil: a create).
func (s *Store) commitPut(ks *kindStore, key objKey, old, obj model.Object, action, detail string) {
	s.rev++
	obj.Meta().ResourceVersion = s.rev
	if s.mutations != nil {
		s.mutations.replaced(ks, key, old, obj, s.rev)
	}
	ks.objects[key] = obj
	if ks == s.namespaces {
		s.recentNamespaces = [len(s.recentNamespaces)]recentNamespace{}
	}
	if old == nil {
		ks.listed = nil
	}
	if ks.byTrigger != nil {
		ks.reindex(key, old, obj)
	}
	typ := Modified
	if old == nil {
		typ = Added
	}
	s.record(ks, histEvent{rv: s.rev, typ: typ, obj: obj, prev: old}, action, detail)
	if ks.info.Kind == model.KindEvent && s.cfg.EventTTL > 0 {
		s.expireEvent(ks, key, s.rev)
	}
	if s.significant(ks.info.Kind, old, obj) {
		s.k.MarkActivity()
	}
	if s.onAPFConfig != nil && isAPFConfigKind(ks.info.Kind) {
		s.onAPFConfig()
	}
	if s.onCommit != nil {
		s.onCommit(ks.info.Kind, old, obj)
	}
}

// commitDelete removes the object at the next revision. Watchers get its last state with the
// deletion's revision; the caller gets last as it was stored.
func (s *Store) commitDelete(ks *kindStore, key objKey, last model.Object, detail string) model.Object {
	s.rev++
	if s.mutations != nil {
		s.mutations.replaced(ks, key, last, nil, s.rev)
	}
	delete(ks.objects, key)
	if ks == s.namespaces {
		s.recentNamespaces = [len(s.recentNamespaces)]recentNamespace{}
	}
	ks.listed = nil
	if ks.byTrigger != nil {
		ks.unindex(ks.triggerValue(last), key)
	}
	tomb := withResourceVersion(last, s.rev)
	s.record(ks, histEvent{rv: s.rev, typ: Deleted, obj: tomb, prev: last}, "deleted", detail)
	if s.significant(ks.info.Kind, last, nil) {
		s.k.MarkActivity()
	}
	if s.onAPFConfig != nil && isAPFConfigKind(ks.info.Kind) {
		s.onAPFConfig()
	}
	if s.onCommit != nil {
		s.onCommit(ks.info.Kind, last, nil)
	}
	return last
}

// triggerValue is obj's value of the kind's trigger field.
func (ks *kindStore) triggerValue(obj model.Object) string {
	if pod, ok := obj.(*model.Pod); ok && ks.strat.triggerField == fieldSpecNodeName {
		return pod.Spec.NodeName
	}
	v, _ := fieldValue(&ks.info, obj, ks.strat.triggerField)
	return v
}

// reindex files key, whose new state is obj, under obj's trigger value (old nil: a create).
// An update that keeps the value has nothing to do: the index holds keys, not objects.
func (ks *kindStore) reindex(key objKey, old, obj model.Object) {
	v := ks.triggerValue(obj)
	if old != nil {
		prev := ks.triggerValue(old)
		if prev == v {
			return
		}
		ks.unindex(prev, key)
	}
	keys := ks.byTrigger[v]
	if keys == nil {
		keys = make(map[objKey]struct{})
		ks.byTrigger[v] = keys
	}
	keys[key] = struct{}{}
}

// unindex drops key from the trigger index entry of value v.
func (ks *kindStore) unindex(v string, key objKey) {
	keys := ks.byTrigger[v]
	delete(keys, key)
	if len(keys) == 0 {
		delete(ks.byTrigger, v)
	}
}

// withResourceVersion returns a copy of obj that carries resourceVersion rv, as a DELETED
// event's object does. The copy is shallow: it shares obj's maps, slices and pointers. Both are
// stored or delivered objects, which no one may modify, so the sharing cannot be observed.
func withResourceVersion(obj model.Object, rv uint64) model.Object {
	v := reflect.New(reflect.TypeOf(obj).Elem())
	v.Elem().Set(reflect.ValueOf(obj).Elem())
	out := v.Interface().(model.Object)
	out.Meta().ResourceVersion = rv
	return out
}

// record appends an event to the kind's history, hands it to the watchers, and traces it.
func (s *Store) record(ks *kindStore, e histEvent, action, detail string) {
	h := ks.hist
	h.add(e, s.k.Now())
	if len(ks.watchers) > 0 {
		ks.dispatch(h.at(h.end - 1))
	}
	if s.watchers > 0 && s.bookmarkTimer != nil {
		// Armed by writes only, so a world with nothing new to bookmark can drain.
		if _, armed := s.bookmarkTimer.When(); !armed {
			s.bookmarkTimer.Reset(s.bookmarkEvery)
		}
	}
	m := e.obj.Meta()
	s.k.EmitRef(component, action, string(e.obj.GetKind()), m.Namespace, m.Name, e.rv, detail)
}

// dispatch offers e to every watcher that may want it: the unpinned ones and those pinned to
// the trigger value of the new or the previous state.
func (ks *kindStore) dispatch(e *histEvent) {
	ks.dispatching = true
	for _, w := range ks.general {
		w.offer(e)
	}
	if len(ks.triggered) > 0 {
		v := ks.triggerValue(e.obj)
		for _, w := range ks.triggered[v] {
			w.offer(e)
		}
		if e.prev != nil {
			if pv := ks.triggerValue(e.prev); pv != v {
				for _, w := range ks.triggered[pv] {
					w.offer(e)
				}
			}
		}
	}
	ks.dispatching = false
	ks.sweep()
}

func (ks *kindStore) addWatch(w *Watch) {
	w.registered = true
	ks.watchers = append(ks.watchers, w)
	if w.match.triggered {
		ks.triggered[w.match.triggerValue] = append(ks.triggered[w.match.triggerValue], w)
	} else {
		ks.general = append(ks.general, w)
	}
}

// removeWatch takes w out of dispatch (at once, or after the current dispatch).
func (s *Store) removeWatch(w *Watch) {
	if w.removed {
		return
	}
	w.removed = true
	if !w.registered {
		return
	}
	s.watchers--
	w.ks.unwatched = append(w.ks.unwatched, w)
	if !w.ks.dispatching {
		w.ks.sweep()
	}
}

// sweepByAddress is how many removed watches sweep finds by their addresses; past it, it
// reads each listed watch's removed mark.
const sweepByAddress = 8

// sweep drops removed watches from the dispatch lists, keeping the order of the rest. A
// watch is removed at a time, as a client's watch ends (each kubelet's every 5 to 10
// minutes): the removed ones are found in the lists by their addresses, without reading
// the kind's every watch, which were as many cache misses as the kind has watches.
func (ks *kindStore) sweep() {
	gone := ks.unwatched
	if len(gone) == 0 {
		return
	}
	drop := func(list []*Watch) []*Watch {
		if len(gone) > sweepByAddress {
			return slices.DeleteFunc(list, func(w *Watch) bool { return w.removed })
		}
		for _, w := range gone {
			if i := slices.Index(list, w); i >= 0 {
				list = slices.Delete(list, i, i+1)
			}
		}
		return list
	}
	for _, w := range gone {
		if w.match.triggered {
			v := w.match.triggerValue
			if list := drop(ks.triggered[v]); len(list) > 0 {
				ks.triggered[v] = list
			} else {
				delete(ks.triggered, v)
			}
		}
	}
	ks.general = drop(ks.general)
	ks.watchers = drop(ks.watchers)
	clear(gone)
	ks.unwatched = gone[:0]
}

// generateName is names.SimpleNameGenerator ([apiserver@HEAD] pkg/storage/names/generate.go):
// the base cut to 58 characters plus 5 random characters from utilrand's alphabet.
func (s *Store) generateName(base string) string {
	const (
		maxNameLength          = 63
		randomLength           = 5
		maxGeneratedNameLength = maxNameLength - randomLength
		alphanums              = "bcdfghjklmnpqrstvwxz2456789" // k8s.io/apimachinery/pkg/util/rand
	)
	if len(base) > maxGeneratedNameLength {
		base = base[:maxGeneratedNameLength]
	}
	b := make([]byte, len(base)+randomLength)
	copy(b, base)
	for i := len(base); i < len(b); i++ {
		b[i] = alphanums[s.nameRand.IntN(len(alphanums))]
	}
	return string(b)
}

// uidLen is the length of a uid's text.
const uidLen = 36

// appendUID appends the n-th uid's text to b: a deterministic, unique, UUID-shaped string
// (version 4 layout) whose first 64 bits are a bijective mix of n and last 48 are n itself.
func appendUID(b []byte, n uint64) []byte {
	x := n * 0x9e3779b97f4a7c15
	x ^= x >> 29
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 32
	const hexdigits = "0123456789abcdef"
	var u [uidLen]byte
	put := func(pos int, v uint64, digits int) {
		for i := digits - 1; i >= 0; i-- {
			u[pos+i] = hexdigits[v&0xf]
			v >>= 4
		}
	}
	put(0, x>>32, 8)
	u[8] = '-'
	put(9, x>>16, 4)
	u[13] = '-'
	put(14, 0x4000|(x&0x0fff), 4)
	u[18] = '-'
	put(19, 0x8000|((x>>12)&0x3fff), 4)
	u[23] = '-'
	put(24, n, 12)
	return append(b, u[:]...)
}

// uidsPerBlock is how many consecutive uids' texts a uidBlock formats in one string.
const uidsPerBlock = 32

// uidBlock hands out uid texts as substrings of one string per uidsPerBlock consecutive
// uids: a create takes its uid's text without an allocation of its own (it was one of
// every 40 of thundering-herd's allocations). A text is appendUID's; only the memory is
// shared, and a block lives while any of its uids' objects does (1,152 bytes against 32
// allocations of 48).
type uidBlock struct {
	texts string // the texts of uids first .. first+uidsPerBlock-1, back to back
	first uint64
}

// text returns the n-th uid's text (appendUID), formatting n's block when n is not in the
// current one.
func (b *uidBlock) text(n uint64) string {
	if b.texts == "" || n < b.first || n-b.first >= uidsPerBlock {
		first := n - (n-1)%uidsPerBlock // blocks start at 1, 1+uidsPerBlock, ...
		var sb strings.Builder
		sb.Grow(uidsPerBlock * uidLen)
		buf := make([]byte, 0, uidLen)
		for i := range uint64(uidsPerBlock) {
			sb.Write(appendUID(buf[:0], first+i))
		}
		b.texts, b.first = sb.String(), first
	}
	i := (n - b.first) * uidLen
	return b.texts[i : i+uidLen]
}

// isAPFConfigKind reports whether kind configures API Priority and Fairness.
func isAPFConfigKind(kind model.Kind) bool {
	return kind == model.KindFlowSchema || kind == model.KindPriorityLevelConfiguration
}
