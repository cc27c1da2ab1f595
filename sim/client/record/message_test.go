package record

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAppendMessageIsSprintf holds appendMessage, its direct path and its fallback to fmt, to
// fmt.Sprintf over the components' formats and the cases where the direct path must step
// aside: flags, widths, precisions, other verbs and types, strings %q would escape, missing
// and extra arguments, a trailing %.
func TestAppendMessageIsSprintf(t *testing.T) {
	type stringer struct{ fmt.Stringer }
	type named string
	cases := []struct {
		format string
		args   []any
		plain  bool // whether appendPlainMessage takes it
	}{
		{"Starting kubelet.", nil, true},
		{"Container image %q already present on machine", []any{"registry.k8s.io/pause:3.10"}, true},
		{"Successfully pulled image %q in %s (%s including waiting)", []any{"nginx", "1.5s", "2s"}, true},
		{"Back-off restarting failed container %s in pod %s", []any{"app", "web-1_default(uid)"}, true},
		{"New size: %d; reason: %s", []any{7, "cpu"}, true},
		{"%v and %v", []any{-42, "x"}, true},
		{"100%% done", nil, true},
		{"%s", []any{""}, true},
		{"%q", []any{""}, true},
		{"%q", []any{`a"b`}, false},
		{"%q", []any{`a\b`}, false},
		{"%q", []any{"tab\there"}, false},
		{"%q", []any{"é"}, false},
		{"%q", []any{"\x7f"}, false},
		{"%s", []any{"\xff invalid"}, true},
		{"%d", []any{"text"}, false},
		{"%q", []any{5}, false},
		{"%x", []any{255}, false},
		{"%5s|%-5s|%.2s", []any{"a", "b", "abc"}, false},
		{"%+v %#v", []any{"a", "b"}, false},
		{"%v", []any{errors.New("boom")}, false},
		{"%s", []any{named("n")}, false},
		{"%s", []any{stringer{}}, false},
		{"%d", []any{int64(3)}, false},
		{"%s %s", []any{"only one"}, false},
		{"%s", []any{"one", "extra"}, false},
		{"no verbs", []any{"extra"}, false},
		{"trailing %", nil, false},
		{"%[1]s", []any{"x"}, false},
		{"%ü", []any{"x"}, false},
	}
	for _, c := range cases {
		want := fmt.Sprintf(c.format, c.args...)
		prefix := []byte("prefix:")
		got := appendMessage(prefix, c.format, c.args)
		require.Equal(t, "prefix:"+want, string(got), "%q %#v", c.format, c.args)
		_, plain := appendPlainMessage(nil, c.format, c.args)
		require.Equal(t, c.plain, plain, "%q %#v", c.format, c.args)
	}
}

// FuzzAppendMessageIsSprintf: for any format and a string and an int argument in either
// order, appendMessage is fmt.Sprintf.
func FuzzAppendMessageIsSprintf(f *testing.F) {
	f.Add("Pulling image %q", "nginx:1.27", 3, false)
	f.Add("%d%%: %s", "a\"b", -1, true)
	f.Add("%v %v %v", "é", 0, false)
	f.Fuzz(func(t *testing.T, format, s string, n int, intFirst bool) {
		args := []any{s, n}
		if intFirst {
			args[0], args[1] = n, s
		}
		for k := range 3 {
			require.Equal(t, fmt.Sprintf(format, args[:k]...), string(appendMessage(nil, format, args[:k])))
		}
	})
}
