package sim

import (
	"testing"
	"unsafe"
)

// TestProcIsOneCacheLine holds Proc to 64 bytes: allocated in the 64-byte size class, each
// Proc is one aligned cache line, so resuming a process that has not run for a while misses
// the cache once for the Proc, not twice.
func TestProcIsOneCacheLine(t *testing.T) {
	if size := unsafe.Sizeof(Proc{}); size != 64 {
		t.Fatalf("Proc is %d bytes, want 64 (one cache line)", size)
	}
}
