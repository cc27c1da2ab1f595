package scenarios

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/reconsim/reconsim/internal/boundedfile"
)

//go:embed builtin/*.yaml
var builtinFS embed.FS

// Builtin returns the source of the built-in scenario called name (its file name without
// .yaml), or false if there is none.
func Builtin(name string) ([]byte, bool) {
	if name == "" || strings.ContainsAny(name, `/\.`) {
		return nil, false
	}
	data, err := builtinFS.ReadFile("builtin/" + name + ".yaml")
	if err != nil {
		return nil, false
	}
	return data, true
}

// BuiltinNames returns the names of the built-in scenarios, sorted.
func BuiltinNames() []string {
	entries, err := fs.ReadDir(builtinFS, "builtin")
	if err != nil {
		panic("scenarios: embedded built-in scenarios are unreadable: " + err.Error())
	}
	var names []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".yaml"); ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// SlowBuiltins are the built-in scenarios too slow for the tests that run every built-in
// (sim/cluster's TestEveryBuiltinRunsToItsExpectations and make check-determinism): each takes
// minutes of wall time and gigabytes of memory. make bench runs them (BenchmarkScale5k,
// BenchmarkScale10k); each file's header comment says SLOW. A test checks the list against
// the files.
var SlowBuiltins = []string{"scale-10k", "scale-5k"}

// IsSlowBuiltin reports whether name is in SlowBuiltins.
func IsSlowBuiltin(name string) bool { return slices.Contains(SlowBuiltins, name) }

// BuiltinFile is the file name a built-in scenario's errors and results refer to.
func BuiltinFile(name string) string { return "builtin/" + name + ".yaml" }

// Resolve turns a `sim run` argument into scenario source: a path if a file exists there or
// the argument ends in .yaml or .yml (baseDir is then the file's directory), otherwise the
// name of a built-in scenario (file is BuiltinFile(name) and baseDir is "", since built-ins
// are self-contained). An unknown name is an error that lists the built-in scenarios, with a
// did-you-mean; an unreadable file is the read error.
func Resolve(arg string) (file string, data []byte, baseDir string, err error) {
	if arg == "" {
		return "", nil, "", fmt.Errorf("no scenario given: name a file or a built-in scenario (%s)", strings.Join(BuiltinNames(), ", "))
	}
	st, statErr := os.Stat(arg)
	isPathLike := strings.HasSuffix(arg, ".yaml") || strings.HasSuffix(arg, ".yml") || strings.ContainsRune(arg, os.PathSeparator)
	switch {
	case statErr == nil && st.IsDir():
		return "", nil, "", fmt.Errorf("%s is a directory, not a scenario file", arg)
	case statErr == nil || isPathLike:
		data, err := boundedfile.Read(arg, MaxFileBytes)
		if err != nil {
			return "", nil, "", err
		}
		return arg, data, filepath.Dir(arg), nil
	}
	if data, ok := Builtin(arg); ok {
		return BuiltinFile(arg), data, "", nil
	}
	names := BuiltinNames()
	msg := fmt.Sprintf("no scenario file or built-in scenario is called %q", arg)
	if hint := didYouMean(arg, names); hint != "" {
		msg += "; " + hint
	}
	return "", nil, "", fmt.Errorf("%s; built-in scenarios: %s", msg, strings.Join(names, ", "))
}
