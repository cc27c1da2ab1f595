package testworld

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
)

// recorder is a testing.TB that records Fatalf instead of stopping the test, so the
// invariants can be seen to fail.
type recorder struct {
	testing.TB
	fatal string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	if r.fatal == "" {
		r.fatal = fmt.Sprintf(format, args...)
	}
}

func newPod(name string) *model.Pod {
	p := &model.Pod{}
	p.Name, p.Namespace = name, Namespace
	p.Spec.Containers = []model.Container{{Name: "app", Image: "app:1"}}
	return p
}

func TestInvariants(t *testing.T) {
	for _, tc := range []struct {
		name  string
		check func(kind model.Kind, old, new model.Object) string
		act   func(w *World)
		want  string // "" = no violation
	}{
		{name: "a pod bound once stays", act: func(w *World) {
			obj, err := w.Store.Create(newPod("a"))
			require.NoError(t, err)
			p := obj.(*model.Pod).DeepCopy()
			p.Spec.NodeName = "n1"
			_, err = w.Store.Update(p)
			require.NoError(t, err)
		}},
		{name: "a pod that moves node", act: func(w *World) {
			p := newPod("a")
			p.Spec.NodeName = "n1"
			obj, err := w.Store.Create(p)
			require.NoError(t, err)
			p = obj.(*model.Pod).DeepCopy()
			p.Spec.NodeName = "n2"
			p.ResourceVersion = 1000
			// The API server refuses to move a bound pod; a buggy fake kubelet could still
			// recreate the state through status, so feed the checker directly.
			w.inv.commit(model.KindPod, obj, p)
		}, want: "invariant: pod a moved from node n1 to n2"},
		{name: "two controllers", act: func(w *World) {
			p := newPod("a")
			p.OwnerReferences = []model.OwnerReference{
				{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "x", UID: "1", Controller: model.Ptr(true)},
				{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "y", UID: "2", Controller: model.Ptr(true)},
			}
			p.ResourceVersion = 1000
			w.inv.commit(model.KindPod, nil, p)
		}, want: "invariant: pod a has 2 controllers"},
		{name: "a resourceVersion that goes back", act: func(w *World) {
			obj, err := w.Store.Create(newPod("a"))
			require.NoError(t, err)
			w.inv.commit(model.KindPod, obj, obj)
		}, want: "invariant: resourceVersion went from"},
		{name: "a package's own check", check: func(kind model.Kind, _, _ model.Object) string {
			if kind == model.KindPod {
				return "no pods allowed"
			}
			return ""
		}, act: func(w *World) {
			_, err := w.Store.Create(newPod("a"))
			require.NoError(t, err)
		}, want: "invariant: no pods allowed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{TB: t}
			w := New(r, Options{Check: tc.check})
			tc.act(w)
			w.Run(time.Second)
			if tc.want == "" {
				assert.Empty(t, r.fatal)
			} else {
				assert.True(t, strings.HasPrefix(r.fatal, tc.want), "got %q, want %q...", r.fatal, tc.want)
			}
		})
	}
}

func TestNewTraceShowsEachLineOnce(t *testing.T) {
	w := New(t, Options{})
	w.Emit("hello", "Pod default/a", "")
	w.Settle(time.Second)
	assert.Empty(t, w.NewTrace(func([]string) bool { return true }), "Settle hides what came before")
	w.Emit("one", "Pod default/a", "x")
	w.Emit("two", "Pod default/b", "y")
	got := w.NewTrace(func(f []string) bool { return f[2] == "two" })
	assert.Contains(t, got, " test two Pod default/b y")
	assert.NotContains(t, got, "one")
	assert.Empty(t, w.NewTrace(func([]string) bool { return true }), "a line is shown once")
}

func TestPodsAndPodArg(t *testing.T) {
	w := New(t, Options{})
	for _, n := range []string{"b", "a", "c"} {
		_, err := w.Store.Create(newPod(n))
		require.NoError(t, err)
	}
	var names []string
	for _, p := range w.Pods() {
		names = append(names, p.Name)
	}
	assert.Equal(t, []string{"a", "b", "c"}, names)
	w.PodOrder = func(a, b *model.Pod) int { return strings.Compare(b.Name, a.Name) }
	assert.Equal(t, "c", w.Pods()[0].Name)
}

func TestParseAndPrint(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want map[string]string
	}{
		{"app=web", map[string]string{"app": "web"}},
		{"a=1,b=", map[string]string{"a": "1", "b": ""}},
	} {
		got := ParseLabels(t, tc.in)
		assert.Equal(t, tc.want, got)
		assert.Equal(t, tc.in, LabelString(got))
	}
	assert.Equal(t, []model.Taint{{Key: "k", Value: "v", Effect: "NoSchedule"}, {Key: "x", Effect: "NoExecute"}},
		ParseTaints(t, "k=v:NoSchedule,x:NoExecute"))
	n := ReadyNode("n1", map[string]string{"zone": "a"}, ParseTaints(t, "k=v:NoSchedule"))
	assert.Equal(t, "label zone=a taint k=v:NoSchedule", NodeDetail(n))

	r := &recorder{TB: t}
	ParseLabels(r, "novalue")
	assert.NotEmpty(t, r.fatal, "a label without = is refused")
	r = &recorder{TB: t}
	ParseTaints(r, "noeffect")
	assert.NotEmpty(t, r.fatal, "a taint without :Effect is refused")
}

func TestFakeNodes(t *testing.T) {
	w := New(t, Options{})
	fn := w.StartFakeNodes()
	fn.Add("n1")
	fn.Add("n2")
	_, err := w.Store.Create(newPod("a"))
	require.NoError(t, err)
	_, err = w.Store.Create(newPod("b"))
	require.NoError(t, err)
	w.Run(5 * time.Second)
	a, b := w.Pod("a"), w.Pod("b")
	assert.ElementsMatch(t, []string{"n1", "n2"}, []string{a.Spec.NodeName, b.Spec.NodeName}, "one pod per node")
	assert.True(t, IsReady(a) && IsReady(b))
	fn.Dead[a.Spec.NodeName] = true
	_, err = w.Store.Delete(model.KindPod, Namespace, "a", model.DeleteOptions{})
	require.NoError(t, err)
	_, err = w.Store.Delete(model.KindPod, Namespace, "b", model.DeleteOptions{})
	require.NoError(t, err)
	w.Run(5 * time.Second)
	_, errA := w.Store.Get(model.KindPod, Namespace, "a")
	_, errB := w.Store.Get(model.KindPod, Namespace, "b")
	assert.NoError(t, errA, "a dead node's kubelet never finishes the deletion")
	assert.Error(t, errB, "a live node's kubelet does")
}

func TestStripRV(t *testing.T) {
	for _, strip := range []bool{false, true} {
		w := New(t, Options{StripRV: strip})
		_, err := w.Store.Create(newPod("a"))
		require.NoError(t, err)
		w.Run(time.Second)
		got := w.NewTrace(func(f []string) bool { return f[1] == "kube-apiserver" })
		require.NotEmpty(t, got)
		assert.Equal(t, !strip, strings.Contains(got, " rv="), "StripRV=%t: %s", strip, got)
	}
}

// TestCheckDeterminism: two runs that write the same trace pass; runs that differ, or that
// write too little to tell, fail.
func TestCheckDeterminism(t *testing.T) {
	run := func(lines int, seeds ...uint64) func() *sim.Kernel {
		return func() *sim.Kernel {
			k := sim.New(1)
			k.Emit("test", "start", "World w", 0, fmt.Sprint(seeds[0]))
			seeds = seeds[1:]
			for i := 1; i < lines; i++ {
				k.Emit("test", "step", "World w", 0, fmt.Sprint(i))
			}
			return k
		}
	}
	for _, tc := range []struct {
		name string
		run  func() *sim.Kernel
		want string // "" = passes
	}{
		{"same trace", run(5, 1, 1), ""},
		{"another trace", run(5, 1, 2), "two runs differ"},
		{"too short to tell", run(3, 1, 1), "the run wrote 3 trace lines, want more than 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{TB: t}
			CheckDeterminism(r, 3, tc.run)
			if tc.want == "" {
				assert.Empty(t, r.fatal)
			} else {
				assert.Contains(t, r.fatal, tc.want)
			}
		})
	}
}
