package scenarios

import "strings"

// closest returns the candidate most similar to word, for "did you mean" hints, or "" when
// none is close enough. A candidate is close when it differs from word only in case, when its
// edit distance is at most a third of the longer name (at least 1, at most 3), or when it is
// the only candidate that contains word or is contained in it (at least 3 bytes). Ties go to
// the earliest candidate, so the hint is deterministic.
func closest(word string, candidates []string) string {
	if word == "" {
		return ""
	}
	lw := strings.ToLower(word)
	for _, c := range candidates {
		if c != word && strings.ToLower(c) == lw {
			return c
		}
	}
	best, bestDist := "", -1
	containing, nContaining := "", 0
	for _, c := range candidates {
		if c == word {
			continue
		}
		lc := strings.ToLower(c)
		limit := min(max(max(len(lw), len(lc))/3, 1), 3)
		if d := editDistance(lw, lc, limit+1); d <= limit && (bestDist < 0 || d < bestDist) {
			best, bestDist = c, d
		}
		if min(len(lw), len(lc)) >= 3 && (strings.Contains(lc, lw) || strings.Contains(lw, lc)) {
			containing = c
			nContaining++
		}
	}
	if best == "" && nContaining == 1 {
		return containing
	}
	return best
}

// editDistance is the optimal-string-alignment distance between a and b (bytes): insertions,
// deletions, substitutions and swaps of adjacent bytes cost 1 each. It returns cap if the
// distance is at least cap; capping keeps long unrelated names cheap.
func editDistance(a, b string, cap int) int {
	if d := len(a) - len(b); d >= cap || -d >= cap {
		return cap
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			rowMin = min(rowMin, cur[j])
		}
		if rowMin >= cap {
			return cap
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return min(prev[len(b)], cap)
}

// didYouMean formats a hint for word among candidates: `did you mean "x"?`, or "" if none.
func didYouMean(word string, candidates []string) string {
	if s := closest(word, candidates); s != "" {
		return `did you mean "` + s + `"?`
	}
	return ""
}
