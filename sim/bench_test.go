package sim

import (
	"testing"
	"time"

	"github.com/reconsim/reconsim/vtime"
)

// selfRescheduler keeps exactly one event in flight per instance, like a periodic component.
type selfRescheduler struct {
	k      *Kernel
	period vtime.Time
}

func (s *selfRescheduler) Fire(arg uint64) { s.k.Schedule(s.k.now+s.period, s, arg, false) }

// BenchmarkKernel measures the bare event loop: pop, dispatch, push, with 1,000 events in
// the heap (a mid-sized cluster's worth of timers). Reported per event.
func BenchmarkKernel(b *testing.B) {
	k := New(1)
	for i := 0; i < 1000; i++ {
		s := &selfRescheduler{k: k, period: vtime.Time(1000 + i)}
		k.Schedule(vtime.Time(i), s, 0, false)
	}
	b.ReportAllocs()
	b.ResetTimer()
	k.Run(Limits{MaxEvents: uint64(b.N)})
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkKernelProcSwitch measures a process that sleeps in a loop: one event and two
// coroutine switches per iteration.
func BenchmarkKernelProcSwitch(b *testing.B) {
	k := New(1)
	k.Spawn("sleeper", func(p *Proc) {
		for {
			p.Sleep(time.Millisecond)
		}
	})
	b.ReportAllocs()
	b.ResetTimer()
	k.Run(Limits{MaxEvents: uint64(b.N)})
}
