package cluster

import (
	"context"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// BenchmarkScale5kFirstTouch runs scale-5k twice in one process, with sim run's collector
// target (GOGC 200), and reports each run's CPU time (user and system) and minor page faults:
// cold-* for the first run, which takes all its memory fresh from the kernel, warm-* for the
// second, which reuses the heap and stacks the first left behind. The difference is what
// touching new memory costs the first run, which `sim run` always pays: on CI's 2-vCPU VM a
// fresh page costs about 30 µs of CPU, so that cost grows with the run's peak memory, not
// with its events. Run it alone, once: go test ./sim/cluster -run '^$' -bench
// '^BenchmarkScale5kFirstTouch$' -benchtime 1x.
func BenchmarkScale5kFirstTouch(b *testing.B) {
	scn := loadBuiltin(b, "scale-5k")
	atSimGCPercent(b)
	for i := 0; i < b.N; i++ {
		for _, phase := range []string{"cold", "warm"} {
			runtime.GC()
			var before, after syscall.Rusage
			if err := syscall.Getrusage(syscall.RUSAGE_SELF, &before); err != nil {
				b.Fatal(err)
			}
			if _, err := Run(context.Background(), scn, Options{}); err != nil {
				b.Fatal(err)
			}
			if err := syscall.Getrusage(syscall.RUSAGE_SELF, &after); err != nil {
				b.Fatal(err)
			}
			user := time.Duration(after.Utime.Nano() - before.Utime.Nano())
			sys := time.Duration(after.Stime.Nano() - before.Stime.Nano())
			b.ReportMetric(user.Seconds(), phase+"-user-s")
			b.ReportMetric(sys.Seconds(), phase+"-sys-s")
			b.ReportMetric(float64(after.Minflt-before.Minflt), phase+"-minflt")
		}
	}
}
