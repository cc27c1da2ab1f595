package cronjob

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/internal/testworld"
	"github.com/reconsim/reconsim/vtime"
)

const testNS = testworld.Namespace

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
	testworld.Walk(t, "testdata", func(t *testing.T, d *datadriven.TestData) (*world, string) {
		return newWorld(t), ""
	}, func(t *testing.T, w *world) testworld.Commands {
		return testworld.Commands{
			"create-cronjob": func(d *datadriven.TestData) string {
				cj := &model.CronJob{}
				d.ScanArgs(t, "name", &cj.Name)
				cj.Namespace = testNS
				d.ScanArgs(t, "schedule", &cj.Spec.Schedule)
				cj.Spec.Schedule = strings.ReplaceAll(cj.Spec.Schedule, "_", " ")
				d.MaybeScanArgs(t, "policy", &cj.Spec.ConcurrencyPolicy)
				testworld.MaybePtrArg(t, d, "sds", &cj.Spec.StartingDeadlineSeconds)
				testworld.MaybePtrArg(t, d, "tz", &cj.Spec.TimeZone)
				if d.HasArg("suspend") {
					cj.Spec.Suspend = model.Ptr(true)
				}
				cj.Spec.JobTemplate.Spec.Template.Spec.Containers = []model.Container{{Name: "app", Image: "registry.example/backup:1"}}
				cj.Spec.JobTemplate.Spec.Template.Spec.RestartPolicy = model.RestartPolicyNever
				if _, err := w.Store.Create(cj); err != nil {
					t.Fatalf("create cronjob: %v", err)
				}
				return ""
			},
			"jobs": func(d *datadriven.TestData) string {
				w.jobRun = testworld.Arg[time.Duration](t, d, "run")
				w.result = model.JobComplete
				d.MaybeScanArgs(t, "result", &w.result)
				return ""
			},
			"suspend": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "name")
				v := testworld.Arg[bool](t, d, "value")
				o, err := w.Store.Get(model.KindCronJob, testNS, name)
				if err != nil {
					t.Fatalf("get: %v", err)
				}
				cj := o.(*model.CronJob).DeepCopy()
				cj.Spec.Suspend = model.Ptr(v)
				if _, err := w.Store.Update(cj); err != nil {
					t.Fatalf("suspend: %v", err)
				}
				w.K.Emit("test", "suspend", "CronJob "+model.Key(cj), 0, fmt.Sprintf("%t", v))
				return ""
			},
			"status": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "name")
				o, err := w.Store.Get(model.KindCronJob, testNS, name)
				if err != nil {
					t.Fatalf("get: %v", err)
				}
				s := o.(*model.CronJob).Status
				var act []string
				for _, a := range s.Active {
					act = append(act, a.Name)
				}
				return fmt.Sprintf("active=[%s] lastScheduleTime=%s lastSuccessfulTime=%s\n", strings.Join(act, ","), wallOf(s.LastScheduleTime), wallOf(s.LastSuccessfulTime))
			},
			"list-jobs": func(d *datadriven.TestData) string {
				var b strings.Builder
				objs, _, _ := w.Store.List(model.KindJob, model.ListOptions{Namespace: testNS})
				for _, o := range objs {
					j := o.(*model.Job)
					typ, _ := finishedType(j)
					fmt.Fprintf(&b, "%s scheduled=%s finished=%s\n", j.Name, j.Annotations[model.CronJobScheduledTimestamp], testworld.OrDash(typ))
				}
				return b.String()
			},
		}
	})
}

func wallOf(t *vtime.Time) string {
	if t == nil {
		return "-"
	}
	return wall(*t).Format("15:04:05")
}

// world is the shared test world with the CronJob controller and a fake Job controller (a
// tick every second) that finishes each Job jobRun after its creation.
type world struct {
	*testworld.World
	jobRun time.Duration
	result string
}

func newWorld(t testing.TB) *world {
	w := &world{World: testworld.New(t, testworld.Options{})}
	cc, f := testworld.NewController(w.World, Component, Component, New, DefaultConfig())
	w.Show = testworld.Sources(Component, "test")
	w.EventLine = func(ev *model.Event) string {
		return fmt.Sprintf("%s %s %s: %s", wall(ev.FirstTimestamp).Format("15:04:05"), ev.Type, ev.Reason, ev.Message)
	}
	f.Start(w.K)
	cc.Start()
	w.K.After(time.Second, w.jobTick)
	w.Settle(100 * time.Millisecond)
	return w
}

func (w *world) jobTick() {
	now := w.K.Now()
	objs, _, _ := w.Store.List(model.KindJob, model.ListOptions{Namespace: testNS})
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
		if _, err := w.Store.UpdateStatus(q); err == nil {
			w.K.Emit("test", "job-finished", "Job "+model.Key(j), 0, w.result)
		}
	}
	w.K.After(time.Second, w.jobTick)
}
