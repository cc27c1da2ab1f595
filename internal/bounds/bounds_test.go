package bounds

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestChecks(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"int inside", In("workers", 5, 1, 1000), ""},
		{"int at the low end", In("workers", 1, 1, 1000), ""},
		{"int at the high end", In("workers", 1000, 1, 1000), ""},
		{"int below", In("workers", 0, 1, 1000), "workers must be in [1, 1000], got 0"},
		{"int above", In("workers", 1001, 1, 1000), "workers must be in [1, 1000], got 1001"},
		{"float NaN", In("tolerance", math.NaN(), 0, 1), "tolerance must be in [0, 1], got NaN"},
		{"float32 above", In[float32]("rate", 0.5, 0, 0.25), "rate must be in [0, 0.25], got 0.5"},
		{"duration inside", PositiveAtMost("period", time.Second, time.Hour), ""},
		{"duration at the high end", PositiveAtMost("period", time.Hour, time.Hour), ""},
		{"duration zero", PositiveAtMost("period", 0, time.Hour), "period must be in (0, 1h0m0s], got 0s"},
		{"duration above", PositiveAtMost("period", 2*time.Hour, time.Hour), "period must be in (0, 1h0m0s], got 2h0m0s"},
		{"positive", Positive("timeout", time.Minute), ""},
		{"zero is not positive", Positive("timeout", time.Duration(0)), "timeout must be positive, got 0s"},
		{"negative is not positive", Positive("count", -1), "count must be positive, got -1"},
		{"zero is not negative", NonNegative("threshold", 0), ""},
		{"negative", NonNegative("threshold", -2), "threshold must not be negative, got -2"},
		{"negative duration", NonNegative("duration", -time.Second), "duration must not be negative, got -1s"},
		{"NaN is not positive", Positive("qps", math.NaN()), "qps must be positive, got NaN"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.want == "" {
				assert.NoError(t, tc.err)
			} else {
				assert.EqualError(t, tc.err, tc.want)
			}
		})
	}
}

func TestFirst(t *testing.T) {
	a, b := errors.New("a"), errors.New("b")
	assert.NoError(t, First("pkg"))
	assert.NoError(t, First("pkg", nil, nil))
	assert.EqualError(t, First("pkg", nil, a, b), "pkg: a")
	assert.ErrorIs(t, First("pkg", nil, a, b), a)
	assert.Equal(t, b, First("", nil, b, a))
}
