package job

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"k8s.io/utils/ptr"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/internal/testworld"
	"github.com/reconsim/reconsim/vtime"
)

const testNS = testworld.Namespace

// TestTraces runs the datadriven scripts in testdata/ (regenerate with -rewrite). Each script
// cites the upstream function whose behaviour it pins. Commands:
//
//	init [version=1.N]                       new world with the Job controller started
//	create-job name=X [completions=N] [parallelism=N] [backoff-limit=N] [indexed]
//	           [deadline=S] [suspend] [ignore-disruption] [fail-job-on-exit=C]
//	kubelet run=D [code=N] [codes=a,b,...] [fail-index=I]
//	                                         the fake kubelet: each new pod runs for D, then
//	                                         exits with code (or the next of codes, per pod;
//	                                         or 1 for index I and 0 for the others)
//	create-job ... [backoff-limit-per-index=N] [max-failed-indexes=N] [success-indexes=0-1] [managed-by=X]
//	disrupt pod=I                            PodGC's orphan handling: Failed + DisruptionTarget
//	run for=D                                advance virtual time; print the controller's lines
//	pods                                     the namespace's pods
//	status name=X                            the Job's status and conditions
//	events                                   events recorded since the last call
func TestTraces(t *testing.T) {
	testworld.Walk(t, "testdata", func(t *testing.T, d *datadriven.TestData) (*world, string) {
		minor := 32
		if d.HasArg("version") {
			v := testworld.Arg[string](t, d, "version")
			m, err := strconv.Atoi(strings.TrimPrefix(v, "1."))
			if err != nil {
				t.Fatalf("version: %v", err)
			}
			minor = m
		}
		w := newWorld(t, ConfigFor(minor))
		return w, fmt.Sprintf("max pod-failure back-off %s\n", w.jm.cfg.MaxPodFailureBackOff)
	}, func(t *testing.T, w *world) testworld.Commands {
		return testworld.Commands{
			"create-job": func(d *datadriven.TestData) string {
				w.createJob(d)
				return ""
			},
			"kubelet": func(d *datadriven.TestData) string {
				w.runFor = testworld.Arg[time.Duration](t, d, "run")
				w.codes = nil
				w.failIndex = -1
				d.MaybeScanArgs(t, "fail-index", &w.failIndex)
				if d.HasArg("code") {
					c := testworld.Arg[int](t, d, "code")
					w.codes = []int32{int32(c)}
				}
				if d.HasArg("codes") {
					cs := testworld.Arg[string](t, d, "codes")
					for _, s := range strings.Split(cs, ",") {
						c, err := strconv.Atoi(s)
						if err != nil {
							t.Fatalf("codes: %v", err)
						}
						w.codes = append(w.codes, int32(c))
					}
				}
				return ""
			},
			"disrupt": func(d *datadriven.TestData) string {
				p := w.PodArg(d).DeepCopy()
				p.Status.Phase = model.PodFailed
				p.Status.Conditions = append(p.Status.Conditions, model.PodCondition{
					Type: model.PodDisruptionTarget, Status: model.ConditionTrue, Reason: "DeletionByPodGC",
					Message: "PodGC: node no longer exists", LastTransitionTime: w.K.Now(),
				})
				if _, err := w.Store.UpdateStatus(p); err != nil {
					t.Fatalf("disrupt: %v", err)
				}
				w.Emit("disrupt", "Pod "+model.Key(p), "DisruptionTarget=True phase=Failed")
				return ""
			},
			"status": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "name")
				return statusLines(w.job(name))
			},
		}
	})
}

// world is the shared test world with the Job controller and a fake kubelet (a periodic
// callback every 100ms) that binds each new pod, runs it for runFor and ends it with the next
// exit code, and finishes the deletion of terminating pods.
type world struct {
	*testworld.World
	jm *Controller

	runFor    time.Duration
	codes     []int32
	failIndex int                   // pods of this index exit 1, the others 0 (-1: use codes)
	started   map[string]vtime.Time // pod uid -> start
	exits     int
	dirty     bool       // a pod changed since the last tick
	nextDue   vtime.Time // the earliest time a running pod's run ends
}

func newWorld(t testing.TB, cfg Config) *world {
	w := &world{started: map[string]vtime.Time{}, failIndex: -1}
	w.World = testworld.New(t, testworld.Options{Server: func(scfg *apiserver.Config) {
		// The fake kubelet looks at the pods only when one changed or a run is due.
		scfg.Store.OnCommit = func(kind model.Kind, _, _ model.Object) {
			if kind == model.KindPod {
				w.dirty = true
			}
		}
	}})
	jm, f := testworld.NewController(w.World, Component, Component, New, cfg)
	w.jm = jm
	w.PodOrder = byIndexThenCreation
	w.PodLine = func(i int, p *model.Pod) string { return fmt.Sprintf("%d %s", i, podLine(p)) }
	w.Show = testworld.Sources(Component, "test")
	f.Start(w.K)
	jm.Start()
	w.K.After(100*time.Millisecond, w.kubeletTick)
	w.Settle(100 * time.Millisecond)
	return w
}

func (w *world) kubeletTick() {
	now := w.K.Now()
	defer w.K.After(100*time.Millisecond, w.kubeletTick)
	if !w.dirty && (w.nextDue == 0 || now < w.nextDue) {
		return
	}
	w.dirty = false
	w.nextDue = 0
	due := func(at vtime.Time) {
		if w.nextDue == 0 || at < w.nextDue {
			w.nextDue = at
		}
	}
	for _, p := range w.Pods() {
		switch {
		case p.DeletionTimestamp != nil:
			// Termination: the containers stop; the pod ends Failed and, with no finalizer
			// left, is removed.
			if p.Status.Phase != model.PodFailed && p.Status.Phase != model.PodSucceeded {
				q := p.DeepCopy()
				q.Status.Phase = model.PodFailed
				_, _ = w.Store.UpdateStatus(q)
				continue
			}
			if len(p.Finalizers) == 0 {
				_, _ = w.Store.Delete(model.KindPod, p.Namespace, p.Name, model.DeleteOptions{GracePeriodSeconds: model.Ptr(int64(0))})
			}
		case w.runFor == 0:
		case p.Status.Phase == "" || p.Status.Phase == model.PodPending:
			q := p.DeepCopy()
			if q.Spec.NodeName == "" {
				q.Spec.NodeName = "node-1"
				b, err := w.Store.Update(q)
				if err != nil {
					continue
				}
				q = b.(*model.Pod).DeepCopy()
			}
			q.Status.Phase = model.PodRunning
			q.Status.Conditions = []model.PodCondition{{Type: model.PodReady, Status: model.ConditionTrue, LastTransitionTime: now}}
			q.Status.ContainerStatuses = []model.ContainerStatus{{Name: "app", Ready: true, State: model.ContainerState{Running: &model.ContainerStateRunning{StartedAt: now}}}}
			if _, err := w.Store.UpdateStatus(q); err == nil {
				w.started[q.UID] = now
				due(now.Add(w.runFor))
			}
		case p.Status.Phase == model.PodRunning:
			if at, ok := w.started[p.UID]; ok && now.Sub(at) < w.runFor {
				due(at.Add(w.runFor))
			}
			if at, ok := w.started[p.UID]; ok && now.Sub(at) >= w.runFor {
				code := int32(0)
				if len(w.codes) > 0 {
					code = w.codes[min(w.exits, len(w.codes)-1)]
				}
				if w.failIndex >= 0 {
					code = 0
					if getCompletionIndex(p) == w.failIndex {
						code = 1
					}
				}
				q := p.DeepCopy()
				q.Status.Phase = model.PodSucceeded
				if code != 0 {
					q.Status.Phase = model.PodFailed
				}
				q.Status.Conditions = []model.PodCondition{{Type: model.PodReady, Status: model.ConditionFalse, LastTransitionTime: now}}
				q.Status.ContainerStatuses = []model.ContainerStatus{{Name: "app", State: model.ContainerState{Terminated: &model.ContainerStateTerminated{ExitCode: code, StartedAt: at, FinishedAt: now}}}}
				if _, err := w.Store.UpdateStatus(q); err == nil {
					w.exits++
					w.Emit("exit", "Pod "+model.Key(p), fmt.Sprintf("code=%d", code))
				}
			}
		}
	}
}

func (w *world) createJob(d *datadriven.TestData) {
	t := w.T
	name := testworld.Arg[string](t, d, "name")
	j := &model.Job{}
	j.Name, j.Namespace = name, testNS
	j.Spec.Template.Spec.Containers = []model.Container{{Name: "app", Image: "registry.example/batch:1"}}
	j.Spec.Template.Spec.RestartPolicy = model.RestartPolicyNever
	testworld.MaybePtrArg(t, d, "completions", &j.Spec.Completions)
	testworld.MaybePtrArg(t, d, "parallelism", &j.Spec.Parallelism)
	testworld.MaybePtrArg(t, d, "backoff-limit", &j.Spec.BackoffLimit)
	testworld.MaybePtrArg(t, d, "backoff-limit-per-index", &j.Spec.BackoffLimitPerIndex)
	testworld.MaybePtrArg(t, d, "max-failed-indexes", &j.Spec.MaxFailedIndexes)
	testworld.MaybePtrArg(t, d, "deadline", &j.Spec.ActiveDeadlineSeconds)
	if d.HasArg("indexed") {
		j.Spec.CompletionMode = model.Ptr(model.IndexedCompletion)
	}
	if d.HasArg("suspend") {
		j.Spec.Suspend = model.Ptr(true)
	}
	testworld.MaybePtrArg(t, d, "managed-by", &j.Spec.ManagedBy)
	if d.HasArg("success-indexes") {
		v := testworld.Arg[string](t, d, "success-indexes")
		j.Spec.SuccessPolicy = &model.SuccessPolicy{Rules: []model.SuccessPolicyRule{{SucceededIndexes: &v}}}
	}
	if d.HasArg("ignore-disruption") || d.HasArg("fail-job-on-exit") {
		j.Spec.PodFailurePolicy = &model.PodFailurePolicy{}
	}
	if d.HasArg("fail-job-on-exit") {
		c := testworld.Arg[int](t, d, "fail-job-on-exit")
		j.Spec.PodFailurePolicy.Rules = append(j.Spec.PodFailurePolicy.Rules, model.PodFailurePolicyRule{
			Action: model.PodFailurePolicyActionFailJob, OnExitCodes: &model.PodFailurePolicyOnExitCodesRequirement{Operator: "In", Values: []int32{int32(c)}}})
	}
	if d.HasArg("ignore-disruption") {
		j.Spec.PodFailurePolicy.Rules = append(j.Spec.PodFailurePolicy.Rules, model.PodFailurePolicyRule{
			Action: model.PodFailurePolicyActionIgnore, OnPodConditions: []model.PodFailurePolicyOnPodConditionsPattern{{Type: model.PodDisruptionTarget}}})
	}
	if _, err := w.Store.Create(j); err != nil {
		t.Fatalf("create job: %v", err)
	}
}

// byIndexThenCreation orders pods by completion index, then creation time.
func byIndexThenCreation(a, b *model.Pod) int {
	if c := strings.Compare(a.Annotations[model.JobCompletionIndexAnnot], b.Annotations[model.JobCompletionIndexAnnot]); c != 0 {
		return c
	}
	return int(a.CreationTimestamp - b.CreationTimestamp)
}

func (w *world) job(name string) *model.Job {
	return testworld.Get[*model.Job](w.World, model.KindJob, testNS, name)
}

func podLine(p *model.Pod) string {
	state := string(p.Status.Phase)
	if p.DeletionTimestamp != nil {
		state += ",Terminating"
	}
	ix := p.Annotations[model.JobCompletionIndexAnnot]
	if ix == "" {
		ix = "-"
	}
	var env []string
	for _, c := range p.Spec.Containers {
		for _, e := range c.Env {
			env = append(env, e.Name+"="+e.Value)
		}
	}
	line := fmt.Sprintf("%s %s index=%s hostname=%s env=%s finalizers=%s", p.Name, state, ix, testworld.OrDash(p.Spec.Hostname), testworld.OrDash(strings.Join(env, ",")), testworld.OrDash(strings.Join(p.Finalizers, ",")))
	if n, ok := p.Annotations[model.JobIndexFailureCountAnnot]; ok {
		line += " index-failure-count=" + n
	}
	return line
}

func statusLines(j *model.Job) string {
	s := j.Status
	var b strings.Builder
	start := "-"
	if s.StartTime != nil {
		start = s.StartTime.String()
	}
	fmt.Fprintf(&b, "active=%d ready=%d terminating=%d succeeded=%d failed=%d completedIndexes=%q startTime=%s\n",
		s.Active, ptr.Deref(s.Ready, 0), ptr.Deref(s.Terminating, 0), s.Succeeded, s.Failed, s.CompletedIndexes, start)
	if s.FailedIndexes != nil {
		fmt.Fprintf(&b, "failedIndexes=%q\n", *s.FailedIndexes)
	}
	if u := s.UncountedTerminatedPods; u != nil && len(u.Succeeded)+len(u.Failed) > 0 {
		fmt.Fprintf(&b, "uncounted succeeded=%d failed=%d\n", len(u.Succeeded), len(u.Failed))
	}
	for _, c := range s.Conditions {
		fmt.Fprintf(&b, "condition %s=%s reason=%s message=%q at %s\n", c.Type, c.Status, c.Reason, c.Message, c.LastTransitionTime)
	}
	return b.String()
}
