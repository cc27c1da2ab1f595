package model

import (
	"math"
	"strings"
)

// suggest returns the candidate closest to name by edit distance (ignoring case), or "" when
// none is close enough to be a plausible typo.
func suggest(name string, candidates []string) string {
	if len(name) > maxSuggestInput {
		return ""
	}
	best, bestDist := "", math.MaxInt
	lname := strings.ToLower(name)
	for _, c := range candidates {
		dist := levenshtein(lname, strings.ToLower(c))
		if dist < bestDist || (dist == bestDist && c < best) {
			best, bestDist = c, dist
		}
	}
	if best == "" || bestDist > max(2, len(best)/3) {
		return ""
	}
	return best
}

// levenshtein is the edit distance between a and b, counted in runes.
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
