package sweep

import (
	"encoding/csv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCSVEscapesFormulas: text cells that a spreadsheet would run as a formula (=, +, -, @)
// start with an apostrophe; numbers stay numbers.
func TestCSVEscapesFormulas(t *testing.T) {
	v := -1.5
	res := &Result{
		Spec: &Spec{Metrics: []Metric{{Name: "=cmd|' /C calc'!A0"}}},
		Runs: []RunRecord{{
			ID: "p1-s1", Point: "p1", Seed: 1,
			Metrics:            map[string]*float64{"=cmd|' /C calc'!A0": &v},
			FailedExpectations: []string{"=HYPERLINK(\"http://x\")", "ok"},
			StopReason:         "@SUM(1)", Error: "+1+1", Passed: false,
		}, {
			ID: "p1-s2", Point: "p1", Seed: 2, Metrics: map[string]*float64{}, FailedExpectations: []string{"-2+3"},
		}},
	}
	data, err := EncodeCSV(res)
	require.NoError(t, err)
	rows, err := csv.NewReader(strings.NewReader(string(data))).ReadAll()
	require.NoError(t, err)
	assert.Equal(t, "'=cmd|' /C calc'!A0", rows[0][3])
	assert.Equal(t, []string{"p1-s1", "p1", "1", "-1.5", "false", `'=HYPERLINK("http://x");ok`, "'@SUM(1)", "'+1+1"}, rows[1])
	assert.Equal(t, "'-2+3", rows[2][5])
}

// TestMetricPlotNamesAreUnique: metric names that fileStem maps alike get different files;
// a plain name keeps its file name.
func TestMetricPlotNamesAreUnique(t *testing.T) {
	assert.Equal(t, "recovery", metricStem("recovery"))
	assert.Equal(t, "pending-peak", metricStem("pending-peak"))
	names := map[string]bool{}
	for _, n := range []string{"a.b", "a_b", "a b", "a/b"} {
		names[metricStem(n)] = true
	}
	assert.Len(t, names, 4)
}
