package model

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
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
