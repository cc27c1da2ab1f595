package testworld

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/vtime"
)

// Dispatch runs the world commands shared by the controller tests and reports whether cmd was
// one of them. The output is what the command prints (for run: the trace lines since the last
// output); errors are printed as "error: ...", so a golden file shows them.
//
//	node name=(n1,n2) [zone=a] [region=r] [ready=True|False|Unknown|none] [exclude-disruption] [no-kubelet]
//	pod name=(p1,p2) node=n1 [ns=default] [tolerate=(unreachable:30,not-ready:forever,any:forever,key=value:60)] [grace=30]
//	kubelet-stop node=(n1,n2) [at=60s]
//	kubelet-start node=(n1,n2) [at=200s]
//	taint node=n1 [taints=(unreachable:NoExecute,dedicated=gpu:NoExecute)]
//	tolerate pod=ns/name tolerate=(...)
//	delete-pod pod=ns/name [grace=0]
//	fault verb=delete kind=Pod [subresource=status] [count=1] [error=internal|conflict] [client=name]
//	run until=120s | run for=10s
//	nodes | pods | events [reasons=(A,B)]
func (w *World) Dispatch(td *datadriven.TestData) (string, bool) {
	var err error
	out := ""
	switch td.Cmd {
	case "node":
		err = w.cmdNode(td)
	case "pod":
		err = w.cmdPod(td)
	case "kubelet-stop", "kubelet-start":
		err = w.cmdKubelet(td)
	case "taint":
		err = w.cmdTaint(td)
	case "tolerate":
		err = w.cmdTolerate(td)
	case "delete-pod":
		err = w.cmdDeletePod(td)
	case "fault":
		var f *Fault
		f, err = parseFault(val(td, "verb", ""), val(td, "kind", ""), val(td, "subresource", ""),
			val(td, "count", "1"), val(td, "error", "internal"), val(td, "client", ""))
		if err == nil {
			w.AddFault(f)
		}
	case "run":
		err = w.cmdRun(td)
		out = w.Output()
	case "nodes":
		out = w.DescribeNodes()
	case "pods":
		out = w.DescribePods()
	case "events":
		out = w.Events(vals(td, "reasons")...)
	default:
		return "", false
	}
	if err != nil {
		return out + "error: " + err.Error() + "\n", true
	}
	if out == "" {
		out = "ok\n"
	}
	return out, true
}

// vals returns the values of argument key (none if absent).
func vals(td *datadriven.TestData, key string) []string {
	arg, ok := td.Arg(key)
	if !ok {
		return nil
	}
	return arg.Vals
}

func val(td *datadriven.TestData, key, def string) string {
	if v := vals(td, key); len(v) > 0 {
		return v[0]
	}
	return def
}

func (w *World) cmdNode(td *datadriven.TestData) error {
	names := vals(td, "name")
	if len(names) == 0 {
		return fmt.Errorf("node needs name=")
	}
	var extra map[string]string
	if td.HasArg("exclude-disruption") {
		extra = map[string]string{"node.kubernetes.io/exclude-disruption": ""}
	}
	ready := model.ConditionStatus(val(td, "ready", string(model.ConditionTrue)))
	for _, n := range names {
		if err := w.AddNode(n, val(td, "zone", ""), val(td, "region", ""), ready, extra, !td.HasArg("no-kubelet")); err != nil {
			return err
		}
	}
	return nil
}

func (w *World) cmdPod(td *datadriven.TestData) error {
	names := vals(td, "name")
	if len(names) == 0 {
		return fmt.Errorf("pod needs name=")
	}
	tolerations, err := ParseTolerations(vals(td, "tolerate"))
	if err != nil {
		return err
	}
	grace, err := strconv.ParseInt(val(td, "grace", "30"), 10, 64)
	if err != nil {
		return fmt.Errorf("grace: %v", err)
	}
	for _, n := range names {
		if err := w.AddPod(val(td, "ns", "default"), n, val(td, "node", ""), tolerations, grace); err != nil {
			return err
		}
	}
	return nil
}

func (w *World) cmdKubelet(td *datadriven.TestData) error {
	nodes := vals(td, "node")
	if len(nodes) == 0 {
		return fmt.Errorf("%s needs node=", td.Cmd)
	}
	stop := td.Cmd == "kubelet-stop" // td is reused by the next directive; read it now
	act := func() {
		for _, n := range nodes {
			var err error
			if stop {
				err = w.StopKubelet(n)
			} else {
				err = w.StartKubelet(n)
			}
			if err != nil {
				w.Note("error", "Node "+n, err.Error())
			}
		}
	}
	if at := val(td, "at", ""); at != "" {
		d, err := time.ParseDuration(at)
		if err != nil {
			return fmt.Errorf("at: %v", err)
		}
		if t := vtime.FromDuration(d); t >= w.K.Now() {
			w.K.Schedule(t, sim.HandlerFunc(func(uint64) { act() }), 0, false)
			return nil
		}
		return fmt.Errorf("at=%s is in the past (now %s)", at, w.K.Now())
	}
	act()
	return nil
}

func (w *World) cmdTaint(td *datadriven.TestData) error {
	node := val(td, "node", "")
	taints, err := ParseTaints(vals(td, "taints"))
	if err != nil {
		return err
	}
	return w.SetTaints(node, taints)
}

func (w *World) cmdTolerate(td *datadriven.TestData) error {
	ns, name, ok := strings.Cut(val(td, "pod", ""), "/")
	if !ok {
		return fmt.Errorf("tolerate needs pod=<ns>/<name>")
	}
	tolerations, err := ParseTolerations(vals(td, "tolerate"))
	if err != nil {
		return err
	}
	return w.SetTolerations(ns, name, tolerations)
}

func (w *World) cmdDeletePod(td *datadriven.TestData) error {
	ns, name, ok := strings.Cut(val(td, "pod", ""), "/")
	if !ok {
		return fmt.Errorf("delete-pod needs pod=<ns>/<name>")
	}
	grace, err := strconv.ParseInt(val(td, "grace", "0"), 10, 64)
	if err != nil {
		return fmt.Errorf("grace: %v", err)
	}
	_, err = w.Store.Delete(model.KindPod, ns, name, model.DeleteOptions{GracePeriodSeconds: model.Ptr(grace)})
	if err == nil {
		w.Note("delete-pod", "Pod "+ns+"/"+name, "grace="+strconv.FormatInt(grace, 10)+"s")
	}
	return err
}

func (w *World) cmdRun(td *datadriven.TestData) error {
	if u := val(td, "until", ""); u != "" {
		d, err := time.ParseDuration(u)
		if err != nil {
			return fmt.Errorf("until: %v", err)
		}
		return w.RunUntil(vtime.FromDuration(d))
	}
	if f := val(td, "for", ""); f != "" {
		d, err := time.ParseDuration(f)
		if err != nil {
			return fmt.Errorf("for: %v", err)
		}
		return w.RunUntil(w.K.Now().Add(d))
	}
	return fmt.Errorf("run needs until= or for=")
}

// Well-known taint keys the shorthand names expand to.
var shortKeys = map[string]string{
	"unreachable": "node.kubernetes.io/unreachable",
	"not-ready":   "node.kubernetes.io/not-ready",
}

func expandKey(k string) string {
	if full, ok := shortKeys[k]; ok {
		return full
	}
	return k
}

// ParseTolerations reads "<key>[=<value>]:<seconds|forever>" NoExecute tolerations: key
// "unreachable" and "not-ready" expand to the node.kubernetes.io keys; "any" is the empty key
// with operator Exists (tolerates every taint); with a value the operator is Equal, else
// Exists. "none" alone means no tolerations.
func ParseTolerations(specs []string) ([]model.Toleration, error) {
	if len(specs) == 1 && specs[0] == "none" {
		return nil, nil
	}
	var out []model.Toleration
	for _, s := range specs {
		i := strings.LastIndexByte(s, ':')
		if i < 0 {
			return nil, fmt.Errorf("toleration %q: want <key>[=<value>]:<seconds|forever>", s)
		}
		keyValue, secs := s[:i], s[i+1:]
		t := model.Toleration{Operator: "Exists", Effect: model.TaintEffectNoExecute}
		if k, v, ok := strings.Cut(keyValue, "="); ok {
			t.Key, t.Value, t.Operator = expandKey(k), v, "Equal"
		} else if keyValue == "any" {
			t.Effect = ""
		} else {
			t.Key = expandKey(keyValue)
		}
		if secs != "forever" {
			n, err := strconv.ParseInt(secs, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("toleration %q: %v", s, err)
			}
			t.TolerationSeconds = model.Ptr(n)
		}
		out = append(out, t)
	}
	return out, nil
}

// ParseTaints reads "<key>[=<value>]:<Effect>" taints, with the same key shorthands.
func ParseTaints(specs []string) ([]model.Taint, error) {
	var out []model.Taint
	for _, s := range specs {
		i := strings.LastIndexByte(s, ':')
		if i < 0 {
			return nil, fmt.Errorf("taint %q: want <key>[=<value>]:<Effect>", s)
		}
		t := model.Taint{Effect: model.TaintEffect(s[i+1:])}
		k, v, _ := strings.Cut(s[:i], "=")
		t.Key, t.Value = expandKey(k), v
		out = append(out, t)
	}
	return out, nil
}
