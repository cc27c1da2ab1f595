package metrics

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkPipeline1000Pods runs the pipeline over 1000 Ready pods on 50 nodes for 10 virtual
// minutes with the default configuration (40 scrapes, 3000 housekeeping ticks), then reads
// the pods' metrics as the HPA would.
func BenchmarkPipeline1000Pods(b *testing.B) {
	var scrapes uint64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		w := newMWorld(b, 1, DefaultConfig(), webLoad())
		w.runTo(time.Second)
		for p := 0; p < 1000; p++ {
			w.runningPod(fmt.Sprintf("web-%d", p), fmt.Sprintf("node-%d", p%50), time.Second, true, "")
		}
		b.StartTimer()
		w.runTo(10 * time.Minute)
		if len(w.s.ListPodMetrics("default", nil)) != 1000 {
			b.Fatal("not every pod has metrics")
		}
		scrapes += w.s.Stats().Scrapes
	}
	// Wall time per scrape interval, the nodes' housekeeping in it included.
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(scrapes), "ns/scrape")
}
