package testsupport

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRequiredVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "go.mod")
	require.NoError(t, os.WriteFile(path, []byte(`module example.com/m

go 1.26.0

require github.com/a/b v1.2.3

require (
	k8s.io/api v0.34.1
	k8s.io/apimachinery v0.34.1 // indirect
)
`), 0o644))
	for _, tc := range []struct{ module, want, wantErr string }{
		{module: "k8s.io/api", want: "v0.34.1"},
		{module: "k8s.io/apimachinery", want: "v0.34.1"},
		{module: "github.com/a/b", want: "v1.2.3"},
		{module: "k8s.io/client-go", wantErr: "does not require k8s.io/client-go"},
		{module: "k8s.io", wantErr: "does not require"},
	} {
		got, err := RequiredVersion(path, tc.module)
		if tc.wantErr != "" {
			assert.ErrorContains(t, err, tc.wantErr, tc.module)
			continue
		}
		require.NoError(t, err, tc.module)
		assert.Equal(t, tc.want, got, tc.module)
	}
	_, err := RequiredVersion(filepath.Join(t.TempDir(), "none"), "k8s.io/api")
	assert.Error(t, err)

	// The module's own go.mod requires the k8s.io/api the model mirrors.
	v, err := RequiredVersion("../../go.mod", "k8s.io/api")
	require.NoError(t, err)
	assert.Regexp(t, `^v0\.\d+\.\d+`, v)
}
