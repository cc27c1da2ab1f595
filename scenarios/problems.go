package scenarios

import (
	"fmt"

	"github.com/reconsim/reconsim/model"
)

// The loader's problems. Each one found is listed (with its position, path, message and hint)
// until MaxListedProblems are; the rest are counted, and one last entry of the list says how
// many (model.DecodeError.Unlisted). A problem repeated by every copy of an entry with
// `copies` is listed once and the others counted in its message. A scenario of 100,000 objects
// with a problem in every other one would otherwise hold, and print, 50,000 problems of one
// kind: 9 MB of positions, paths and messages at the time the loader holds every object
// (BenchmarkLoad100kInvalid), for a list no one reads past its first screens.

// problems returns the number of problems found so far, listed or not: a step that
// checks whether it found one compares it before and after.
func (l *loader) problems() int { return l.found }

// counted records a problem at path that is not to be listed, and reports whether it was one:
// another copy's repeat of a problem listed at the same place, or a problem past
// MaxListedProblems. A caller that gets false makes the problem (its position, message and
// hint) and lists it with listProblem; one that gets true makes nothing.
func (l *loader) counted(path string) bool {
	l.found++
	if l.inCopies(path) {
		if first, ok := l.folded[path]; ok {
			l.foldedMore[first]++
			return true
		}
	}
	if len(l.errs) < MaxListedProblems {
		return false
	}
	l.unlisted++
	if !l.validating {
		// A problem decoding found at path keeps validation from reporting its follow-on
		// problems there (bad), listed or not.
		l.unlistedDecodePaths = append(l.unlistedDecodePaths, path)
	}
	return true
}

// listProblem adds a problem that counted let through.
func (l *loader) listProblem(e *model.DecodeError) {
	if l.inCopies(e.Path) {
		if l.folded == nil {
			l.folded, l.foldedMore = map[string]*model.DecodeError{}, map[*model.DecodeError]int{}
		}
		l.folded[e.Path] = e
	}
	l.errs = append(l.errs, e)
}

// add records the problem e, listed or counted.
func (l *loader) add(e *model.DecodeError) {
	if !l.counted(e.Path) {
		l.listProblem(e)
	}
}

// listedProblems returns the problems as the loader reports them: sorted by place, each
// problem of a copy with the number of copies that repeat it, and at the end the entry that
// counts the problems not listed.
func (l *loader) listedProblems() Errors {
	for _, e := range l.errs {
		if n := l.foldedMore[e]; n > 0 {
			e.Msg += fmt.Sprintf(" (and the same problem with %d more of its copies)", n)
		}
	}
	out := l.errs.Sorted()
	if l.unlisted > 0 {
		out = append(out, &model.DecodeError{
			Pos:      model.Position{File: l.file},
			Msg:      fmt.Sprintf("%d more problems are not listed: a scenario lists the first %d found", l.unlisted, MaxListedProblems),
			Hint:     "fix the problems listed and run again",
			Unlisted: l.unlisted,
		})
	}
	return out
}
