package model

// KindInfo describes how the API serves a kind.
type KindInfo struct {
	Kind       Kind
	APIVersion string // group/version as written in manifests, e.g. "apps/v1"
	Resource   string // plural resource name, e.g. "replicasets"
	Namespaced bool
	// HasStatus is true when the kind has a status subresource: a main-resource update keeps
	// the stored status and UpdateStatus changes only status (upstream strategies).
	HasStatus bool
	New       func() Object
}

var kinds = []KindInfo{
	{Kind: KindNamespace, APIVersion: "v1", Resource: "namespaces", Namespaced: false, HasStatus: true, New: func() Object { return &Namespace{} }},
	{Kind: KindNode, APIVersion: "v1", Resource: "nodes", Namespaced: false, HasStatus: true, New: func() Object { return &Node{} }},
	{Kind: KindLease, APIVersion: "coordination.k8s.io/v1", Resource: "leases", Namespaced: true, HasStatus: false, New: func() Object { return &Lease{} }},
	{Kind: KindPod, APIVersion: "v1", Resource: "pods", Namespaced: true, HasStatus: true, New: func() Object { return &Pod{} }},
	{Kind: KindReplicaSet, APIVersion: "apps/v1", Resource: "replicasets", Namespaced: true, HasStatus: true, New: func() Object { return &ReplicaSet{} }},
	{Kind: KindEvent, APIVersion: "v1", Resource: "events", Namespaced: true, HasStatus: false, New: func() Object { return &Event{} }},
	{Kind: KindDeployment, APIVersion: "apps/v1", Resource: "deployments", Namespaced: true, HasStatus: true, New: func() Object { return &Deployment{} }},
	{Kind: KindStatefulSet, APIVersion: "apps/v1", Resource: "statefulsets", Namespaced: true, HasStatus: true, New: func() Object { return &StatefulSet{} }},
	{Kind: KindDaemonSet, APIVersion: "apps/v1", Resource: "daemonsets", Namespaced: true, HasStatus: true, New: func() Object { return &DaemonSet{} }},
	{Kind: KindControllerRevision, APIVersion: "apps/v1", Resource: "controllerrevisions", Namespaced: true, HasStatus: false, New: func() Object { return &ControllerRevision{} }},
	{Kind: KindPodDisruptionBudget, APIVersion: "policy/v1", Resource: "poddisruptionbudgets", Namespaced: true, HasStatus: true, New: func() Object { return &PodDisruptionBudget{} }},
	{Kind: KindService, APIVersion: "v1", Resource: "services", Namespaced: true, HasStatus: true, New: func() Object { return &Service{} }},
	{Kind: KindEndpointSlice, APIVersion: "discovery.k8s.io/v1", Resource: "endpointslices", Namespaced: true, HasStatus: false, New: func() Object { return &EndpointSlice{} }},
	{Kind: KindHorizontalPodAutoscaler, APIVersion: "autoscaling/v2", Resource: "horizontalpodautoscalers", Namespaced: true, HasStatus: true, New: func() Object { return &HorizontalPodAutoscaler{} }},
	{Kind: KindJob, APIVersion: "batch/v1", Resource: "jobs", Namespaced: true, HasStatus: true, New: func() Object { return &Job{} }},
	{Kind: KindCronJob, APIVersion: "batch/v1", Resource: "cronjobs", Namespaced: true, HasStatus: true, New: func() Object { return &CronJob{} }},
	{Kind: KindCustomResourceDefinition, APIVersion: "apiextensions.k8s.io/v1", Resource: "customresourcedefinitions", Namespaced: false, HasStatus: true, New: func() Object { return &CustomResourceDefinition{} }},
	{Kind: KindPriorityClass, APIVersion: "scheduling.k8s.io/v1", Resource: "priorityclasses", Namespaced: false, HasStatus: false, New: func() Object { return &PriorityClass{} }},
	// The status of the two flowcontrol kinds (conditions the config controller writes) is
	// not modelled, so they are served without a status subresource.
	{Kind: KindFlowSchema, APIVersion: "flowcontrol.apiserver.k8s.io/v1", Resource: "flowschemas", Namespaced: false, HasStatus: false, New: func() Object { return &FlowSchema{} }},
	{Kind: KindPriorityLevelConfiguration, APIVersion: "flowcontrol.apiserver.k8s.io/v1", Resource: "prioritylevelconfigurations", Namespaced: false, HasStatus: false, New: func() Object { return &PriorityLevelConfiguration{} }},
}

// Kinds returns every registered kind, in a fixed order.
func Kinds() []KindInfo { return kinds }

// LookupKind returns the KindInfo for k.
func LookupKind(k Kind) (KindInfo, bool) {
	if ki := kindInfo(k); ki != nil {
		return *ki, true
	}
	return KindInfo{}, false
}

// kindInfo is LookupKind without copying the info out: the registered info of k, or nil. The
// info is never changed once registered.
func kindInfo(k Kind) *KindInfo {
	for i := range kinds {
		if kinds[i].Kind == k {
			return &kinds[i]
		}
	}
	return nil
}

// RegisterKind adds a kind (used by packages that bring their own types). Registering a kind
// twice panics: it is a programming error.
func RegisterKind(ki KindInfo) {
	if _, ok := LookupKind(ki.Kind); ok {
		panic("model: kind registered twice: " + string(ki.Kind))
	}
	kinds = append(kinds, ki)
}
