package explore

import (
	"testing"
)

// FuzzDecodeShard: a shard.json of any bytes is decoded or refused, never a panic, and a
// decoded one has a valid shard and no more results than planned runs.
func FuzzDecodeShard(f *testing.F) {
	f.Add([]byte(`{"schemaVersion": "reconsim.dev/explore/v1", "shard": "1/2", "file": "x.yaml", "baseDir": "", "data": "", "command": "x", "seed": 1, "strategy": "random", "runs": 2, "noShrink": false, "maxShrinkRuns": 300, "planned": 3, "results": [{"index": 0, "id": "reference", "strategy": "reference", "seed": 1, "faults": [], "failures": []}]}`))
	f.Add([]byte(`{"schemaVersion": "reconsim.dev/explore/v1", "shard": "0/0"}`))
	f.Add([]byte(`{"results": [{"faults": [{"at": "1x"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sf, err := decodeShard(data)
		if err != nil {
			return
		}
		if len(sf.Results) > sf.Planned {
			t.Fatalf("%d results of %d planned", len(sf.Results), sf.Planned)
		}
	})
}
