package gc

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/internal/testworld"
)

// TestTraces runs the datadriven scripts in testdata/. Commands:
//
//	init                                   new world with the garbage collector started
//	create-rs name=X                       a ReplicaSet (nothing manages its pods here)
//	create-pod name=X [owner=O,...] [owner-uid=U] [block=true|false] [node=N]
//	                                       a pod with references to owners O ("Kind/name",
//	                                       or a ReplicaSet name), the first the controller;
//	                                       owner-uid overrides the first owner's UID
//	delete kind=K name=X [propagation=P]   a user's delete (Background, Foreground, Orphan)
//	recreate-rs name=X                     delete (background) and create again: a new UID
//	kubelet-finish pod=X                   the kubelet's final delete (grace 0)
//	run for=D                              advance virtual time; print what happened
//	objects                                the namespace's ReplicaSets and pods
//	graph                                  the garbage collector's graph
func TestTraces(t *testing.T) {
	testworld.Walk(t, "testdata", func(t *testing.T, d *datadriven.TestData) (*world, string) {
		return newWorld(t, DefaultConfig()), ""
	}, func(t *testing.T, w *world) testworld.Commands {
		return testworld.Commands{
			"create-rs": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "name")
				w.createRS(name)
				return ""
			},
			"create-pod": func(d *datadriven.TestData) string {
				var name, owner, ownerUID, node string
				block := true
				d.ScanArgs(t, "name", &name)
				d.MaybeScanArgs(t, "owner", &owner)
				d.MaybeScanArgs(t, "owner-uid", &ownerUID)
				d.MaybeScanArgs(t, "block", &block)
				d.MaybeScanArgs(t, "node", &node)
				var refs []model.OwnerReference
				labels := map[string]string{"app": name}
				// owner may list several owners, "kind/name" or a ReplicaSet name; the first
				// is the controller.
				if owner != "" {
					for i, o := range strings.Split(owner, ",") {
						kind, oname := model.KindReplicaSet, o
						if k, n, ok := strings.Cut(o, "/"); ok {
							kind, oname = model.Kind(k), n
						}
						uid := ownerUID
						if uid == "" || i > 0 {
							uid = w.get(kind, oname).Meta().UID
						}
						ki, _ := model.LookupKind(kind)
						refs = append(refs, model.OwnerReference{APIVersion: ki.APIVersion, Kind: kind, Name: oname, UID: uid, Controller: model.Ptr(i == 0), BlockOwnerDeletion: model.Ptr(block)})
						if i == 0 {
							labels["app"] = oname
						}
					}
				}
				w.createPod(name, labels, refs, node)
				return ""
			},
			"delete": func(d *datadriven.TestData) string {
				var propagation string
				kind := testworld.Arg[string](t, d, "kind")
				name := testworld.Arg[string](t, d, "name")
				opts := model.DeleteOptions{}
				if d.MaybeScanArgs(t, "propagation", &propagation) {
					p := model.DeletionPropagation(propagation)
					opts.PropagationPolicy = &p
				}
				if _, err := w.Store.Delete(model.Kind(kind), testNS, name, opts); err != nil {
					t.Fatalf("delete: %v", err)
				}
				w.K.Emit("test", "delete", kind+" "+testNS+"/"+name, 0, "propagation="+propagation)
				return ""
			},
			"recreate-rs": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "name")
				if _, err := w.Store.Delete(model.KindReplicaSet, testNS, name, model.DeleteOptions{}); err != nil {
					t.Fatalf("delete: %v", err)
				}
				rs := w.createRS(name)
				w.K.Emit("test", "recreate", "ReplicaSet "+testNS+"/"+name, 0, "uid="+shortUID(rs.UID))
				return ""
			},
			"kubelet-finish": func(d *datadriven.TestData) string {
				name := testworld.Arg[string](t, d, "pod")
				if _, err := w.Store.Delete(model.KindPod, testNS, name, model.DeleteOptions{GracePeriodSeconds: model.Ptr(int64(0))}); err != nil {
					t.Fatalf("kubelet delete: %v", err)
				}
				return ""
			},
			"objects": func(d *datadriven.TestData) string {
				return w.objects()
			},
			"graph": func(d *datadriven.TestData) string {
				return w.graph()
			},
		}
	})
}

// graph prints the garbage collector's nodes for the test namespace's objects, by kind and
// name, with owners and dependents by name.
func (w *world) graph() string {
	names := map[string]string{}
	var uids []string
	for uid, n := range w.gc.uidToNode { //detlint:ordered sorted below
		if n.identity.Kind != model.KindReplicaSet && n.identity.Kind != model.KindPod {
			continue
		}
		names[uid] = string(n.identity.Kind) + "/" + n.identity.Name
		uids = append(uids, uid)
	}
	sortByName := func(us []string) {
		for i := 1; i < len(us); i++ {
			for j := i; j > 0 && names[us[j]]+us[j] < names[us[j-1]]+us[j-1]; j-- {
				us[j], us[j-1] = us[j-1], us[j]
			}
		}
	}
	sortByName(uids)
	var b strings.Builder
	for _, uid := range uids {
		info, _ := w.gc.Node(uid)
		fmt.Fprintf(&b, "%s uid=%s", names[uid], shortUID(uid))
		if info.Virtual {
			b.WriteString(" virtual")
		}
		if info.BeingDeleted {
			b.WriteString(" being-deleted")
		}
		if info.DeletingDependents {
			b.WriteString(" deleting-dependents")
		}
		if len(info.Dependents) > 0 {
			deps := append([]string(nil), info.Dependents...)
			sortByName(deps)
			for i, d := range deps {
				deps[i] = names[d]
			}
			fmt.Fprintf(&b, " dependents=%s", strings.Join(deps, ","))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func TestDisabledGarbageCollectorCollectsNothing(t *testing.T) {
	cfg := DefaultConfig()
	cfg.EnableGarbageCollector = false
	w := newWorld(t, cfg)
	w.createRS("web")
	w.createPod("web-a", map[string]string{"app": "web"}, []model.OwnerReference{{APIVersion: "apps/v1", Kind: model.KindReplicaSet, Name: "web", UID: w.get(model.KindReplicaSet, "web").Meta().UID, Controller: model.Ptr(true)}}, "")
	w.Run(time.Second)
	if _, err := w.Store.Delete(model.KindReplicaSet, testNS, "web", model.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	w.Run(time.Minute)
	if _, err := w.Store.Get(model.KindPod, testNS, "web-a"); err != nil {
		t.Fatalf("the pod should stay with the garbage collector disabled: %v", err)
	}
	if s := w.gc.Stats(); s.Deletes != 0 || s.GraphChanges != 0 {
		t.Fatalf("a disabled collector did work: %+v", s)
	}
}

func TestStatsCountWhatHappened(t *testing.T) {
	w := newWorld(t, DefaultConfig())
	w.createRS("web")
	uid := w.get(model.KindReplicaSet, "web").Meta().UID
	for _, name := range []string{"web-a", "web-b", "web-c"} {
		w.createPod(name, map[string]string{"app": "web"}, []model.OwnerReference{{APIVersion: "apps/v1", Kind: model.KindReplicaSet, Name: "web", UID: uid, Controller: model.Ptr(true), BlockOwnerDeletion: model.Ptr(true)}}, "")
	}
	w.Run(time.Second)
	info, ok := w.gc.Node(uid)
	if !ok || len(info.Dependents) != 3 || info.Virtual {
		t.Fatalf("graph node for the ReplicaSet: %+v, %v", info, ok)
	}
	orphan := model.DeletePropagationOrphan
	if _, err := w.Store.Delete(model.KindReplicaSet, testNS, "web", model.DeleteOptions{PropagationPolicy: &orphan}); err != nil {
		t.Fatal(err)
	}
	w.Run(time.Second)
	s := w.gc.Stats()
	if s.OwnerRefPatches != 3 || s.FinalizersRemoved != 1 || s.Deletes != 0 {
		t.Fatalf("stats after orphaning 3 pods: %+v", s)
	}
	if _, ok := w.gc.Node(uid); ok {
		t.Fatal("the deleted owner is still in the graph")
	}
}
