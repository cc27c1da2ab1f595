package explore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/reconsim/reconsim/internal/atomicfile"
	"github.com/reconsim/reconsim/internal/boundedfile"
	"github.com/reconsim/reconsim/sweep"
)

// EncodeJUnit returns junit.xml: one test case per invariant (plus panic), failing when a run
// broke it; the text names the reproducer and the command. No times are written.
func EncodeJUnit(r *Result) ([]byte, error) {
	suite := sweep.JUnitSuite{Name: "explore " + r.Scenario, Properties: []sweep.JUnitProperty{
		{Name: "command", Value: r.Command},
		{Name: "runs", Value: strconv.Itoa(r.Summary.Runs)},
		{Name: "simulatorVersion", Value: r.SimulatorVersion},
	}}
	class := "explore." + r.Scenario
	found := map[string]Finding{}
	for _, f := range r.Findings {
		found[f.Invariant] = f
	}
	for _, inv := range append([]string{InvariantPanic}, r.Invariants...) {
		tc := sweep.JUnitCase{ClassName: class, Name: inv}
		if f, ok := found[inv]; ok {
			tc.Failure = &sweep.JUnitProblem{
				Message: fmt.Sprintf("%s broken in %d of %d runs", inv, f.Runs, r.Summary.Runs), Type: "invariant",
				Text: fmt.Sprintf("%s\nfirst broken by run %s\nreproducer: %s (%s, %s)\nreproduce: %s\n",
					f.Message, f.FirstRun, f.Reproducer.File, faultCount(len(f.Reproducer.Faults)), verifiedWord(f.Reproducer.Verified), f.Reproducer.Command),
			}
			suite.Failures++
		}
		suite.Cases = append(suite.Cases, tc)
	}
	suite.Tests = len(suite.Cases)
	return sweep.JUnitSuites{Name: "explore " + r.Scenario, Tests: suite.Tests, Failures: suite.Failures, Suites: []sweep.JUnitSuite{suite}}.Encode()
}

var htmlPage = template.Must(template.New("explore").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>explore {{.R.Scenario}}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em;max-width:70em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}
th{background:#f3f3f3}.bad{color:#b00020;font-weight:600}.ok{color:#1b5e20}code{background:#f6f6f6;padding:0 .2em}
.bar{display:inline-block;height:.8em;background:#b00020;vertical-align:middle}
</style></head><body>
<h1>sim explore: {{.R.Scenario}}</h1>
<p><code>{{.R.Command}}</code> — {{.R.Summary.Runs}} runs, <span class="{{if .R.Findings}}bad{{else}}ok{{end}}">{{.R.Summary.RunsWithFindings}} with findings</span>. reconsim {{.R.SimulatorVersion}}.</p>
<h2>Invariants</h2>
<table><tr><th>invariant</th><th>runs that broke it</th><th></th><th>first run</th><th>reproducer</th></tr>
{{range .Invariants}}<tr><td>{{.Name}}</td><td class="{{if .Runs}}bad{{else}}ok{{end}}">{{.Runs}}</td><td><span class="bar" style="width:{{.Width}}px"></span></td><td>{{.First}}</td><td>{{if .Repro}}<a href="{{.Repro}}">{{.Repro}}</a> ({{.Faults}}, {{.Verified}}){{end}}</td></tr>
{{end}}</table>
{{range .R.Findings}}<h3>{{.Invariant}}</h3><p>{{.Message}}</p><p>Shrunk in {{.Reproducer.ShrinkRuns}} runs to {{len .Reproducer.Faults}} fault(s): {{range .Reproducer.Faults}}<code>{{.String}}</code> {{end}}</p>
<ul>{{range .Reproducer.Steps}}<li>{{.}}</li>{{end}}</ul><p>Reproduce: <code>{{.Reproducer.Command}}</code></p>
{{end}}
<h2>Which strategies found what</h2>
<table><tr><th>strategy</th><th>runs</th><th>with findings</th></tr>
{{range .Strategies}}<tr><td>{{.Name}}</td><td>{{.Runs}}</td><td class="{{if .Found}}bad{{else}}ok{{end}}">{{.Found}}</td></tr>
{{end}}</table>
<h2>Which faults</h2>
<table><tr><th>action</th><th>runs with it</th><th>of them with findings</th></tr>
{{range .Actions}}<tr><td>{{.Name}}</td><td>{{.Runs}}</td><td class="{{if .Found}}bad{{else}}ok{{end}}">{{.Found}}</td></tr>
{{end}}</table>
</body></html>
`))

type htmlRow struct {
	Name                   string
	Runs, Found, Width     int
	First, Repro, Verified string
	Faults                 string
}

// EncodeHTML returns explore.html: how often each invariant broke, which strategies and
// faults found what, and the reproducers.
func EncodeHTML(r *Result) ([]byte, error) {
	view := struct {
		R                               *Result
		Invariants, Strategies, Actions []htmlRow
	}{R: r}
	found := map[string]Finding{}
	for _, f := range r.Findings {
		found[f.Invariant] = f
	}
	for _, inv := range append([]string{InvariantPanic}, r.Invariants...) {
		row := htmlRow{Name: inv, Runs: r.Summary.ByInvariant[inv]}
		if r.Summary.Runs > 0 {
			row.Width = row.Runs * 200 / r.Summary.Runs
		}
		if f, ok := found[inv]; ok {
			row.First, row.Repro, row.Faults, row.Verified = f.FirstRun, f.Reproducer.File, faultCount(len(f.Reproducer.Faults)), verifiedWord(f.Reproducer.Verified)
		}
		view.Invariants = append(view.Invariants, row)
	}
	for _, k := range slices.Sorted(maps.Keys(r.Summary.ByStrategy)) {
		t := r.Summary.ByStrategy[k]
		view.Strategies = append(view.Strategies, htmlRow{Name: k, Runs: t.Runs, Found: t.Found})
	}
	for _, k := range slices.Sorted(maps.Keys(r.Summary.ByAction)) {
		t := r.Summary.ByAction[k]
		view.Actions = append(view.Actions, htmlRow{Name: k, Runs: t.Runs, Found: t.Found})
	}
	var b bytes.Buffer
	if err := htmlPage.Execute(&b, view); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// shardFile is a shard's shard.json: what Merge needs to finish the search.
type shardFile struct {
	SchemaVersion string `json:"schemaVersion"`
	Shard         string `json:"shard"`
	File          string `json:"file"`
	BaseDir       string `json:"baseDir"`
	Data          string `json:"data"`
	Command       string `json:"command"`
	Seed          uint64 `json:"seed"`
	Strategy      string `json:"strategy"`
	Runs          int    `json:"runs"`
	NoShrink      bool   `json:"noShrink"`
	MaxShrinkRuns int    `json:"maxShrinkRuns"`
	Planned       int    `json:"planned"`
	Results       []Run  `json:"results"`
}

// WriteShard writes the shard's runs to dir/shard-i-of-n/shard.json and returns its path.
func (s *Search) WriteShard(dir string, runs []Run) (string, error) {
	sf := shardFile{
		SchemaVersion: SchemaVersion, Shard: s.opts.Shard.String(), File: s.src.file, BaseDir: s.src.baseDir, Data: string(s.src.data),
		Command: s.opts.Command, Seed: s.opts.Seed, Strategy: s.opts.Strategy, Runs: s.opts.Runs,
		NoShrink: s.opts.NoShrink, MaxShrinkRuns: s.opts.MaxShrinkRuns, Planned: len(s.runs), Results: runs,
	}
	data, err := encodeJSON(&sf)
	if err != nil {
		return "", err
	}
	sd := filepath.Join(dir, s.opts.Shard.Dir())
	return filepath.Join(sd, ShardFile), atomicfile.WriteBytes(sd, ShardFile, true, data)
}

// maxShardBytes bounds a shard.json Merge reads.
const maxShardBytes = 1 << 30

// IsShardDir reports whether dir holds an explore shard.json (a sweep's shard.json has the
// same name and another schema).
func IsShardDir(dir string) bool {
	f, err := os.Open(filepath.Join(dir, ShardFile))
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 256)
	n, _ := io.ReadFull(f, head)
	return bytes.Contains(head[:n], []byte(`"schemaVersion": "`+SchemaVersion+`"`))
}

// HasShards reports whether dirs name explore shards (shard directories, or directories
// holding them), as opposed to a sweep's.
func HasShards(dirs []string) bool {
	for _, d := range dirs {
		if IsShardDir(d) {
			return true
		}
		entries, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if e.IsDir() && strings.HasPrefix(e.Name(), "shard-") && IsShardDir(filepath.Join(d, e.Name())) {
				return true
			}
		}
	}
	return false
}

// Merge combines the shards found in dirs (shard directories, or directories holding them)
// into the result the unsharded search gives, byte for byte, shrinking its findings; opts
// supplies what the shards do not record (Controllers, Progress). Every shard 1/n..n/n of one
// search must be there.
func Merge(ctx context.Context, dirs []string, opts Options) (*Result, error) {
	var files []string
	for _, d := range dirs {
		if IsShardDir(d) {
			files = append(files, filepath.Join(d, ShardFile))
			continue
		}
		entries, err := os.ReadDir(d)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.IsDir() && strings.HasPrefix(e.Name(), "shard-") && IsShardDir(filepath.Join(d, e.Name())) {
				files = append(files, filepath.Join(d, e.Name(), ShardFile))
			}
		}
	}
	if len(files) == 0 {
		return nil, &UsageError{"no explore shards (shard-i-of-n/shard.json) in " + strings.Join(dirs, ", ")}
	}
	var shards []shardFile
	for _, f := range files {
		sf, err := readShard(f)
		if err != nil {
			return nil, &UsageError{err.Error()}
		}
		shards = append(shards, sf)
	}
	sort.Slice(shards, func(i, j int) bool { return shardIndex(shards[i].Shard) < shardIndex(shards[j].Shard) })
	first := shards[0]
	sh0, err := sweep.ParseShard(first.Shard)
	if err != nil {
		return nil, &UsageError{err.Error()}
	}
	if len(shards) != sh0.Count {
		return nil, &UsageError{fmt.Sprintf("found %d shards of %d", len(shards), sh0.Count)}
	}
	for i, sf := range shards {
		sh, err := sweep.ParseShard(sf.Shard)
		if err != nil || sh.Index != i+1 || sh.Count != sh0.Count {
			return nil, &UsageError{fmt.Sprintf("shard %s is missing, repeated or of another search", sf.Shard)}
		}
		if sf.Data != first.Data || sf.Seed != first.Seed || sf.Strategy != first.Strategy || sf.Runs != first.Runs || sf.Planned != first.Planned || sf.NoShrink != first.NoShrink || sf.MaxShrinkRuns != first.MaxShrinkRuns {
			return nil, &UsageError{fmt.Sprintf("shard %s belongs to another search (scenario, seed, strategy or runs differ)", sf.Shard)}
		}
	}
	opts.Seed, opts.Strategy, opts.Runs, opts.Command = first.Seed, first.Strategy, first.Runs, first.Command
	opts.NoShrink, opts.MaxShrinkRuns, opts.Shard = first.NoShrink, first.MaxShrinkRuns, sweep.Shard{}
	s, err := Prepare(ctx, first.File, []byte(first.Data), first.BaseDir, opts)
	if err != nil {
		return nil, err
	}
	if len(s.runs) != first.Planned {
		return nil, &UsageError{fmt.Sprintf("the shards planned %d runs, this simulator plans %d", first.Planned, len(s.runs))}
	}
	runs := make([]Run, len(s.runs))
	have := make([]bool, len(s.runs))
	for _, sf := range shards {
		for _, r := range sf.Results {
			if r.Index < 0 || r.Index >= len(runs) || have[r.Index] {
				return nil, &UsageError{fmt.Sprintf("shard %s holds an unexpected run %d", sf.Shard, r.Index)}
			}
			runs[r.Index], have[r.Index] = r, true
		}
	}
	for i, h := range have {
		if !h {
			return nil, &UsageError{fmt.Sprintf("run %d is in no shard", i)}
		}
	}
	return s.Finish(ctx, runs)
}

func shardIndex(s string) int {
	i, _, _ := strings.Cut(s, "/")
	n, _ := strconv.Atoi(i)
	return n
}

func readShard(path string) (shardFile, error) {
	var sf shardFile
	data, err := boundedfile.Read(path, maxShardBytes)
	if err != nil {
		return sf, err
	}
	sf, err = decodeShard(data)
	if err != nil {
		return sf, fmt.Errorf("%s: %w", path, err)
	}
	return sf, nil
}

// decodeShard decodes a shard.json strictly: no unknown fields, this schema version, a shard
// "i/n", at most maxPlannedRuns results with indexes inside the plan.
func decodeShard(data []byte) (shardFile, error) {
	var sf shardFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sf); err != nil {
		return sf, err
	}
	if sf.SchemaVersion != SchemaVersion {
		return sf, fmt.Errorf("schema %q, want %q", sf.SchemaVersion, SchemaVersion)
	}
	if _, err := sweep.ParseShard(sf.Shard); err != nil {
		return sf, err
	}
	if sf.Planned < 0 || sf.Planned > maxPlannedRuns || len(sf.Results) > sf.Planned {
		return sf, fmt.Errorf("%d results of %d planned runs", len(sf.Results), sf.Planned)
	}
	return sf, nil
}
