package sweep

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// Quantile returns the q-quantile (0 ≤ q ≤ 1) of sorted, ascending values by linear
// interpolation between closest ranks: with h = (n-1)·q, the value at rank ⌊h⌋ plus
// (h-⌊h⌋) times the step to the next rank. This is Hyndman and Fan's definition 7, the
// default of numpy.percentile ("linear") and of R's quantile. +Inf values (runs without a
// value) sort last and yield +Inf when the interpolation reaches them. It returns NaN for
// no values and panics if q is outside [0, 1] (a programming error).
func Quantile(sorted []float64, q float64) float64 {
	if q < 0 || q > 1 || math.IsNaN(q) {
		panic("sweep: quantile outside [0, 1]")
	}
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	h := float64(n-1) * q
	lo := int(math.Floor(h))
	if lo >= n-1 {
		return sorted[n-1]
	}
	frac := h - float64(lo)
	a, b := sorted[lo], sorted[lo+1]
	switch {
	case frac == 0 || a == b:
		return a
	case math.IsInf(b, 1):
		return b
	}
	// The conversion rounds the product, so it is never fused into an FMA: the same bits on
	// every machine.
	return a + float64(frac*(b-a))
}

// Aggregate summarizes one metric over the completed runs of a grid point. A run without a
// value (a convergence that never happened) counts as +∞ in the order statistics, so a p95
// is only finite when at least 95% of the runs have a value; such a statistic, like every
// statistic of no runs, is null in JSON. Mean is over the runs with a value.
type Aggregate struct {
	// N is the number of completed runs (failed runs are left out); Missing how many of
	// them have no value.
	N       int      `json:"n"`
	Missing int      `json:"missing"`
	Mean    *float64 `json:"mean"`
	P50     *float64 `json:"p50"`
	P90     *float64 `json:"p90"`
	P95     *float64 `json:"p95"`
	P99     *float64 `json:"p99"`
	Min     *float64 `json:"min"`
	Max     *float64 `json:"max"`
	// MedianCI95 is a 95% bootstrap confidence interval for the median (see
	// BootstrapMedianCI).
	MedianCI95 CI `json:"medianCI95"`
}

// CI is a confidence interval; a bound is null when it is infinite or there were no runs.
type CI struct {
	Low  *float64 `json:"low"`
	High *float64 `json:"high"`
}

// finitePtr returns &v, or nil when v is NaN or infinite.
func finitePtr(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// sortedWithMissing returns the values sorted, with one +Inf per missing value at the end.
func sortedWithMissing(values []float64, missing int) []float64 {
	out := make([]float64, 0, len(values)+missing)
	out = append(out, values...)
	slices.Sort(out)
	for range missing {
		out = append(out, math.Inf(1))
	}
	return out
}

// summarize computes the Aggregate of values (the runs with a value) and missing (the runs
// without one). seed seeds the bootstrap.
func summarize(values []float64, missing int, seed uint64) Aggregate {
	all := sortedWithMissing(values, missing)
	a := Aggregate{N: len(all), Missing: missing}
	if len(all) == 0 {
		return a
	}
	if len(values) > 0 {
		a.Mean = finitePtr(stat.Mean(values, nil))
	}
	a.P50 = finitePtr(Quantile(all, 0.50))
	a.P90 = finitePtr(Quantile(all, 0.90))
	a.P95 = finitePtr(Quantile(all, 0.95))
	a.P99 = finitePtr(Quantile(all, 0.99))
	a.Min = finitePtr(all[0])
	a.Max = finitePtr(all[len(all)-1])
	lo, hi := BootstrapMedianCI(all, BootstrapResamples, seed)
	a.MedianCI95 = CI{Low: finitePtr(lo), High: finitePtr(hi)}
	return a
}

// bootstrapStream is the PCG stream of the bootstrap ("sweep-bs").
const bootstrapStream = 0x73776565702d6273

// BootstrapMedianCI returns a 95% percentile-bootstrap confidence interval for the median of
// sorted: it draws resamples samples of len(sorted) values with replacement from a PCG
// stream seeded with seed, takes each one's median (Quantile 0.5), and returns the 2.5% and
// 97.5% quantiles of those medians. The same input and seed give the same interval. It
// returns NaN, NaN for no values.
func BootstrapMedianCI(sorted []float64, resamples int, seed uint64) (low, high float64) {
	n := len(sorted)
	if n == 0 || resamples < 1 {
		return math.NaN(), math.NaN()
	}
	r := rand.New(rand.NewPCG(seed, bootstrapStream))
	medians := make([]float64, resamples)
	idx := make([]int, n)
	sample := make([]float64, n)
	for i := range medians {
		for j := range idx {
			idx[j] = r.IntN(n)
		}
		// sorted is sorted, so sorting the drawn ranks sorts the sample.
		slices.Sort(idx)
		for j, k := range idx {
			sample[j] = sorted[k]
		}
		medians[i] = Quantile(sample, 0.5)
	}
	slices.Sort(medians)
	return Quantile(medians, 0.025), Quantile(medians, 0.975)
}

// bootstrapSeed derives the bootstrap seed of a metric at a grid point from their names, so
// it does not depend on which runs were computed where.
func bootstrapSeed(pointID, metric string) uint64 {
	h := fnv.New64a()
	h.Write([]byte("reconsim sweep bootstrap\x00" + pointID + "\x00" + metric))
	return h.Sum64()
}
