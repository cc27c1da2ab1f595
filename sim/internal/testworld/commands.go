package testworld

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/reconsim/reconsim/model"
)

// Command runs one datadriven command and returns its expected output.
type Command func(d *datadriven.TestData) string

// Commands maps command names to their implementations.
type Commands map[string]Command

// Walk runs every datadriven file under dir. A file's first command must be init: init builds
// the package's world W (its type embeds *World) from that command's arguments and returns it
// with the command's output; commands then returns the package's own commands on that world,
// looked up before the world's common ones (CommonCommands) so a package can replace a common
// command. Both get the file's t. Regenerate the expected output with -rewrite and read the diff.
func Walk[W interface{ Base() *World }](t *testing.T, dir string,
	init func(t *testing.T, d *datadriven.TestData) (W, string),
	commands func(t *testing.T, w W) Commands) {
	datadriven.Walk(t, dir, func(t *testing.T, path string) {
		var w *World
		var own Commands
		datadriven.RunTest(t, path, func(_ *testing.T, d *datadriven.TestData) string {
			if d.Cmd == "init" {
				pw, out := init(t, d)
				w, own = pw.Base(), commands(t, pw)
				return out
			}
			if w == nil {
				t.Fatalf("%s: the first command must be init", d.Pos)
			}
			if c, ok := own[d.Cmd]; ok {
				return c(d)
			}
			if c, ok := w.CommonCommands()[d.Cmd]; ok {
				return c(d)
			}
			t.Fatalf("%s: unknown command %q", d.Pos, d.Cmd)
			return ""
		})
	})
}

// CommonCommands are the commands every world understands:
//
//	run for=D [show=...]     advance virtual time; print the trace lines Show keeps
//	pods                     the test namespace's pods, one PodLine each
//	events                   the Kubernetes Events recorded since the last call
//	add-node name=N [labels=k=v,...] [taints=key=value:Effect,...]
//	                         a Ready node registers (the fake kubelets, if any, serve it)
//	kill-node name=N         the node's fake kubelet stops doing anything
//	delete-pod pod=P         a user deletes the pod (graceful)
//	remove-pod pod=P         the pod is deleted with grace period 0
//	fail pod=P               the pod's containers exit with an error: phase Failed, not Ready
func (w *World) CommonCommands() Commands {
	return Commands{
		"run": func(d *datadriven.TestData) string {
			w.Run(Arg[time.Duration](w.T, d, "for"))
			return w.NewTrace(func(f []string) bool { return w.Show != nil && w.Show(d, f) })
		},
		"pods": func(*datadriven.TestData) string {
			line := w.PodLine
			if line == nil {
				line = func(_ int, p *model.Pod) string { return p.Name }
			}
			var b strings.Builder
			for i, p := range w.Pods() {
				b.WriteString(line(i, p))
				b.WriteByte('\n')
			}
			return b.String()
		},
		"events": func(*datadriven.TestData) string {
			line := w.EventLine
			if line == nil {
				line = EventLine
			}
			var b strings.Builder
			for _, ev := range w.NewEvents() {
				if l := line(ev); l != "" {
					b.WriteString(l)
					b.WriteByte('\n')
				}
			}
			return b.String()
		},
		"add-node": func(d *datadriven.TestData) string {
			var name string
			d.ScanArgs(w.T, "name", &name)
			n := ReadyNode(name, LabelsArg(w.T, d, "labels"), TaintsArg(w.T, d, "taints"))
			if _, err := w.Store.Create(n); err != nil {
				w.T.Fatalf("add node: %v", err)
			}
			if w.Nodes != nil {
				w.Nodes.Add(name)
			}
			w.Emit("add-node", "Node "+name, NodeDetail(n))
			return ""
		},
		"kill-node": func(d *datadriven.TestData) string {
			var name string
			d.ScanArgs(w.T, "name", &name)
			if w.Nodes == nil {
				w.T.Fatalf("%s: kill-node needs the fake kubelets", d.Pos)
			}
			w.Nodes.Dead[name] = true
			w.Emit("kill-node", "Node "+name, "the kubelet stops")
			return ""
		},
		"delete-pod": func(d *datadriven.TestData) string { return w.DeletePod(d, false) },
		"remove-pod": func(d *datadriven.TestData) string { return w.DeletePod(d, true) },
		"fail": func(d *datadriven.TestData) string {
			var name string
			d.ScanArgs(w.T, "pod", &name)
			p := w.Pod(name).DeepCopy()
			p.Status.Phase = model.PodFailed
			SetReady(p, false, w.K.Now())
			if _, err := w.Store.UpdateStatus(p); err != nil {
				w.T.Fatalf("fail: %v", err)
			}
			w.Emit("fail", podRef(p), "phase=Failed")
			return ""
		},
	}
}

// DeletePod deletes the test namespace's pod=NAME, gracefully or (force) with grace period 0,
// and leaves a trace line named after the command.
func (w *World) DeletePod(d *datadriven.TestData, force bool) string {
	var name string
	d.ScanArgs(w.T, "pod", &name)
	opts := model.DeleteOptions{}
	if force {
		opts.GracePeriodSeconds = model.Ptr(int64(0))
	}
	if _, err := w.Store.Delete(model.KindPod, w.NS, name, opts); err != nil {
		w.T.Fatalf("%s: %v", d.Cmd, err)
	}
	w.Emit(d.Cmd, "Pod "+model.KeyOf(w.NS, name), "")
	return ""
}

// EventLine is the default "events" line: time, type, reason and message.
func EventLine(ev *model.Event) string {
	return fmt.Sprintf("%s %s %s: %s", ev.FirstTimestamp, ev.Type, ev.Reason, ev.Message)
}

// Arg scans the required argument key as a T: datadriven scans strings, bools, numbers and
// durations (time.ParseDuration). An optional one is d.MaybeScanArgs(t, key, &v).
func Arg[T any](t testing.TB, d *datadriven.TestData, key string) T {
	t.Helper()
	var v T
	d.ScanArgs(t, key, &v)
	return v
}

// MaybePtrArg sets *dst to a new T scanned from the optional argument key (datadriven scans
// strings, bools, numbers and durations), and leaves it alone when the argument is absent.
func MaybePtrArg[T any](t testing.TB, d *datadriven.TestData, key string, dst **T) {
	t.Helper()
	if d.HasArg(key) {
		v := new(T)
		d.ScanArgs(t, key, v)
		*dst = v
	}
}

// LabelsArg parses the optional argument key=k=v,... (nil when absent).
func LabelsArg(t testing.TB, d *datadriven.TestData, key string) map[string]string {
	if !d.HasArg(key) {
		return nil
	}
	var s string
	d.ScanArgs(t, key, &s)
	return ParseLabels(t, s)
}

// TaintsArg parses the optional argument key=key[=value]:Effect,... (nil when absent).
func TaintsArg(t testing.TB, d *datadriven.TestData, key string) []model.Taint {
	if !d.HasArg(key) {
		return nil
	}
	var s string
	d.ScanArgs(t, key, &s)
	return ParseTaints(t, s)
}

// PDBArgs builds the PodDisruptionBudget of "pdb name=X selector=k=v (min-available=V |
// max-unavailable=V)" in namespace ns.
func PDBArgs(t testing.TB, d *datadriven.TestData, ns string) *model.PodDisruptionBudget {
	var name, sel string
	d.ScanArgs(t, "name", &name)
	d.ScanArgs(t, "selector", &sel)
	pdb := &model.PodDisruptionBudget{}
	pdb.Name, pdb.Namespace = name, ns
	pdb.Spec.Selector = &metav1.LabelSelector{MatchLabels: ParseLabels(t, sel)}
	if d.HasArg("min-available") {
		var v string
		d.ScanArgs(t, "min-available", &v)
		pdb.Spec.MinAvailable = model.Ptr(intstr.Parse(v))
	}
	if d.HasArg("max-unavailable") {
		var v string
		d.ScanArgs(t, "max-unavailable", &v)
		pdb.Spec.MaxUnavailable = model.Ptr(intstr.Parse(v))
	}
	return pdb
}

// Relabel is the body of "relabel pod=P labels=k=v,...": it replaces the pod's labels (P is
// an index into Pods or a name, see PodArg) and returns the updated pod and the labels text.
func (w *World) Relabel(d *datadriven.TestData) (*model.Pod, string) {
	w.T.Helper()
	var lbl string
	d.ScanArgs(w.T, "labels", &lbl)
	p := w.PodArg(d).DeepCopy()
	p.Labels = ParseLabels(w.T, lbl)
	obj, err := w.Store.Update(p)
	if err != nil {
		w.T.Fatalf("relabel: %v", err)
	}
	return obj.(*model.Pod), lbl
}

// CreatePod is the body of "create-pod name=P labels=k=v,...": it creates a pod with no owner
// and one container "app" running image, and returns it and the labels text.
func (w *World) CreatePod(d *datadriven.TestData, image string) (*model.Pod, string) {
	w.T.Helper()
	var name, lbl string
	d.ScanArgs(w.T, "name", &name)
	d.ScanArgs(w.T, "labels", &lbl)
	p := &model.Pod{}
	p.Name, p.Namespace = name, w.NS
	p.Labels = ParseLabels(w.T, lbl)
	p.Spec.Containers = []model.Container{{Name: "app", Image: image}}
	obj, err := w.Store.Create(p)
	if err != nil {
		w.T.Fatalf("create pod: %v", err)
	}
	return obj.(*model.Pod), lbl
}

// SetPodReady is the kubelet writing p's status: phase Running and the Ready condition ready
// (see SetReady); a failed write fails the test.
func (w *World) SetPodReady(p *model.Pod, ready bool) {
	w.T.Helper()
	p = p.DeepCopy()
	p.Status.Phase = model.PodRunning
	SetReady(p, ready, w.K.Now())
	if _, err := w.Store.UpdateStatus(p); err != nil {
		w.T.Fatalf("pod status: %v", err)
	}
}

// Ready is the "ready pod=P [ready=false]" command: the kubelet reports pod P Running and
// Ready (or not Ready), traced as a kubelet line.
func (w *World) Ready(d *datadriven.TestData) string {
	name := Arg[string](w.T, d, "pod")
	ready := true
	d.MaybeScanArgs(w.T, "ready", &ready)
	w.SetPodReady(w.Pod(name), ready)
	w.Emit("kubelet", "Pod "+model.KeyOf(w.NS, name), fmt.Sprintf("ready=%t", ready))
	return ""
}
