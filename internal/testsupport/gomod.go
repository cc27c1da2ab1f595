package testsupport

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
)

// requireLine matches a requirement in go.mod, in a require block or on a require line:
// the module path and its version.
var requireLine = regexp.MustCompile(`(?m)^\s*(?:require\s+)?(\S+) (v\S+)`)

// RequiredVersion returns the version of module that the go.mod at path requires, so that a
// test can hold a generated table or a default to the release the module builds against.
func RequiredVersion(path, module string) (string, error) {
	mod, err := os.ReadFile(filepath.Clean(path))
	if err != nil {
		return "", err
	}
	for _, m := range requireLine.FindAllSubmatch(mod, -1) {
		if string(m[1]) == module {
			return string(m[2]), nil
		}
	}
	return "", fmt.Errorf("%s does not require %s", path, module)
}
