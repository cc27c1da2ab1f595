package controllerutil

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestVersionCacheDerivesOncePerVersion(t *testing.T) {
	type obj struct{ n int }
	var c VersionCache[string, *obj, int]
	calls := 0
	derive := func(o *obj) (int, error) {
		calls++
		if o.n < 0 {
			return 0, errors.New("negative")
		}
		return o.n * 2, nil
	}
	v1, v2, bad := &obj{1}, &obj{1}, &obj{-1}
	tests := []struct {
		name      string
		key       string
		obj       *obj
		want      int
		wantErr   bool
		wantCalls int
	}{
		{"first version derives", "a", v1, 2, false, 1},
		{"same version is cached", "a", v1, 2, false, 1},
		{"an equal but new version derives again", "a", v2, 2, false, 2},
		{"another key derives", "b", v2, 2, false, 3},
		{"an error is derived", "a", bad, 0, true, 4},
		{"and cached with its version", "a", bad, 0, true, 4},
	}
	for _, tc := range tests {
		got, err := c.Get(tc.key, tc.obj, derive)
		require.Equal(t, tc.wantErr, err != nil, tc.name)
		require.Equal(t, tc.want, got, tc.name)
		require.Equal(t, tc.wantCalls, calls, tc.name)
	}
	require.Equal(t, 2, c.Len())
	c.Forget("a")
	require.Equal(t, 1, c.Len())
	_, _ = c.Get("a", bad, derive)
	require.Equal(t, 5, calls, "a forgotten key derives again")
}
