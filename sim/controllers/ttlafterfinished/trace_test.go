package ttlafterfinished

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
)

// TestTraces runs testdata/*.txt (upstream processJob, processTTL, timeLeft). Commands:
//
//	init
//	create-job name=X [ttl=S]       a Job (not finished)
//	finish name=X [type=Complete|Failed]
//	set-ttl name=X ttl=S
//	run for=D                        advance time; print the controller's lines
//	jobs                             the Jobs that exist
func TestTraces(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var k *sim.Kernel
		var store *apiserver.Store
		var trace bytes.Buffer
		printed := 0
		get := func(name string) *model.Job {
			o, err := store.Get(model.KindJob, "default", name)
			if err != nil {
				t.Fatalf("get %s: %v", name, err)
			}
			return o.(*model.Job).DeepCopy()
		}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "init":
				k = sim.New(1)
				k.Trace().SetWriter(&trace)
				srv := apiserver.NewServer(k, apiserver.DefaultConfig())
				store = srv.Store()
				c := client.New(srv, Component, client.Config{QPS: 20, Burst: 30})
				f := client.NewSharedInformerFactory(c, 0)
				tc, err := New(k, c, f, record.New(k, &record.FakeSink{}, Component, ""), DefaultConfig())
				if err != nil {
					t.Fatal(err)
				}
				f.Start(k)
				tc.Start()
				return ""
			case "create-job":
				j := &model.Job{}
				d.ScanArgs(t, "name", &j.Name)
				j.Namespace = "default"
				if d.HasArg("ttl") {
					var v int
					d.ScanArgs(t, "ttl", &v)
					j.Spec.TTLSecondsAfterFinished = model.Ptr(int32(v))
				}
				j.Spec.Template.Spec.Containers = []model.Container{{Name: "app", Image: "registry.example/batch:1"}}
				j.Spec.Template.Spec.RestartPolicy = model.RestartPolicyNever
				if _, err := store.Create(j); err != nil {
					t.Fatal(err)
				}
				return ""
			case "finish":
				var name string
				d.ScanArgs(t, "name", &name)
				typ := model.JobComplete
				d.MaybeScanArgs(t, "type", &typ)
				j := get(name)
				j.Status.Conditions = append(j.Status.Conditions, model.JobCondition{Type: typ, Status: model.ConditionTrue, LastTransitionTime: k.Now()})
				if _, err := store.UpdateStatus(j); err != nil {
					t.Fatal(err)
				}
				k.Emit("test", "finish", "Job default/"+name, 0, typ)
				return ""
			case "set-ttl":
				var name string
				var v int
				d.ScanArgs(t, "name", &name)
				d.ScanArgs(t, "ttl", &v)
				j := get(name)
				j.Spec.TTLSecondsAfterFinished = model.Ptr(int32(v))
				if _, err := store.Update(j); err != nil {
					t.Fatal(err)
				}
				k.Emit("test", "set-ttl", "Job default/"+name, 0, fmt.Sprintf("ttl=%d", v))
				return ""
			case "run":
				var dur string
				d.ScanArgs(t, "for", &dur)
				du, err := time.ParseDuration(dur)
				if err != nil {
					t.Fatal(err)
				}
				k.Run(sim.Limits{MaxTime: k.Now().Add(du)})
				all := trace.String()[printed:]
				printed = trace.Len()
				var b strings.Builder
				for _, line := range strings.Split(all, "\n") {
					f := strings.Fields(line)
					if len(f) > 2 && (f[1] == Component || f[1] == "test") && f[2] != "started" {
						b.WriteString(line + "\n")
					}
				}
				return b.String()
			case "jobs":
				objs, _, _ := store.List(model.KindJob, model.ListOptions{Namespace: "default"})
				var b strings.Builder
				for _, o := range objs {
					fmt.Fprintf(&b, "%s\n", o.Meta().Name)
				}
				return b.String()
			}
			t.Fatalf("unknown command %q", d.Cmd)
			return ""
		})
	})
}
