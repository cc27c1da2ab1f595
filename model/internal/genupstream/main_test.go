//go:build genupstream

package main

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGeneratedFileIsCurrent(t *testing.T) {
	want, err := generate()
	require.NoError(t, err)
	got, err := os.ReadFile("../../upstream_gen.go")
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got), "model/upstream_gen.go is stale: go run -tags genupstream ./model/internal/genupstream")
}

func TestTablesHoldWhatTheDecoderNeeds(t *testing.T) {
	src, err := generate()
	require.NoError(t, err)
	for _, want := range []string{
		`"ConfigMap":`, `"PriorityClass":`, `"NetworkPolicy":`, `"Ingress":`, `"RoleBinding":`,
		`"PodSpec":`, `"Container":`, `"Probe":`, `"Affinity":`, `"ObjectMeta":`,
	} {
		assert.Contains(t, string(src), want)
	}
	assert.NotContains(t, string(src), `"ConfigMapList":`, "lists are not kinds of objects")
	assert.NotContains(t, string(src), `"DeleteOptions": {`, "options are not kinds of objects")
}
