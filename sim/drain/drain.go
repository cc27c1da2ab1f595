package drain

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/vtime"
)

// Component names drain in traces and process names.
const Component = "kubectl-drain"

// errWaitTimeout is wait.ErrWaitTimeout's message, what a timed-out poll of the deletion path
// reports.
var errWaitTimeout = errors.New("timed out waiting for the condition")

// Phase is how far a drain has got.
type Phase string

// The phases of a drain, in order; a drain ends Done or Failed.
const (
	PhaseNotStarted Phase = "not-started"
	PhaseCordoning  Phase = "cordoning"
	PhaseListing    Phase = "listing"
	PhaseEvicting   Phase = "evicting"
	PhaseDone       Phase = "done"
	PhaseFailed     Phase = "failed"
)

// PodState is where one pod of a drain stands.
type PodState string

// The states of a drained pod.
const (
	// PodWaiting: selected; no eviction accepted yet (none asked, or the last one refused).
	PodWaiting PodState = "waiting"
	// PodEvicted: the eviction (or deletion) was accepted; drain waits for the pod to go.
	PodEvicted PodState = "evicted"
	// PodGone: the pod no longer exists (or was replaced by one of the same name).
	PodGone PodState = "gone"
	// PodSkipped: the pod's deletion is older than --skip-wait-for-delete-timeout.
	PodSkipped PodState = "skipped"
	// PodFailed: drain gave up on the pod (an error, or the timeout).
	PodFailed PodState = "failed"
)

// PodStatus is the progress of one pod of a drain.
type PodStatus struct {
	Namespace, Name string
	State           PodState
	// Refusals counts evictions refused with 429 (a PodDisruptionBudget said no, or the
	// budget was not yet processed); LastRefusal is the last refusal's message and causes.
	Refusals    int
	LastRefusal string
	// EvictedAt is when the eviction (or deletion) was accepted, GoneAt when drain saw the pod
	// gone; meaningful only in the states that reached them.
	EvictedAt, GoneAt vtime.Time
	// Err is why drain gave up on the pod ("" unless PodFailed).
	Err string
}

// Status is the progress of a drain. It is a snapshot: later progress does not change it.
type Status struct {
	Node  string
	Phase Phase
	// StartedAt and FinishedAt bound the drain (FinishedAt is meaningful once it has ended).
	StartedAt, FinishedAt vtime.Time
	// Cordoned is true when this drain set spec.unschedulable (false when the node already
	// was cordoned).
	Cordoned bool
	// Warnings are the filter warnings kubectl prints ("ignoring DaemonSet-managed Pods:
	// ns/a, ns/b; ...").
	Warnings string
	// Pods are the pods selected for eviction, in list (key) order.
	Pods []PodStatus
	// Err is the drain's error ("" unless Failed).
	Err string
}

// Drainer drains one node the way `kubectl drain` does ([k8s:staging/src/k8s.io/kubectl/pkg/drain]
// drain.go, filters.go, cordon.go, default.go, and the drain command's RunDrain). Its Status
// can be read at any time, also while Run is blocked, so that a caller can say what a drain
// is waiting for.
type Drainer struct {
	c      *client.Client
	node   string
	opts   Options
	status Status
	ran    bool
}

// New returns a drainer of nodeName that talks to the API server through c. It returns an
// error if the options are invalid or the node name is empty.
func New(c *client.Client, nodeName string, opts Options) (*Drainer, error) {
	if c == nil {
		return nil, errors.New("drain: nil client")
	}
	if nodeName == "" {
		return nil, errors.New("drain: empty node name")
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	return &Drainer{c: c, node: nodeName, opts: opts, status: Status{Node: nodeName, Phase: PhaseNotStarted}}, nil
}

// Drain is New and Run in one call: it drains nodeName and returns the final status with Run's
// error.
func Drain(ctx context.Context, c *client.Client, nodeName string, opts Options) (Status, error) {
	d, err := New(c, nodeName, opts)
	if err != nil {
		return Status{Node: nodeName, Phase: PhaseFailed, Err: err.Error()}, err
	}
	err = d.Run(ctx)
	return d.Status(), err
}

// Status returns a snapshot of the drain's progress.
func (d *Drainer) Status() Status {
	s := d.status
	s.Pods = slices.Clone(d.status.Pods)
	return s
}

// Run drains the node from inside a simulated process (ctx carries it), blocking until the
// drain ends:
//
//  1. GET the node; cordon it with a merge patch {"spec":{"unschedulable":true}} unless it is
//     already unschedulable.
//  2. LIST the pods on the node (field selector spec.nodeName, all namespaces, --pod-selector)
//     and filter them in kubectl's order: pods whose deletion is older than
//     --skip-wait-for-delete-timeout are skipped; DaemonSet-managed pods (the DaemonSet is
//     read with a GET) are an error unless IgnoreAllDaemonSets (then left with a warning),
//     and a pod of a DaemonSet that is gone is deleted only with Force; mirror pods are
//     skipped; pods without a controller are an error unless Force. Finished pods
//     (Succeeded, Failed) are always deleted. Any error ends the drain there, the node
//     staying cordoned. Pods already terminating are not skipped: as kubectl does, drain asks
//     for their eviction too (the API server lets it through without consulting budgets) and
//     waits for them to go.
//  3. Evict every selected pod at once, one process per pod, as kubectl runs one goroutine per
//     pod: each asks for the eviction; a 429 (a PodDisruptionBudget would be violated) is
//     retried every EvictionRetryInterval (5s), a 404 means the pod is already gone, any
//     other error fails that pod. Once the eviction is accepted, the pod is polled with a GET
//     every WaitForDeleteInterval (1s, the first at once) until it is gone or replaced by a
//     pod of another UID. With DisableEviction the pods are deleted one after the other
//     instead, then all polled together.
//  4. Timeout (0: none) bounds steps 3's retries and polls in all; past it the pending pods
//     fail with "global timeout reached".
//
// Waits between retries and polls do not hold off quiescence (they are polls, not pending
// work): a drain blocked for good by a budget leaves the world quiescent with the drain still
// running, which Status then describes. Run returns nil when every selected pod is gone or
// skipped, else an aggregate of the errors, as kubectl reports them. Calling Run twice is an
// error.
func (d *Drainer) Run(ctx context.Context) error {
	if d.ran {
		return errors.New("drain: Run called twice")
	}
	d.ran = true
	p := sim.ProcFromContext(ctx)
	k := p.Kernel()
	d.status.StartedAt = k.Now()
	err := d.run(p)
	d.status.FinishedAt = k.Now()
	if err != nil {
		d.status.Phase = PhaseFailed
		d.status.Err = err.Error()
		k.Emit(Component, "drain-failed", "Node "+d.node, 0, err.Error())
		return err
	}
	d.status.Phase = PhaseDone
	k.Emit(Component, "drained", "Node "+d.node, 0, fmt.Sprintf("pods=%d took=%s", len(d.status.Pods), k.Now().Sub(d.status.StartedAt)))
	return nil
}

func (d *Drainer) emit(p *sim.Proc, action, object string, rv uint64, detail string) {
	p.Kernel().Emit(Component, action, object, rv, detail)
}

func (d *Drainer) run(p *sim.Proc) error {
	d.status.Phase = PhaseCordoning
	if err := d.cordon(p); err != nil {
		return err
	}
	d.status.Phase = PhaseListing
	pods, err := d.podsForDeletion(p)
	if err != nil {
		return err
	}
	if d.status.Warnings != "" {
		d.emit(p, "warning", "Node "+d.node, 0, d.status.Warnings)
	}
	d.status.Pods = make([]PodStatus, len(pods))
	for i, pod := range pods {
		d.status.Pods[i] = PodStatus{Namespace: pod.Namespace, Name: pod.Name, State: PodWaiting}
	}
	d.status.Phase = PhaseEvicting
	if len(pods) == 0 {
		return nil
	}
	if d.opts.DisableEviction {
		return d.deletePods(p, pods)
	}
	return d.evictPods(p, pods)
}

// cordon is RunCordonOrUncordon(desired=true): nothing to do for a node already
// unschedulable, else one patch.
func (d *Drainer) cordon(p *sim.Proc) error {
	obj, err := d.c.Get(p, model.KindNode, "", d.node)
	if err != nil {
		return err
	}
	node, ok := client.ObjectAs[*model.Node](obj)
	if !ok {
		return fmt.Errorf("drain: got %T for node %s", obj, d.node)
	}
	if node.Spec.Unschedulable {
		d.emit(p, "already-cordoned", "Node "+d.node, node.ResourceVersion, "")
		return nil
	}
	got, err := d.c.Patch(p, model.KindNode, "", d.node, []byte(`{"spec":{"unschedulable":true}}`))
	if err != nil {
		return fmt.Errorf("cordon error: %s", err.Error())
	}
	d.status.Cordoned = true
	d.emit(p, "cordoned", "Node "+d.node, got.Meta().ResourceVersion, "")
	return nil
}

// podDeleteStatus is one filter's verdict on a pod (upstream PodDeleteStatus).
type podDeleteStatus struct {
	delete  bool
	reason  string // okay, skip, warning, error
	message string
}

const (
	reasonOkay    = "Okay"
	reasonSkip    = "Skip"
	reasonWarning = "Warning"
	reasonError   = "Error"
)

var statusOkay = podDeleteStatus{delete: true, reason: reasonOkay}

// podsForDeletion is GetPodsForDeletion: list, filter, and fail on filter errors. It also
// records the warnings.
func (d *Drainer) podsForDeletion(p *sim.Proc) ([]*model.Pod, error) {
	sel, err := labels.Parse(d.opts.PodSelector)
	if err != nil {
		return nil, err
	}
	pods, _, err := client.ListAs[*model.Pod](p, d.c, model.ListOptions{
		LabelSelector: sel,
		FieldSelector: fields.OneTermEqualSelector("spec.nodeName", d.node),
	})
	if err != nil {
		return nil, err
	}
	filters := []func(*sim.Proc, *model.Pod) (podDeleteStatus, error){d.skipDeletedFilter, d.daemonSetFilter, d.mirrorPodFilter, d.unreplicatedFilter}
	var selected []*model.Pod
	errorPods := map[string][]string{}
	warningPods := map[string][]string{}
	for _, pod := range pods {
		st := statusOkay
		for _, f := range filters {
			if st, err = f(p, pod); err != nil {
				return nil, err
			}
			if !st.delete {
				break
			}
		}
		ref := pod.Namespace + "/" + pod.Name
		switch st.reason {
		case reasonError:
			msg := st.message
			if msg == "" {
				msg = "unexpected error"
			}
			errorPods[msg] = append(errorPods[msg], ref)
		case reasonWarning:
			warningPods[st.message] = append(warningPods[st.message], ref)
		}
		if st.delete {
			selected = append(selected, pod)
		}
	}
	var warnings []string
	for _, msg := range slices.Sorted(maps.Keys(warningPods)) {
		warnings = append(warnings, fmt.Sprintf("%s: %s", msg, strings.Join(warningPods[msg], ", ")))
	}
	d.status.Warnings = strings.Join(warnings, "; ")
	if len(errorPods) > 0 {
		var errs []error
		for _, msg := range slices.Sorted(maps.Keys(errorPods)) {
			errs = append(errs, fmt.Errorf("cannot delete %s: %s", msg, strings.Join(errorPods[msg], ", ")))
		}
		return nil, utilerrors.NewAggregate(errs)
	}
	return selected, nil
}

// shouldSkipPod is upstream shouldSkipPod: with --skip-wait-for-delete-timeout N > 0, a pod
// deleted more than N whole seconds ago is not waited for.
func (d *Drainer) shouldSkipPod(pod *model.Pod, now vtime.Time) bool {
	n := d.opts.SkipWaitForDeleteTimeoutSeconds
	return n > 0 && pod.DeletionTimestamp != nil && int(now.Sub(*pod.DeletionTimestamp).Seconds()) > n
}

func (d *Drainer) skipDeletedFilter(p *sim.Proc, pod *model.Pod) (podDeleteStatus, error) {
	if d.shouldSkipPod(pod, p.Now()) {
		return podDeleteStatus{reason: reasonSkip}, nil
	}
	return statusOkay, nil
}

// daemonSetFilter keeps DaemonSet-managed pods on the node (their DaemonSet would recreate
// them), reading the DaemonSet to tell a managed pod from an orphaned one.
func (d *Drainer) daemonSetFilter(p *sim.Proc, pod *model.Pod) (podDeleteStatus, error) {
	ref := model.ControllerOf(pod)
	if ref == nil || ref.Kind != model.KindDaemonSet || model.IsPodTerminal(pod) {
		return statusOkay, nil
	}
	if _, err := d.c.Get(p, model.KindDaemonSet, pod.Namespace, ref.Name); err != nil {
		if apierrors.IsNotFound(err) && d.opts.Force {
			return podDeleteStatus{delete: true, reason: reasonWarning, message: err.Error()}, nil
		}
		return podDeleteStatus{reason: reasonError, message: err.Error()}, nil
	}
	if !d.opts.IgnoreAllDaemonSets {
		return podDeleteStatus{reason: reasonError, message: daemonSetFatal}, nil
	}
	return podDeleteStatus{reason: reasonWarning, message: daemonSetWarning}, nil
}

func (d *Drainer) mirrorPodFilter(_ *sim.Proc, pod *model.Pod) (podDeleteStatus, error) {
	if _, found := pod.Annotations[MirrorPodAnnotationKey]; found {
		return podDeleteStatus{reason: reasonSkip}, nil
	}
	return statusOkay, nil
}

func (d *Drainer) unreplicatedFilter(_ *sim.Proc, pod *model.Pod) (podDeleteStatus, error) {
	if model.IsPodTerminal(pod) || model.ControllerOf(pod) != nil {
		return statusOkay, nil
	}
	if d.opts.Force {
		return podDeleteStatus{delete: true, reason: reasonWarning, message: unmanagedWarning}, nil
	}
	return podDeleteStatus{reason: reasonError, message: unmanagedFatal}, nil
}

// deleteOptions is makeDeleteOptions: the grace period only when --grace-period >= 0.
func (d *Drainer) deleteOptions() *model.DeleteOptions {
	opts := &model.DeleteOptions{}
	if d.opts.GracePeriodSeconds >= 0 {
		opts.GracePeriodSeconds = model.Ptr(int64(d.opts.GracePeriodSeconds))
	}
	return opts
}

// globalTimeout is kubectl's: --timeout, or the largest duration for 0.
func (d *Drainer) globalTimeout() time.Duration {
	if d.opts.Timeout == 0 {
		return time.Duration(math.MaxInt64)
	}
	return d.opts.Timeout
}

// deadline is when the global timeout expires, or vtime.Never.
func (d *Drainer) deadline(start vtime.Time) vtime.Time {
	if d.opts.Timeout == 0 {
		return vtime.Never
	}
	return start.Add(d.opts.Timeout)
}

// evictPods is upstream evictPods: one process per pod, and the caller waits for all of them.
// If the calling process is killed, the pod processes are killed with it.
func (d *Drainer) evictPods(p *sim.Proc, pods []*model.Pod) error {
	k := p.Kernel()
	deadline := d.deadline(k.Now())
	errs := make([]error, len(pods))
	remaining := len(pods)
	children := make([]*sim.Proc, 0, len(pods))
	defer func() {
		for _, ch := range children {
			ch.Kill()
		}
	}()
	for i, pod := range pods {
		children = append(children, k.Spawn(fmt.Sprintf("%s/%s/evict/%s/%s", Component, d.node, pod.Namespace, pod.Name), func(cp *sim.Proc) {
			errs[i] = d.evictAndWait(cp, i, pod, deadline)
			remaining--
			if remaining == 0 {
				p.Unpark()
			}
		}))
	}
	for remaining > 0 {
		p.Park()
	}
	var failed []error
	for _, err := range errs {
		if err != nil {
			failed = append(failed, err)
		}
	}
	return utilerrors.NewAggregate(failed)
}

// evictAndWait is the body of one pod's goroutine in upstream evictPods.
func (d *Drainer) evictAndWait(p *sim.Proc, i int, pod *model.Pod, deadline vtime.Time) error {
	ps := &d.status.Pods[i]
	ref := "Pod " + pod.Namespace + "/" + pod.Name
	fail := func(err error) error {
		ps.State, ps.Err = PodFailed, err.Error()
		d.emit(p, "pod-failed", ref, 0, err.Error())
		return err
	}
	for evicted := false; !evicted; {
		d.emit(p, "evicting", ref, 0, "")
		if !p.Now().Before(deadline) {
			return fail(fmt.Errorf("error when evicting pods/%q -n %q: global timeout reached: %v", pod.Name, pod.Namespace, d.globalTimeout()))
		}
		err := d.c.Evict(p, pod.Namespace, pod.Name, d.deleteOptions())
		switch {
		case err == nil:
			evicted = true
		case apierrors.IsNotFound(err):
			ps.State, ps.GoneAt = PodGone, p.Now()
			d.emit(p, "gone", ref, 0, "")
			return nil
		case apierrors.IsTooManyRequests(err):
			ps.Refusals++
			ps.LastRefusal = describeRefusal(err)
			d.emit(p, "eviction-refused", ref, 0, fmt.Sprintf("refusals=%d will retry after %s: %s", ps.Refusals, EvictionRetryInterval, ps.LastRefusal))
			p.Idle(EvictionRetryInterval)
		case apierrors.IsForbidden(err) && apierrors.HasStatusCause(err, model.NamespaceTerminatingCause) && pod.DeletionTimestamp != nil:
			// The pod is already being deleted in a namespace being deleted: an eviction will
			// never be accepted, but the pod will go; wait for it.
			evicted = true
		case apierrors.IsForbidden(err) && apierrors.HasStatusCause(err, model.NamespaceTerminatingCause):
			d.emit(p, "eviction-refused", ref, 0, fmt.Sprintf("namespace terminating, will retry after %s: %v", EvictionRetryInterval, err))
			p.Idle(EvictionRetryInterval)
		default:
			return fail(fmt.Errorf("error when evicting pods/%q -n %q: %v", pod.Name, pod.Namespace, err))
		}
	}
	ps.State, ps.EvictedAt = PodEvicted, p.Now()
	d.emit(p, "evicted", ref, 0, fmt.Sprintf("refusals=%d", ps.Refusals))
	if err := d.waitForDelete(p, []int{i}, []*model.Pod{pod}, deadline, vtime.Never); err != nil {
		return fail(fmt.Errorf("error when waiting for pod %q in namespace %q to terminate: %v", pod.Name, pod.Namespace, err))
	}
	return nil
}

// describeRefusal renders a 429's message and causes for the status and the trace.
func describeRefusal(err error) string {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return err.Error()
	}
	st := status.Status()
	parts := []string{st.Message}
	if st.Details != nil {
		for _, c := range st.Details.Causes {
			parts = append(parts, c.Message)
		}
	}
	return strings.Join(parts, " ")
}

// deletePods is upstream deletePods (--disable-eviction): delete each pod in turn (a missing
// pod is fine), then wait for all of them, the poll itself bounded by the timeout.
func (d *Drainer) deletePods(p *sim.Proc, pods []*model.Pod) error {
	opts := model.DeleteOptions{}
	if d.opts.GracePeriodSeconds >= 0 {
		opts.GracePeriodSeconds = model.Ptr(int64(d.opts.GracePeriodSeconds))
	}
	idx := make([]int, len(pods))
	for i, pod := range pods {
		idx[i] = i
		ref := "Pod " + pod.Namespace + "/" + pod.Name
		if err := d.c.Delete(p, model.KindPod, pod.Namespace, pod.Name, opts); err != nil && !apierrors.IsNotFound(err) {
			d.status.Pods[i].State, d.status.Pods[i].Err = PodFailed, err.Error()
			return err
		}
		d.status.Pods[i].State, d.status.Pods[i].EvictedAt = PodEvicted, p.Now()
		d.emit(p, "deleted", ref, 0, "")
	}
	pollEnd := d.deadline(p.Now())
	return d.waitForDelete(p, idx, pods, vtime.Never, pollEnd)
}

// waitForDelete is upstream waitForDelete over wait.PollImmediate: GET every pending pod now
// and then every WaitForDeleteInterval until all are gone (404, or a pod of another UID) or
// skipped. Past deadline (the global timeout of the eviction path) it fails with "global
// timeout reached"; past pollEnd (the poll's own timeout, in the deletion path) with "timed
// out waiting for the condition". A GET error other than 404 ends the wait with that error.
func (d *Drainer) waitForDelete(p *sim.Proc, idx []int, pods []*model.Pod, deadline, pollEnd vtime.Time) error {
	for {
		var pendingIdx []int
		var pending []*model.Pod
		for j, pod := range pods {
			ps := &d.status.Pods[idx[j]]
			ref := "Pod " + pod.Namespace + "/" + pod.Name
			got, err := client.GetAs[*model.Pod](p, d.c, pod.Namespace, pod.Name)
			switch {
			case apierrors.IsNotFound(err) || (err == nil && got.UID != pod.UID):
				ps.State, ps.GoneAt = PodGone, p.Now()
				d.emit(p, "gone", ref, 0, "")
			case err != nil:
				return err
			case d.shouldSkipPod(got, p.Now()):
				ps.State = PodSkipped
				d.emit(p, "skip", ref, 0, fmt.Sprintf("pod %q has DeletionTimestamp older than %v seconds, skipping", pod.Name, d.opts.SkipWaitForDeleteTimeoutSeconds))
			default:
				pendingIdx = append(pendingIdx, idx[j])
				pending = append(pending, pod)
			}
		}
		if len(pending) == 0 {
			return nil
		}
		idx, pods = pendingIdx, pending
		if !p.Now().Before(deadline) {
			return fmt.Errorf("global timeout reached: %v", d.globalTimeout())
		}
		if !p.Now().Add(WaitForDeleteInterval).Before(pollEnd) && pollEnd != vtime.Never {
			return errWaitTimeout
		}
		p.Idle(WaitForDeleteInterval)
	}
}
