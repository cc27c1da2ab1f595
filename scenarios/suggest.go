package scenarios

import "github.com/reconsim/reconsim/internal/suggest"

// suggestOptions is the scenario parser's "did you mean" policy: a swap of neighbours is one
// edit, and the only candidate containing the word (or contained in it) is a fallback.
var suggestOptions = suggest.Options{Swaps: true, Substring: true}

// closest returns the candidate most similar to word, for "did you mean" hints, or "" when
// none is close enough (suggest.Closest with suggestOptions).
func closest(word string, candidates []string) string {
	return suggest.Closest(word, candidates, suggestOptions)
}

// didYouMean formats a hint for word among candidates: `did you mean "x"?`, or "" if none.
func didYouMean(word string, candidates []string) string {
	return suggest.DidYouMean(word, candidates, suggestOptions)
}
