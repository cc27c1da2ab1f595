//go:build amd64 || arm64 || ppc64le || s390x || riscv64 || loong64

package replicaset

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// TestPodFactsSize: a fact is 80 bytes on 64-bit platforms, its booleans packed together
// (a sync copies one per pod of its ReplicaSet).
func TestPodFactsSize(t *testing.T) {
	require.LessOrEqual(t, unsafe.Sizeof(podFacts{}), uintptr(80))
}
