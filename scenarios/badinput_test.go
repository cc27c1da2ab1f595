package scenarios

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHugeNodeCountIsRejectedCheaply: an out-of-range count is reported without generating
// the nodes (which took 14 s and 7.5 GB for 10,000,000), and checks that need the node list
// (a timeline naming worker-0) add no follow-on problems.
func TestHugeNodeCountIsRejectedCheaply(t *testing.T) {
	for _, count := range []int64{10_000_000, 2147483647, 1 << 62} {
		t.Run(fmt.Sprint(count), func(t *testing.T) {
			src := fmt.Sprintf(`apiVersion: reconsim.dev/v1alpha1
kind: Scenario
name: big
duration: 10m
cluster:
  nodeGroups:
  - {name: worker, count: %d, zone: zone-a, capacity: {cpu: "4", memory: 16Gi}}
timeline:
- {at: 1m, action: node-crash, nodes: {names: [worker-0]}}
- {at: 2m, action: zone-outage, zone: zone-a}
- {at: 3m, action: api-latency, clients: [kubelet/worker-0], extra: 1s, for: 1m}
`, count)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, _, err := Parse("big.yaml", []byte(src), "")
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			require.Error(t, err)
			assert.Equal(t, fmt.Sprintf("big.yaml:7:27: cluster.nodeGroups[0].count: count must be between 0 and %d, got %d", MaxClusterNodes, count), err.Error(),
				"one problem, no follow-on ones about worker-0 or zone-a")
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(10<<20), "bytes allocated")
			assert.Less(t, elapsed, time.Second)
		})
	}
}

// TestMisleadingParseMessages: problems are reported where they are and called what they are.
func TestMisleadingParseMessages(t *testing.T) {
	head := "apiVersion: reconsim.dev/v1alpha1\nkind: Scenario\n"
	var plain strings.Builder
	plain.WriteString(head + "name: many\nduration: 1m\nobjects:\n")
	for i := 0; i <= MaxObjects; i++ {
		fmt.Fprintf(&plain, "- manifest: {apiVersion: v1, kind: Namespace, metadata: {name: n%d, labels: {a: b, c: d, e: f}}}\n", i)
	}
	cases := map[string]struct {
		src  string
		want string
		not  string
	}{
		"invalid UTF-8 on line 3": {src: head + "name: x\xff\xfe\nduration: 1m\n", want: "u.yaml:3:8: invalid YAML: invalid leading UTF-8 octet"},
		"undefined alias on line 9": {
			src:  head + "name: x\nduration: 1m\ncluster:\n  nodeGroups:\n  - name: w\n    count: 1\n    capacity: *nope\n",
			want: "u.yaml:9:15: invalid YAML: unknown anchor 'nope' referenced",
		},
		"100,001 plain objects are not an alias bomb": {src: plain.String(), want: "more than 100000 objects", not: "alias"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, _, err := Parse("u.yaml", []byte(c.src), "")
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			if c.not != "" {
				assert.NotContains(t, err.Error(), c.not)
			}
		})
	}
}

// TestManyProblemsAndReferencesAreNotQuadratic: 5,000 broken objects and 5,000 timeline
// references to undeclared ones. Each check used to pass over every problem (bad, broken)
// and every object (declaredAs): 20,000 and 10,000 of each took more than ten minutes; with
// the indexes it is about a second of CPU. The bound leaves room for a busy machine.
func TestManyProblemsAndReferencesAreNotQuadratic(t *testing.T) {
	const n = 5000
	var b strings.Builder
	b.WriteString("apiVersion: reconsim.dev/v1alpha1\nkind: Scenario\nname: hostile\nduration: 1h\n" +
		"cluster:\n  nodeGroups:\n  - {name: w, count: 3, capacity: {cpu: \"4\", memory: 16Gi}}\nobjects:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "- manifest: {apiVersion: apps/v1, kind: ReplicaSet, metadata: {name: rs-%d}, bogus: %d}\n", i, i)
	}
	b.WriteString("timeline:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "- {at: 1s, action: scale, target: {kind: ReplicaSet, name: nope-%d}, replicas: 1}\n", i)
	}
	start := time.Now()
	_, _, err := Parse("h.yaml", []byte(b.String()), "")
	elapsed := time.Since(start)
	require.Error(t, err)
	// Every problem was found (5,000 unknown fields, then 5,000 undeclared targets); the first
	// MaxListedProblems found are listed, and the last entry counts the rest.
	var errs Errors
	require.ErrorAs(t, err, &errs)
	assert.Equal(t, 2*n, errs.Count())
	require.Len(t, errs, MaxListedProblems+1)
	assert.Equal(t, "h.yaml: 9000 more problems are not listed: a scenario lists the first 1000 found (fix the problems listed and run again)", errs[MaxListedProblems].Error())
	assert.Less(t, elapsed, 30*time.Second)
}
