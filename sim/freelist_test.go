package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFreeListTakesWhatWasPutLastFirst(t *testing.T) {
	var l FreeList[int]
	assert.Nil(t, l.Take(), "an empty list has nothing to take")
	a, b := new(int), new(int)
	l.Put(a)
	l.Put(b)
	assert.Equal(t, 2, l.Len())
	assert.Same(t, b, l.Take())
	assert.Same(t, a, l.Take())
	assert.Nil(t, l.Take())
	assert.Equal(t, 0, l.Len())
	assert.Nil(t, l.spare[:1][0], "a taken object is not kept alive by the list")
}
