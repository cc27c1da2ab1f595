package sweep

import (
	"context"
	_ "embed"
	"encoding/xml"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/report"
	"github.com/reconsim/reconsim/scenarios"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/cluster"
	"github.com/reconsim/reconsim/vtime"
)

// smallSweep is node-failure over 2 parameters × 2 values × 3 seeds: 12 real runs of about
// 10ms each.
//
//go:embed testdata/small-sweep.yaml
var smallSweep string

// panicAt runs the scenario with a test-only process that panics at virtual time at, planted
// through cluster.Options.Controllers, when the run matches (seed and overrides as in its
// reproduce command); other runs are plain cluster.Run.
func panicAt(at time.Duration, match func(opts cluster.Options) bool) func(ctx context.Context, scn *scenarios.Scenario, opts cluster.Options) (*report.Result, error) {
	return func(ctx context.Context, scn *scenarios.Scenario, opts cluster.Options) (*report.Result, error) {
		if match(opts) {
			opts.Controllers = append(opts.Controllers, cluster.Controller{Name: "test-panic",
				Build: func(k *sim.Kernel, _ *client.Client, _ *client.SharedInformerFactory) (cluster.Runnable, error) {
					k.Spawn("test-panic", func(p *sim.Proc) {
						p.SleepUntil(vtime.FromDuration(at))
						panic("test-only panic")
					})
					return nopRunnable{}, nil
				}})
		}
		return cluster.Run(ctx, scn, opts)
	}
}

type nopRunnable struct{}

func (nopRunnable) Start() {}
func (nopRunnable) Stop()  {}

// TestJobsRunInParallel: a library caller that sets Jobs gets that many runs at once (sweep
// starts its own workers).
func TestJobsRunInParallel(t *testing.T) {
	spec := loadSmall(t, smallSweep)
	var (
		mu      sync.Mutex
		running int
		peak    int
	)
	both := make(chan struct{})
	_, err := Run(context.Background(), spec, Options{Jobs: 2, OutDir: t.TempDir(),
		RunScenario: func(ctx context.Context, scn *scenarios.Scenario, opts cluster.Options) (*report.Result, error) {
			mu.Lock()
			running++
			if running > peak {
				peak = running
				if peak == 2 {
					close(both)
				}
			}
			mu.Unlock()
			select {
			case <-both:
			case <-time.After(10 * time.Second):
			}
			mu.Lock()
			running--
			mu.Unlock()
			return &report.Result{Scenario: scn.Name, StopReason: "quiescent", Passed: true}, nil
		}})
	require.NoError(t, err)
	assert.Equal(t, 2, peak, "two runs executed at once")
}

func loadSmall(t *testing.T, src string) *Spec {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "small.yaml")
	require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
	spec, _, err := Load(path)
	require.NoError(t, err)
	return spec
}

// summaryFiles are the files that must be identical however the sweep was run.
var summaryFiles = []string{SweepJSON, SweepCSV, JUnitFile, SweepHTML,
	"plots/recovery-heatmap.svg", "plots/recovery-heatmap.png", "plots/pending-peak-cdf.png",
	"plots/recovery-vs-kube-controller-manager_node-monitor-grace-period.svg"}

func readFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, name := range summaryFiles {
		data, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err, name)
		out[name] = string(data)
	}
	return out
}

func assertSameFiles(t *testing.T, want, got map[string]string, what string) {
	t.Helper()
	for _, name := range summaryFiles {
		assert.True(t, want[name] == got[name], "%s: %s differs", what, name)
	}
}

// TestShardsMergeToTheUnshardedBytes is the sharding contract: shards 1/3, 2/3 and 3/3,
// merged, give the unsharded sweep's files byte for byte, and --jobs 1 and --jobs 2 give the
// same bytes too.
func TestShardsMergeToTheUnshardedBytes(t *testing.T) {
	spec := loadSmall(t, smallSweep)
	ctx := context.Background()
	root := t.TempDir()

	one := filepath.Join(root, "jobs1")
	o1, err := Run(ctx, spec, Options{Jobs: 1, OutDir: one})
	require.NoError(t, err)
	require.NotNil(t, o1.Result)
	assert.Equal(t, 12, o1.Executed)
	assert.Equal(t, 0, o1.Result.FailedRuns)
	assert.True(t, o1.Result.Passed, "node-failure recovers within 8m at every point")

	two := filepath.Join(root, "jobs2")
	_, err = Run(ctx, spec, Options{Jobs: 2, OutDir: two})
	require.NoError(t, err)
	want := readFiles(t, one)
	assertSameFiles(t, want, readFiles(t, two), "--jobs 2 against --jobs 1")

	sharded := filepath.Join(root, "sharded")
	for i := 1; i <= 3; i++ {
		o, err := Run(ctx, spec, Options{Jobs: 2, Shard: Shard{i, 3}, OutDir: sharded})
		require.NoError(t, err)
		assert.Nil(t, o.Result, "a shard writes no summary")
		assert.Len(t, o.Runs, 4)
		assert.FileExists(t, filepath.Join(sharded, Shard{i, 3}.Dir(), ShardFile))
	}
	merged := filepath.Join(root, "merged")
	mo, err := Merge([]string{sharded}, merged)
	require.NoError(t, err)
	assert.Equal(t, o1.Result.Passed, mo.Result.Passed)
	assertSameFiles(t, want, readFiles(t, merged), "merged shards against the unsharded sweep")

	// Naming the shard directories one by one, in any order, is the same.
	merged2 := filepath.Join(root, "merged2")
	_, err = Merge([]string{filepath.Join(sharded, "shard-3-of-3"), filepath.Join(sharded, "shard-1-of-3"), filepath.Join(sharded, "shard-2-of-3")}, merged2)
	require.NoError(t, err)
	assertSameFiles(t, want, readFiles(t, merged2), "merge of listed shards")

	// Resume finds every run done and rewrites the same files.
	o3, err := Run(ctx, spec, Options{Jobs: 2, OutDir: two, Resume: true})
	require.NoError(t, err)
	assert.Equal(t, 0, o3.Executed)
	assert.Equal(t, 12, o3.Resumed)
	assertSameFiles(t, want, readFiles(t, two), "a resumed sweep")
}

func TestResultContent(t *testing.T) {
	spec := loadSmall(t, smallSweep)
	o, err := Run(context.Background(), spec, Options{OutDir: t.TempDir()})
	require.NoError(t, err)
	res := o.Result
	require.Len(t, res.Points, 4)
	require.Len(t, res.Runs, 12)
	p := res.Points[0]
	assert.Equal(t, "p0", p.ID)
	assert.Equal(t, []ParamValue{{"kube-controller-manager.node-monitor-grace-period", "20s"}, {"kube-apiserver.default-unreachable-toleration-seconds", "30"}}, p.Parameters)
	assert.Equal(t, 3, p.Runs)
	rec := p.Metrics[0]
	assert.Equal(t, "recovery", rec.Metric)
	assert.Equal(t, 3, rec.N)
	// Recovery is grace + toleration + skew and startup: 20s + 30s + a few seconds.
	require.NotNil(t, rec.P50)
	assert.Greater(t, *rec.P50, 50.0)
	assert.Less(t, *rec.P50, 70.0)
	assert.LessOrEqual(t, *rec.Min, *rec.P50)
	assert.LessOrEqual(t, *rec.P50, *rec.Max)
	// The last point waits 40s + 60s.
	last := res.Points[3].Metrics[0]
	assert.Greater(t, *last.P50, 100.0)

	r := res.Runs[4]
	assert.Equal(t, "p1-s2", r.ID)
	assert.Equal(t, "sim run node-failure --seed 2 --set kube-controller-manager.node-monitor-grace-period=20s --set kube-apiserver.default-unreachable-toleration-seconds=60", r.Reproduce)
	assert.Equal(t, []string{"recovery p95 <= 8m", "pass rate >= 0.9"}, []string{res.Expectations[0].Name, res.Expectations[1].Name})

	csv, err := EncodeCSV(res)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	require.Len(t, lines, 13)
	assert.Equal(t, "run,point,kube-controller-manager.node-monitor-grace-period,kube-apiserver.default-unreachable-toleration-seconds,seed,recovery,pending-peak,passed,failed_expectations,stop_reason,error", lines[0])
	assert.True(t, strings.HasPrefix(lines[5], "p1-s2,p1,20s,60,2,"), lines[5])
}

// TestPanickingRunIsRecordedAndTheSweepGoesOn runs the small sweep with one run panicking
// (a process planted through cluster.Options.Controllers): that run is failed with its seed and reproduce command, the
// others complete, and the sweep fails.
func TestPanickingRunIsRecordedAndTheSweepGoesOn(t *testing.T) {
	spec := loadSmall(t, smallSweep)
	dir := t.TempDir()
	var progress strings.Builder
	o, err := Run(context.Background(), spec, Options{
		Jobs: 2, OutDir: dir, Progress: &lockedWriter{w: &progress},
		RunScenario: panicAt(90*time.Second, func(opts cluster.Options) bool {
			var set []string
			for _, o := range opts.Overrides {
				set = append(set, o.Key+"="+o.Value)
			}
			// p2-s3 of the small sweep.
			return opts.Seed == 3 && strings.Join(set, " ") == "kube-controller-manager.node-monitor-grace-period=40s kube-apiserver.default-unreachable-toleration-seconds=30"
		}),
	})
	require.NoError(t, err, "a failed run is not an error of the sweep")
	res := o.Result
	assert.Equal(t, 1, res.FailedRuns)
	assert.False(t, res.Passed)
	var failed []RunRecord
	for _, r := range res.Runs {
		if r.Failed() {
			failed = append(failed, r)
		} else {
			assert.NotNil(t, r.Metrics["recovery"], "run %s completed", r.ID)
		}
	}
	require.Len(t, failed, 1)
	f := failed[0]
	assert.Equal(t, uint64(3), f.Seed)
	assert.Contains(t, f.Error, `process "test-panic" panicked at t=90.000s (seed 3)`)
	assert.Contains(t, f.Error, "test-only panic")
	assert.Equal(t, "error", f.StopReason)
	assert.Equal(t, "sim run node-failure --seed 3 --set kube-controller-manager.node-monitor-grace-period=40s --set kube-apiserver.default-unreachable-toleration-seconds=30", f.Reproduce)
	assert.Nil(t, f.Metrics["recovery"])
	assert.False(t, f.Passed)

	assert.Contains(t, progress.String(), "run p2-s3 (seed 3) failed: process \"test-panic\" panicked")
	assert.Contains(t, progress.String(), "reproduce: sim run node-failure --seed 3")

	// The point of the failed run errors in JUnit, naming the seed and the command.
	data, err := os.ReadFile(filepath.Join(dir, JUnitFile))
	require.NoError(t, err)
	var doc JUnitSuites
	require.NoError(t, xml.Unmarshal(data, &doc))
	assert.Equal(t, 1, doc.Errors)
	var erroring []JUnitCase
	for _, c := range doc.Suites[0].Cases {
		if c.Error != nil {
			erroring = append(erroring, c)
		}
	}
	require.Len(t, erroring, 1)
	assert.True(t, strings.HasPrefix(erroring[0].Name, "p2: "))
	assert.Contains(t, erroring[0].Error.Text, "run p2-s3 (seed 3) failed")
	assert.Contains(t, erroring[0].Error.Text, "reproduce: sim run node-failure --seed 3")

	// The failed run is listed with its command in sweep.html.
	html, err := os.ReadFile(filepath.Join(dir, SweepHTML))
	require.NoError(t, err)
	assert.Contains(t, string(html), "sim run node-failure --seed 3 --set kube-controller-manager.node-monitor-grace-period=40s")

	// Its pass-rate expectation counts it as not passed: 11 of 12.
	assert.Contains(t, res.Expectations[1].Message, "11 of 12 runs passed")
	assert.Equal(t, []uint64{3}, res.Expectations[1].FailingSeeds)
}

// TestEventLimitIsAFailedRun: a run that stops at its event limit is failed, with the limit
// named.
func TestEventLimitIsAFailedRun(t *testing.T) {
	src := strings.Replace(smallSweep, `parameters:
  kube-controller-manager.node-monitor-grace-period: [20s, 40s]
  kube-apiserver.default-unreachable-toleration-seconds: [30, 60]
seeds: 3`, `parameters:
  stop.maxEvents: [2000]
seeds: 1`, 1)
	spec := loadSmall(t, src)
	o, err := Run(context.Background(), spec, Options{OutDir: t.TempDir()})
	require.NoError(t, err)
	require.Len(t, o.Result.Runs, 1)
	r := o.Result.Runs[0]
	assert.True(t, r.Failed())
	assert.Equal(t, "event-limit", r.StopReason)
	assert.Contains(t, r.Error, "the run hit its event limit (stop.maxEvents)")
	assert.Equal(t, "sim run node-failure --seed 1 --set stop.maxEvents=2000", r.Reproduce)
}

// fakeResult is a result whose recovery after "crash" took seed seconds.
func fakeResult(seed uint64) *report.Result {
	secs := float64(seed)
	return &report.Result{Passed: true, StopReason: "quiescent",
		Convergence: []report.Convergence{{Name: "crash", Seconds: &secs}}}
}

func TestExpectationsDecideTheVerdict(t *testing.T) {
	src := strings.Replace(smallSweep, "seeds: 3", "seeds: 20", 1)
	src = strings.Replace(src, "max: 8m}", "max: 18s}", 1)
	spec := loadSmall(t, src)
	o, err := Run(context.Background(), spec, Options{OutDir: t.TempDir(),
		RunScenario: func(_ context.Context, _ *scenarios.Scenario, opts cluster.Options) (*report.Result, error) {
			return fakeResult(opts.Seed), nil
		}})
	require.NoError(t, err)
	res := o.Result
	// Recovery takes seed seconds, 1 to 20: p95 = 19.05s > 18s at every point.
	assert.False(t, res.Passed)
	x := res.Expectations[0]
	assert.False(t, x.Passed)
	assert.Equal(t, []string{"p0", "p1", "p2", "p3"}, x.FailingPoints)
	pe := res.Points[0].Expectations[0]
	assert.InDelta(t, 19.05, *pe.Value, 1e-9)
	assert.Equal(t, []uint64{19, 20}, pe.FailingSeeds)
	assert.Equal(t, "recovery p95 = 19.05s, max 18s: FAILED", pe.Message)
	assert.True(t, res.Expectations[1].Passed, "every run passed")

	junit, err := EncodeJUnit(res)
	require.NoError(t, err)
	assert.Contains(t, string(junit), `failures="4"`)
	assert.Contains(t, string(junit), "failing seeds: 19, 20")
}

func TestRunRejectsBadOptions(t *testing.T) {
	spec := loadSmall(t, smallSweep)
	_, err := Run(context.Background(), spec, Options{})
	assert.ErrorContains(t, err, "no output directory")
	_, err = Run(context.Background(), spec, Options{OutDir: t.TempDir(), Shard: Shard{4, 3}})
	assert.ErrorContains(t, err, "want i/n")
	_, err = Run(context.Background(), &Spec{}, Options{OutDir: t.TempDir()})
	assert.ErrorContains(t, err, "holds no scenario")
}

func TestInterruptedSweepResumes(t *testing.T) {
	spec := loadSmall(t, smallSweep)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	_, err := Run(ctx, spec, Options{OutDir: dir,
		RunScenario: func(ctx context.Context, scn *scenarios.Scenario, opts cluster.Options) (*report.Result, error) {
			calls++
			if calls == 5 {
				cancel()
				return &report.Result{StopReason: report.StopInterrupted}, nil
			}
			return fakeResult(opts.Seed), nil
		}})
	require.ErrorIs(t, err, ErrInterrupted)
	assert.ErrorContains(t, err, "4 of 12 runs are done")
	assert.NoFileExists(t, filepath.Join(dir, SweepJSON))

	o, err := Run(context.Background(), spec, Options{OutDir: dir, Resume: true,
		RunScenario: func(_ context.Context, _ *scenarios.Scenario, opts cluster.Options) (*report.Result, error) {
			return fakeResult(opts.Seed), nil
		}})
	require.NoError(t, err)
	assert.Equal(t, 4, o.Resumed)
	assert.Equal(t, 8, o.Executed)
}

func TestMergeRefusesIncompleteOrMixedShards(t *testing.T) {
	spec := loadSmall(t, smallSweep)
	fake := func(_ context.Context, _ *scenarios.Scenario, opts cluster.Options) (*report.Result, error) {
		return fakeResult(opts.Seed), nil
	}
	root := t.TempDir()
	for _, sh := range []Shard{{1, 3}, {3, 3}, {1, 2}} {
		_, err := Run(context.Background(), spec, Options{OutDir: root, Shard: sh, RunScenario: fake})
		require.NoError(t, err)
	}
	_, err := Merge([]string{filepath.Join(root, "shard-1-of-3"), filepath.Join(root, "shard-3-of-3")}, t.TempDir())
	assert.ErrorContains(t, err, "missing shards 2/3 (found 2 of 3)")
	_, err = Merge([]string{root}, t.TempDir())
	assert.ErrorContains(t, err, "shards of different splits cannot be merged")
	_, err = Merge([]string{t.TempDir()}, t.TempDir())
	assert.ErrorContains(t, err, "holds no shard")

	// An unfinished shard: its directory exists, its shard.json does not yet.
	unfinished := filepath.Join(t.TempDir(), "shard-2-of-3")
	require.NoError(t, os.MkdirAll(unfinished, 0o755))
	_, err = Merge([]string{unfinished}, t.TempDir())
	assert.ErrorContains(t, err, "shard directory "+unfinished+" has no shard.json: the shard has not finished")
	assert.NotContains(t, err.Error(), "no such file or directory")

	other := loadSmall(t, strings.Replace(smallSweep, "seeds: 3", "seeds: 4", 1))
	mixed := t.TempDir()
	_, err = Run(context.Background(), spec, Options{OutDir: mixed, Shard: Shard{1, 2}, RunScenario: fake})
	require.NoError(t, err)
	_, err = Run(context.Background(), other, Options{OutDir: mixed, Shard: Shard{2, 2}, RunScenario: fake})
	require.NoError(t, err)
	_, err = Merge([]string{mixed}, t.TempDir())
	assert.ErrorContains(t, err, "come from different sweeps")
}

// BenchmarkSweepNodeFailure1000 runs 1,000 runs of node-failure (one grid point, seeds 1 to
// 1000) on runtime.NumCPU() workers, writing every file (run files, summary, plots, HTML).
func BenchmarkSweepNodeFailure1000(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "bench.yaml")
	src := `apiVersion: reconsim.dev/v1alpha1
kind: Sweep
name: bench
scenario: node-failure
seeds: 1000
metrics:
  recovery: {convergence: crash}
expect:
- {metric: recovery, percentile: 99, max: 8m}
`
	require.NoError(b, os.WriteFile(path, []byte(src), 0o644))
	spec, _, err := Load(path)
	require.NoError(b, err)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		o, err := Run(context.Background(), spec, Options{Jobs: runtime.NumCPU(), OutDir: filepath.Join(dir, "out")})
		require.NoError(b, err)
		require.Equal(b, 1000, o.Executed)
		require.True(b, o.Result.Passed)
	}
	b.ReportMetric(float64(b.Elapsed().Seconds())/float64(b.N), "s/sweep")
	b.ReportMetric(float64(1000*b.N)/b.Elapsed().Seconds(), "runs/s")
}

// TestFindingsDoNotFailTheSweep: a bound marked finding: true that breaks is reported as a
// finding and the sweep passes; the same bound holding everywhere fails it (the finding is
// gone); JUnit reports a finding's points as passing.
func TestFindingsDoNotFailTheSweep(t *testing.T) {
	tests := []struct {
		max        string
		passed     bool
		boundHeld  bool
		junitFails string
	}{
		{"18s", true, false, `failures="0"`}, // p95 = 19.05s: the finding shows
		{"8m", false, true, `failures="1"`},  // held everywhere: the finding is gone
	}
	for _, tt := range tests {
		src := strings.Replace(smallSweep, "seeds: 3", "seeds: 20", 1)
		src = strings.Replace(src, "max: 8m}", "max: "+tt.max+", finding: true}", 1)
		spec := loadSmall(t, src)
		require.True(t, spec.Expect[0].Finding)
		o, err := Run(context.Background(), spec, Options{OutDir: t.TempDir(),
			RunScenario: func(_ context.Context, _ *scenarios.Scenario, opts cluster.Options) (*report.Result, error) {
				return fakeResult(opts.Seed), nil
			}})
		require.NoError(t, err)
		res := o.Result
		assert.Equal(t, tt.passed, res.Passed, tt.max)
		x := res.Expectations[0]
		assert.True(t, x.Finding)
		assert.Equal(t, tt.boundHeld, x.Passed, tt.max)
		assert.Equal(t, !tt.boundHeld, len(res.Findings()) == 1)
		assert.True(t, res.Points[0].Passed, "a finding does not fail its point")
		junit, err := EncodeJUnit(res)
		require.NoError(t, err)
		assert.Contains(t, string(junit), tt.junitFails)
	}
}
