package model

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestErrorListSortedAndDeduplicated(t *testing.T) {
	at := func(file string, line, col int, msg string) *DecodeError {
		return &DecodeError{Pos: Position{File: file, Line: line, Column: col}, Msg: msg}
	}
	es := ErrorList{at("s.yaml", 9, 1, "c"), at("m.yaml", 1, 1, "x"), at("s.yaml", 2, 5, "b"), at("s.yaml", 2, 3, "a"), at("s.yaml", 9, 1, "c")}
	got := es.Sorted()
	assert.Equal(t, "s.yaml:2:3: a\ns.yaml:2:5: b\ns.yaml:9:1: c\nm.yaml:1:1: x", got.Error())
	assert.Len(t, got.Unwrap(), 4)
	assert.Equal(t, "m.yaml:1:1: x\ns.yaml:2:3: a\ns.yaml:2:5: b\ns.yaml:9:1: c", es.Sorted("m.yaml").Error(), "the files named first come first")

	var list ErrorList
	assert.True(t, errors.As(error(got), &list))
	var de *DecodeError
	assert.True(t, errors.As(error(got), &de))
	assert.Equal(t, "s.yaml:2:3: a", de.Error())
}

// TestErrorListSortedDropsDuplicatesInLongRuns checks the deduplication of many problems at
// one place (the copies of one manifest), where it switches from comparing to a set.
func TestErrorListSortedDropsDuplicatesInLongRuns(t *testing.T) {
	var es ErrorList
	for i := range 100 {
		for range 3 {
			es = append(es, &DecodeError{Pos: Position{File: "s.yaml", Line: 7, Column: 3}, Msg: fmt.Sprint("problem ", i)})
		}
	}
	es = append(es, &DecodeError{Pos: Position{File: "s.yaml", Line: 1, Column: 1}, Msg: "first"})
	got := es.Sorted()
	require.Len(t, got, 101)
	assert.Equal(t, "first", got[0].Msg)
	for i, e := range got[1:] {
		assert.Equal(t, fmt.Sprint("problem ", i), e.Msg, "problems at one place keep their order")
	}
}

// TestErrorListCountsUnlistedProblems checks that an entry standing for problems not listed
// counts as that many, and is printed with its file alone.
func TestErrorListCountsUnlistedProblems(t *testing.T) {
	es := ErrorList{
		{Pos: Position{File: "s.yaml", Line: 2, Column: 3}, Msg: "a"},
		{Pos: Position{File: "s.yaml", Line: 4, Column: 1}, Msg: "b"},
	}
	assert.Equal(t, 2, es.Count())
	es = append(es, &DecodeError{Pos: Position{File: "s.yaml"}, Msg: "7 more problems are not listed", Unlisted: 7})
	assert.Equal(t, 9, es.Count())
	assert.Equal(t, "s.yaml: 7 more problems are not listed", es[2].Error())
}
