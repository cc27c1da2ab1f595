package scenarios

import (
	"sort"
	"strings"

	"github.com/reconsim/reconsim/model"
)

// Errors is every problem found in a scenario, each with its file:line:col, field path,
// message and, when there is one, a hint. Parse and Load return it (never empty) as their
// error when the scenario is invalid.
type Errors []*model.DecodeError

// Error prints one problem per line: "file:line:col: path: message (hint)".
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the problems as errors, for errors.As.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// sorted returns es ordered by file (in the order files were first mentioned), line and
// column, without exact duplicates; problems at the same place keep their order.
func (es Errors) sorted() Errors {
	fileOrder := map[string]int{}
	for _, e := range es {
		if _, ok := fileOrder[e.Pos.File]; !ok {
			fileOrder[e.Pos.File] = len(fileOrder)
		}
	}
	out := make(Errors, 0, len(es))
	seen := map[string]bool{}
	for _, e := range es {
		if k := e.Error(); !seen[k] {
			seen[k] = true
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Pos, out[j].Pos
		if fa, fb := fileOrder[a.File], fileOrder[b.File]; fa != fb {
			return fa < fb
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	return out
}
