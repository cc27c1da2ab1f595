package ttlafterfinished

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/internal/testworld"
)

// TestTraces runs testdata/*.txt (upstream processJob, processTTL, timeLeft) on the shared
// test world. Commands:
//
//	init
//	create-job name=X [ttl=S]       a Job (not finished)
//	finish name=X [type=Complete|Failed]
//	set-ttl name=X ttl=S
//	run for=D                        advance time; print the controller's lines
//	jobs                             the Jobs that exist
func TestTraces(t *testing.T) {
	testworld.Walk(t, "testdata", func(t *testing.T, d *datadriven.TestData) (*testworld.World, string) {
		w := testworld.New(t, testworld.Options{})
		tc, f := testworld.NewController(w, Component, Component, New, DefaultConfig())
		sources := testworld.Sources(Component, "test")
		w.Show = func(d *datadriven.TestData, f []string) bool { return sources(d, f) && f[2] != "started" }
		f.Start(w.K)
		tc.Start()
		return w, ""
	}, func(t *testing.T, w *testworld.World) testworld.Commands {
		get := func(name string) *model.Job {
			return testworld.Get[*model.Job](w, model.KindJob, w.NS, name).DeepCopy()
		}
		return testworld.Commands{
			"create-job": func(d *datadriven.TestData) string {
				j := &model.Job{}
				d.ScanArgs(t, "name", &j.Name)
				j.Namespace = w.NS
				testworld.MaybePtrArg(t, d, "ttl", &j.Spec.TTLSecondsAfterFinished)
				j.Spec.Template.Spec.Containers = []model.Container{{Name: "app", Image: "registry.example/batch:1"}}
				j.Spec.Template.Spec.RestartPolicy = model.RestartPolicyNever
				if _, err := w.Store.Create(j); err != nil {
					t.Fatal(err)
				}
				return ""
			},
			"finish": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "name")
				typ := model.JobComplete
				d.MaybeScanArgs(t, "type", &typ)
				j := get(name)
				j.Status.Conditions = append(j.Status.Conditions, model.JobCondition{Type: typ, Status: model.ConditionTrue, LastTransitionTime: w.K.Now()})
				if _, err := w.Store.UpdateStatus(j); err != nil {
					t.Fatal(err)
				}
				w.Emit("finish", "Job "+model.KeyOf(w.NS, name), typ)
				return ""
			},
			"set-ttl": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "name")
				v := testworld.Arg[int](t, d, "ttl")
				j := get(name)
				j.Spec.TTLSecondsAfterFinished = model.Ptr(int32(v))
				if _, err := w.Store.Update(j); err != nil {
					t.Fatal(err)
				}
				w.Emit("set-ttl", "Job "+model.KeyOf(w.NS, name), fmt.Sprintf("ttl=%d", v))
				return ""
			},
			"jobs": func(*datadriven.TestData) string {
				var b strings.Builder
				for _, j := range testworld.List[*model.Job](w, model.KindJob, w.NS) {
					fmt.Fprintf(&b, "%s\n", j.Name)
				}
				return b.String()
			},
		}
	})
}
