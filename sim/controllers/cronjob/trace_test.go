package cronjob

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/record"
	"github.com/reconsim/reconsim/vtime"
)

const testNS = "default"

// TestTraces runs the datadriven scripts in testdata/ (regenerate with -rewrite). Virtual
// time 0 is Epoch (2026-01-01T00:00:00Z). Commands:
//
//	init
//	create-cronjob name=X schedule=*/5_*_*_*_* (underscores are spaces) [policy=Allow|Forbid|Replace] [sds=N] [suspend] [tz=Z]
//	jobs run=D [result=Complete|Failed]   the fake Job controller: each Job finishes D after
//	                                      its creation with that result (default Complete)
//	suspend name=X value=true|false
//	run for=D                             advance time; print the controller's lines
//	status name=X                         the CronJob's status
//	list-jobs                             the namespace's Jobs
//	events                                events since the last call
func TestTraces(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var w *world
		shown := 0
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd != "init" && w == nil {
				t.Fatalf("%s: the first command must be init", d.Pos)
			}
			switch d.Cmd {
			case "init":
				w = newWorld(t)
				shown = 0
				return ""
			case "create-cronjob":
				cj := &model.CronJob{}
				d.ScanArgs(t, "name", &cj.Name)
				cj.Namespace = testNS
				d.ScanArgs(t, "schedule", &cj.Spec.Schedule)
				cj.Spec.Schedule = strings.ReplaceAll(cj.Spec.Schedule, "_", " ")
				d.MaybeScanArgs(t, "policy", &cj.Spec.ConcurrencyPolicy)
				if d.HasArg("sds") {
					var v int
					d.ScanArgs(t, "sds", &v)
					cj.Spec.StartingDeadlineSeconds = model.Ptr(int64(v))
				}
				if d.HasArg("tz") {
					var tz string
					d.ScanArgs(t, "tz", &tz)
					cj.Spec.TimeZone = &tz
				}
				if d.HasArg("suspend") {
					cj.Spec.Suspend = model.Ptr(true)
				}
				cj.Spec.JobTemplate.Spec.Template.Spec.Containers = []model.Container{{Name: "app", Image: "registry.example/backup:1"}}
				cj.Spec.JobTemplate.Spec.Template.Spec.RestartPolicy = model.RestartPolicyNever
				if _, err := w.store.Create(cj); err != nil {
					t.Fatalf("create cronjob: %v", err)
				}
				return ""
			case "jobs":
				var run string
				d.ScanArgs(t, "run", &run)
				du, err := time.ParseDuration(run)
				if err != nil {
					t.Fatalf("run: %v", err)
				}
				w.jobRun = du
				w.result = model.JobComplete
				d.MaybeScanArgs(t, "result", &w.result)
				return ""
			case "suspend":
				var name string
				var v bool
				d.ScanArgs(t, "name", &name)
				d.ScanArgs(t, "value", &v)
				o, err := w.store.Get(model.KindCronJob, testNS, name)
				if err != nil {
					t.Fatalf("get: %v", err)
				}
				cj := o.(*model.CronJob).DeepCopy()
				cj.Spec.Suspend = model.Ptr(v)
				if _, err := w.store.Update(cj); err != nil {
					t.Fatalf("suspend: %v", err)
				}
				w.k.Emit("test", "suspend", "CronJob "+model.Key(cj), 0, fmt.Sprintf("%t", v))
				return ""
			case "run":
				var dur string
				d.ScanArgs(t, "for", &dur)
				du, err := time.ParseDuration(dur)
				if err != nil {
					t.Fatalf("run: %v", err)
				}
				w.run(du)
				return w.newTrace()
			case "status":
				var name string
				d.ScanArgs(t, "name", &name)
				o, err := w.store.Get(model.KindCronJob, testNS, name)
				if err != nil {
					t.Fatalf("get: %v", err)
				}
				s := o.(*model.CronJob).Status
				var act []string
				for _, a := range s.Active {
					act = append(act, a.Name)
				}
				return fmt.Sprintf("active=[%s] lastScheduleTime=%s lastSuccessfulTime=%s\n", strings.Join(act, ","), wallOf(s.LastScheduleTime), wallOf(s.LastSuccessfulTime))
			case "list-jobs":
				var b strings.Builder
				objs, _, _ := w.store.List(model.KindJob, model.ListOptions{Namespace: testNS})
				for _, o := range objs {
					j := o.(*model.Job)
					typ, _ := finishedType(j)
					fmt.Fprintf(&b, "%s scheduled=%s finished=%s\n", j.Name, j.Annotations[model.CronJobScheduledTimestamp], orDash(typ))
				}
				return b.String()
			case "events":
				var b strings.Builder
				for _, ev := range w.sink.Events[shown:] {
					fmt.Fprintf(&b, "%s %s %s: %s\n", wall(ev.FirstTimestamp).Format("15:04:05"), ev.Type, ev.Reason, ev.Message)
				}
				shown = len(w.sink.Events)
				return b.String()
			}
			t.Fatalf("%s: unknown command %q", d.Pos, d.Cmd)
			return ""
		})
	})
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func wallOf(t *vtime.Time) string {
	if t == nil {
		return "-"
	}
	return wall(*t).Format("15:04:05")
}

// world: a kernel, an API server, the CronJob controller, and a fake Job controller (a tick
// every second) that finishes each Job jobRun after its creation.
type world struct {
	t      testing.TB
	k      *sim.Kernel
	store  *apiserver.Store
	sink   *record.FakeSink
	jobRun time.Duration
	result string

	trace   bytes.Buffer
	printed int
}

func newWorld(t testing.TB) *world {
	w := &world{t: t, k: sim.New(1), sink: &record.FakeSink{}}
	w.k.Trace().SetWriter(&w.trace)
	srv := apiserver.NewServer(w.k, apiserver.DefaultConfig())
	w.store = srv.Store()
	c := client.New(srv, Component, client.Config{QPS: 20, Burst: 30})
	f := client.NewSharedInformerFactory(c, 0)
	cc, err := New(w.k, c, f, record.New(w.k, w.sink, Component, ""), DefaultConfig())
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	f.Start(w.k)
	cc.Start()
	w.k.After(time.Second, w.jobTick)
	w.run(100 * time.Millisecond)
	w.printed = w.trace.Len()
	return w
}

func (w *world) jobTick() {
	now := w.k.Now()
	objs, _, _ := w.store.List(model.KindJob, model.ListOptions{Namespace: testNS})
	for _, o := range objs {
		j := o.(*model.Job)
		if w.jobRun == 0 || j.DeletionTimestamp != nil || model.IsJobFinished(j) || now.Sub(j.CreationTimestamp) < w.jobRun {
			continue
		}
		q := j.DeepCopy()
		start := j.CreationTimestamp
		q.Status.StartTime = &start
		q.Status.Conditions = append(q.Status.Conditions, model.JobCondition{Type: w.result, Status: model.ConditionTrue, LastTransitionTime: now})
		if w.result == model.JobComplete {
			q.Status.CompletionTime = &now
		}
		if _, err := w.store.UpdateStatus(q); err == nil {
			w.k.Emit("test", "job-finished", "Job "+model.Key(j), 0, w.result)
		}
	}
	w.k.After(time.Second, w.jobTick)
}

func (w *world) run(d time.Duration) {
	out := w.k.Run(sim.Limits{MaxTime: w.k.Now().Add(d)})
	if out.Reason == sim.StopError {
		w.t.Fatalf("run failed: %v", out.Err)
	}
}

// newTrace returns the controller's and the test's trace lines since the last call, with the
// wall-clock time of each.
func (w *world) newTrace() string {
	all := w.trace.String()[w.printed:]
	w.printed = w.trace.Len()
	var b strings.Builder
	for _, line := range strings.Split(all, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || (f[1] != Component && f[1] != "test") {
			continue
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}
