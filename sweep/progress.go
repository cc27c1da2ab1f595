package sweep

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/reconsim/reconsim/internal/words"
)

// Progress reports how a batch of runs is going (a sweep, `sim explore`): a bar redrawn in
// place on a terminal, or a plain line every 10% of the runs in a log. Failed runs are always
// reported, each on its own line. It is safe for concurrent use.
type Progress struct {
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
	// failedWord says what the failure count counts ("failed" for a sweep).
	failedWord string
}

// NewProgress returns a Progress writing to w (nil: none) for total runs, of which resumed
// are already done; now reads the wall clock for the ETA (nil: no ETA).
func NewProgress(w io.Writer, style ProgressStyle, now func() time.Time, total, resumed int) *Progress {
	p := &Progress{w: w, style: style, now: now, total: total, resumed: resumed, done: resumed, failedWord: "failed"}
	if now != nil {
		p.started = now()
	}
	return p
}

func newProgress(w io.Writer, style ProgressStyle, now func() time.Time, total, resumed int) *Progress {
	return NewProgress(w, style, now, total, resumed)
}

// CountAs names what the failure count counts in the status ("1 failed", "1 with findings").
func (p *Progress) CountAs(word string) { p.failedWord = word }

// start announces the sweep.
func (p *Progress) start(name string, shard Shard, jobs int) {
	what := fmt.Sprintf("sweep %s: %d runs", name, p.total)
	if shard.Sharded() {
		what = fmt.Sprintf("sweep %s, shard %s: %d runs", name, shard, p.total)
	}
	p.Start(what, jobs)
}

// Start announces the batch: what ("sweep x: 20 runs") and the number of jobs.
func (p *Progress) Start(what string, jobs int) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.resumed > 0 {
		what += fmt.Sprintf(" (%d already done, resumed)", p.resumed)
	}
	fmt.Fprintf(p.w, "%s on %d %s\n", what, jobs, words.Plural(jobs, "job", "jobs"))
	p.lastTenth = p.tenth()
	p.draw(true)
}

func (p *Progress) tenth() int {
	if p.total == 0 {
		return 10
	}
	return p.done * 10 / p.total
}

// finished records one executed run.
func (p *Progress) finished(rec *RunRecord) {
	var report string
	if rec.Failed() {
		report = fmt.Sprintf("run %s (seed %d) failed: %s\n  reproduce: %s", rec.ID, rec.Seed, words.FirstLine(rec.Error), rec.Reproduce)
	}
	p.Finished(rec.Failed(), report)
}

// Finished records one executed run; a failed one counts as such and its report, if not
// empty, is printed on lines of its own.
func (p *Progress) Finished(failed bool, report string) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	p.executed++
	if failed {
		p.failed++
	}
	if report != "" {
		p.clearBar()
		fmt.Fprintln(p.w, report)
	}
	switch p.style {
	case ProgressBar:
		p.draw(failed || p.done == p.total)
	default:
		if t := p.tenth(); t > p.lastTenth {
			p.lastTenth = t
			fmt.Fprintln(p.w, p.status())
		}
	}
}

func (p *Progress) end() { p.End() }

// End finishes the bar's line.
func (p *Progress) End() {
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
func (p *Progress) status() string {
	s := fmt.Sprintf("%d/%d runs done, %d %s", p.done, p.total, p.failed, p.failedWord)
	if eta, ok := p.eta(); ok {
		s += ", ETA " + eta
	}
	return s
}

// eta extrapolates the time left from the runs executed so far.
func (p *Progress) eta() (string, bool) {
	if p.now == nil || p.executed == 0 || p.done >= p.total {
		return "", false
	}
	elapsed := p.now().Sub(p.started)
	left := time.Duration(float64(elapsed) / float64(p.executed) * float64(p.total-p.done))
	return left.Round(time.Second).String(), true
}

const barWidth = 30

func (p *Progress) draw(force bool) {
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
func (p *Progress) clearBar() {
	if p.style == ProgressBar && p.barShown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.barShown = false
	}
}
