package sweep

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// fakeClock advances by step on every reading.
func fakeClock(step time.Duration) func() time.Time {
	t := time.Unix(0, 0)
	return func() time.Time {
		t = t.Add(step)
		return t
	}
}

func TestProgressLines(t *testing.T) {
	var out strings.Builder
	p := newProgress(&out, ProgressLines, fakeClock(time.Second), 20, 0)
	p.start("demo", Shard{}, 2)
	for i := range 20 {
		rec := &RunRecord{ID: "p0-s" + string(rune('a'+i)), Seed: uint64(i + 1)}
		if i == 3 {
			rec.Error = "process \"x\" panicked\nstack..."
			rec.Reproduce = "sim run demo --seed 4"
		}
		p.finished(rec)
	}
	p.end()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	assert.Equal(t, "sweep demo: 20 runs on 2 jobs", lines[0])
	assert.Contains(t, out.String(), "run p0-sd (seed 4) failed: process \"x\" panicked\n  reproduce: sim run demo --seed 4\n", "first line of the error, then the command")
	assert.Contains(t, out.String(), "2/20 runs done, 0 failed, ETA ")
	assert.Contains(t, out.String(), "10/20 runs done, 1 failed, ETA ")
	assert.Equal(t, "20/20 runs done, 1 failed", lines[len(lines)-1])
	assert.NotContains(t, out.String(), "\r", "no terminal control in plain lines")
	assert.Len(t, lines, 1+10+2, "a start line, one line per tenth, two for the failure")
}

func TestProgressBar(t *testing.T) {
	var out strings.Builder
	p := newProgress(&out, ProgressBar, fakeClock(time.Second), 4, 1)
	p.start("demo", Shard{Index: 2, Count: 3}, 1)
	p.finished(&RunRecord{ID: "a"})
	p.finished(&RunRecord{ID: "b", Error: "boom", Reproduce: "sim run x --seed 2"})
	p.finished(&RunRecord{ID: "c"})
	p.end()
	s := out.String()
	assert.True(t, strings.HasPrefix(s, "sweep demo, shard 2/3: 4 runs (1 already done, resumed) on 1 job\n"), s)
	assert.Contains(t, s, "\r\x1b[K[###############---------------] 2/4 runs done, 0 failed, ETA ")
	assert.Contains(t, s, "\r\x1b[Krun b (seed 0) failed: boom\n  reproduce: sim run x --seed 2\n", "the bar is cleared before a failure")
	assert.True(t, strings.HasSuffix(s, "[##############################] 4/4 runs done, 1 failed\n"), s)
}
