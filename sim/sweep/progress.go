package sweep

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// progress reports how a sweep is going: a bar redrawn in place on a terminal, or a plain
// line every 10% of the runs in a log. Failed runs are always reported, each on its own line
// with its reproduce command. It is safe for concurrent use.
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	style    ProgressStyle
	now      func() time.Time
	started  time.Time
	total    int
	resumed  int
	done     int // including resumed
	executed int
	failed   int
	// lastTenth is the last tenth of the runs a plain line was printed for.
	lastTenth int
	// lastDraw is when the bar was last drawn; the bar is redrawn at most every 100ms.
	lastDraw time.Time
	barShown bool
}

func newProgress(w io.Writer, style ProgressStyle, now func() time.Time, total, resumed int) *progress {
	p := &progress{w: w, style: style, now: now, total: total, resumed: resumed, done: resumed}
	if now != nil {
		p.started = now()
	}
	return p
}

// start announces the sweep.
func (p *progress) start(name string, shard Shard, jobs int) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	what := fmt.Sprintf("sweep %s: %d runs", name, p.total)
	if shard.Sharded() {
		what = fmt.Sprintf("sweep %s, shard %s: %d runs", name, shard, p.total)
	}
	if p.resumed > 0 {
		what += fmt.Sprintf(" (%d already done, resumed)", p.resumed)
	}
	fmt.Fprintf(p.w, "%s on %d %s\n", what, jobs, pluralWord(jobs, "job", "jobs"))
	p.lastTenth = p.tenth()
	p.draw(true)
}

func (p *progress) tenth() int {
	if p.total == 0 {
		return 10
	}
	return p.done * 10 / p.total
}

// finished records one executed run.
func (p *progress) finished(rec *RunRecord) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	p.executed++
	if rec.Failed() {
		p.failed++
		p.clearBar()
		fmt.Fprintf(p.w, "run %s (seed %d) failed: %s\n  reproduce: %s\n", rec.ID, rec.Seed, firstLine(rec.Error), rec.Reproduce)
	}
	switch p.style {
	case ProgressBar:
		p.draw(rec.Failed() || p.done == p.total)
	default:
		if t := p.tenth(); t > p.lastTenth {
			p.lastTenth = t
			fmt.Fprintln(p.w, p.status())
		}
	}
}

// end finishes the bar's line.
func (p *progress) end() {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.style == ProgressBar && p.barShown {
		p.draw(true)
		fmt.Fprintln(p.w)
		p.barShown = false
	}
}

// status is "120/1000 runs done, 1 failed, ETA 1m10s".
func (p *progress) status() string {
	s := fmt.Sprintf("%d/%d runs done, %d failed", p.done, p.total, p.failed)
	if eta, ok := p.eta(); ok {
		s += ", ETA " + eta
	}
	return s
}

// eta extrapolates the time left from the runs executed so far.
func (p *progress) eta() (string, bool) {
	if p.now == nil || p.executed == 0 || p.done >= p.total {
		return "", false
	}
	elapsed := p.now().Sub(p.started)
	left := time.Duration(float64(elapsed) / float64(p.executed) * float64(p.total-p.done))
	return left.Round(time.Second).String(), true
}

const barWidth = 30

func (p *progress) draw(force bool) {
	if p.style != ProgressBar {
		return
	}
	if p.now != nil && !force {
		t := p.now()
		if t.Sub(p.lastDraw) < 100*time.Millisecond {
			return
		}
		p.lastDraw = t
	}
	filled := barWidth
	if p.total > 0 {
		filled = p.done * barWidth / p.total
	}
	bar := strings.Repeat("#", filled) + strings.Repeat("-", barWidth-filled)
	fmt.Fprintf(p.w, "\r\x1b[K[%s] %s", bar, p.status())
	p.barShown = true
}

// clearBar erases the bar's line so a message can be printed in its place.
func (p *progress) clearBar() {
	if p.style == ProgressBar && p.barShown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.barShown = false
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
