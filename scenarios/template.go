package scenarios

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/reconsim/reconsim/model"
)

// mergeKeys are the lists of a pod template that a strategic merge patch merges item by item,
// and the field that identifies an item: the patchMergeKey tags of [api@HEAD] core/v1
// types.go (PodSpec.Containers, InitContainers, Volumes, ImagePullSecrets; Container.Env,
// VolumeMounts, Ports). Other lists are replaced whole.
var mergeKeys = map[string]string{
	"containers":       "name",
	"initContainers":   "name",
	"volumes":          "name",
	"imagePullSecrets": "name",
	"env":              "name",
	"volumeMounts":     "mountPath",
	"ports":            "containerPort",
}

// maxFragmentDepth bounds the nesting of a template fragment.
const maxFragmentDepth = 64

// mergeTemplate merges the YAML fragment frag into t (see RolloutArgs.Template) and returns
// the result; t is not modified.
func mergeTemplate(t model.PodTemplateSpec, frag *yaml.Node) (model.PodTemplateSpec, error) {
	data, err := json.Marshal(&t)
	if err != nil {
		return model.PodTemplateSpec{}, fmt.Errorf("encoding the pod template: %v", err)
	}
	var base any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&base); err != nil {
		return model.PodTemplateSpec{}, fmt.Errorf("encoding the pod template: %v", err)
	}
	patch, err := yamlValue(frag, 0)
	if err != nil {
		return model.PodTemplateSpec{}, err
	}
	if _, ok := patch.(map[string]any); !ok {
		return model.PodTemplateSpec{}, fmt.Errorf("the template fragment is not a mapping")
	}
	merged, err := strategicMerge(base, patch, "")
	if err != nil {
		return model.PodTemplateSpec{}, err
	}
	data, err = json.Marshal(merged)
	if err != nil {
		return model.PodTemplateSpec{}, fmt.Errorf("encoding the merged template: %v", err)
	}
	// The model decoder, not encoding/json: a field Kubernetes has and the simulator does not
	// model is ignored, as in a manifest (the loader warned about it), and only a field
	// Kubernetes does not have is an error.
	var node yaml.Node
	if err := yaml.Unmarshal(data, &node); err != nil {
		return model.PodTemplateSpec{}, fmt.Errorf("encoding the merged template: %v", err)
	}
	var out model.PodTemplateSpec
	if _, errs := model.DecodeNode(&node, &out, model.DecodeOptions{Strict: true}); len(errs) > 0 {
		msg := errs[0].Error()
		var de *model.DecodeError
		if errors.As(errs[0], &de) {
			msg = de.Msg
			if de.Path != "" {
				msg = de.Path + ": " + msg
			}
			if de.Hint != "" {
				msg += " (" + de.Hint + ")"
			}
		}
		return model.PodTemplateSpec{}, fmt.Errorf("the merged template is not a pod template: %s", msg)
	}
	return out, nil
}

// yamlValue converts a YAML node into the value encoding/json would decode from the same
// document (maps, slices, strings, json.Number, bools, nil), following aliases and merge keys.
func yamlValue(n *yaml.Node, depth int) (any, error) {
	if depth > maxFragmentDepth {
		return nil, fmt.Errorf("the template fragment is nested more than %d levels deep", maxFragmentDepth)
	}
	n = resolve(n)
	if n == nil {
		return nil, fmt.Errorf("the template fragment holds an alias that cannot be resolved")
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return yamlValue(n.Content[0], depth+1)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := yamlValue(c, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
				merged, err := yamlValue(v, depth+1)
				if err != nil {
					return nil, err
				}
				for _, m := range mergeSources(merged) {
					for mk, mv := range m { //detlint:ordered distinct keys, each set at most once
						if _, set := out[mk]; !set {
							out[mk] = mv
						}
					}
				}
				continue
			}
			rk := resolve(k)
			if rk == nil || rk.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: mapping keys must be strings", k.Line)
			}
			val, err := yamlValue(v, depth+1)
			if err != nil {
				return nil, err
			}
			out[rk.Value] = val
		}
		return out, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, nil
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err != nil {
				return nil, fmt.Errorf("line %d: %v", n.Line, err)
			}
			return b, nil
		case "!!int":
			var i int64
			if err := n.Decode(&i); err != nil {
				return nil, fmt.Errorf("line %d: %v", n.Line, err)
			}
			return json.Number(strconv.FormatInt(i, 10)), nil
		case "!!float":
			var f float64
			if err := n.Decode(&f); err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, fmt.Errorf("line %d: %q is not a finite number", n.Line, n.Value)
			}
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
		}
		return n.Value, nil
	}
	return nil, fmt.Errorf("line %d: unexpected YAML node", n.Line)
}

// mergeSources returns the mappings a merge key's value contributes, in order.
func mergeSources(v any) []map[string]any {
	switch m := v.(type) {
	case map[string]any:
		return []map[string]any{m}
	case []any:
		var out []map[string]any
		for _, x := range m {
			if mm, ok := x.(map[string]any); ok {
				out = append(out, mm)
			}
		}
		return out
	}
	return nil
}

// strategicMerge merges patch into base (see mergeKeys); field is the name of the value's
// field in its parent, which decides how a list merges. base is modified and returned.
func strategicMerge(base, patch any, field string) (any, error) {
	switch p := patch.(type) {
	case map[string]any:
		b, ok := base.(map[string]any)
		if !ok {
			b = map[string]any{}
		}
		for _, k := range slices.Sorted(maps.Keys(p)) {
			v := p[k]
			if v == nil {
				delete(b, k)
				continue
			}
			merged, err := strategicMerge(b[k], v, k)
			if err != nil {
				return nil, err
			}
			b[k] = merged
		}
		return b, nil
	case []any:
		key, byKey := mergeKeys[field]
		b, isList := base.([]any)
		if !byKey || !isList {
			return p, nil
		}
		for _, item := range p {
			m, ok := item.(map[string]any)
			if !ok || m[key] == nil {
				return nil, fmt.Errorf("every item of %s must have %s, by which it merges", field, key)
			}
			at := -1
			for i, old := range b {
				if om, ok := old.(map[string]any); ok && fmt.Sprint(om[key]) == fmt.Sprint(m[key]) {
					at = i
					break
				}
			}
			if at < 0 {
				b = append(b, m)
				continue
			}
			merged, err := strategicMerge(b[at], m, "")
			if err != nil {
				return nil, err
			}
			b[at] = merged
		}
		return b, nil
	}
	return patch, nil
}
