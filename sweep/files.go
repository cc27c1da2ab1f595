package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/reconsim/reconsim/internal/atomicfile"
	"github.com/reconsim/reconsim/internal/boundedfile"

	"github.com/reconsim/reconsim/report"
)

// encodeJSON returns v as indented JSON with a final newline; HTML characters are kept as
// they are (reports are not embedded in HTML raw).
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeAtomic writes data to dir/name atomically (atomicfile.WriteBytes), creating dir if
// needed. With durable the data is synced before the rename; per-run files skip that
// (thousands of syncs cost seconds, and a run file lost in a crash is only rerun by Resume,
// which refuses a file it cannot read).
func writeAtomic(dir, name string, data []byte, durable bool) error {
	if err := atomicfile.WriteBytes(dir, name, durable, data); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	return nil
}

// writeRun writes a run's run.json (and, with keep, its result.json and events.jsonl).
func writeRun(dir, hash string, rec RunRecord, wallSeconds float64, res *report.Result, keep bool) error {
	runDir := filepath.Join(dir, RunsDir, rec.ID)
	if keep && res != nil {
		res.WallSeconds = wallSeconds
		if err := report.WriteResult(runDir, res); err != nil {
			return err
		}
		if err := report.WriteEvents(runDir, res.Events); err != nil {
			return err
		}
	}
	data, err := encodeJSON(runFile{SchemaVersion: RunSchemaVersion, RunHash: hash, Run: rec, WallSeconds: wallSeconds})
	if err != nil {
		return fmt.Errorf("sweep: encoding run %s: %w", rec.ID, err)
	}
	return writeAtomic(runDir, RunFile, data, false)
}

// decodeStrict decodes one JSON document into v, refusing unknown fields.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// loadRunFile reads a run.json and checks that it records run r of the sweep with run hash
// hash. It returns an error saying what is wrong.
func loadRunFile(path, hash string, r PlannedRun) (RunRecord, error) {
	data, err := boundedfile.Read(path, maxRunBytes)
	if err != nil {
		return RunRecord{}, err
	}
	var f runFile
	if err := decodeStrict(data, &f); err != nil {
		return RunRecord{}, fmt.Errorf("%s: %w", path, err)
	}
	switch {
	case f.SchemaVersion != RunSchemaVersion:
		return RunRecord{}, fmt.Errorf("%s: schemaVersion is %q, want %q", path, f.SchemaVersion, RunSchemaVersion)
	case f.RunHash != hash:
		return RunRecord{}, fmt.Errorf("%s: the run belongs to another sweep (or another simulator version)", path)
	case f.Run.ID != r.ID || f.Run.Index != r.Index || f.Run.Seed != r.Seed:
		return RunRecord{}, fmt.Errorf("%s: records run %s (index %d), want %s (index %d)", path, f.Run.ID, f.Run.Index, r.ID, r.Index)
	}
	if f.Run.Metrics == nil {
		f.Run.Metrics = map[string]*float64{}
	}
	if f.Run.FailedExpectations == nil {
		f.Run.FailedExpectations = []string{}
	}
	return f.Run, nil
}

// readRunFile is loadRunFile for Resume: ok is false when the run must run again.
func readRunFile(path, hash string, r PlannedRun) (RunRecord, bool) {
	rec, err := loadRunFile(path, hash, r)
	return rec, err == nil
}

// shardFile is the content of shard-i-of-n/shard.json, written when every run of the shard
// is done.
type shardFile struct {
	SchemaVersion string `json:"schemaVersion"`
	RunHash       string `json:"runHash"`
	Shard         struct {
		Index int `json:"index"`
		Count int `json:"count"`
	} `json:"shard"`
	// TotalRuns is the number of runs of the whole sweep.
	TotalRuns int `json:"totalRuns"`
	// Runs are the IDs of the shard's runs, in run order.
	Runs []string `json:"runs"`
	Spec *Spec    `json:"spec"`
}

func writeShard(dir string, spec *Spec, shard Shard, hash string, runs []PlannedRun) error {
	f := shardFile{SchemaVersion: ShardSchemaVersion, RunHash: hash, Spec: spec, Runs: []string{}}
	f.Shard.Index, f.Shard.Count = shard.Index, shard.Count
	f.TotalRuns = len(spec.Plan().Runs)
	for _, r := range runs {
		f.Runs = append(f.Runs, r.ID)
	}
	data, err := encodeJSON(&f)
	if err != nil {
		return fmt.Errorf("sweep: encoding %s: %w", ShardFile, err)
	}
	return writeAtomic(dir, ShardFile, data, true)
}
