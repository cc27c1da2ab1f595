package suggest

import (
	"math"
	"strings"
)

// Distance is the Levenshtein distance between a and b, counted in bytes: insertions,
// deletions and substitutions cost 1 each.
func Distance(a, b string) int { return distance([]byte(a), []byte(b), math.MaxInt, false, new([]int)) }

// RuneDistance is Distance counted in runes.
func RuneDistance(a, b string) int {
	return distance([]rune(a), []rune(b), math.MaxInt, false, new([]int))
}

// OSADistance is the optimal-string-alignment distance between a and b (bytes): Distance, and
// a swap of adjacent bytes costs 1 too. It returns limit if the distance is at least limit;
// capping keeps long unrelated names cheap.
func OSADistance(a, b string, limit int) int {
	return distance([]byte(a), []byte(b), limit, true, new([]int))
}

// distance is the shared dynamic programme: three rows (two for Levenshtein, the third for
// the swaps of OSA), stopping once a whole row reaches limit. The rows are cut from *buf,
// which grows when too short, so that a caller comparing one word with many reuses them.
func distance[T byte | rune](a, b []T, limit int, swaps bool, buf *[]int) int {
	if d := len(a) - len(b); d >= limit || -d >= limit {
		return limit
	}
	if cap(*buf) < 3*(len(b)+1) {
		*buf = make([]int, 3*(len(b)+1))
	}
	rows := *buf
	prev2, prev, cur := rows[:len(b)+1], rows[len(b)+1:2*(len(b)+1)], rows[2*(len(b)+1):3*(len(b)+1)]
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
			if swaps && i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			rowMin = min(rowMin, cur[j])
		}
		if rowMin >= limit {
			return limit
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return min(prev[len(b)], limit)
}

// Options tune Closest.
type Options struct {
	// MaxInput is the longest word considered (0: no limit); a longer one gets no suggestion.
	MaxInput int
	// Swaps counts a swap of adjacent bytes as one edit (OSADistance) rather than two.
	Swaps bool
	// Substring falls back, when no candidate is close by distance, to the only candidate
	// that contains the word or is contained in it (both at least 3 bytes).
	Substring bool
}

// Closest returns the candidate most similar to word, or "" when none is close enough: one
// that differs from word only in case wins; otherwise the nearest within a distance of a
// third of the longer name (at least 1, at most 3), ignoring case. Ties go to the earliest
// candidate. A candidate equal to word is never suggested.
func Closest(word string, candidates []string, o Options) string {
	if word == "" || (o.MaxInput > 0 && len(word) > o.MaxInput) {
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
	var rows []int // the distance's rows, shared by the candidates: a hint may compare with 100,000
	for _, c := range candidates {
		if c == word {
			continue
		}
		lc := strings.ToLower(c)
		limit := min(max(max(len(lw), len(lc))/3, 1), 3)
		if d := distance([]byte(lw), []byte(lc), limit+1, o.Swaps, &rows); d <= limit && (bestDist < 0 || d < bestDist) {
			best, bestDist = c, d
		}
		if o.Substring && min(len(lw), len(lc)) >= 3 && (strings.Contains(lc, lw) || strings.Contains(lw, lc)) {
			containing = c
			nContaining++
		}
	}
	if best == "" && nContaining == 1 {
		return containing
	}
	return best
}

// DidYouMean formats Closest's answer as a hint, `did you mean "x"?`, or "" when there is none.
func DidYouMean(word string, candidates []string, o Options) string {
	if s := Closest(word, candidates, o); s != "" {
		return `did you mean "` + s + `"?`
	}
	return ""
}

// Nearest is the policy of the manifest decoder: the candidate nearest to name by RuneDistance
// ignoring case, ties to the lexically smallest, within max(2, a third of its length); "" when
// none is, or when name is longer than maxInput.
func Nearest(name string, candidates []string, maxInput int) string {
	if len(name) > maxInput {
		return ""
	}
	best, bestDist := "", math.MaxInt
	lname := strings.ToLower(name)
	for _, c := range candidates {
		dist := RuneDistance(lname, strings.ToLower(c))
		if dist < bestDist || (dist == bestDist && c < best) {
			best, bestDist = c, dist
		}
	}
	if best == "" || bestDist > max(2, len(best)/3) {
		return ""
	}
	return best
}

// Command is the policy of the command line: the first name that name is a proper prefix of
// (name at least 2 bytes), else the first within Distance 2, else "".
func Command(name string, names []string) string {
	for _, n := range names {
		if len(name) >= 2 && len(name) < len(n) && n[:len(name)] == name {
			return n
		}
	}
	for _, n := range names {
		if Distance(name, n) <= 2 {
			return n
		}
	}
	return ""
}
