package cluster

import (
	"bytes"
	_ "embed"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
)

// job-backoff: each replacement pod is created 10s, 20s, 40s, 80s after the previous pod's
// container exited (job_controller.go manageJob with backoff_utils.go), and the run ends with
// the BackoffLimitExceeded verdict.
func TestJobBackoffScenarioTiming(t *testing.T) {
	var trace bytes.Buffer
	res := runBuiltin(t, "job-backoff", &trace)
	var exits, creates []float64
	for _, line := range strings.Split(trace.String(), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		at, _ := strconv.ParseFloat(f[0], 64)
		switch {
		case f[2] == "container-exit" && strings.Contains(line, "nightly-import"):
			exits = append(exits, at)
		case f[1] == "job-controller" && f[2] == "creating":
			creates = append(creates, at)
		}
	}
	require.Len(t, exits, 5, "five runs, all failed")
	require.Len(t, creates, 5, "the first pod and four retries")
	for i, want := range []float64{10, 20, 40, 80} {
		gap := creates[i+1] - exits[i]
		// The failure is noticed at the kubelet's next status write and the Job's batched
		// sync; the back-off counts from the container's finish time, so the gap is exact
		// to within the API latency of the creation.
		assert.InDelta(t, want, gap, 0.5, "retry %d: created %.3fs after the exit", i+1, gap)
	}
	require.Len(t, res.Verdicts, 1)
	assert.Equal(t, "Job default/nightly-import", res.Verdicts[0].Workload)
	assert.Equal(t, "BackoffLimitExceeded", res.Verdicts[0].Reason)
	assert.Contains(t, res.Verdicts[0].Message, "Job failed: Job has reached the specified backoff limit (5 pod(s) failed, 0 succeeded, backoffLimit 4, at ")
}

// job-node-failure: the pods lost with the node fail with DisruptionTarget (pod GC), the
// Ignore rule keeps them out of the count, exactly the lost indexes are recreated, and the Job
// completes with failed 0.
func TestJobNodeFailureScenario(t *testing.T) {
	res := runBuiltin(t, "job-node-failure", nil)
	assert.True(t, res.Passed)
	created := map[string]int{}
	for _, e := range res.Events {
		if e.Reason == "SuccessfulCreate" && e.Kind == "Job" {
			name := strings.TrimPrefix(e.Message, "Created pod: nightly-render-")
			created[name[:strings.IndexByte(name, '-')]]++
		}
	}
	replaced := 0
	for ix, n := range created {
		if n == 2 {
			replaced++
		}
		assert.LessOrEqual(t, n, 2, "index %s", ix)
	}
	assert.Len(t, created, 6, "every index got a pod")
	assert.Equal(t, 2, replaced, "the two indexes on worker-1 were recreated")
	js := pointValues(series(t, res, "job.default/nightly-render.failed"))
	require.NotEmpty(t, js)
	for _, v := range js {
		assert.Zero(t, v, "ignored failures never count")
	}
	assert.Greater(t, eventTime(t, res, "Completed", string(model.KindJob), "nightly-render"), 0.0)
}

// cronjob-forbid: Forbid skips the schedule times that find the previous run active, and its
// runs start late (after the previous one finished); Replace deletes the running Job at every
// schedule time after the first.
func TestCronJobForbidScenario(t *testing.T) {
	res := runBuiltin(t, "cronjob-forbid", nil)
	assert.True(t, res.Passed)
	count := func(reason, name string) int {
		n := 0
		for _, e := range res.Events {
			if e.Reason == reason && e.Name == name {
				n++
			}
		}
		return n
	}
	// The run ends at 30m: the 00:30 schedule time is handled 100ms later (nextScheduleDelta),
	// after the end.
	assert.GreaterOrEqual(t, count("JobAlreadyActive", "report"), 4, "00:10, 00:15, 00:20 and 00:25 find a run active (and every other sync while it is)")
	assert.Equal(t, 4, count("SuccessfulDelete", "sync"), "Replace deletes the running Job at 00:10 ... 00:25")
	assert.Equal(t, 5, count("SuccessfulCreate", "sync"), "sync runs at 00:05 ... 00:25")
	for _, e := range res.Events {
		if e.Reason == "SuccessfulCreate" && e.Name == "report" && e.Time > 301 {
			sec := int(e.Time) % 300
			assert.NotZero(t, sec/2, "report's later runs start late, not on the schedule: %.1fs", e.Time)
		}
	}
}

//go:embed testdata/on-failure-job.yaml
var onFailureJobScenario string

// restartPolicy OnFailure: the kubelet restarts the failing container in place with its
// CrashLoopBackOff, and the Job controller counts the restarts of the running pod
// (pastBackoffLimitOnFailure): at 2 restarts the Job fails with BackoffLimitExceeded without
// any pod having failed. ttlSecondsAfterFinished 60 then deletes the Job (ttl-after-finished
// controller) a minute after it failed.
func TestJobOnFailureCountsRestarts(t *testing.T) {
	var trace bytes.Buffer
	res := runParsed(t, parseYAML(t, "job-on-failure", onFailureJobScenario), Options{Trace: &trace})
	require.Len(t, res.Verdicts, 1)
	assert.Equal(t, "BackoffLimitExceeded", res.Verdicts[0].Reason)
	assert.Contains(t, res.Verdicts[0].Message, "; the Job was deleted afterwards")
	assert.Equal(t, 1, countReason(res, "SuccessfulCreate", "Created pod: retry-in-place-"), "one pod: its container restarted in place")
	failedAt := eventTime(t, res, "BackoffLimitExceeded", "Job", "retry-in-place")
	assert.Greater(t, countReason(res, "BackOff", ""), 0, "the kubelet backed off the restarts")
	var deletedAt float64
	for _, line := range strings.Split(trace.String(), "\n") {
		if f := strings.Fields(line); len(f) > 3 && f[1] == "ttl-after-finished-controller" && f[2] == "delete" {
			deletedAt, _ = strconv.ParseFloat(f[0], 64)
		}
	}
	assert.InDelta(t, failedAt+60, deletedAt, 1, "deleted 60s after it failed")
}

// A Job whose pod cannot be scheduled never finishes: the run ends (quiescent) with a verdict
// that says so and why, from the scheduler's FailedScheduling message.
func TestUnschedulableJobVerdict(t *testing.T) {
	res := runYAML(t, "job-unschedulable", `
apiVersion: reconsim.dev/v1alpha1
kind: Scenario
name: job-unschedulable
seed: 1
duration: 1h
cluster:
  nodeGroups:
  - {name: worker, count: 2, zone: zone-a, region: region-1, capacity: {cpu: "4", memory: 16Gi}}
objects:
- manifest:
    apiVersion: batch/v1
    kind: Job
    metadata: {name: huge, namespace: default}
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: app, image: registry.example/app:1, resources: {requests: {cpu: "8"}}}]
`)
	require.Len(t, res.Verdicts, 1, "%+v", res.Verdicts)
	v := res.Verdicts[0]
	assert.Equal(t, "Job default/huge", v.Workload)
	assert.Equal(t, "Unschedulable", v.Reason)
	assert.Contains(t, v.Message, "Job not finished: 1 active, 0 succeeded, 0 failed of 1 completions")
	assert.Contains(t, v.Message, "Insufficient cpu")
	assert.False(t, res.Passed)
}
