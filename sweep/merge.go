package sweep

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/reconsim/reconsim/internal/boundedfile"
)

// maxShardBytes bounds a shard.json (it lists the shard's run IDs and echoes the spec).
const maxShardBytes = 256 << 20

// Merge combines the shard directories of a sharded sweep into the results the unsharded
// sweep gives, byte for byte: sweep.json, sweep.csv, junit.xml, plots/ and sweep.html in
// outDir. Each of dirs is a shard directory (holding shard.json) or a directory holding
// shard-i-of-n directories. Every shard 1/n..n/n must be there exactly once, finished (its
// shard.json written) and from the same sweep (same spec, scenario and simulator version);
// Merge returns an error naming what is missing or different otherwise. Where the shards
// were run from different paths, the reproduce commands use the paths of shard 1.
func Merge(dirs []string, outDir string) (*Outcome, error) {
	if outDir == "" {
		return nil, errors.New("sweep: no output directory")
	}
	shardDirs, err := findShards(dirs)
	if err != nil {
		return nil, err
	}
	type loaded struct {
		dir string
		f   shardFile
	}
	var shards []loaded
	for _, d := range shardDirs {
		path := filepath.Join(d, ShardFile)
		data, err := boundedfile.Read(path, maxShardBytes)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("sweep: shard directory %s has no %s: the shard has not finished (finish it with the same sim sweep command and --resume, then merge)", d, ShardFile)
		}
		if err != nil {
			return nil, fmt.Errorf("sweep: %s: %w", path, errors.Unwrap(err))
		}
		var f shardFile
		if err := decodeStrict(data, &f); err != nil {
			return nil, fmt.Errorf("sweep: %s: %w", path, err)
		}
		if f.SchemaVersion != ShardSchemaVersion {
			return nil, fmt.Errorf("sweep: %s: schemaVersion is %q, want %q", path, f.SchemaVersion, ShardSchemaVersion)
		}
		if f.Spec == nil {
			return nil, fmt.Errorf("sweep: %s: no spec", path)
		}
		if err := (Shard{f.Shard.Index, f.Shard.Count}).check(); err != nil || !(Shard{f.Shard.Index, f.Shard.Count}).Sharded() {
			return nil, fmt.Errorf("sweep: %s: invalid shard %d/%d", path, f.Shard.Index, f.Shard.Count)
		}
		shards = append(shards, loaded{d, f})
	}
	sort.SliceStable(shards, func(i, j int) bool { return shards[i].f.Shard.Index < shards[j].f.Shard.Index })
	first := shards[0].f
	n := first.Shard.Count
	seen := map[int]string{}
	for _, s := range shards {
		switch {
		case s.f.Shard.Count != n:
			return nil, fmt.Errorf("sweep: %s is shard %d/%d but %s is shard %d/%d: shards of different splits cannot be merged",
				s.dir, s.f.Shard.Index, s.f.Shard.Count, shards[0].dir, first.Shard.Index, n)
		case seen[s.f.Shard.Index] != "":
			return nil, fmt.Errorf("sweep: shard %d/%d is given twice: %s and %s", s.f.Shard.Index, n, seen[s.f.Shard.Index], s.dir)
		case s.f.RunHash != first.RunHash || !sameSweep(s.f.Spec, first.Spec):
			return nil, fmt.Errorf("sweep: %s and %s come from different sweeps (spec, scenario or simulator version differ)", shards[0].dir, s.dir)
		}
		seen[s.f.Shard.Index] = s.dir
	}
	var missing []string
	for i := 1; i <= n; i++ {
		if seen[i] == "" {
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("sweep: missing shards %s (found %d of %d)", strings.Join(missing, ", "), len(shards), n)
	}

	spec := first.Spec
	if err := checkEchoedSpec(spec); err != nil {
		return nil, fmt.Errorf("sweep: %s: %w", filepath.Join(shards[0].dir, ShardFile), err)
	}
	plan := spec.Plan()
	if len(plan.Runs) != first.TotalRuns {
		return nil, fmt.Errorf("sweep: the spec expands to %d runs but the shards say %d", len(plan.Runs), first.TotalRuns)
	}
	hash := spec.runHash()
	if hash != first.RunHash {
		return nil, errors.New("sweep: the shards were run by another simulator version; merge them with that version")
	}
	runs := make([]RunRecord, len(plan.Runs))
	for _, r := range plan.Runs {
		dir := seen[r.Index%n+1]
		rec, err := loadRunFile(runFilePath(dir, r.ID), hash, r)
		if err != nil {
			return nil, fmt.Errorf("sweep: run %s of shard %d/%d: %w", r.ID, r.Index%n+1, n, err)
		}
		rec.Reproduce = spec.reproduce(plan.Points[r.Point].Values, r.Seed)
		runs[r.Index] = rec
	}
	res := assemble(spec, plan, runs)
	files, err := WriteResults(outDir, res)
	return &Outcome{Result: res, Dir: outDir, Runs: runs, Files: files}, err
}

// findShards expands the arguments of `sim merge` into shard directories, sorted.
func findShards(dirs []string) ([]string, error) {
	if len(dirs) == 0 {
		return nil, errors.New("sweep: no shard directories given")
	}
	var out []string
	for _, d := range dirs {
		st, err := os.Stat(d)
		if err != nil {
			return nil, fmt.Errorf("sweep: %w", err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("sweep: %s is not a directory", d)
		}
		if _, err := os.Stat(filepath.Join(d, ShardFile)); err == nil || isShardDirName(filepath.Base(d)) {
			out = append(out, d)
			continue
		}
		matches, err := filepath.Glob(filepath.Join(d, "shard-*-of-*"))
		if err != nil {
			return nil, fmt.Errorf("sweep: %w", err)
		}
		var found []string
		for _, m := range matches {
			if st, err := os.Stat(m); err == nil && st.IsDir() && isShardDirName(filepath.Base(m)) {
				found = append(found, m)
			}
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("sweep: %s holds no shard (no shard.json, no shard-i-of-n directories)", d)
		}
		out = append(out, found...)
	}
	sort.Strings(out)
	return out, nil
}

// isShardDirName reports whether name is "shard-i-of-n".
func isShardDirName(name string) bool {
	var i, n int
	k, err := fmt.Sscanf(name, "shard-%d-of-%d", &i, &n)
	return err == nil && k == 2 && name == (Shard{i, n}).Dir()
}

// checkEchoedSpec checks the parts of a spec read from JSON that Plan relies on, so a
// damaged shard.json gives an error rather than a panic.
func checkEchoedSpec(s *Spec) error {
	if len(s.Parameters) > MaxParameters || len(s.Seeds) == 0 || len(s.Seeds) > MaxSeeds {
		return errors.New("the echoed spec has too many parameters or no seeds")
	}
	for _, p := range s.Parameters {
		if len(p.Values) == 0 || len(p.Values) > MaxValuesPerParameter {
			return fmt.Errorf("parameter %s has %d values", p.Key, len(p.Values))
		}
	}
	grid := gridSize(s.Parameters)
	if grid < 0 {
		return errors.New("the echoed spec's grid is too large")
	}
	points := grid
	if s.Sample != nil {
		if s.Sample.Count < 1 || s.Sample.Count > grid {
			return fmt.Errorf("sample.count %d does not fit the grid of %d points", s.Sample.Count, grid)
		}
		points = s.Sample.Count
	}
	if points > MaxPoints || points*len(s.Seeds) > MaxRuns {
		return errors.New("the echoed spec has too many runs")
	}
	for _, m := range s.Metrics {
		if m.Kind() == "" {
			return fmt.Errorf("metric %s has no kind", m.Name)
		}
	}
	for _, x := range s.Expect {
		if x.At != AtEveryPoint && x.At != AtOverall {
			return fmt.Errorf("expectation %s: unknown at %q", x.Name, x.At)
		}
	}
	return nil
}
