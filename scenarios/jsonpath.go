package scenarios

import (
	"fmt"
	"strings"

	"k8s.io/client-go/util/jsonpath"
)

// MaxJSONPathLength bounds a field-equals path.
const MaxJSONPathLength = 1024

// ParseJSONPath parses a field-equals path: a JSONPath in kubectl's -o jsonpath syntax,
// with or without its enclosing braces (kubectl's RelaxedJSONPathExpression). The parser is
// client-go's, so a path that works with kubectl works here.
func ParseJSONPath(path string) (*jsonpath.JSONPath, error) {
	if len(path) > MaxJSONPathLength {
		return nil, fmt.Errorf("the path is %d bytes, more than the limit of %d", len(path), MaxJSONPathLength)
	}
	expr := strings.TrimSpace(path)
	if expr == "" {
		return nil, fmt.Errorf("the path is empty")
	}
	if !strings.HasPrefix(expr, "{") {
		if !strings.HasPrefix(expr, ".") && !strings.HasPrefix(expr, "[") {
			expr = "." + expr
		}
		expr = "{" + expr + "}"
	}
	jp := jsonpath.New("field-equals")
	if err := jp.Parse(expr); err != nil {
		return nil, err
	}
	return jp, nil
}

// checkFieldEquals checks a field-equals condition at p: its target, and a path that parses.
func (l *loader) checkFieldEquals(a *FieldEqualsArgs, p string) {
	l.checkRef(a.Target, childPath(p, "target"), nil)
	pp := childPath(p, "path")
	if l.broken(pp) || !l.ix.has(pp) {
		return
	}
	if _, err := ParseJSONPath(a.Path); err != nil {
		l.errPath(pp, fmt.Sprintf("invalid JSONPath %q: %v", a.Path, err), "kubectl's -o jsonpath syntax, e.g. .status.phase or .status.conditions[?(@.type==\"Ready\")].status")
	}
	if v := a.Value.V; v != nil {
		switch v.(type) {
		case string, int64, float64, bool:
		default:
			l.errPath(childPath(p, "value"), "value must be a string, number, boolean or null", "compare one field; point path at a leaf")
		}
	}
}
