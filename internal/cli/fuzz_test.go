package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/reconsim/reconsim/scenarios"
)

// FuzzValidate runs `sim validate FILE` on the input, the CLI's whole path before a run:
// resolve, parse, validate and build the world at time 0 (cluster.Check creates every object,
// placing settled pods). Bad input must exit 2 with a message on stderr; exit 3 (an internal
// error) or a panic fails. Seeds: testdata/fuzz/FuzzValidate (the hostile inputs of issue 14
// among them), every scenario under scenarios/testdata (copies.yaml covers copies:), and the built-ins but
// the slow ones (scenarios.SlowBuiltins).
func FuzzValidate(f *testing.F) {
	files, _ := filepath.Glob("../../scenarios/testdata/*/*.yaml")
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	for _, name := range scenarios.BuiltinNames() {
		if scenarios.IsSlowBuiltin(name) {
			continue // validating one builds 150,000 settled pods or more: seconds per input
		}
		data, _ := scenarios.Builtin(name)
		f.Add(data)
	}
	dir := f.TempDir()
	path := filepath.Join(dir, "fuzz.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		code := newCLI(&stdout, &stderr).main([]string{"validate", path})
		switch code {
		case exitOK:
			if stdout.Len() == 0 {
				t.Fatalf("exit 0 without the ok line; stderr:\n%s", stderr.String())
			}
		case exitUsage:
			if stderr.Len() == 0 {
				t.Fatal("exit 2 without a message")
			}
		default:
			t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
		}
	})
}
