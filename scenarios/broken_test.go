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
		"syntax":                        {{"4:1", "invalid YAML: did not find expected ',' or ']'"}},
		"empty":                         {{"1:1", "the file is empty"}},
		"not-a-mapping":                 {{"1:1", "a scenario is a YAML mapping"}},
		"second-document":               {{"11:1", "holds one YAML document"}},
		"duplicate-key":                 {{"5:1", `duration: duplicate key "duration" (first at line 4, column 1)`}},
		"unknown-top-key":               {{"11:1", `timline: unknown key "timline" (did you mean "timeline"?)`}},
		"unknown-nested-key":            {{"7:5", "cluster.nodeGroups[0]: missing count"}, {"8:5", `cluster.nodeGroups[0].cuont: unknown field "cuont" (did you mean "count"?)`}},
		"wrong-type":                    {{"8:12", `cluster.nodeGroups[0].count: expected an integer, got a string "three"`}},
		"negative-duration":             {{"5:20", "stop.quiescence: quiescence must not be negative, got -1m0s"}},
		"zero-duration":                 {{"4:11", "duration: duration must be greater than 0, got 0s"}},
		"duration-without-unit":         {{"4:11", `duration: duration 1200 has no unit (add a unit, e.g. "1200s")`}},
		"missing-duration":              {{"1:1", "duration: missing duration"}},
		"wrong-apiversion":              {{"1:13", `apiVersion: apiVersion "reconsim.dev/v1" is not a scenario apiVersion (use "reconsim.dev/v1alpha1")`}},
		"wrong-kind":                    {{"2:7", `kind: kind "Scenaro" is not Scenario (use "Scenario")`}},
		"explore-unknown-action":        {{"16:13", `explore.actions[0].action: unknown action "node-crsh" for explore (did you mean "node-crash"?)`}},
		"explore-empty-range":           {{"19:10", "explore.actions[0].for: the range is empty: min 2m is above max 30s"}},
		"explore-window-after-duration": {{"15:26", "explore.window.to: the window ends at 30m, after the run ends (duration 20m)"}},
		"explore-invariant-names-nothing": {
			{"16:54", `explore.actions[0].for: "for" is not an argument of node-crash (node-crash takes nodes, heal)`},
			{"17:32", `explore.invariants[1]: invariant "setled" names neither a built-in invariant nor an expectation of this scenario (did you mean "settled"?)`},
		},
		"at-write-bad": {
			{"15:15", "timeline[0].at.write: write must be at least 1, got 0"},
			{"18:22", `timeline[1].at.by: unknown component "replicaset-controler" (did you mean "replicaset-controller"?)`},
		},
		"unknown-action":                {{"14:11", `timeline[0].action: unknown action "node-crsh" (did you mean "node-crash"?)`}},
		"arg-of-other-action":           {{"16:3", `timeline[0].replicas: "replicas" is not an argument of node-crash (it belongs to scale; node-crash takes nodes)`}},
		"missing-nodes":                 {{"12:3", "timeline[0]: missing nodes"}},
		"patch-does-not-apply":          {{"25:9", "timeline[0].body: the patch does not apply to Deployment default/web: replace operation does not apply: doc is missing path: /spec/paused/now"}},
		"patch-invalid-result":          {{"25:9", "timeline[0].body: after this patch Deployment default/web would be invalid: spec.replicas: Invalid value: -2"}},
		"patch-json-not-a-list":         {{"25:9", "timeline[0].body: a json patch is a list of operations"}},
		"edit-no-such-item":             {{"24:8", "timeline[0].set: the edit does not apply to Deployment default/web: spec.template.spec.containers[3].image: no list item 3"}},
		"kill-container-bad":            {{"24:14", `timeline[0].container: the pod template of Deployment default/web has no container "sidecar"`}, {"25:13", "timeline[0].exitCode: exitCode must be between 0 and 255, got 300"}},
		"actor-with-spaces":             {{"10:7", `timeline[0].as: as must be a name of 1 to 63 characters without spaces, got "alice smith"`}},
		"leader-crash-without-election": {{"14:14", "timeline[0].component: kube-scheduler runs without leader election"}},
		"leader-elect-deadlines":        {{"13:5", "components.kube-controller-manager: kube-controller-manager.leader-elect-lease-duration (15s) must be greater than leader-elect-renew-deadline (20s)"}},
		"missing-at":                    {{"12:3", "timeline[0]: missing at"}},
		"unknown-node":                  {{"15:19", `timeline[0].nodes.names[0]: no node is named "worker-7" (nodes: worker-0, worker-1, worker-2)`}},
		"unknown-after":                 {{"16:15", `timeline[1].at.after: no earlier timeline entry is named "crsh" (did you mean "crash"?)`}},
		"after-later-entry":             {{"12:15", `timeline[0].at.after: entry "recover" is timeline[1], which comes later`}},
		"entry-after-duration":          {{"12:7", "timeline[0].at: the entry runs at 30m, after the run ends (duration 20m)"}},
		"duplicate-names":               {{"17:9", `timeline[1].name: duplicate timeline entry name "crash" (also timeline[0])`}},
		"bad-selector":                  {{"15:21", `timeline[0].nodes.selector: invalid label selector "pool in (a"`}},
		"random-too-many":               {{"15:19", "timeline[0].nodes.random: random: 5, but only 3 nodes match"}},
		"unknown-zone":                  {{"14:9", `timeline[0].zone: no node is in zone "zone-b" (did you mean "zone-a"?)`}},
		"scale-undeclared":              {{"26:36", `timeline[0].target.name: no ReplicaSet default/webb is declared in this scenario (did you mean "default/web"?)`}},
		"two-kinds":                     {{"19:3", "expect[0].event: an expectation checks one thing; this one has both converged and event"}},
		"expectation-without-kind":      {{"12:3", "expect[0]: the expectation says nothing to check"}},
		"unknown-verdict":               {{"13:12", `expect[0].verdict: unknown verdict policy "some"`}},
		"unknown-verdict-reason":        {{"13:12", `expect[0].verdict.reason: unknown verdict reason "Unschedulabel" (did you mean "Unschedulable"?)`}},
		"settled-pdb":                   {{"9:12", "objects[0].settled: settled: true cannot start PodDisruptionBudget default/agent settled (settled applies to Namespace, Pod, ReplicaSet, Deployment, StatefulSet, DaemonSet, Service;"}},
		"empty-verdict":                 {{"13:12", "expect[0].verdict: the verdict expectation names no verdict"}},
		"unknown-condition":             {{"13:27", `expect[0].eventually.condition: unknown condition "no-pending-pod" (did you mean "no-pending-pods"?)`}},
		"zero-within":                   {{"18:37", "expect[0].converged.within: within must be greater than 0, got 0s"}},
		"manifest-field-type":           {{"17:17", `objects[0].manifest.spec.replicas: expected an integer, got a string "two"`}},
		"manifest-unknown-kind":         {{"14:11", `objects[0].manifest.kind: unknown kind "Frobnicator"`}},
		// batch/v1 validation (pkg/apis/batch/validation): a negative backoffLimit, an In rule
		// on exit code 0, an invalid cron schedule (cron.ParseStandard), and podFailurePolicy
		// rules the API server rejects (FailIndex without backoffLimitPerIndex, a restartPolicy
		// other than Never).
		"job-invalid": {
			{"11:21", "objects[0].manifest.spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0"},
			{"15:48", "objects[0].manifest.spec.podFailurePolicy.rules[0].onExitCodes.values[0]: Invalid value: 0: must not be 0 for the In operator"},
		},
		// scheduling.k8s.io/v1 validation (pkg/apis/scheduling/validation ValidatePriorityClass).
		"priorityclass-invalid": {
			{"14:12", "objects[0].manifest.value: Forbidden: maximum allowed value of a user defined priority is 1000000000 (the API server would reject it)"},
			{"15:23", `objects[0].manifest.preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"`},
			{"19:22", "objects[1].manifest.metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class"},
		},
		// flowcontrol.apiserver.k8s.io/v1 validation (pkg/apis/flowcontrol/validation
		// ValidateFlowSchema, ValidatePriorityLevelConfiguration).
		"flowschema-invalid": {
			{"15:27", "objects[0].manifest.spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1"},
			{"17:35", `objects[0].manifest.spec.distinguisherMethod.type: Unsupported value: "ByPod": supported values: "ByNamespace", "ByUser"`},
			{"21:27", "objects[0].manifest.spec.rules[0].subjects[0].serviceAccount.namespace: Required value: must specify namespace for service account"},
			{"23:18", `objects[0].manifest.spec.rules[0].resourceRules[0].verbs: Invalid value: ["*","get"]: if '*' is present, must not specify other verbs`},
			{"32:7", "objects[1].manifest.spec: Invalid value: spec of 'catch-all' must equal the fixed value"},
		},
		"prioritylevel-invalid": {
			{"17:35", "objects[0].manifest.spec.limited.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer"},
			{"18:26", "objects[0].manifest.spec.limited.lendablePercent: Invalid value: 150: must be between 0 and 100, inclusive"},
			{"21:43", "objects[0].manifest.spec.limited.limitResponse.queuing.handSize: Invalid value: 32: should not be greater than queues (16)"},
			{"27:13", `objects[1].manifest.spec.type: Invalid value: "Exempt": type must be 'Exempt' if and only if name is 'exempt'`},
			{"35:31", `objects[2].manifest.spec.limited.limitResponse.type: Unsupported value: "Drop": supported values: "Queue", "Reject"`},
		},
		"unknown-feature-gate":     {{"11:20", `components.simulator.feature-gates: unrecognized feature gate: MaxUnavailableStatefulset; did you mean "MaxUnavailableStatefulSet"?`}},
		"cronjob-invalid-schedule": {{"11:17", `objects[0].manifest.spec.schedule: Invalid value: "*/5 * * *": expected exactly 5 fields, found 4`}},
		"job-pod-failure-policy-restart": {
			{"13:19", `objects[0].manifest.spec.podFailurePolicy.rules[0].action: Invalid value: "FailIndex": requires the backoffLimitPerIndex to be set`},
			{"17:26", `objects[0].manifest.spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified`},
		},
		"invalid-manifest": {
			{"11:17", "objects[0].manifest.spec.replicas: Invalid value: -1: must be greater than or equal to 0 (the API server would reject it)"},
			{"14:28", "objects[0].manifest.spec.template.metadata.labels: Invalid value: {\"app\":\"other\"}: `selector` does not match template `labels`"},
		},
		// core/v1 validation of topology spread constraints and inter-pod affinity terms
		// (pkg/apis/core/validation validateTopologySpreadConstraints, validatePodAffinityTerm).
		"pod-scheduling-invalid": {
			{"18:23", "objects[0].manifest.spec.template.spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero (the API server would reject it)"},
			{"19:82", `objects[0].manifest.spec.template.spec.topologySpreadConstraints[1].whenUnsatisfiable: Unsupported value: "Sometimes": supported values: "DoNotSchedule", "ScheduleAnyway"`},
			{"23:52", "objects[0].manifest.spec.template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"},
			{"24:30", "objects[0].manifest.spec.template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required value: can not be empty"},
		},
		"missing-namespace":               {{"15:38", `objects[0].manifest.metadata.namespace: namespace "prod" does not exist (add it to cluster.namespaces)`}},
		"missing-manifest-file":           {{"12:9", "objects[0].file: cannot read the manifest file"}},
		"bad-quantity":                    {{"10:21", `cluster.nodeGroups[0].capacity.cpu: invalid quantity "4 cores"`}},
		"allocatable-over-capacity":       {{"11:24", "cluster.nodeGroups[0].allocatable.cpu: allocatable cpu 5 is more than the capacity 4"}},
		"unknown-taint-effect":            {{"11:49", `cluster.nodeGroups[0].taints[0].effect: unknown taint effect "NoSchedul" (did you mean "NoSchedule"?)`}},
		"unknown-component":               {{"12:3", `components.kube-controler-manager: unknown component "kube-controler-manager" (did you mean "kube-controller-manager"?)`}},
		"unknown-flag":                    {{"13:5", `components.kube-controller-manager.node-monitor-grace: kube-controller-manager has no flag "node-monitor-grace" (did you mean "node-monitor-grace-period"?)`}},
		"bad-flag-value":                  {{"13:32", `components.kube-controller-manager.node-monitor-grace-period: want a duration such as 30s, 5m or 1h30m, got "fast" (kube-controller-manager.node-monitor-grace-period is a duration`}},
		"flag-not-an-integer":             {{"12:23", `components.kubelet.max-pods: want an integer, got "1.5"`}},
		"backoff-cross-check":             {{"13:5", "kube-scheduler.pod-max-backoff-seconds (10) is less than pod-initial-backoff-seconds (20)"}},
		"bad-distribution":                {{"13:18", "components.simulator.watch-delay: lognormal needs median > 0 and p99 >= median"}},
		"rollout-without-change":          {{"24:3", "timeline[0]: a rollout needs image, template or annotations (image: {container: web, image: nginx:1.28} changes one image"}},
		"rollout-unknown-container":       {{"27:22", `timeline[0].image.container: the pod template has no container "api" (containers: web)`}},
		"rollout-template-unknown-field":  {{"31:9", `timeline[0].template.spec.containers[0].imagee: unknown field "imagee" (did you mean "image"?)`}},
		"rollout-invalid-result":          {{"29:15", "timeline[0].template.metadata.labels: after this rollout Deployment default/web would be invalid: spec.template.metadata.labels: Invalid value: {\"app\":\"other\"}: `selector` does not match template `labels` (the API server would reject it)"}},
		"rollout-replicaset":              {{"37:18", "timeline[0].target.kind: want a Deployment, StatefulSet or DaemonSet, got ReplicaSet"}},
		"rollback-without-rollout":        {{"24:3", "timeline[0]: nothing in the timeline rolls out Deployment default/web, so it has no earlier revision to roll back to (add a rollout of it before the rollback)"}},
		"rollback-revision-too-high":      {{"32:15", "timeline[1].toRevision: toRevision 5, but Deployment default/web has at most 2 revisions in this scenario"}},
		"pause-statefulset":               {{"38:18", "timeline[0].target.kind: want a Deployment, got StatefulSet"}},
		"scale-service":                   {{"31:18", "timeline[0].target.kind: want a ReplicaSet, Deployment or StatefulSet, got Service"}},
		"drain-negative-grace":            {{"27:23", "timeline[0].gracePeriodSeconds: gracePeriodSeconds must be between 0 and 31536000, got -1 (leave it out to give each pod its own terminationGracePeriodSeconds)"}},
		"api-errors-unsupported-code":     {{"27:9", "timeline[0].code: unsupported code 404 (codes: 409, 429, 500, 503, 504)"}},
		"api-errors-fraction":             {{"26:13", "timeline[0].fraction: fraction must be in (0, 1], got 1.5"}},
		"api-errors-retry-after-conflict": {{"29:22", "timeline[0].retryAfterSeconds: client-go does not retry a 409 Conflict, so a Retry-After has no effect"}},
		"filter-unknown-verb":             {{"26:11", `timeline[0].verbs[0]: unknown verb "updte" (did you mean "update"?)`}},
		"filter-kind-as-resource":         {{"26:15", `timeline[0].resources[0]: unknown resource "Pod" (resources are named as in RBAC rules: pods)`}},
		"filter-unknown-client":           {{"26:13", `timeline[0].clients[0]: no client of this scenario matches "replicaset-controler" (did you mean "replicaset-controller"?)`}},
		"api-latency-missing-for":         {{"24:3", "timeline[0]: missing for (e.g. for: 3m)"}},
		"api-load-bad": {{"26:9", `timeline[0].verb: unknown verb "watch"`}, {"27:13", `timeline[0].resource: unknown resource "pod" (resources are named as in RBAC rules: pods)`},
			{"28:12", "timeline[0].workers: workers must be between 1 and 1000, got 0"}, {"30:3", "timeline[1]: an api-load patch needs the name of its object"}},
		"api-latency-bad-extra":             {{"26:10", "timeline[0].extra: lognormal needs median > 0 and p99 >= median (got median 50ms, p99 5ms)"}},
		"restart-unknown-component":         {{"26:14", `timeline[0].component: unknown component "replicaset" (did you mean "replicaset-controller"?)`}},
		"watch-stall-both":                  {{"27:3", "timeline[0].clients: component and clients exclude each other"}},
		"load-without-loads-entry":          {{"26:11", "timeline[0].target: no entry of loads: is for Deployment default/web (declare the load and its usage model under loads:; a load action changes its shape)"}},
		"load-action-ramp-without-duration": {{"31:17", "timeline[0].shape.ramp: missing duration (e.g. duration: 10m)"}},
		"load-missing-series-file":          {{"25:26", "loads[0].shape.series.file: cannot read the series file: open testdata/broken/missing.csv"}},
		"load-missing-usage":                {{"24:3", "loads[0]: missing usage (e.g. usage: {cpuPerUnit: 5m"}},
		"watch-stall-controller":            {{"26:14", "timeline[0].component: replicaset-controller has no watches of its own (the controllers share kube-controller-manager's informers: stall component: kube-controller-manager)"}},
		"load-sine-amplitude":               {{"25:39", "loads[0].shape.sine.amplitude: must not exceed base (50), or the load would go below zero; got 80"}},
		"load-steps-out-of-order":           {{"30:14", "loads[0].shape.steps.steps[1].at: must be after the previous step's at (10m0s), got 5m0s"}},
		"load-undeclared-target":            {{"24:36", `loads[0].target.name: no Deployment default/api is declared in this scenario (did you mean "default/web"?)`}},
		"load-unknown-shape":                {{"25:11", `loads[0].shape.spike: unknown field "spike" (did you mean "spikes"?)`}},
		"pods-at-most-both":                 {{"25:86", "expect[0].always.replicasPlusMaxSurge: count and replicasPlusMaxSurge exclude each other"}},
		"surge-of-statefulset":              {{"37:52", "expect[0].always.target.kind: replicasPlusMaxSurge needs a Deployment; a StatefulSet has no maxSurge (use count: N)"}},
		"available-recreate":                {{"26:111", "expect[0].always.replicasMinusMaxUnavailable: Deployment default/web uses the Recreate strategy, which has no maxUnavailable (use count: N)"}},
		"available-without-bound":           {{"25:11", "expect[0].always: missing count or replicasMinusMaxUnavailable (count: N for a fixed bound, or replicasMinusMaxUnavailable: true)"}},
		"endpoints-unknown-service":         {{"30:58", `expect[0].always.service: no Service default/webb is declared in this scenario (did you mean "default/web"?)`}},
		"metric-without-threshold":          {{"25:11", "expect[0].metric: a metric expectation needs max or min"}},
		"metric-unknown-aggregate":          {{"25:45", `expect[0].metric.aggregate: unknown aggregate "avg" (aggregates: max, min, mean, last)`}},
		"metric-min-over-max":               {{"25:56", "expect[0].metric.min: min 5 is more than max 3: nothing can hold"}},
		"custom-resource-schema": {
			{"42:22", `objects[1].manifest.spec.schedule: spec.schedule: Invalid value: "weekly": spec.schedule in body should match '^@(daily|hourly)$'`},
			{"42:40", `objects[1].manifest.spec.replicas: spec.replicas: Invalid value: 12: spec.replicas in body should be less than or equal to 10`},
		},
		"custom-resource-undefined-kind": {{"39:11", `objects[1].manifest.kind: no CustomResourceDefinition in this scenario defines kind Backups (apiVersion example.com/v1) (did you mean "Backup"?`}},
		"many-problems": {
			{"14:19", `timeline[0].nodes.names[0]: no node is named "worker-2"`},
			{"15:7", "timeline[1].at: the entry runs at 11m, after the run ends (duration 10m)"},
			{"20:22", `expect[0].converged.after: no timeline entry is named "crahs" (did you mean "crash"?)`},
		},
	}
	files, err := filepath.Glob("testdata/broken/*.yaml")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 75)
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
