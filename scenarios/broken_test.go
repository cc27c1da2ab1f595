package scenarios

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wantErr is one expected problem: its "line:col" and a substring of "path: message (hint)".
type wantErr struct {
	pos  string
	text string
}

// TestBrokenScenarios loads every file in testdata/broken and checks that exactly the listed
// problems are reported, each at its position. The table covers every broken file (a file
// without a row fails the test), so adding a broken file means saying what it must report.
func TestBrokenScenarios(t *testing.T) {
	cases := map[string][]wantErr{
		"syntax":                   {{"4:1", "invalid YAML: did not find expected ',' or ']'"}},
		"empty":                    {{"1:1", "the file is empty"}},
		"not-a-mapping":            {{"1:1", "a scenario is a YAML mapping"}},
		"second-document":          {{"11:1", "holds one YAML document"}},
		"duplicate-key":            {{"5:1", `duration: duplicate key "duration" (first at line 4, column 1)`}},
		"unknown-top-key":          {{"11:1", `timline: unknown key "timline" (did you mean "timeline"?)`}},
		"unknown-nested-key":       {{"7:5", "cluster.nodeGroups[0]: missing count"}, {"8:5", `cluster.nodeGroups[0].cuont: unknown field "cuont" (did you mean "count"?)`}},
		"wrong-type":               {{"8:12", `cluster.nodeGroups[0].count: expected an integer, got a string "three"`}},
		"negative-duration":        {{"5:20", "stop.quiescence: quiescence must not be negative, got -1m0s"}},
		"zero-duration":            {{"4:11", "duration: duration must be greater than 0, got 0s"}},
		"duration-without-unit":    {{"4:11", `duration: duration 1200 has no unit (add a unit, e.g. "1200s")`}},
		"missing-duration":         {{"1:1", "duration: missing duration"}},
		"wrong-apiversion":         {{"1:13", `apiVersion: apiVersion "reconsim.dev/v1" is not a scenario apiVersion (use "reconsim.dev/v1alpha1")`}},
		"wrong-kind":               {{"2:7", `kind: kind "Scenaro" is not Scenario (use "Scenario")`}},
		"unknown-action":           {{"14:11", `timeline[0].action: unknown action "node-crsh" (did you mean "node-crash"?)`}},
		"arg-of-other-action":      {{"16:3", `timeline[0].replicas: "replicas" is not an argument of node-crash (it belongs to scale; node-crash takes nodes)`}},
		"missing-nodes":            {{"12:3", "timeline[0]: missing nodes"}},
		"missing-at":               {{"12:3", "timeline[0]: missing at"}},
		"unknown-node":             {{"15:19", `timeline[0].nodes.names[0]: no node is named "worker-7" (nodes: worker-0, worker-1, worker-2)`}},
		"unknown-after":            {{"16:15", `timeline[1].at.after: no earlier timeline entry is named "crsh" (did you mean "crash"?)`}},
		"after-later-entry":        {{"12:15", `timeline[0].at.after: entry "recover" is timeline[1], which comes later`}},
		"entry-after-duration":     {{"12:7", "timeline[0].at: the entry runs at 30m, after the run ends (duration 20m)"}},
		"duplicate-names":          {{"17:9", `timeline[1].name: duplicate timeline entry name "crash" (also timeline[0])`}},
		"bad-selector":             {{"15:21", `timeline[0].nodes.selector: invalid label selector "pool in (a"`}},
		"random-too-many":          {{"15:19", "timeline[0].nodes.random: random: 5, but only 3 nodes match"}},
		"unknown-zone":             {{"14:9", `timeline[0].zone: no node is in zone "zone-b" (did you mean "zone-a"?)`}},
		"scale-undeclared":         {{"26:36", `timeline[0].target.name: no ReplicaSet default/webb is declared in this scenario (did you mean "default/web"?)`}},
		"two-kinds":                {{"19:3", "expect[0].event: an expectation checks one thing; this one has both converged and event"}},
		"expectation-without-kind": {{"12:3", "expect[0]: the expectation says nothing to check"}},
		"unknown-verdict":          {{"13:12", `expect[0].verdict: unknown verdict policy "some"`}},
		"unknown-condition":        {{"13:27", `expect[0].eventually.condition: unknown condition "no-pending-pod" (did you mean "no-pending-pods"?)`}},
		"zero-within":              {{"18:37", "expect[0].converged.within: within must be greater than 0, got 0s"}},
		"manifest-field-type":      {{"17:17", `objects[0].manifest.spec.replicas: expected an integer, got a string "two"`}},
		"manifest-unknown-kind":    {{"14:11", `objects[0].manifest.kind: unknown kind "Frobnicator"`}},
		"invalid-manifest": {
			{"11:17", "objects[0].manifest.spec.replicas: Invalid value: -1: must be greater than or equal to 0 (the API server would reject it)"},
			{"14:28", "objects[0].manifest.spec.template.metadata.labels: Invalid value: {\"app\":\"other\"}: `selector` does not match template `labels`"},
		},
		"missing-namespace":         {{"15:38", `objects[0].manifest.metadata.namespace: namespace "prod" does not exist (add it to cluster.namespaces)`}},
		"missing-manifest-file":     {{"12:9", "objects[0].file: cannot read the manifest file"}},
		"bad-quantity":              {{"10:21", `cluster.nodeGroups[0].capacity.cpu: invalid quantity "4 cores"`}},
		"allocatable-over-capacity": {{"11:24", "cluster.nodeGroups[0].allocatable.cpu: allocatable cpu 5 is more than the capacity 4"}},
		"unknown-taint-effect":      {{"11:49", `cluster.nodeGroups[0].taints[0].effect: unknown taint effect "NoSchedul" (did you mean "NoSchedule"?)`}},
		"unknown-component":         {{"12:3", `components.kube-controler-manager: unknown component "kube-controler-manager" (did you mean "kube-controller-manager"?)`}},
		"unknown-flag":              {{"13:5", `components.kube-controller-manager.node-monitor-grace: kube-controller-manager has no flag "node-monitor-grace" (did you mean "node-monitor-grace-period"?)`}},
		"bad-flag-value":            {{"13:32", `components.kube-controller-manager.node-monitor-grace-period: want a duration such as 30s, 5m or 1h30m, got "fast" (kube-controller-manager.node-monitor-grace-period is a duration`}},
		"flag-not-an-integer":       {{"12:23", `components.kubelet.max-pods: want an integer, got "1.5"`}},
		"backoff-cross-check":       {{"13:5", "kube-scheduler.pod-max-backoff-seconds (10) is less than pod-initial-backoff-seconds (20)"}},
		"bad-distribution":          {{"13:18", "components.simulator.watch-delay: lognormal needs median > 0 and p99 >= median"}},
		"many-problems": {
			{"14:19", `timeline[0].nodes.names[0]: no node is named "worker-2"`},
			{"15:7", "timeline[1].at: the entry runs at 11m, after the run ends (duration 10m)"},
			{"20:22", `expect[0].converged.after: no timeline entry is named "crahs" (did you mean "crash"?)`},
		},
	}
	files, err := filepath.Glob("testdata/broken/*.yaml")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 25)
	seen := map[string]bool{}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			want, ok := cases[name]
			require.True(t, ok, "no expectation for %s: add a row to the table", file)
			s, _, err := Load(file)
			require.Error(t, err)
			assert.Nil(t, s, "an invalid scenario is not returned")
			var errs Errors
			require.True(t, errors.As(err, &errs), "the error is scenarios.Errors, got %T", err)
			lines := strings.Split(err.Error(), "\n")
			require.Len(t, lines, len(want), "problems reported:\n%s", err)
			for i, w := range want {
				prefix := file + ":" + w.pos + ": "
				assert.True(t, strings.HasPrefix(lines[i], prefix), "problem %d is %q, want it at %s", i, lines[i], prefix)
				assert.Contains(t, lines[i], w.text)
				assert.Equal(t, file, errs[i].Pos.File)
			}
		})
	}
	for name := range cases {
		assert.True(t, seen[name], "the table names %s, which has no file in testdata/broken", name)
	}
}
