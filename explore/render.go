package explore

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"time"

	"gopkg.in/yaml.v3"
)

// source is the scenario as written, kept as YAML so that every run is a scenario file: the
// original with faults appended to its timeline, objects dropped and the seed pinned.
type source struct {
	file    string
	data    []byte
	baseDir string
	doc     *yaml.Node // the document node; never modified
	root    *yaml.Node // its mapping
}

func newSource(file string, data []byte, baseDir string) (*source, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: not a scenario mapping", file)
	}
	return &source{file: file, data: data, baseDir: baseDir, doc: &doc, root: doc.Content[0]}, nil
}

// variant is what a run changes in the scenario.
type variant struct {
	seed    uint64
	faults  []Fault
	dropped []int // indexes into objects:, ascending
}

// render writes the scenario of variant v. The original nodes are shared, never changed:
// only the top mapping, the timeline and objects lists are new.
func (s *source) render(v variant) ([]byte, error) {
	root := *s.root
	root.Content = nil
	hasSeed, hasTimeline := false, false
	entries := faultEntries(v.faults)
	for i := 0; i+1 < len(s.root.Content); i += 2 {
		k, val := s.root.Content[i], s.root.Content[i+1]
		if (k.Value == "timeline" || k.Value == "objects") && val.Kind == yaml.AliasNode && val.Alias != nil {
			target := *val.Alias // the list itself: it is extended or filtered below
			target.Anchor = ""
			val = &target
		}
		switch k.Value {
		case "seed":
			hasSeed = true
			val = scalar(strconv.FormatUint(v.seed, 10))
		case "timeline":
			hasTimeline = true
			seq := *val
			if seq.Kind != yaml.SequenceNode {
				seq = yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
			}
			seq.Content = append(append([]*yaml.Node(nil), seq.Content...), entries...)
			val = &seq
		case "objects":
			if len(v.dropped) > 0 && val.Kind == yaml.SequenceNode {
				seq := *val
				seq.Content = nil
				for j, item := range val.Content {
					if !slices.Contains(v.dropped, j) {
						seq.Content = append(seq.Content, item)
					}
				}
				val = &seq
			}
		}
		root.Content = append(root.Content, k, val)
	}
	if !hasSeed {
		root.Content = append(root.Content, scalar("seed"), scalar(strconv.FormatUint(v.seed, 10)))
	}
	if !hasTimeline && len(entries) > 0 {
		root.Content = append(root.Content, scalar("timeline"), &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: entries})
	}
	doc := *s.doc
	doc.Content = []*yaml.Node{&root}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func scalar(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: v} }

func strScalar(v string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}
}

func mapping(kv ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: kv}
}

func flowMapping(kv ...*yaml.Node) *yaml.Node {
	n := mapping(kv...)
	n.Style = yaml.FlowStyle
	return n
}

func list(items []string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
	for _, it := range items {
		n.Content = append(n.Content, strScalar(it))
	}
	return n
}

func dur(d Duration) *yaml.Node { return strScalar(time.Duration(d).String()) }

// entryName is the timeline name of the i-th fault (1-based).
func entryName(i int) string { return fmt.Sprintf("explore-fault-%d", i) }

// faultEntries renders faults as timeline entries.
func faultEntries(faults []Fault) []*yaml.Node {
	var out []*yaml.Node
	for i, f := range faults {
		name := entryName(i + 1)
		var at *yaml.Node
		if f.Write > 0 {
			at = flowMapping(scalar("write"), scalar(strconv.Itoa(f.Write)), scalar("by"), strScalar(f.By))
		} else {
			at = dur(f.At)
		}
		e := mapping(scalar("name"), strScalar(name), scalar("at"), at, scalar("action"), strScalar(f.Action))
		add := func(k string, v *yaml.Node) { e.Content = append(e.Content, scalar(k), v) }
		if len(f.Nodes) > 0 {
			add("nodes", flowMapping(scalar("names"), list(f.Nodes)))
		}
		switch f.Action {
		case "controller-restart":
			add("component", strScalar(f.Component))
			if f.Downtime > 0 {
				add("downtime", dur(f.Downtime))
			}
		case "watch-stall", "watch-coalesce":
			add("component", strScalar(f.Component))
			add("for", dur(f.For))
		case "kubelet-stall":
			add("for", dur(f.For))
		case "api-errors":
			add("code", scalar(strconv.Itoa(f.Code)))
			add("fraction", scalar("1"))
			add("for", dur(f.For))
		case "api-latency":
			add("extra", dur(f.Latency))
			add("for", dur(f.For))
		}
		if len(f.Clients) > 0 && (f.Action == "api-errors" || f.Action == "api-latency") {
			add("clients", list(f.Clients))
		}
		out = append(out, e)
		if f.Heal > 0 && len(f.Nodes) > 0 {
			out = append(out, mapping(
				scalar("name"), strScalar(name+"-heal"),
				scalar("at"), flowMapping(scalar("after"), strScalar(name), scalar("delay"), dur(f.Heal)),
				scalar("action"), strScalar("node-recover"),
				scalar("nodes"), flowMapping(scalar("names"), list(f.Nodes)),
			))
		}
	}
	return out
}
