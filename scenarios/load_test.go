package scenarios

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/internal/testsupport"
	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
)

func TestLoadFullScenario(t *testing.T) {
	s, warns, err := Load("testdata/valid/full.yaml")
	require.NoError(t, err)
	assert.Empty(t, warns)

	assert.Equal(t, "full", s.Name)
	assert.Equal(t, "testdata/valid/full.yaml", s.File)
	assert.Equal(t, "Every key of the format.\nSecond line.\n", s.Description)
	assert.Equal(t, uint64(42), s.Seed)
	assert.Equal(t, time.Hour, s.Duration)
	assert.Equal(t, uint64(5_000_000), s.Stop.MaxEvents)
	assert.Equal(t, time.Duration(0), s.Stop.Quiescence, "an explicit 0 disables quiescence and stays 0")

	t.Run("cluster", func(t *testing.T) {
		require.Len(t, s.Cluster.NodeGroups, 2)
		w, spot := s.Cluster.NodeGroups[0], s.Cluster.NodeGroups[1]
		assert.Equal(t, "worker-", w.NamePrefix, "namePrefix defaults to name-")
		assert.Equal(t, "spot-node-", spot.NamePrefix)
		cpu := w.Allocatable["cpu"]
		assert.Equal(t, "3900m", cpu.String(), "an explicit allocatable stays")
		mem := w.Allocatable["memory"]
		assert.Equal(t, "16Gi", mem.String(), "a missing allocatable resource comes from capacity")
		assert.Equal(t, 2*time.Minute, spot.StartupTime)
		require.Len(t, spot.Taints, 1)
		assert.Equal(t, model.TaintEffectNoSchedule, spot.Taints[0].Effect)
		assert.Equal(t, []string{"prod"}, s.Cluster.Namespaces, "system namespaces are dropped from the list")

		nodes := s.Nodes()
		require.Len(t, nodes, 5)
		assert.Equal(t, "worker-0", nodes[0].Name)
		assert.Equal(t, "spot-node-1", nodes[4].Name)
		assert.Equal(t, map[string]string{
			"pool": "default", LabelHostname: "worker-2", LabelOS: "linux", LabelArch: "amd64",
			LabelZone: "zone-a", LabelRegion: "region-1",
		}, nodes[2].Labels)
		_, hasRegion := nodes[3].Labels[LabelRegion]
		assert.False(t, hasRegion, "no region label when the group has no region")
	})

	t.Run("components", func(t *testing.T) {
		c := &s.Components
		assert.Equal(t, 30*time.Second, c.Duration(ComponentControllerManager, "node-monitor-grace-period"))
		assert.Equal(t, 0.5, c.Float(ComponentControllerManager, "node-eviction-rate"))
		assert.Equal(t, 800, c.Int(ComponentAPIServer, "max-requests-inflight"))
		assert.Equal(t, "1.33", c.UpstreamVersion())
		assert.Equal(t, 5*time.Second, c.Duration(ComponentKubelet, "node-status-report-frequency"),
			"report frequency follows an explicitly set update frequency")
		assert.Equal(t, sim.Dist{Kind: sim.DistUniform, Min: time.Second, Max: 3 * time.Second}, c.Dist(ComponentKubelet, "image-pull"))
		assert.Equal(t, sim.Dist{Kind: sim.DistLogNormal, Median: 3 * time.Millisecond, P99: 30 * time.Millisecond, Max: time.Second},
			c.Dist(ComponentSimulator, "watch-delay"))
		assert.Equal(t, 20, c.Int(ComponentControllerManager, "kube-api-burst")*2/3, "unset flags keep their defaults")
	})

	t.Run("objects", func(t *testing.T) {
		require.Len(t, s.Objects, 2)
		fromFile := s.Objects[0]
		assert.True(t, fromFile.Settled)
		assert.Equal(t, "manifests/app.yaml", fromFile.File)
		require.Len(t, fromFile.Objects, 2)
		rs, ok := fromFile.Objects[0].(*model.ReplicaSet)
		require.True(t, ok)
		assert.Equal(t, "prod/web", model.Key(rs))
		assert.Equal(t, int32(4), *rs.Spec.Replicas)
		assert.Equal(t, "default", fromFile.Objects[1].Meta().Namespace, "a namespaced object without a namespace gets default")
		inline := s.Objects[1]
		assert.Empty(t, inline.File)
		assert.Nil(t, inline.Manifest, "the loader does not keep the YAML of objects (stream.go)")
		require.Len(t, inline.Objects, 1)
		assert.Equal(t, model.KindNamespace, inline.Objects[0].GetKind())
		assert.Equal(t, "", inline.Objects[0].Meta().Namespace, "cluster-scoped objects get no namespace")
		assert.Equal(t, 44, inline.Pos.Line)
	})

	t.Run("timeline", func(t *testing.T) {
		tl := s.Timeline
		require.Len(t, tl, 11)
		var got []string
		for _, e := range tl {
			got = append(got, e.Action.Name()+"@"+e.At.String())
		}
		assert.Equal(t, []string{
			"node-crash@1m", "node-recover@after crash +2m", "scale@converged", "kubelet-stall@converged +30s",
			"node-partition@10m", "cordon@11m", "uncordon@12m", "zone-outage@13m", "node-delete@14m", "apply@15m", "delete@16m",
		}, got)
		assert.Equal(t, "crash", tl[0].Name)
		assert.Equal(t, 49, tl[0].Pos.Line)
		assert.Equal(t, []string{"worker-0"}, tl[0].Action.NodeCrash.Nodes.Names)
		assert.Equal(t, ObjectRef{Kind: model.KindReplicaSet, Namespace: "prod", Name: "web"}, tl[2].Action.Scale.Target)
		assert.Equal(t, int32(10), tl[2].Action.Scale.Replicas)
		assert.Equal(t, NodeTarget{Selector: "pool=default", Random: 2}, tl[3].Action.KubeletStall.Nodes)
		assert.Equal(t, time.Minute, tl[3].Action.KubeletStall.For)
		assert.Equal(t, "zone-b", tl[7].Action.ZoneOutage.Zone)
		require.Len(t, tl[9].Action.Apply.Objects, 1)
		assert.Equal(t, "batch/one-off", model.Key(tl[9].Action.Apply.Objects[0]))
		assert.Equal(t, ObjectRef{Kind: model.KindPod, Namespace: "batch", Name: "one-off"}, tl[10].Action.Delete.Target)
		for i, e := range tl {
			assert.Equal(t, 1, unionCount(reflect.ValueOf(e.Action)), "timeline[%d] has exactly one action", i)
		}
		assert.Equal(t, &tl[3].Action.KubeletStall.Nodes, tl[3].Action.Nodes())
		assert.Nil(t, tl[7].Action.Nodes(), "zone-outage has no node target")
	})

	t.Run("expectations", func(t *testing.T) {
		x := s.Expect
		require.Len(t, x, 6)
		var kinds []string
		for _, e := range x {
			kinds = append(kinds, e.Name+":"+e.Kind())
		}
		assert.Equal(t, []string{"recovered:converged", "eviction-event:event", "scheduled:eventually", "web-ready:always", "fits:never", "no-verdict:verdict"}, kinds)
		assert.Equal(t, ConvergedExpectation{After: "crash", Within: 7 * time.Minute}, *x[0].Converged)
		assert.Equal(t, EventExpectation{Reason: "TaintManagerEviction", Kind: model.KindPod, Namespace: "prod", Count: 2,
			Within: &Window{After: "crash", Within: 8 * time.Minute}}, *x[1].Event)
		assert.Equal(t, "no-pending-pods", x[2].Eventually.Condition.Name())
		assert.Equal(t, &Window{After: "recover", Within: 5 * time.Minute}, x[2].Eventually.Within)
		assert.Equal(t, &ReadyReplicasArgs{Target: ObjectRef{Kind: model.KindReplicaSet, Namespace: "prod", Name: "web"}, Min: 1}, x[3].Always.Condition.ReadyReplicas)
		assert.Equal(t, "node-overcommitted", x[4].Never.Condition.Name(), "a bare condition name is accepted")
		assert.Nil(t, x[4].Never.Within)
		assert.Equal(t, VerdictExpectation{Policy: VerdictNone}, *x[5].Verdict)
	})
}

func TestBuiltinScenarios(t *testing.T) {
	names := BuiltinNames()
	require.Contains(t, names, "node-failure")
	assert.IsNonDecreasing(t, names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			data, ok := Builtin(name)
			require.True(t, ok)
			s, warns, err := Parse(BuiltinFile(name), data, "")
			require.NoError(t, err)
			assert.Empty(t, warns)
			assert.Equal(t, name, s.Name, "a built-in's name is its file name")
			assert.NotEmpty(t, s.Description)
			assert.NotEmpty(t, s.Expect, "a built-in says what it expects")
			assert.True(t, strings.HasPrefix(string(data), "# "), "a built-in starts with a comment saying what it shows")
		})
	}

	t.Run("slow ones are listed", func(t *testing.T) {
		for _, name := range names {
			data, _ := Builtin(name)
			head, _, _ := strings.Cut(string(data), "\napiVersion:")
			assert.Equal(t, IsSlowBuiltin(name), strings.Contains(head, "\n# SLOW:"),
				"%s: a scenario in SlowBuiltins says SLOW: in its header comment, and only those", name)
		}
		for _, name := range SlowBuiltins {
			assert.Contains(t, names, name)
		}
	})

	t.Run("node-failure", func(t *testing.T) {
		data, _ := Builtin("node-failure")
		s, _, err := Parse(BuiltinFile("node-failure"), data, "")
		require.NoError(t, err)
		assert.Equal(t, 20*time.Minute, s.Duration)
		nodes := s.Nodes()
		require.Len(t, nodes, 3)
		for _, n := range nodes {
			assert.Equal(t, "zone-a", n.Zone)
		}
		g := s.Cluster.NodeGroups[0]
		cpu, mem := g.Capacity["cpu"], g.Capacity["memory"]
		assert.Equal(t, "4", cpu.String())
		assert.Equal(t, "16Gi", mem.String())
		rs := s.Objects[0].Objects[0].(*model.ReplicaSet)
		assert.Equal(t, "default/web", model.Key(rs))
		assert.Equal(t, int32(6), *rs.Spec.Replicas)
		req := rs.Spec.Template.Spec.Containers[0].Resources.Requests["cpu"]
		assert.Equal(t, "500m", req.String())
		require.Len(t, s.Timeline, 1)
		assert.Equal(t, 60*time.Second, s.Timeline[0].At.Offset)
		assert.Equal(t, []string{"worker-0"}, s.Timeline[0].Action.NodeCrash.Nodes.Names)
		assert.Equal(t, "converged", s.Expect[0].Kind())
		assert.Equal(t, 7*time.Minute, s.Expect[0].Converged.Within)
		assert.Equal(t, "TaintManagerEviction", s.Expect[1].Event.Reason)
	})

	_, ok := Builtin("../node-failure")
	assert.False(t, ok, "names with path elements are not built-ins")
	_, ok = Builtin("no-such-scenario")
	assert.False(t, ok)
}

const minimal = `apiVersion: reconsim.dev/v1alpha1
kind: Scenario
name: minimal
duration: 5m
`

func TestDefaults(t *testing.T) {
	s, _, err := Parse("m.yaml", []byte(minimal), "")
	require.NoError(t, err)
	assert.Equal(t, uint64(DefaultSeed), s.Seed)
	assert.Equal(t, uint64(DefaultMaxEvents), s.Stop.MaxEvents)
	assert.Equal(t, DefaultQuiescence, s.Stop.Quiescence)
	assert.Empty(t, s.Nodes())

	s, _, err = Parse("m.yaml", []byte(minimal+"seed: 0\n"), "")
	require.NoError(t, err)
	assert.Equal(t, uint64(0), s.Seed, "an explicit seed 0 is kept")
}

func TestParseErrorsCarryPositions(t *testing.T) {
	cases := map[string]struct {
		src  string
		want string
	}{
		"alias bomb":      {src: minimal + testsupport.AliasBomb(7), want: "aliases (*name) expand to more than"},
		"recursive alias": {src: minimal + "x: &a [1, *a]\n", want: "refers to a value that contains it"},
		"too large":       {src: minimal + "description: " + strings.Repeat("x", MaxFileBytes) + "\n", want: "more than the limit"},
		"tab indentation": {src: minimal + "cluster:\n\tnodeGroups: []\n", want: "invalid YAML"},
		"merge key": {
			src: minimal + "cluster:\n  nodeGroups:\n  - &g {name: a, count: 1, capacity: {cpu: \"1\", memory: 1Gi}}\n  - <<: *g\n    name: b\n",
		},
		"merged unknown key": {
			src:  minimal + "timeline:\n- <<: {at: 1s, action: cordon}\n  nodes: {names: [x]}\n  bogus: 1\n",
			want: `unknown key "bogus"`,
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			s, _, err := Parse("p.yaml", []byte(c.src), "")
			if c.want == "" {
				require.NoError(t, err)
				require.NotNil(t, s)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			var errs Errors
			require.True(t, errors.As(err, &errs))
			for _, e := range errs {
				assert.Equal(t, "p.yaml", e.Pos.File)
				assert.GreaterOrEqual(t, e.Pos.Line, 1)
				assert.GreaterOrEqual(t, e.Pos.Column, 1)
			}
		})
	}
}

func TestMergeKeyNodeGroups(t *testing.T) {
	src := minimal + "cluster:\n  nodeGroups:\n  - &g {name: a, count: 1, capacity: {cpu: \"1\", memory: 1Gi}}\n  - <<: *g\n    name: b\n"
	s, _, err := Parse("m.yaml", []byte(src), "")
	require.NoError(t, err)
	var names []string
	for _, n := range s.Nodes() {
		names = append(names, n.Name)
	}
	assert.Equal(t, []string{"a-0", "b-0"}, names, "merged keys apply and the explicit name wins")
}

func TestFileReferencesNeedABaseDir(t *testing.T) {
	_, _, err := Parse("b.yaml", []byte(minimal+"objects:\n- file: app.yaml\n"), "")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "b.yaml:6:9: objects[0].file: file references are not available here")
}

func TestManifestErrorsInReferencedFilePointIntoIt(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir+"/bad.yaml", "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: web}\nspec:\n  replicas: many\n")
	_, _, err := Parse(dir+"/s.yaml", []byte(minimal+"objects:\n- file: bad.yaml\n"), dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), dir+"/bad.yaml:5:13: spec.replicas: expected an integer")
}

func TestNodeTargetSelect(t *testing.T) {
	s, _, err := Load("testdata/valid/full.yaml")
	require.NoError(t, err)
	nodes := s.Nodes()
	cases := []struct {
		target NodeTarget
		want   []string
	}{
		{NodeTarget{Names: []string{"spot-node-1", "worker-0"}}, []string{"spot-node-1", "worker-0"}},
		{NodeTarget{Zone: "zone-b"}, []string{"spot-node-0", "spot-node-1"}},
		{NodeTarget{Selector: "pool=default"}, []string{"worker-0", "worker-1", "worker-2"}},
		{NodeTarget{Selector: "pool!=default"}, []string{"spot-node-0", "spot-node-1"}},
		{NodeTarget{Selector: LabelHostname + "=worker-1"}, []string{"worker-1"}},
		{NodeTarget{Selector: "pool=default", Zone: "zone-b"}, nil},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, c.target.Select(nodes, nil), "%v", c.target)
	}

	random := NodeTarget{Selector: "pool=default", Random: 2}
	first := random.Select(nodes, rand.New(rand.NewPCG(1, 2)))
	assert.Len(t, first, 2)
	assert.Equal(t, first, random.Select(nodes, rand.New(rand.NewPCG(1, 2))), "the same stream draws the same nodes")
	for _, n := range first {
		assert.True(t, strings.HasPrefix(n, "worker-"), "random draws only among matching nodes")
	}
	seen := map[string]bool{}
	for seed := uint64(0); seed < 64; seed++ {
		for _, n := range random.Select(nodes, rand.New(rand.NewPCG(seed, 7))) {
			seen[n] = true
		}
	}
	assert.Len(t, seen, 3, "over many seeds every matching node gets drawn")
}

func TestAtString(t *testing.T) {
	assert.Equal(t, "1m30s", At{Offset: 90 * time.Second}.String())
	assert.Equal(t, "after crash", At{After: "crash"}.String())
	assert.Equal(t, "converged +10s", At{Converged: true, Delay: 10 * time.Second}.String())
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

func ExampleParse() {
	src := `apiVersion: reconsim.dev/v1alpha1
kind: Scenario
name: example
duration: 10m
cluster:
  nodeGroups:
  - {name: worker, count: 2, capacity: {cpu: "2", memory: 8Gi}}
timeline:
- {at: 1m, name: crash, action: node-crash, nodes: {names: [worker-3]}}
`
	_, _, err := Parse("example.yaml", []byte(src), "")
	fmt.Println(err)
	// Output: example.yaml:9:61: timeline[0].nodes.names[0]: no node is named "worker-3" (nodes: worker-0, worker-1)
}

func TestSeriesFileProblemsPointIntoIt(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir+"/load.csv", "seconds,rps\n0,100\n60,-5\n30,7\n20,1\n")
	writeFile(t, dir+"/s.yaml", `apiVersion: reconsim.dev/v1alpha1
kind: Scenario
name: s
duration: 1h
objects:
- manifest:
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: web}
    spec:
      selector: {matchLabels: {app: web}}
      template:
        metadata: {labels: {app: web}}
        spec: {containers: [{name: web, image: nginx}]}
loads:
- target: {kind: Deployment, name: web}
  shape: {series: {file: load.csv}}
  usage: {cpuPerUnit: 5m}
`)
	_, _, err := Load(dir + "/s.yaml")
	require.Error(t, err)
	var errs Errors
	require.True(t, errors.As(err, &errs))
	require.Len(t, errs, 2, err.Error())
	assert.Equal(t, model.Position{File: dir + "/load.csv", Line: 3, Column: 1}, errs[0].Pos)
	assert.Contains(t, errs[0].Msg, "value -5 is outside")
	assert.Equal(t, 5, errs[1].Pos.Line)
	assert.Contains(t, errs[1].Msg, "is not after the previous point's")
}

// TestDeprecatedConditionName: no-node-overcommitted is an alias of node-overcommitted, as the
// docs used it (never: no-node-overcommitted), with a warning that says what to write.
func TestDeprecatedConditionName(t *testing.T) {
	for _, tt := range []struct{ expect, warn string }{
		{"- {name: fits, never: no-node-overcommitted}\n", "write never: node-overcommitted"},
		{"- {name: fits, never: {condition: no-node-overcommitted, within: {within: 1m}}}\n", "write never: node-overcommitted"},
		{"- {name: fits, always: no-node-overcommitted}\n", "you probably mean never: node-overcommitted"},
	} {
		text := exampleFixture + "expect:\n" + tt.expect
		s, warns, err := Parse("deprecated.yaml", []byte(text), ".")
		require.NoError(t, err, tt.expect)
		e := s.Expect[0]
		var c *ConditionExpectation
		if e.Never != nil {
			c = e.Never
		} else {
			c = e.Always
		}
		assert.Equal(t, "node-overcommitted", c.Condition.Name())
		require.Len(t, warns, 1)
		assert.Contains(t, warns[0].String(), "condition no-node-overcommitted is deprecated")
		assert.Contains(t, warns[0].String(), tt.warn)
	}
}

// TestObjectIndexFindsFirstDeclaration checks the duplicate-object index with its hash and
// with every key colliding: both must find the first declaration of each repeated object,
// and nothing else.
func TestObjectIndexFindsFirstDeclaration(t *testing.T) {
	svc := func(ns, name string) declaredObject {
		return declaredObject{obj: &model.Service{ObjectMeta: model.ObjectMeta{Namespace: ns, Name: name}}}
	}
	nsObj := func(name string) declaredObject {
		return declaredObject{obj: &model.Namespace{ObjectMeta: model.ObjectMeta{Name: name}}}
	}
	declared := []declaredObject{svc("a", "web"), svc("b", "web"), nsObj("web"), svc("a", "web"), nsObj("a"), svc("b", "web"), svc("a", "web"), svc("ab", ""), svc("a", "b")}
	want := map[int]int{3: 0, 5: 1, 6: 0} // a repeated declaration -> its first
	for _, tc := range []struct {
		name string
		hash func(objectKey) uint64
	}{
		{"fnv", hashKey},
		{"every key collides", func(objectKey) uint64 { return 7 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := newObjectIndex(len(declared))
			x.hash = tc.hash
			for i := range declared {
				prev, dup := x.add(declared, i)
				first, wantDup := want[i]
				assert.Equal(t, wantDup, dup, "declaration %d", i)
				if wantDup {
					assert.Equal(t, first, prev, "declaration %d", i)
				}
			}
		})
	}
}
