package scenarios

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/metrics"
)

// The apiVersion and kind every scenario file declares.
const (
	APIVersion = "reconsim.dev/v1alpha1"
	Kind       = "Scenario"
)

// Limits and defaults of the scenario format. Every one is checked at load time, so a loaded
// scenario never asks the simulator for more than this.
const (
	// MaxFileBytes is the largest scenario file, and the largest manifest file it references.
	MaxFileBytes = 16 << 20
	// MaxDuration is the longest virtual duration of a run.
	MaxDuration = 30 * 24 * time.Hour
	// MaxClusterNodes is the most nodes a scenario may declare: twice the upstream scalability
	// threshold of 5000 nodes ([community@HEAD] sig-scalability/configs-and-limits/thresholds.md),
	// so a scenario can go past the tested envelope but not without bound.
	MaxClusterNodes = 10_000
	// MaxObjects is the most manifests a scenario may create (objects plus applies).
	MaxObjects = 100_000
	// MaxListedProblems is the most problems the loader lists for a scenario, the first it
	// finds; the rest are counted in one last entry (problems.go).
	MaxListedProblems = 1_000
	// MaxTimelineEntries and MaxExpectations bound the lists of those names.
	MaxTimelineEntries = 10_000
	MaxExpectations    = 1_000
	// MaxReplicas is the largest replica count a scale action or condition may ask for.
	MaxReplicas = 1_000_000
	// DefaultMaxEvents is the event limit of a run whose scenario does not set stop.maxEvents.
	DefaultMaxEvents = 100_000_000
	// MaxMaxEvents is the largest stop.maxEvents accepted.
	MaxMaxEvents = 10_000_000_000
	// DefaultQuiescence is the quiet window of a scenario that does not set stop.quiescence.
	// It is longer than the default unreachable toleration (300s) plus the default
	// node-monitor-grace-period (50s), so the quiet stretch of a default node failure (between
	// the taint and the eviction) cannot end the run.
	DefaultQuiescence = 10 * time.Minute
	// DefaultSeed is the seed of a scenario that does not set one.
	DefaultSeed = 1
	// maxYAMLValues bounds the values a scenario file may expand to through aliases.
	maxYAMLValues = 1_000_000
	// maxYAMLDepth bounds the nesting of a scenario file.
	maxYAMLDepth = 200
)

// Well-known node labels the simulator sets, as the kubelet and cloud provider do
// ([api@HEAD] core/v1 well_known_labels.go).
const (
	LabelHostname = "kubernetes.io/hostname"
	LabelOS       = "kubernetes.io/os"
	LabelArch     = "kubernetes.io/arch"
	LabelZone     = "topology.kubernetes.io/zone"
	LabelRegion   = "topology.kubernetes.io/region"
)

// Namespaces that always exist: "default" and the ones the simulator creates.
var systemNamespaces = []string{"default", "kube-node-lease", "kube-system"}

// Scenario is a loaded, defaulted and validated scenario file. Fields mirror the YAML keys
// (docs/scenario.md); after Load or Parse every default is filled in, so the simulator reads
// plain values. A Scenario built in Go rather than loaded is not validated.
type Scenario struct {
	APIVersion  string `json:"apiVersion"`
	Kind        string `json:"kind"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Seed is the default seed of the run (DefaultSeed when the file has none); the CLI's
	// --seed takes precedence.
	Seed uint64 `json:"seed,omitempty"`
	// Duration is the virtual-time limit of the run.
	Duration time.Duration  `json:"duration"`
	Stop     StopConditions `json:"stop,omitempty"`
	Cluster  Cluster        `json:"cluster,omitempty"`
	// Components holds the component flags the scenario sets; see Components.
	Components Components     `json:"components,omitempty"`
	Objects    []ObjectSource `json:"objects,omitempty"`
	// Loads is the offered load on workloads and how it turns into pod usage, for the
	// metrics pipeline (sim/metrics); defaulted (LoadSpec.SetDefaults) and validated, with
	// series files read into Points.
	Loads    []metrics.LoadSpec `json:"loads,omitempty"`
	Timeline []TimelineEntry    `json:"timeline,omitempty"`
	Expect   []Expectation      `json:"expect,omitempty"`
	// Explore is the fault space `sim explore` searches and the invariants every run of the
	// scenario is held to (nil without an explore: section).
	Explore *Explore `json:"explore,omitempty"`

	// File is where the scenario was read from ("builtin/<name>.yaml" for a built-in).
	File string `json:"-"`
	// Overrides are the overrides applied by Apply, in order.
	Overrides []Override `json:"-"`
}

// StopConditions end a run before its duration.
type StopConditions struct {
	// MaxEvents stops the run after this many kernel events (DefaultMaxEvents if unset).
	MaxEvents uint64 `json:"maxEvents,omitempty"`
	// Quiescence stops the run when nothing significant happened for this long and no work is
	// pending (DefaultQuiescence if unset); 0 disables it.
	Quiescence time.Duration `json:"quiescence,omitempty"`
}

// Cluster is the simulated cluster's shape.
type Cluster struct {
	NodeGroups []NodeGroup `json:"nodeGroups,omitempty"`
	// Namespaces to create besides the system ones ("default", "kube-system",
	// "kube-node-lease"), which always exist; after loading the list holds only extra ones.
	Namespaces []string `json:"namespaces,omitempty"`
}

// NodeGroup is a set of identical nodes named NamePrefix+index (worker-0, worker-1, ...).
type NodeGroup struct {
	Name string `json:"name"`
	// NamePrefix defaults to Name+"-".
	NamePrefix string `json:"namePrefix,omitempty"`
	Count      int    `json:"count"`
	// Zone and Region become the topology.kubernetes.io/zone and /region labels.
	Zone   string `json:"zone,omitempty"`
	Region string `json:"region,omitempty"`
	// Capacity must hold cpu and memory; pods defaults to the kubelet's max-pods.
	Capacity model.ResourceList `json:"capacity"`
	// Allocatable defaults, per resource, to Capacity.
	Allocatable model.ResourceList `json:"allocatable,omitempty"`
	Labels      map[string]string  `json:"labels,omitempty"`
	Taints      []model.Taint      `json:"taints,omitempty"`
	// StartupTime is when the group's nodes join the cluster (0: at the start).
	StartupTime time.Duration `json:"startupTime,omitempty"`
}

// NodeName returns the name of the group's i-th node.
func (g NodeGroup) NodeName(i int) string { return g.NamePrefix + strconv.Itoa(i) }

// NodeLabels returns the labels of the group's i-th node: the group's labels plus the ones
// the kubelet and cloud provider set (hostname, os linux, arch amd64, zone and region when
// given). The map is new on every call.
func (g NodeGroup) NodeLabels(i int) map[string]string {
	l := make(map[string]string, len(g.Labels)+5)
	for k, v := range g.Labels { //detlint:ordered a copy into a map
		l[k] = v
	}
	l[LabelHostname] = g.NodeName(i)
	l[LabelOS] = "linux"
	l[LabelArch] = "amd64"
	if g.Zone != "" {
		l[LabelZone] = g.Zone
	}
	if g.Region != "" {
		l[LabelRegion] = g.Region
	}
	return l
}

// ClusterNode is one node a scenario declares.
type ClusterNode struct {
	Name        string
	Group       string
	Index       int
	Zone        string
	Region      string
	Labels      map[string]string
	StartupTime time.Duration
}

// Nodes lists every node of the scenario, group by group in file order, each group by index.
func (s *Scenario) Nodes() []ClusterNode {
	var out []ClusterNode
	for _, g := range s.Cluster.NodeGroups {
		for i := 0; i < g.Count; i++ {
			out = append(out, ClusterNode{
				Name: g.NodeName(i), Group: g.Name, Index: i, Zone: g.Zone, Region: g.Region,
				Labels: g.NodeLabels(i), StartupTime: g.StartupTime,
			})
		}
	}
	return out
}

// ObjectSource is one entry of `objects:`: a manifest written inline or a file of manifests.
type ObjectSource struct {
	// Manifest gives objects[].manifest, an inline manifest, its place in the scenario's
	// shape (the schema and `sim explain` describe it from this field). The loader decodes
	// the manifest into Objects and does not keep its YAML, as a scenario may hold 100,000
	// of them (see stream.go): Manifest is nil after Parse, and an entry without File is an
	// inline manifest.
	Manifest *yaml.Node `json:"manifest,omitempty"`
	// File is a multi-document YAML file, relative to the scenario file's directory.
	File string `json:"file,omitempty"`
	// Settled objects start out as if their controllers had already reconciled them (their
	// pods exist, scheduled and running; a Service's EndpointSlices exist) instead of being
	// created at time 0. Only SettledKinds can be settled.
	Settled bool `json:"settled,omitempty"`
	// Copies makes the entry N manifests: the inline manifest with IndexToken replaced by
	// 0..N-1 in its strings (copies.go). 0 when unset, which is one manifest, as written.
	Copies int `json:"copies,omitempty"`

	// Objects are the decoded manifests, in document order; filled by the loader.
	Objects []model.Object `json:"-"`
	// Pos is where the entry is written.
	Pos model.Position `json:"-"`
}

// TimelineEntry is one scheduled action.
type TimelineEntry struct {
	// Name identifies the entry for `after:` references and in results; optional.
	Name string `json:"name,omitempty"`
	At   At     `json:"at"`
	// As names who performs the action (a person or a tool: "alice", "ci"); the trace and
	// the result record it, so a report can say who changed what and what put it back.
	// Empty means the scenario's own hand.
	As string `json:"as,omitempty"`
	// Action is written flat in YAML: `action: <kind>` and the kind's arguments beside it.
	Action Action `json:"action"`
	// Pos is where the entry is written.
	Pos model.Position `json:"-"`
}

// At says when a timeline entry runs. In YAML it is a duration ("60s", time since the start),
// "converged", or a mapping {after: <entry>, delay: <duration>}, {converged: true, delay:
// <duration>} or {write: <k>, by: <component>, delay: <duration>}.
type At struct {
	// Offset is the time since the start, when neither After nor Converged is set.
	Offset time.Duration `json:"offset,omitempty"`
	// After names an earlier entry: this one runs Delay after that one ran.
	After string `json:"after,omitempty"`
	// Converged: this entry runs Delay after the world has converged following the previous
	// entry (or following the start, for the first entry).
	Converged bool `json:"converged,omitempty"`
	// Write and By: this entry runs Delay after the Write-th acknowledged write (create,
	// update, patch or delete answered without error) of the component By, counted from the
	// start across restarts; it never runs if the component writes fewer times. Sieve's
	// intermediate-state perturbation (OSDI'22) picks its crash points this way.
	Write int           `json:"write,omitempty"`
	By    string        `json:"by,omitempty"`
	Delay time.Duration `json:"delay,omitempty"`
}

// String writes the time as in YAML: "60s", "after crash +10s", "converged +30s".
func (a At) String() string {
	switch {
	case a.After != "":
		return "after " + a.After + delaySuffix(a.Delay)
	case a.Converged:
		return "converged" + delaySuffix(a.Delay)
	case a.Write > 0:
		return fmt.Sprintf("write %d of %s", a.Write, a.By) + delaySuffix(a.Delay)
	default:
		return formatDuration(a.Offset)
	}
}

func delaySuffix(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return " +" + formatDuration(d)
}

// Action is a tagged union: exactly one field is set, and its JSON name is the action's name
// (the value of `action:` in YAML). Each action has its own argument type. Fields are grouped
// as the docs list them: workloads, nodes, control-plane faults, load.
type Action struct {
	Apply    *ApplyArgs    `json:"apply,omitempty"`
	Delete   *DeleteArgs   `json:"delete,omitempty"`
	Scale    *ScaleArgs    `json:"scale,omitempty"`
	Rollout  *RolloutArgs  `json:"rollout,omitempty"`
	Rollback *RollbackArgs `json:"rollback,omitempty"`
	Pause    *PauseArgs    `json:"pause,omitempty"`
	Resume   *ResumeArgs   `json:"resume,omitempty"`
	Patch    *PatchArgs    `json:"patch,omitempty"`
	Edit     *EditArgs     `json:"edit,omitempty"`

	KillContainer *KillContainerArgs `json:"kill-container,omitempty"`

	Cordon        *CordonArgs        `json:"cordon,omitempty"`
	Uncordon      *UncordonArgs      `json:"uncordon,omitempty"`
	Drain         *DrainArgs         `json:"drain,omitempty"`
	NodeCrash     *NodeCrashArgs     `json:"node-crash,omitempty"`
	NodePartition *NodePartitionArgs `json:"node-partition,omitempty"`
	KubeletStall  *KubeletStallArgs  `json:"kubelet-stall,omitempty"`
	// ImagePullFailure is a per-node registry fault: the nodes' image pulls fail for a while.
	ImagePullFailure *ImagePullFailureArgs `json:"image-pull-failure,omitempty"`
	NodeRecover      *NodeRecoverArgs      `json:"node-recover,omitempty"`
	NodeDelete       *NodeDeleteArgs       `json:"node-delete,omitempty"`
	ZoneOutage       *ZoneOutageArgs       `json:"zone-outage,omitempty"`

	APILatency        *APILatencyArgs        `json:"api-latency,omitempty"`
	APIErrors         *APIErrorsArgs         `json:"api-errors,omitempty"`
	APILoad           *APILoadArgs           `json:"api-load,omitempty"`
	ControllerRestart *ControllerRestartArgs `json:"controller-restart,omitempty"`
	WatchStall        *WatchStallArgs        `json:"watch-stall,omitempty"`
	WatchCoalesce     *WatchCoalesceArgs     `json:"watch-coalesce,omitempty"`

	LeaderCrash     *LeaderCrashArgs     `json:"leader-crash,omitempty"`
	LeaderPartition *LeaderPartitionArgs `json:"leader-partition,omitempty"`
	LeaderRelease   *LeaderReleaseArgs   `json:"leader-release,omitempty"`

	Load *LoadArgs `json:"load,omitempty"`
}

// ActionNames returns the name of every action, in the order of the Action fields.
func ActionNames() []string { return unionNames(reflect.TypeFor[Action]()) }

// Name returns the name of the set action ("node-crash", ...), or "" if none is set.
func (a Action) Name() string { return unionName(reflect.ValueOf(a)) }

// Nodes returns the node target of a node action (cordon, uncordon, drain, node-crash,
// node-partition, kubelet-stall, image-pull-failure, node-recover, node-delete), or nil for
// other actions.
func (a Action) Nodes() *NodeTarget {
	switch {
	case a.NodeCrash != nil:
		return &a.NodeCrash.Nodes
	case a.NodePartition != nil:
		return &a.NodePartition.Nodes
	case a.KubeletStall != nil:
		return &a.KubeletStall.Nodes
	case a.ImagePullFailure != nil:
		return &a.ImagePullFailure.Nodes
	case a.NodeRecover != nil:
		return &a.NodeRecover.Nodes
	case a.NodeDelete != nil:
		return &a.NodeDelete.Nodes
	case a.Cordon != nil:
		return &a.Cordon.Nodes
	case a.Uncordon != nil:
		return &a.Uncordon.Nodes
	case a.Drain != nil:
		return &a.Drain.Nodes
	}
	return nil
}

// Target returns the object an object action works on (delete, scale, rollout, rollback,
// pause, resume, patch, edit, kill-container, load), or nil for other actions.
func (a Action) Target() *ObjectRef {
	switch {
	case a.Patch != nil:
		return &a.Patch.Target
	case a.Edit != nil:
		return &a.Edit.Target
	case a.KillContainer != nil:
		return &a.KillContainer.Target
	case a.Delete != nil:
		return &a.Delete.Target
	case a.Scale != nil:
		return &a.Scale.Target
	case a.Rollout != nil:
		return &a.Rollout.Target
	case a.Rollback != nil:
		return &a.Rollback.Target
	case a.Pause != nil:
		return &a.Pause.Target
	case a.Resume != nil:
		return &a.Resume.Target
	case a.Load != nil:
		return &a.Load.Target
	}
	return nil
}

// ApplyArgs creates (or replaces) objects, like `kubectl apply`.
type ApplyArgs struct {
	// Manifest is one inline manifest; File is a file of manifests (exactly one is set).
	Manifest *yaml.Node `json:"manifest,omitempty"`
	File     string     `json:"file,omitempty"`
	// Commit puts the manifests into the GitOps agent's source (a git commit) instead of
	// applying them: the agent applies them when it next syncs. Needs the gitops-agent.
	Commit bool `json:"commit,omitempty"`
	// Objects are the decoded manifests; filled by the loader.
	Objects []model.Object `json:"-"`
}

// DeleteArgs deletes one object, gracefully, like `kubectl delete`.
type DeleteArgs struct {
	Target ObjectRef `json:"target"`
	// Commit removes the object from the GitOps agent's source (a git commit) instead of
	// deleting it: the agent prunes it if prune is on, else reports OutOfSync. Needs the
	// gitops-agent.
	Commit bool `json:"commit,omitempty"`
}

// ScaleArgs sets a workload's spec.replicas, like `kubectl scale`.
type ScaleArgs struct {
	Target   ObjectRef `json:"target"`
	Replicas int32     `json:"replicas"`
}

// NodeCrashArgs stops the nodes' kubelets and kills their pods' containers; the Node objects
// stay, and nothing reports for them until node-recover.
type NodeCrashArgs struct {
	Nodes NodeTarget `json:"nodes"`
}

// NodePartitionArgs cuts the nodes off from the API server: their kubelets and pods keep
// running but no heartbeat or status reaches the API until node-recover.
type NodePartitionArgs struct {
	Nodes NodeTarget `json:"nodes"`
}

// KubeletStallArgs freezes the nodes' kubelets for a while (no heartbeats, no pod syncs);
// running containers keep running.
type KubeletStallArgs struct {
	Nodes NodeTarget    `json:"nodes"`
	For   time.Duration `json:"for"`
}

// ImagePullFailureArgs makes every image pull on the nodes fail for a while (a registry the
// nodes cannot reach): containers whose image is not on the node wait in ErrImagePull and
// ImagePullBackOff; images already there still start.
type ImagePullFailureArgs struct {
	Nodes NodeTarget    `json:"nodes"`
	For   time.Duration `json:"for"`
}

// NodeRecoverArgs ends a crash or partition of the nodes.
type NodeRecoverArgs struct {
	Nodes NodeTarget `json:"nodes"`
}

// NodeDeleteArgs deletes the Node objects (as a cloud provider does for a removed VM).
type NodeDeleteArgs struct {
	Nodes NodeTarget `json:"nodes"`
}

// ZoneOutageArgs crashes every node of a zone.
type ZoneOutageArgs struct {
	Zone string `json:"zone"`
}

// CordonArgs marks the nodes unschedulable, like `kubectl cordon`.
type CordonArgs struct {
	Nodes NodeTarget `json:"nodes"`
}

// UncordonArgs marks the nodes schedulable again.
type UncordonArgs struct {
	Nodes NodeTarget `json:"nodes"`
}

// ObjectRef names one API object. Namespace defaults to "default" for namespaced kinds.
type ObjectRef struct {
	Kind      model.Kind `json:"kind"`
	Namespace string     `json:"namespace,omitempty"`
	Name      string     `json:"name"`
}

// String writes the reference as "Kind namespace/name".
func (r ObjectRef) String() string { return string(r.Kind) + " " + model.KeyOf(r.Namespace, r.Name) }

// NodeTarget selects nodes: either Names, or the nodes matching Selector and Zone (both
// optional), of which Random picks that many at random (drawn from the run's seed). At least
// one field is set.
type NodeTarget struct {
	Names []string `json:"names,omitempty"`
	// Selector is a label selector in kubectl syntax ("pool=default,tier in (a,b)").
	Selector string `json:"selector,omitempty"`
	Zone     string `json:"zone,omitempty"`
	Random   int    `json:"random,omitempty"`
}

// Select returns the names of the targeted nodes among nodes (as from Scenario.Nodes). Names
// come back as given; otherwise the matching nodes in the order of nodes, or, with Random,
// Random of them drawn with r in draw order. It draws from r only when Random > 0 (r must
// then be non-nil). A selector that does not parse selects nothing; a loaded scenario's
// selectors always parse.
func (t NodeTarget) Select(nodes []ClusterNode, r *rand.Rand) []string {
	if len(t.Names) > 0 {
		return append([]string(nil), t.Names...)
	}
	var sel labels.Selector
	if t.Selector != "" {
		var err error
		if sel, err = labels.Parse(t.Selector); err != nil {
			return nil
		}
	}
	var cands []string
	for _, n := range nodes {
		if t.Zone != "" && n.Zone != t.Zone {
			continue
		}
		if sel != nil && !sel.Matches(labels.Set(n.Labels)) {
			continue
		}
		cands = append(cands, n.Name)
	}
	if t.Random <= 0 {
		return cands
	}
	// Partial Fisher-Yates: the first k slots end up a uniform sample, in draw order.
	k := min(t.Random, len(cands))
	for i := 0; i < k; i++ {
		j := i + r.IntN(len(cands)-i)
		cands[i], cands[j] = cands[j], cands[i]
	}
	return cands[:k]
}

// String describes the target briefly: "worker-0,worker-1", "selector pool=a", "2 random in zone-a".
func (t NodeTarget) String() string {
	if len(t.Names) > 0 {
		return strings.Join(t.Names, ",")
	}
	var parts []string
	if t.Random > 0 {
		parts = append(parts, strconv.Itoa(t.Random)+" random")
	}
	if t.Selector != "" {
		parts = append(parts, "selector "+t.Selector)
	}
	if t.Zone != "" {
		parts = append(parts, "zone "+t.Zone)
	}
	return strings.Join(parts, " ")
}

// Expectation is one `expect:` entry: a tagged union, exactly one of the kind fields is set.
// Every kind's result carries a message; for a failed one the message says when it first
// failed and with what values (see each kind's type).
type Expectation struct {
	Name string `json:"name"`
	// Converged: the world converged within a time after a timeline entry.
	Converged *ConvergedExpectation `json:"converged,omitempty"`
	// Event: an Event with the given reason (and optionally object) was recorded.
	Event *EventExpectation `json:"event,omitempty"`
	// Eventually, Always, Never: a built-in condition held at some point, at every point, or
	// at no point of the window.
	Eventually *ConditionExpectation `json:"eventually,omitempty"`
	Always     *ConditionExpectation `json:"always,omitempty"`
	Never      *ConditionExpectation `json:"never,omitempty"`
	// Metric: an aggregate of a recorded time series stayed within a threshold.
	Metric *MetricExpectation `json:"metric,omitempty"`
	// Verdict says which non-convergence verdicts the run may end with: none, any, or the
	// verdicts that match (by reason and object), which must then be there.
	Verdict *VerdictExpectation `json:"verdict,omitempty"`
	// Pos is where the entry is written.
	Pos model.Position `json:"-"`
}

// ExpectationKinds returns the name of every expectation kind, in the order of the
// Expectation fields.
func ExpectationKinds() []string { return unionNames(reflect.TypeFor[Expectation]()) }

// Kind returns the name of the set kind ("converged", "event", ...), or "" if none is set.
func (e Expectation) Kind() string { return unionName(reflect.ValueOf(e)) }

// ConvergedExpectation holds when the world converged within Within after the timeline
// entry After ran (after the start, if After is empty) and stayed converged: it is converged
// at the end of the window and never diverges after it, until a later entry runs while it is
// converged. After a drain, converged also needs the drain to have completed.
type ConvergedExpectation struct {
	After  string        `json:"after,omitempty"`
	Within time.Duration `json:"within"`
}

// EventExpectation holds when at least Count Events with Reason (and, when given, about the
// object Kind/Namespace/Name) were recorded, within the window if one is given.
type EventExpectation struct {
	Reason    string     `json:"reason"`
	Kind      model.Kind `json:"kind,omitempty"`
	Name      string     `json:"name,omitempty"`
	Namespace string     `json:"namespace,omitempty"`
	// Count is the minimum number of matching Events (default 1).
	Count  int     `json:"count,omitempty"`
	Within *Window `json:"within,omitempty"`
}

// Window is the stretch of virtual time from when the timeline entry After ran (the start, if
// After is empty) to Within later.
type Window struct {
	After  string        `json:"after,omitempty"`
	Within time.Duration `json:"within"`
}

// ConditionExpectation is a built-in condition checked over a window (the whole run if
// Within is nil). In YAML the condition is written flat: `condition: <name>` and its
// arguments beside it.
//
// The condition is evaluated at the window's start and after every change of the world
// inside it. always fails at the first evaluation where the condition is false, never at the
// first where it is true; eventually passes at the first where it is true. The message of a
// decided expectation names the condition, the virtual time of that evaluation and the
// values it saw (each condition's type says which); an undecided always/never passes and an
// undecided eventually fails with the last values seen.
type ConditionExpectation struct {
	Condition Condition `json:"condition"`
	Within    *Window   `json:"within,omitempty"`
}

// Condition is a tagged union of the built-in conditions; exactly one field is set.
type Condition struct {
	NoPendingPods         *NoPendingPodsArgs         `json:"no-pending-pods,omitempty"`
	ReadyReplicas         *ReadyReplicasArgs         `json:"ready-replicas,omitempty"`
	NodeOvercommitted     *NodeOvercommittedArgs     `json:"node-overcommitted,omitempty"`
	PodsAtMost            *PodsAtMostArgs            `json:"pods-at-most,omitempty"`
	ReplicasAtMost        *ReplicasAtMostArgs        `json:"replicas-at-most,omitempty"`
	AvailableAtLeast      *AvailableAtLeastArgs      `json:"available-at-least,omitempty"`
	ReadyEndpointsAtLeast *ReadyEndpointsAtLeastArgs `json:"ready-endpoints-at-least,omitempty"`
	FieldEquals           *FieldEqualsArgs           `json:"field-equals,omitempty"`
}

// ConditionNames returns the name of every built-in condition, in the order of the Condition
// fields.
func ConditionNames() []string { return unionNames(reflect.TypeFor[Condition]()) }

// Name returns the name of the set condition, or "" if none is set.
func (c Condition) Name() string { return unionName(reflect.ValueOf(c)) }

// Target returns the workload a condition is about (ready-replicas, pods-at-most,
// available-at-least), or nil for conditions without one.
func (c Condition) Target() *ObjectRef {
	switch {
	case c.ReadyReplicas != nil:
		return &c.ReadyReplicas.Target
	case c.PodsAtMost != nil:
		return &c.PodsAtMost.Target
	case c.ReplicasAtMost != nil:
		return &c.ReplicasAtMost.Target
	case c.AvailableAtLeast != nil:
		return &c.AvailableAtLeast.Target
	case c.FieldEquals != nil:
		return &c.FieldEquals.Target
	}
	return nil
}

// VerdictPolicy is the value of a `verdict:` expectation written as a word.
type VerdictPolicy string

// Verdict policies.
const (
	// VerdictNone: the run must end without any non-convergence verdict.
	VerdictNone VerdictPolicy = "none"
	// VerdictAny: verdicts are expected (an impossible spec, for example) and do not fail it.
	VerdictAny VerdictPolicy = "any"
)

// VerdictExpectation is a `verdict:` expectation: `none`, `any`, or a mapping that names the
// verdicts expected ({reason: Unschedulable}, optionally with kind, namespace and name). A
// mapping holds when at least one verdict matches, and it covers the verdicts that match: a
// run that ends with a verdict no verdict expectation covers fails.
type VerdictExpectation struct {
	// Policy is set when the expectation is written as a word (none or any); the fields below
	// are then empty.
	Policy VerdictPolicy `json:"-"`
	// Reason is the verdict's reason, one of VerdictReasons.
	Reason string `json:"reason,omitempty"`
	// Kind, Namespace and Name narrow it to the verdicts about that object.
	Kind      model.Kind `json:"kind,omitempty"`
	Namespace string     `json:"namespace,omitempty"`
	Name      string     `json:"name,omitempty"`
}

// Matches says whether a verdict with these reason, kind, namespace and name is one e expects.
func (e VerdictExpectation) Matches(reason, kind, namespace, name string) bool {
	switch e.Policy {
	case VerdictAny:
		return true
	case VerdictNone:
		return false
	}
	return (e.Reason == "" || e.Reason == reason) && (e.Kind == "" || string(e.Kind) == kind) &&
		(e.Namespace == "" || e.Namespace == namespace) && (e.Name == "" || e.Name == name)
}

// String writes e as in YAML: none, any or {reason: ..., kind: ...}.
func (e VerdictExpectation) String() string {
	if e.Policy != "" {
		return string(e.Policy)
	}
	var parts []string
	for _, kv := range [][2]string{{"reason", e.Reason}, {"kind", string(e.Kind)}, {"namespace", e.Namespace}, {"name", e.Name}} {
		if kv[1] != "" {
			parts = append(parts, kv[0]+": "+kv[1])
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// The reasons a verdict gives (result.json verdicts[].reason), CamelCase as Kubernetes writes
// reasons. The message beside it says the rest in words.
const (
	// VerdictUnschedulable: pods cannot be scheduled; the message is the scheduler's latest
	// FailedScheduling message ("0/3 nodes are available: 3 Insufficient cpu.").
	VerdictUnschedulable = "Unschedulable"
	// VerdictNoScheduler: a pod names a spec.schedulerName no scheduler in the run serves, so
	// nothing ever schedules it.
	VerdictNoScheduler = "NoScheduler"
	// VerdictPending: a pod is Pending and no component said why (the run ended first).
	VerdictPending = "Pending"
	// VerdictCrashLoopBackOff: a container (or an init container) keeps crashing.
	VerdictCrashLoopBackOff = "CrashLoopBackOff"
	// VerdictImagePullBackOff: a container's image cannot be pulled (ErrImagePull,
	// ImagePullBackOff).
	VerdictImagePullBackOff = "ImagePullBackOff"
	// VerdictNodeDown: pods on nodes that are down have not been replaced yet.
	VerdictNodeDown = "NodeDown"
	// VerdictNotReady: pods run but are not Ready.
	VerdictNotReady = "NotReady"
	// VerdictFailedCreate: the controller cannot create pods (ReplicaFailure).
	VerdictFailedCreate = "FailedCreate"
	// VerdictWaitingForPod: a StatefulSet waits for a pod (one Terminating on a lost node).
	VerdictWaitingForPod = "WaitingForPod"
	// VerdictProgressDeadlineExceeded: a Deployment's rollout passed its progress deadline.
	VerdictProgressDeadlineExceeded = "ProgressDeadlineExceeded"
	// VerdictPaused: a Deployment is paused mid-rollout.
	VerdictPaused = "Paused"
	// VerdictRolloutIncomplete: a rollout had not completed when the run ended.
	VerdictRolloutIncomplete = "RolloutIncomplete"
	// VerdictDrainBlocked: a drain did not finish because evictions were refused (a
	// PodDisruptionBudget).
	VerdictDrainBlocked = "DrainBlocked"
	// VerdictDrainIncomplete: a drain did not finish for another reason.
	VerdictDrainIncomplete = "DrainIncomplete"
	// VerdictActionFailed: a timeline action's API calls failed, so it did not happen.
	VerdictActionFailed = "ActionFailed"
	// VerdictInProgress: the workload was still converging and no component reported a
	// problem (its controller had not caught up when the run ended).
	VerdictInProgress = "InProgress"
	// VerdictOutOfSync: the GitOps agent's Application was OutOfSync when the run ended
	// (drift it does not correct: self-heal or automated sync off, prune off, or Flux's next
	// interval not come yet).
	VerdictOutOfSync = "OutOfSync"
	// Job failures: the reason of the Job's Failed condition (batch/v1 JobReason*), the
	// message says the rest ("Job has reached the specified backoff limit", the counts).
	VerdictBackoffLimitExceeded     = "BackoffLimitExceeded"
	VerdictDeadlineExceeded         = "DeadlineExceeded"
	VerdictPodFailurePolicy         = "PodFailurePolicy"
	VerdictFailedIndexes            = "FailedIndexes"
	VerdictMaxFailedIndexesExceeded = "MaxFailedIndexesExceeded"
)

// VerdictReasons lists every verdict reason, in the order the docs show them.
var VerdictReasons = []string{
	VerdictUnschedulable, VerdictNoScheduler, VerdictPending, VerdictCrashLoopBackOff, VerdictImagePullBackOff, VerdictNodeDown,
	VerdictNotReady, VerdictFailedCreate, VerdictWaitingForPod, VerdictProgressDeadlineExceeded,
	VerdictPaused, VerdictRolloutIncomplete, VerdictDrainBlocked, VerdictDrainIncomplete, VerdictActionFailed, VerdictInProgress,
	VerdictOutOfSync,
	VerdictBackoffLimitExceeded, VerdictDeadlineExceeded, VerdictPodFailurePolicy, VerdictFailedIndexes, VerdictMaxFailedIndexesExceeded,
}

// unionNames returns the JSON names of the pointer fields of the union type t, in order.
func unionNames(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); f.Type.Kind() == reflect.Pointer {
			out = append(out, jsonName(f))
		}
	}
	return out
}

// unionName returns the JSON name of the first non-nil pointer field of the union v.
func unionName(v reflect.Value) string {
	for i := 0; i < v.NumField(); i++ {
		if f := v.Field(i); f.Kind() == reflect.Pointer && !f.IsNil() {
			return jsonName(v.Type().Field(i))
		}
	}
	return ""
}

// unionCount returns how many pointer fields of the union v are set.
func unionCount(v reflect.Value) int {
	n := 0
	for i := 0; i < v.NumField(); i++ {
		if f := v.Field(i); f.Kind() == reflect.Pointer && !f.IsNil() {
			n++
		}
	}
	return n
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" {
		return f.Name
	}
	return name
}

// EntryIndex returns the index of the timeline entry called name, or -1.
func (s *Scenario) EntryIndex(name string) int {
	for i, e := range s.Timeline {
		if e.Name != "" && e.Name == name {
			return i
		}
	}
	return -1
}
