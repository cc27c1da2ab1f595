package sweep

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPooled: the one grouping of a metric's values behind the band, heat-map and CDF
// figures. A failed run takes no part; a completed run without a value counts as missing
// only in a group; a run in no group (-1) is left out altogether.
func TestPooled(t *testing.T) {
	v := func(f float64) *float64 { return &f }
	run := func(point, x string, val *float64, err string) RunRecord {
		return RunRecord{Point: point, Parameters: []ParamValue{{Key: "x", Value: x}}, Metrics: map[string]*float64{"m": val}, Error: err}
	}
	res := &Result{Runs: []RunRecord{
		run("p0", "a", v(1), ""),
		run("p1", "b", v(2), ""),
		run("p0", "a", v(3), ""),
		run("p1", "b", nil, ""),      // completed, no value
		run("p1", "b", nil, "panic"), // failed: no part
		run("p2", "c", nil, ""),      // completed, no value
	}}
	m := Metric{Name: "m"}
	byX := valueIndex([]string{"a", "b", "c"})
	for _, tc := range []struct {
		name        string
		n           int
		group       func(r *RunRecord) int
		want        [][]float64
		wantMissing int
	}{
		{name: "by parameter", n: 3, group: func(r *RunRecord) int { return byX[r.Parameters[0].Value] },
			want: [][]float64{{1, 3}, {2}, nil}, wantMissing: 2},
		{name: "one point", n: 1, group: func(r *RunRecord) int {
			if r.Point == "p1" {
				return 0
			}
			return -1
		}, want: [][]float64{{2}}, wantMissing: 1},
		{name: "no group", n: 0, group: func(*RunRecord) int { return -1 }, want: [][]float64{}, wantMissing: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, missing := pooled(res, m, tc.n, tc.group)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.wantMissing, missing)
		})
	}
}
