package cluster

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/scenarios"
	"k8s.io/client-go/util/jsonpath"
)

// fieldEquals evaluates a field-equals condition on the stored object (see
// scenarios.FieldEqualsArgs): the path must find exactly one value, equal to the expected one.
func (ex *expectations) fieldEquals(a *scenarios.FieldEqualsArgs) (bool, string) {
	t := a.Target
	jp := ex.paths[a]
	if jp == nil {
		var err error
		if jp, err = scenarios.ParseJSONPath(a.Path); err != nil {
			return false, fmt.Sprintf("invalid path %q: %v", a.Path, err) // the loader refuses these
		}
		if ex.paths == nil {
			ex.paths = map[*scenarios.FieldEqualsArgs]*jsonpath.JSONPath{}
		}
		ex.paths[a] = jp
	}
	want := describeJSON(a.Value.V)
	obj, err := ex.w.srv.Store().Get(t.Kind, t.Namespace, t.Name)
	if err != nil {
		return false, fmt.Sprintf("%s not found (want %s %s)", t, a.Path, want)
	}
	var doc any
	if u, ok := obj.(*model.Unstructured); ok {
		doc = u.UnstructuredContent()
	} else {
		doc = model.ObjectToJSON(obj)
	}
	results, err := jp.FindResults(doc)
	var found []any
	if err == nil {
		for _, set := range results {
			for _, v := range set {
				if v.IsValid() && v.CanInterface() {
					found = append(found, v.Interface())
				} else {
					found = append(found, nil)
				}
			}
		}
	}
	switch len(found) {
	case 0:
		return false, fmt.Sprintf("%s has no %s (want %s)", t, a.Path, want)
	case 1:
		holds := model.EqualJSON(found[0], a.Value.V)
		return holds, fmt.Sprintf("%s has %s = %s (want %s)", t, a.Path, describeJSON(found[0]), want)
	}
	vals := make([]string, len(found))
	for i, v := range found {
		vals[i] = describeJSON(v)
	}
	return false, fmt.Sprintf("%s has %d values at %s: %s (want one, equal to %s)", t, len(found), a.Path, strings.Join(vals, ", "), want)
}

// describeJSON writes a JSON value for a message.
func describeJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
