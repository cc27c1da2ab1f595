package scenarios

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
)

// RolloutArgs changes a Deployment's, StatefulSet's or DaemonSet's pod template, which starts
// a rollout:
// `kubectl set image` (Image), `kubectl patch` of spec.template (Template) and `kubectl
// rollout restart` (Annotations). At least one of the three is set; ApplyTo computes the new
// template.
type RolloutArgs struct {
	// Target is a Deployment, StatefulSet or DaemonSet.
	Target ObjectRef `json:"target"`
	// Image sets one container's image.
	Image *ImageChange `json:"image,omitempty"`
	// Template is a fragment of a pod template (metadata and spec, as in a manifest's
	// spec.template), merged into the current template as `kubectl patch --type strategic`
	// merges it: mappings merge key by key, a null value removes the key, the lists
	// containers, initContainers, env, volumes, volumeMounts, imagePullSecrets merge item by
	// item by name (ports by containerPort), other lists are replaced. The loader checks that
	// it decodes as a pod template.
	Template *yaml.Node `json:"template,omitempty"`
	// Annotations are set on the pod template's metadata (a changed value starts a rollout,
	// as `kubectl rollout restart` does with kubectl.kubernetes.io/restartedAt).
	Annotations map[string]string `json:"annotations,omitempty"`
}

// ImageChange names a container of the pod template and its new image.
type ImageChange struct {
	Container string `json:"container"`
	Image     string `json:"image"`
}

// ApplyTo returns tmpl changed by the rollout: Template merged in first, then Image, then
// Annotations. tmpl is not modified. It returns an error, and the zero template, when the
// template has no container called Image.Container, when Template is not a mapping, or when
// the merged template does not decode as a pod template.
func (r *RolloutArgs) ApplyTo(tmpl model.PodTemplateSpec) (model.PodTemplateSpec, error) {
	var out model.PodTemplateSpec
	tmpl.DeepCopyInto(&out)
	if r.Template != nil {
		merged, err := mergeTemplate(out, r.Template)
		if err != nil {
			return model.PodTemplateSpec{}, err
		}
		out = merged
	}
	if r.Image != nil {
		found := false
		for i := range out.Spec.Containers {
			if out.Spec.Containers[i].Name == r.Image.Container {
				out.Spec.Containers[i].Image = r.Image.Image
				found = true
			}
		}
		if !found {
			return model.PodTemplateSpec{}, fmt.Errorf("the pod template has no container %q (containers: %s)",
				r.Image.Container, strings.Join(containerNames(out), ", "))
		}
	}
	if len(r.Annotations) > 0 {
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		for _, k := range slices.Sorted(maps.Keys(r.Annotations)) {
			out.Annotations[k] = r.Annotations[k]
		}
	}
	return out, nil
}

func containerNames(t model.PodTemplateSpec) []string {
	names := make([]string, len(t.Spec.Containers))
	for i, c := range t.Spec.Containers {
		names[i] = c.Name
	}
	return names
}

// RollbackArgs rolls a Deployment back to an earlier revision, as `kubectl rollout undo`
// does: the pod template of the ReplicaSet annotated deployment.kubernetes.io/revision=
// ToRevision (the newest revision before the current one when ToRevision is 0) is copied into
// the Deployment's spec.template, which starts a rollout
// ([kubectl@HEAD] pkg/polymorphichelpers/rollback.go DeploymentRollbacker).
type RollbackArgs struct {
	// Target is a Deployment.
	Target ObjectRef `json:"target"`
	// ToRevision is the revision to go back to; 0 (the default) means the previous one.
	ToRevision int64 `json:"toRevision,omitempty"`
}

// PauseArgs sets a Deployment's spec.paused, as `kubectl rollout pause` does: the
// Deployment controller stops rolling out template changes (scaling still happens).
type PauseArgs struct {
	// Target is a Deployment.
	Target ObjectRef `json:"target"`
}

// ResumeArgs clears a Deployment's spec.paused, as `kubectl rollout resume` does.
type ResumeArgs struct {
	// Target is a Deployment.
	Target ObjectRef `json:"target"`
}

// DrainArgs drains nodes as `kubectl drain` does ([kubectl@HEAD] pkg/drain/drain.go): it
// cordons them, then evicts their pods through the eviction subresource (which refuses with
// 429 while a PodDisruptionBudget forbids it; refused evictions are retried every 5s, as
// kubectl does), and waits for the pods to be gone. Pods that no controller manages and pods
// with emptyDir volumes are evicted too (kubectl drain --force --delete-emptydir-data);
// mirror pods are never evicted; DaemonSet pods as IgnoreDaemonSets says. A drain that fails
// or times out leaves the nodes cordoned.
type DrainArgs struct {
	Nodes NodeTarget `json:"nodes"`
	// Timeout gives up draining after this long (the nodes stay cordoned); 0, the default,
	// waits for ever (kubectl drain --timeout, default 0).
	Timeout time.Duration `json:"timeout,omitempty"`
	// GracePeriodSeconds overrides each pod's terminationGracePeriodSeconds; nil, the default,
	// uses the pod's own (kubectl drain --grace-period, default -1).
	GracePeriodSeconds *int64 `json:"gracePeriodSeconds,omitempty"`
	// IgnoreDaemonSets leaves DaemonSet-managed pods in place (kubectl drain
	// --ignore-daemonsets). Default true here; false is kubectl's default, with which a drain
	// of a node running a DaemonSet pod fails before evicting anything ("cannot delete
	// DaemonSet-managed Pods").
	IgnoreDaemonSets bool `json:"ignoreDaemonSets,omitempty"`
}

// RequestFilter selects API requests by verb, resource and client. An empty list matches
// everything, so an empty filter matches every request.
type RequestFilter struct {
	// Verbs are API verbs (get, list, watch, create, update, patch, delete).
	Verbs []string `json:"verbs,omitempty"`
	// Resources are resource names as in RBAC rules: "pods", "nodes", "deployments", ...;
	// "pods" matches requests on pods and on their subresources, "pods/status" only the
	// status subresource.
	Resources []string `json:"resources,omitempty"`
	// Clients are client name patterns: a name as it appears in the trace ("kubectl",
	// "default-scheduler", "replicaset-controller", "kubelet/worker-0"), where * matches any
	// run of characters ("kubelet/*").
	Clients []string `json:"clients,omitempty"`
}

// RequestInfo is what a RequestFilter looks at in an API request: the caller, the verb, the
// kind and the subresource. The cluster fills it from the API server's request, so that
// scenarios need not import the server.
type RequestInfo struct {
	Client      string
	Verb        model.Verb
	Kind        model.Kind
	Subresource string
	// Resource is the kind's resource (plural) name when the caller knows it, as it must
	// for the kinds of CustomResourceDefinitions; "" looks a built-in kind up.
	Resource string
}

// Matches reports whether req passes the filter: its verb is one of Verbs, its resource one
// of Resources and its client matches one of Clients (each check passes when the list is
// empty). Unknown kinds match only an empty Resources list.
func (f RequestFilter) Matches(req RequestInfo) bool {
	if len(f.Verbs) > 0 && !slices.Contains(f.Verbs, string(req.Verb)) {
		return false
	}
	if len(f.Resources) > 0 {
		resource := req.Resource
		if resource == "" {
			ki, ok := model.LookupKind(req.Kind)
			if !ok {
				return false
			}
			resource = ki.Resource
		}
		matched := false
		for _, r := range f.Resources {
			name, sub, hasSub := strings.Cut(r, "/")
			if name == resource && (!hasSub || sub == req.Subresource) {
				matched = true
				break
			}
		}
		if !matched {
			return false
		}
	}
	if len(f.Clients) > 0 {
		matched := false
		for _, p := range f.Clients {
			if MatchClient(p, req.Client) {
				matched = true
				break
			}
		}
		if !matched {
			return false
		}
	}
	return true
}

// MatchClient reports whether a client name matches a pattern in which * stands for any run
// of characters (slashes included) and every other character for itself.
func MatchClient(pattern, name string) bool {
	// Not path.Match: its '*' stops at '/', and '?', '[' and '\' are special there.
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == name
	}
	if !strings.HasPrefix(name, parts[0]) {
		return false
	}
	rest := name[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(rest, p)
		if i < 0 {
			return false
		}
		rest = rest[i+len(p):]
	}
	return len(rest) >= len(last) && strings.HasSuffix(rest, last)
}

// APILatencyArgs adds latency to the API requests the filter selects, for a while: each such
// request waits a draw from Extra before the API server admits it (a Fault's extra latency).
type APILatencyArgs struct {
	RequestFilter
	// Extra is the added latency.
	Extra Distribution `json:"extra"`
	// For is how long the fault lasts.
	For time.Duration `json:"for"`
}

// APIErrorsArgs makes a fraction of the API requests the filter selects fail, for a while.
// Each selected request fails with probability Fraction (a draw from the fault's own random
// stream) with the status Code, before it reaches the max-in-flight filter; when
// RetryAfterSeconds is positive the answer carries a Retry-After header, which client-go
// honours for 429 and 5xx answers.
type APIErrorsArgs struct {
	RequestFilter
	// Fraction of the selected requests that fail, in (0, 1].
	Fraction float64 `json:"fraction"`
	// Code is the HTTP status: 409 Conflict, 429 TooManyRequests, 500 InternalError, 503
	// ServiceUnavailable or 504 Timeout.
	Code int `json:"code"`
	// RetryAfterSeconds is the Retry-After of the answer: default 1 for 429 (as the
	// max-in-flight filter sends, model.DefaultRetryAfterSeconds), 0 (none) otherwise.
	RetryAfterSeconds int `json:"retryAfterSeconds,omitempty"`
	// For is how long the fault lasts.
	For time.Duration `json:"for"`
}

// APILoadArgs starts a synthetic API client for a while: Workers processes that send the same
// request back to back, each waiting for its answer (and honouring 429 Retry-After, as
// client-go does) before the next — a misbehaving operator's LIST storm, or its hot loop of
// patches that change nothing. The client
// authenticates as the user Client, an ordinary authenticated user, so API Priority and
// Fairness classifies it by the global-default flow schema.
type APILoadArgs struct {
	// Client is the client's name and user; default load-generator.
	Client string `json:"client,omitempty"`
	// Verb is list (default), get, or patch: an empty JSON merge patch ({}), which costs the
	// server a mutating request and changes nothing.
	Verb string `json:"verb,omitempty"`
	// Resource is the resource as in RBAC rules; default pods.
	Resource string `json:"resource,omitempty"`
	// Namespace scopes the request; empty: all namespaces (a get or patch of a namespaced
	// resource needs one, and Object).
	Namespace string `json:"namespace,omitempty"`
	// Object is the name of the object a get reads or a patch patches.
	Object string `json:"object,omitempty"`
	// Workers is the number of concurrent request loops; default 10, at most MaxAPILoadWorkers.
	Workers int `json:"workers,omitempty"`
	// QPS is the client-side rate limit shared by the workers (client-go's token bucket,
	// burst the same); 0: none.
	QPS float64 `json:"qps,omitempty"`
	// For is how long the load lasts.
	For time.Duration `json:"for"`
}

// Defaults and limits of api-load.
const (
	DefaultAPILoadClient   = "load-generator"
	DefaultAPILoadWorkers  = 10
	MaxAPILoadWorkers      = 1000
	DefaultAPILoadResource = "pods"
)

// APIErrorCodes are the status codes api-errors accepts.
var APIErrorCodes = []int{409, 429, 500, 503, 504}

// ControllerRestartArgs restarts a control-plane component or one controller: it stops at
// once, losing its informer caches, work queues and in-flight reconciles; after Downtime it
// starts again, relists everything and resyncs, as a restarted kube-controller-manager or
// kube-scheduler does.
type ControllerRestartArgs struct {
	// Component is kube-controller-manager (every controller in it), kube-scheduler, or one
	// controller by its upstream name (replicaset-controller, deployment-controller, ...;
	// ControllerNames).
	Component string `json:"component"`
	// Downtime is how long it stays down; 0, the default, restarts it at once.
	Downtime time.Duration `json:"downtime,omitempty"`
}

// WatchStallArgs makes the watches of a component (or of the clients matching a pattern)
// stop delivering for a while, as a stuck connection does: events are held back and delivered
// in order when the stall ends; a watch whose held-back events fall out of the API server's
// watch history gets 410 Gone and its informer relists. Exactly one of Component and Clients
// is set.
type WatchStallArgs struct {
	// Component is kubelet (every kubelet's watches), kube-controller-manager (its shared
	// informers, which every controller in it reads) or kube-scheduler.
	Component string `json:"component,omitempty"`
	// Clients are client name patterns, as in api-errors.
	Clients []string `json:"clients,omitempty"`
	// For is how long the watches stall.
	For time.Duration `json:"for"`
}

// WatchCoalesceArgs holds back the watch events of a component (or of the clients matching a
// pattern) for a while and keeps only each object's newest one, so the watchers never see the
// states in between: Sieve's unobserved-state perturbation (OSDI'22). Exactly one of
// Component and Clients is set, as for watch-stall.
type WatchCoalesceArgs struct {
	Component string        `json:"component,omitempty"`
	Clients   []string      `json:"clients,omitempty"`
	For       time.Duration `json:"for"`
}

// LeaderCrashArgs kills the process that leads a replicated control-plane component: it
// releases nothing, so the standbys wait until the Lease has expired by their clocks
// (leader-elect-lease-duration after they last saw it renewed) and take it at their next
// attempt (every leader-elect-retry-period, jittered by 1.2). The crashed replica comes back
// as a standby after Downtime.
type LeaderCrashArgs struct {
	// Component is kube-controller-manager (the default) or kube-scheduler; it must run
	// leader election (replicas more than 1, or leader-elect set).
	Component string `json:"component,omitempty"`
	// Downtime is how long the crashed process stays down; default the component's
	// restart-delay.
	Downtime *time.Duration `json:"downtime,omitempty"`
}

// LeaderPartitionArgs cuts the leader off from the API server for a while: its renewals
// fail, it gives up at leader-elect-renew-deadline and exits (as upstream's process does),
// and another replica takes the Lease once it has expired.
type LeaderPartitionArgs struct {
	// Component is kube-controller-manager (the default) or kube-scheduler.
	Component string `json:"component,omitempty"`
	// For is how long the partition lasts.
	For time.Duration `json:"for"`
}

// LeaderReleaseArgs shuts the leader down gracefully (a rolling restart of the control
// plane): kube-scheduler releases its Lease on the way out (ReleaseOnCancel), so a standby
// takes over at its next attempt; kube-controller-manager does not, so its standbys wait for
// the Lease to expire, as after a crash.
type LeaderReleaseArgs struct {
	// Component is kube-controller-manager (the default) or kube-scheduler.
	Component string `json:"component,omitempty"`
	// Downtime is how long the process stays down; default the component's restart-delay.
	Downtime *time.Duration `json:"downtime,omitempty"`
}

// electedComponents are the components leader-crash, leader-partition and leader-release
// accept.
func electedComponents() []string {
	return []string{ComponentControllerManager, ComponentScheduler}
}

// controllerNames are the controllers of kube-controller-manager the simulator models, by
// their canonical upstream names ([k8s:cmd/kube-controller-manager/names/controller_names.go]).
var controllerNames = []string{
	"replicaset-controller", "deployment-controller", "statefulset-controller",
	"daemonset-controller", "disruption-controller", "endpointslice-controller",
	"horizontal-pod-autoscaler-controller", "garbage-collector-controller",
	"pod-garbage-collector-controller", "node-lifecycle-controller", "taint-eviction-controller",
}

// ControllerNames returns the kube-controller-manager controllers a scenario can restart or
// stall by name, by their upstream names.
func ControllerNames() []string { return append([]string(nil), controllerNames...) }

// restartableComponents are the values controller-restart accepts.
func restartableComponents() []string {
	return append([]string{ComponentControllerManager, ComponentScheduler}, controllerNames...)
}

// stallableComponents are the values watch-stall's component accepts. Controllers are not
// among them: kube-controller-manager's controllers share one informer factory, so their
// watches stall together, as the process's.
func stallableComponents() []string {
	return []string{ComponentControllerManager, ComponentScheduler, ComponentKubelet}
}

// controlPlaneClients are the names the simulated control plane's API clients identify
// themselves with (what Request.Client holds and the trace prints), besides one
// "kubelet/<node>" per node. Client patterns in a scenario must match at least one of these;
// the world builder (sim/cluster) names its clients from this list.
var controlPlaneClients = []string{
	"kubectl", "default-scheduler", "kube-controller-manager/shared-informers",
	"replicaset-controller", "deployment-controller", "statefulset-controller",
	"daemonset-controller", "disruption-controller", "endpointslice-controller",
	"horizontal-pod-autoscaler", "metrics-server", "garbage-collector-controller", "pod-garbage-collector",
	"node-controller", "taint-eviction-controller",
	"argocd-application-controller", "kustomize-controller",
}

// ClientNames returns every client name a run of s has: the control-plane clients and one
// "kubelet/<node>" per node of s.
func (s *Scenario) ClientNames() []string {
	out := append([]string(nil), controlPlaneClients...)
	for _, n := range s.Nodes() {
		out = append(out, "kubelet/"+n.Name)
	}
	return out
}

// verbNames are the API verbs request filters accept.
var verbNames = []string{
	string(model.VerbGet), string(model.VerbList), string(model.VerbWatch),
	string(model.VerbCreate), string(model.VerbUpdate), string(model.VerbPatch),
	string(model.VerbDelete),
}

// subresources are the subresources a resource filter may name, by resource.
var subresources = map[string][]string{
	"pods":         {"status", "eviction", "binding"},
	"nodes":        {"status"},
	"deployments":  {"status", "scale"},
	"replicasets":  {"status", "scale"},
	"statefulsets": {"status", "scale"},
}

// resourceNames returns the resources a filter may name: every kind's resource and the
// subresources in subresources.
func resourceNames() []string {
	var out []string
	for _, k := range model.Kinds() {
		out = append(out, k.Resource)
		for _, sub := range subresources[k.Resource] {
			out = append(out, k.Resource+"/"+sub)
		}
	}
	return out
}

// Distribution is a latency distribution written in a scenario: a duration (a constant),
// "uniform(1ms..5ms)", "lognormal(median=2ms,p99=20ms,max=1s)" (see ParseDist), or a mapping
// {kind: lognormal, median: 2ms, p99: 20ms}. A loaded scenario's distributions are valid.
type Distribution struct {
	sim.Dist
}

// DecodeYAMLWith decodes a distribution in either form, reporting problems at the node.
func (x *Distribution) DecodeYAMLWith(d *model.Decoder, n *yaml.Node) {
	r := d.Resolve(n)
	if r == nil {
		return
	}
	const hint = "a distribution such as 5ms, uniform(1ms..5ms), lognormal(median=2ms,p99=20ms) or {kind: lognormal, median: 2ms, p99: 20ms}"
	switch r.Kind {
	case yaml.MappingNode:
		var dist sim.Dist
		d.Decode(r, &dist)
		checked, err := checkDist(dist)
		if err != nil {
			d.Fail(r, err.Error(), hint)
			return
		}
		x.Dist = checked
	case yaml.ScalarNode:
		dist, err := ParseDist(r.Value)
		if err != nil {
			d.Fail(r, err.Error(), hint)
			return
		}
		x.Dist = dist
	default:
		d.Fail(r, "expected a distribution, got "+describe(r), hint)
	}
}

// String writes the distribution as ParseDist reads it.
func (x Distribution) String() string { return FormatDist(x.Dist) }
