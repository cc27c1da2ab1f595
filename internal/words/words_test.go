package words

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWords(t *testing.T) {
	assert.Equal(t, "run", Plural(1, "run", "runs"))
	assert.Equal(t, "runs", Plural(0, "run", "runs"))
	assert.Equal(t, "runs", Plural(2, "run", "runs"))
	assert.Equal(t, "panic: boom", FirstLine("panic: boom\ngoroutine 1\n"))
	assert.Equal(t, "one line", FirstLine("one line"))
	assert.Equal(t, "", FirstLine(""))
	assert.Equal(t, `a \| b`, MarkdownCell("a | b"))
}
