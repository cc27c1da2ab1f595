package explore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reconsim/reconsim/internal/atomicfile"
	"github.com/reconsim/reconsim/internal/words"
	"github.com/reconsim/reconsim/report"
)

// SchemaVersion is the version of explore.json (docs/explore.md).
const SchemaVersion = "reconsim.dev/explore/v1"

// File names of a search's output.
const (
	JSONFile  = "explore.json"
	HTMLFile  = "explore.html"
	JUnitFile = "junit.xml"
	ShardFile = "shard.json"
)

// Result is explore.json.
type Result struct {
	SchemaVersion    string `json:"schemaVersion"`
	SimulatorVersion string `json:"simulatorVersion"`
	Scenario         string `json:"scenario"`
	// Command reruns the search.
	Command    string   `json:"command"`
	Seed       uint64   `json:"seed"`
	Strategy   string   `json:"strategy"`
	RandomRuns int      `json:"randomRuns"`
	Bound      int      `json:"bound"`
	Invariants []string `json:"invariants"`
	// ReferenceWrites counts each component's acknowledged writes in the reference run.
	ReferenceWrites map[string]int `json:"referenceWrites"`
	Summary         Summary        `json:"summary"`
	// Findings has one entry per invariant some run broke, in the order of Invariants
	// (panic first).
	Findings []Finding `json:"findings"`
	// Runs lists every run in run order.
	Runs []Run `json:"runs"`
}

// Summary counts runs and findings.
type Summary struct {
	Runs             int `json:"runs"`
	RunsWithFindings int `json:"runsWithFindings"`
	// ByInvariant counts the runs that broke each invariant.
	ByInvariant map[string]int `json:"byInvariant"`
	// ByStrategy and ByAction count runs (of a strategy; with a fault of an action) and how
	// many of them broke an invariant.
	ByStrategy map[string]Tally `json:"byStrategy"`
	ByAction   map[string]Tally `json:"byAction"`
}

// Tally is a count of runs and of those with findings.
type Tally struct {
	Runs  int `json:"runs"`
	Found int `json:"found"`
}

// Finding is one broken invariant and its minimized reproducer.
type Finding struct {
	Invariant string `json:"invariant"`
	// Runs is how many runs broke it; FirstRun the first of them (it was shrunk).
	Runs     int    `json:"runs"`
	FirstRun string `json:"firstRun"`
	// Strategies counts the runs that broke it per strategy.
	Strategies map[string]int `json:"strategies"`
	Message    string         `json:"message"`
	Reproducer Reproducer     `json:"reproducer"`
}

// Reproducer is a minimized scenario that breaks the invariant.
type Reproducer struct {
	// File is the reproducer's name in the output directory: repro-<invariant>-<run index>.yaml.
	File   string  `json:"file"`
	Seed   uint64  `json:"seed"`
	Faults []Fault `json:"faults"`
	// DroppedObjects lists the object sources (indexes into objects:) shrinking removed.
	DroppedObjects []int `json:"droppedObjects"`
	// ShrinkRuns is how many runs shrinking took; Steps what it kept.
	ShrinkRuns int      `json:"shrinkRuns"`
	Steps      []string `json:"steps"`
	// Verified is true when running the file twice broke the invariant both times.
	Verified bool   `json:"verified"`
	Command  string `json:"command"`
	// yaml is the file's content (written beside explore.json).
	yaml []byte
}

// Finish assembles the result of all runs (in run order): findings grouped by invariant,
// each first failing run shrunk and its reproducer verified.
func (s *Search) Finish(ctx context.Context, runs []Run) (*Result, error) {
	x := s.scn.Explore
	res := &Result{
		SchemaVersion: SchemaVersion, SimulatorVersion: report.SimulatorVersion, Scenario: s.scn.Name,
		Command: s.command(), Seed: s.opts.Seed, Strategy: s.opts.Strategy, RandomRuns: s.opts.Runs, Bound: x.Bound,
		Invariants: append([]string(nil), x.Invariants...), ReferenceWrites: s.writes, Runs: runs, Findings: []Finding{},
		Summary: Summary{ByInvariant: map[string]int{}, ByStrategy: map[string]Tally{}, ByAction: map[string]Tally{}},
	}
	if s.opts.Strategy != StrategyRandom && s.opts.Strategy != StrategyAll {
		res.RandomRuns = 0
	}
	if res.ReferenceWrites == nil {
		res.ReferenceWrites = map[string]int{}
	}
	first := map[string]*Run{}
	findings := map[string]*Finding{}
	for i := range runs {
		r := &runs[i]
		res.Summary.Runs++
		found := 0
		if r.Found() {
			res.Summary.RunsWithFindings++
			found = 1
		}
		t := res.Summary.ByStrategy[r.Strategy]
		t.Runs, t.Found = t.Runs+1, t.Found+found
		res.Summary.ByStrategy[r.Strategy] = t
		var seen []string
		for _, f := range r.Faults {
			if slices.Contains(seen, f.Action) {
				continue
			}
			seen = append(seen, f.Action)
			t := res.Summary.ByAction[f.Action]
			t.Runs, t.Found = t.Runs+1, t.Found+found
			res.Summary.ByAction[f.Action] = t
		}
		for _, f := range r.Failures {
			res.Summary.ByInvariant[f.Invariant]++
			fd := findings[f.Invariant]
			if fd == nil {
				fd = &Finding{Invariant: f.Invariant, FirstRun: r.ID, Strategies: map[string]int{}, Message: f.Message}
				findings[f.Invariant] = fd
				first[f.Invariant] = r
			}
			fd.Runs++
			fd.Strategies[r.Strategy]++
		}
	}
	order := append([]string{InvariantPanic}, x.Invariants...)
	for _, inv := range order {
		fd := findings[inv]
		if fd == nil {
			continue
		}
		r := first[inv]
		v := variant{seed: r.Seed, faults: cloneFaults(r.Faults)}
		sh := &shrinker{s: s, ctx: ctx, inv: inv, budget: s.opts.MaxShrinkRuns, msg: fd.Message}
		if !s.opts.NoShrink {
			v = sh.shrink(v)
		}
		rep := Reproducer{
			File: fmt.Sprintf("repro-%s-%d.yaml", inv, r.Index), Seed: v.seed, Faults: v.faults,
			DroppedObjects: append([]int{}, v.dropped...), ShrinkRuns: sh.runs, Steps: append([]string{}, sh.steps...),
		}
		if rep.Faults == nil {
			rep.Faults = []Fault{}
		}
		rep.Command = "sim run " + rep.File
		body, err := s.src.render(v)
		if err != nil {
			return nil, err
		}
		// Verify: the file as written, parsed and run twice.
		rep.Verified = true
		for range 2 {
			out, err := s.runData(ctx, body, nil)
			fs, _ := s.failures(out, err)
			ok := false
			for _, f := range fs {
				if f.Invariant == inv {
					ok = true
					fd.Message = f.Message
				}
			}
			rep.Verified = rep.Verified && ok
		}
		rep.yaml = append(s.header(fd, r, rep, len(r.Faults)), body...)
		fd.Reproducer = rep
		res.Findings = append(res.Findings, *fd)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("explore interrupted while shrinking: %w", err)
	}
	return res, nil
}

// command is the command line that reruns the search.
func (s *Search) command() string {
	c := fmt.Sprintf("sim explore %s --seed %d --strategy %s", s.opts.Command, s.opts.Seed, s.opts.Strategy)
	if s.opts.Strategy == StrategyRandom || s.opts.Strategy == StrategyAll {
		c += fmt.Sprintf(" --runs %d", s.opts.Runs)
	}
	return c
}

// header is the reproducer's comment: what it found, how it was shrunk, how to rerun it.
func (s *Search) header(fd *Finding, r *Run, rep Reproducer, before int) []byte {
	var b bytes.Buffer
	line := func(format string, args ...any) {
		fmt.Fprintf(&b, "# "+format+"\n", args...)
	}
	line("Reproducer written by `sim explore` (reconsim %s).", report.SimulatorVersion)
	line("Invariant %s broke: %s", fd.Invariant, words.FirstLine(fd.Message))
	line("Found by run %s (strategy %s, seed %d) of: %s", r.ID, r.Strategy, r.Seed, s.command())
	if s.opts.NoShrink {
		line("Not shrunk (--no-shrink): %s.", faultCount(before))
	} else {
		line("Shrunk in %d runs, from %s to %d, keeping a step only if %s still broke:", rep.ShrinkRuns, faultCount(before), len(rep.Faults), fd.Invariant)
		for _, st := range rep.Steps {
			line("  - %s", st)
		}
	}
	verdict := "verified: it broke the invariant on both of two runs"
	if !rep.Verified {
		verdict = "NOT verified: a rerun did not break the invariant"
	}
	line("%s.", verdict)
	line("The faults are the timeline entries named explore-fault-*; the seed is pinned.")
	line("Reproduce: %s   (exit status 1: the invariant fails)", rep.Command)
	b.WriteString("\n")
	return b.Bytes()
}

// Failed reports whether the search found anything.
func (r *Result) Failed() bool { return len(r.Findings) > 0 }

// Write writes explore.json, explore.html, junit.xml and the reproducers to dir; it returns
// the paths written.
func (r *Result) Write(dir string) ([]string, error) {
	js, err := EncodeJSON(r)
	if err != nil {
		return nil, err
	}
	html, err := EncodeHTML(r)
	if err != nil {
		return nil, err
	}
	junit, err := EncodeJUnit(r)
	if err != nil {
		return nil, err
	}
	files := []struct {
		name string
		data []byte
	}{{JSONFile, js}, {HTMLFile, html}, {JUnitFile, junit}}
	for _, f := range r.Findings {
		files = append(files, struct {
			name string
			data []byte
		}{f.Reproducer.File, f.Reproducer.yaml})
	}
	var paths []string
	for _, f := range files {
		if err := atomicfile.WriteBytes(dir, f.name, true, f.data); err != nil {
			return paths, err
		}
		paths = append(paths, filepath.Join(dir, f.name))
	}
	return paths, nil
}

// EncodeJSON is explore.json's bytes: indented, maps with sorted keys, a final newline.
func EncodeJSON(r *Result) ([]byte, error) { return encodeJSON(r) }

func encodeJSON(r any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Summary line for the CLI.
func (r *Result) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "explore %s: %d runs, %d with findings", r.Scenario, r.Summary.Runs, r.Summary.RunsWithFindings)
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "\n  %s: broken in %d of %d runs (first: %s); reproducer %s (%s, %s)\n    %s",
			f.Invariant, f.Runs, r.Summary.Runs, f.FirstRun, f.Reproducer.File, faultCount(len(f.Reproducer.Faults)), verifiedWord(f.Reproducer.Verified), words.FirstLine(f.Message))
	}
	return b.String()
}

// faultCount is "1 fault", "2 faults".
func faultCount(n int) string {
	if n == 1 {
		return "1 fault"
	}
	return fmt.Sprintf("%d faults", n)
}

func verifiedWord(v bool) string {
	if v {
		return "verified"
	}
	return "not verified"
}
