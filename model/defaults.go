package model

// Upstream defaults, applied by SetDefaults as the API server's defaulting does on create and
// update. Each names the upstream constant and the defaulting function that applies it
// (kubernetes pkg/apis/core/v1/defaults.go and pkg/apis/apps/v1/defaults.go; see
// shared/reference/kubernetes-behavior.md sections 4, 6, 8 and 10).
const (
	// DefaultTerminationGracePeriodSeconds is v1.DefaultTerminationGracePeriodSeconds
	// ([api@HEAD] core/v1/types.go L3987), set by SetDefaults_PodSpec.
	DefaultTerminationGracePeriodSeconds int64 = 30
	// DefaultSchedulerName is v1.DefaultSchedulerName ([api@HEAD] core/v1/types.go), set by
	// SetDefaults_PodSpec.
	DefaultSchedulerName = "default-scheduler"
	// DefaultRestartPolicy is the restartPolicy SetDefaults_PodSpec sets ([api@HEAD] L4405).
	DefaultRestartPolicy = RestartPolicyAlways

	// Probe defaults set by SetDefaults_Probe ([api@HEAD] Probe docs). initialDelaySeconds
	// stays 0.
	DefaultProbeTimeoutSeconds   int32 = 1
	DefaultProbePeriodSeconds    int32 = 10
	DefaultProbeSuccessThreshold int32 = 1
	DefaultProbeFailureThreshold int32 = 3

	// DefaultReplicaSetReplicas is the spec.replicas SetDefaults_ReplicaSet sets
	// ([k8s:pkg/apis/apps/v1/defaults.go@04791b49]).
	DefaultReplicaSetReplicas int32 = 1
)

// Namespace phases ([api@HEAD] core/v1/types.go NamespacePhase).
const (
	NamespaceActive      = "Active"
	NamespaceTerminating = "Terminating"
)

// Defaulter is implemented by object types registered from outside this package (see
// RegisterKind) that have defaults of their own; SetDefaults calls it for them.
type Defaulter interface {
	SetDefaults()
}

// SetDefaults fills in the fields upstream defaulting fills in, in place, for every kind this
// package defines, and calls SetDefaults on other objects that implement Defaulter. Fields
// already set are left alone, so calling it twice changes nothing. Only defaulting is
// modelled: what upstream does in admission plugins (DefaultTolerationSeconds, priority) or in
// registry strategies (pod phase Pending, generation) is the API server's job.
//
// What it sets, by kind:
//   - Pod: requests default to limits for each resource with a limit but no request
//     (SetDefaults_Pod, pods only, not templates), then the PodSpec defaults below.
//   - PodSpec (a Pod's, and a ReplicaSet's template): restartPolicy Always,
//     terminationGracePeriodSeconds 30, schedulerName "default-scheduler"
//     (SetDefaults_PodSpec); each probe of each container and init container gets
//     timeoutSeconds 1, periodSeconds 10, successThreshold 1, failureThreshold 3
//     (SetDefaults_Probe). Toleration operators stay empty: upstream leaves "" (it means Equal).
//   - ReplicaSet: spec.replicas 1 (apps/v1 SetDefaults_ReplicaSet). The selector is not
//     defaulted from the template labels: apps/v1 requires it.
//   - Node: status.allocatable copied from status.capacity when unset (SetDefaults_NodeStatus).
//   - Namespace: status.phase Active (SetDefaults_NamespaceStatus).
//   - Lease, Event: nothing.
func SetDefaults(obj Object) {
	switch o := obj.(type) {
	case nil:
	case *Pod:
		defaultRequestsToLimits(o.Spec.Containers)
		defaultRequestsToLimits(o.Spec.InitContainers)
		setDefaultsPodSpec(&o.Spec)
	case *ReplicaSet:
		if o.Spec.Replicas == nil {
			o.Spec.Replicas = Ptr(DefaultReplicaSetReplicas)
		}
		setDefaultsPodSpec(&o.Spec.Template.Spec)
	case *Node:
		if o.Status.Allocatable == nil && o.Status.Capacity != nil {
			o.Status.Allocatable = o.Status.Capacity.DeepCopy()
		}
	case *Namespace:
		if o.Status.Phase == "" {
			o.Status.Phase = NamespaceActive
		}
	case *Lease, *Event:
	default:
		if d, ok := obj.(Defaulter); ok {
			d.SetDefaults()
		}
	}
}

// defaultRequestsToLimits gives each container a request equal to its limit for every
// resource that has a limit and no request. Upstream does this in SetDefaults_Pod rather than
// for ResourceRequirements in general, so that pod templates are left as written.
func defaultRequestsToLimits(containers []Container) {
	for i := range containers {
		res := &containers[i].Resources
		if res.Limits == nil {
			continue
		}
		if res.Requests == nil {
			res.Requests = make(ResourceList, len(res.Limits))
		}
		//detlint:ordered each missing request is filled independently of the others
		for name, limit := range res.Limits {
			if _, ok := res.Requests[name]; !ok {
				res.Requests[name] = limit.DeepCopy()
			}
		}
	}
}

func setDefaultsPodSpec(spec *PodSpec) {
	if spec.RestartPolicy == "" {
		spec.RestartPolicy = DefaultRestartPolicy
	}
	if spec.TerminationGracePeriodSeconds == nil {
		spec.TerminationGracePeriodSeconds = Ptr(DefaultTerminationGracePeriodSeconds)
	}
	if spec.SchedulerName == "" {
		spec.SchedulerName = DefaultSchedulerName
	}
	for _, containers := range [][]Container{spec.InitContainers, spec.Containers} {
		for i := range containers {
			c := &containers[i]
			for _, p := range []*Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
				if p != nil {
					setDefaultsProbe(p)
				}
			}
		}
	}
}

func setDefaultsProbe(p *Probe) {
	if p.TimeoutSeconds == 0 {
		p.TimeoutSeconds = DefaultProbeTimeoutSeconds
	}
	if p.PeriodSeconds == 0 {
		p.PeriodSeconds = DefaultProbePeriodSeconds
	}
	if p.SuccessThreshold == 0 {
		p.SuccessThreshold = DefaultProbeSuccessThreshold
	}
	if p.FailureThreshold == 0 {
		p.FailureThreshold = DefaultProbeFailureThreshold
	}
}
