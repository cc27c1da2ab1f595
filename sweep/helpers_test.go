package sweep

import (
	"strings"
	"sync"
	"testing"

	"github.com/reconsim/reconsim/scenarios"
)

func builtinSource(t *testing.T, name string) ([]byte, bool) {
	t.Helper()
	return scenarios.Builtin(name)
}

// lockedWriter serializes writes from concurrent workers to a strings.Builder.
type lockedWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
