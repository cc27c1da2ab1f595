package sweep

import (
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/reconsim/reconsim/model"
)

// describe names what a YAML node holds (model's decoder's wording).
var describe = model.DescribeNode

// The raw form of a sweep file, as model.DecodeNode fills it (strict: unknown keys are
// errors). Values that later checks must point at keep their YAML node.

type rawSpec struct {
	APIVersion  located[string]      `json:"apiVersion"`
	Kind        located[string]      `json:"kind"`
	Name        located[string]      `json:"name"`
	Description string               `json:"description"`
	Scenario    located[string]      `json:"scenario"`
	Parameters  rawParameters        `json:"parameters"`
	Seeds       rawSeeds             `json:"seeds"`
	Sample      *located[rawSample]  `json:"sample"`
	Metrics     rawMetrics           `json:"metrics"`
	Expect      located[[]rawExpect] `json:"expect"`
}

// located is a value with the YAML node it was decoded from (nil when the key was absent or
// null).
type located[T any] struct {
	V    T
	node *yaml.Node
}

// DecodeYAMLWith records the node and decodes the value.
func (l *located[T]) DecodeYAMLWith(d *model.Decoder, n *yaml.Node) {
	l.node = n
	d.Decode(n, &l.V)
}

// set reports whether the key was written (with a non-null value).
func (l located[T]) set() bool { return l.node != nil }

// rawNode keeps a YAML node to interpret later, when its type is known.
type rawNode struct{ node *yaml.Node }

// DecodeYAMLWith records the node.
func (r *rawNode) DecodeYAMLWith(_ *model.Decoder, n *yaml.Node) { r.node = n }

// scalarText is any scalar (string, number, boolean), kept as written: a parameter value.
type scalarText string

// DecodeYAMLWith accepts a scalar of any type except null.
func (s *scalarText) DecodeYAMLWith(d *model.Decoder, n *yaml.Node) {
	if n.Kind != yaml.ScalarNode {
		d.Fail(n, fmt.Sprintf("expected a value (a string, number or boolean), got %s", describe(n)), "")
		return
	}
	*s = scalarText(n.Value)
}

// orderedMapping is a mapping whose keys are data (parameter keys, metric names), kept in
// file order, each value decoded into a V. Merge keys are refused (the order they would give
// is surprising), as are non-scalar and duplicate keys.
type orderedMapping[V any] struct {
	node    *yaml.Node
	entries []mappingEntry[V]
}

// mappingEntry is one entry of an orderedMapping.
type mappingEntry[V any] struct {
	key   *yaml.Node
	value V
}

// decode decodes n, a mapping of what (the hint says how one is written), in file order.
func (m *orderedMapping[V]) decode(d *model.Decoder, n *yaml.Node, what, hint string) {
	m.node = n
	if n.Kind != yaml.MappingNode {
		d.Fail(n, fmt.Sprintf("expected %s (a mapping), got %s", what, describe(n)), hint)
		return
	}
	first := map[string]*yaml.Node{}
	var values []*yaml.Node // decoded once every key is checked, so key errors come first
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.AliasNode && k.Alias != nil {
			k = k.Alias
		}
		if k.Kind != yaml.ScalarNode {
			d.Fail(k, fmt.Sprintf("keys must be strings, got %s", describe(k)), "")
			continue
		}
		if k.ShortTag() == "!!merge" {
			d.Fail(k, "merge keys (<<) are not supported here", "write the entries out, so their order is the order of the file")
			continue
		}
		if prev, dup := first[k.Value]; dup {
			d.Fail(k, fmt.Sprintf("duplicate key %q (first at line %d, column %d)", k.Value, prev.Line, prev.Column), "")
			continue
		}
		first[k.Value] = k
		m.entries = append(m.entries, mappingEntry[V]{key: k})
		values = append(values, v)
	}
	for i, v := range values {
		e := &m.entries[i]
		d.DecodeField(v, e.key.Value, &e.value)
	}
}

// rawParameters is `parameters:`, a mapping from --set keys to their values, in file order.
type rawParameters struct{ orderedMapping[rawValues] }

// DecodeYAMLWith decodes the mapping, keeping its order.
func (p *rawParameters) DecodeYAMLWith(d *model.Decoder, n *yaml.Node) {
	p.decode(d, n, "parameters", "parameters: {KEY: [VALUE, ...], KEY: {range: {from: A, to: B, step: S}}}")
}

// rawValues is one parameter's values: a list, {range: ...} or {logRange: ...}.
type rawValues struct {
	node     *yaml.Node
	list     []located[scalarText]
	ranged   *rawRange
	logRange *rawLogRange
	path     string
}

type rawRange struct {
	From rawNode `json:"from"`
	To   rawNode `json:"to"`
	Step rawNode `json:"step"`
}

type rawLogRange struct {
	From  rawNode      `json:"from"`
	To    rawNode      `json:"to"`
	Count located[int] `json:"count"`
}

type rawValuesMapping struct {
	Range    *rawRange    `json:"range"`
	LogRange *rawLogRange `json:"logRange"`
}

const valuesHint = "a list [A, B, ...], {range: {from: A, to: B, step: S}} or {logRange: {from: A, to: B, count: N}}"

// DecodeYAMLWith decodes a list or a range.
func (v *rawValues) DecodeYAMLWith(d *model.Decoder, n *yaml.Node) {
	v.node, v.path = n, d.Path()
	switch n.Kind {
	case yaml.SequenceNode:
		d.Decode(n, &v.list)
	case yaml.MappingNode:
		var m rawValuesMapping
		d.Decode(n, &m)
		switch {
		case m.Range != nil && m.LogRange != nil:
			d.Fail(n, "both range and logRange are set", "use one of them")
		case m.Range == nil && m.LogRange == nil:
			d.Fail(n, "no values", valuesHint)
		}
		v.ranged, v.logRange = m.Range, m.LogRange
	default:
		d.Fail(n, fmt.Sprintf("expected the parameter's values, got %s", describe(n)), valuesHint)
	}
}

// rawSeeds is `seeds:`, a count N (seeds 1..N) or a list of seeds.
type rawSeeds struct {
	node  *yaml.Node
	count int
	list  []located[uint64]
}

// DecodeYAMLWith decodes a count or a list.
func (s *rawSeeds) DecodeYAMLWith(d *model.Decoder, n *yaml.Node) {
	s.node = n
	switch n.Kind {
	case yaml.SequenceNode:
		d.Decode(n, &s.list)
	case yaml.ScalarNode:
		d.Decode(n, &s.count)
	default:
		d.Fail(n, fmt.Sprintf("expected a count or a list of seeds, got %s", describe(n)), "seeds: 20 runs seeds 1 to 20; seeds: [3, 7] runs those")
	}
}

type rawSample struct {
	Count located[int]    `json:"count"`
	Seed  located[uint64] `json:"seed"`
}

// rawMetrics is `metrics:`, a mapping from names to metric definitions, in file order.
type rawMetrics struct{ orderedMapping[rawMetric] }

// DecodeYAMLWith decodes the mapping, keeping its order.
func (m *rawMetrics) DecodeYAMLWith(d *model.Decoder, n *yaml.Node) {
	m.decode(d, n, "metrics", "metrics: {recovery: {convergence: crash}, ...}")
}

// rawMetric is one metric: a mapping with one kind key, or the bare words virtualSeconds or
// eventsProcessed.
type rawMetric struct {
	node   *yaml.Node
	path   string
	fields rawMetricFields
}

type rawMetricFields struct {
	Convergence     located[string]     `json:"convergence"`
	Expectation     located[string]     `json:"expectation"`
	Series          *located[rawSeries] `json:"series"`
	VirtualSeconds  located[bool]       `json:"virtualSeconds"`
	EventsProcessed located[bool]       `json:"eventsProcessed"`
	Events          located[string]     `json:"events"`
}

type rawSeries struct {
	Name      located[string] `json:"name"`
	Aggregate located[string] `json:"aggregate"`
}

var metricKinds = []string{"convergence", "expectation", "series", "virtualSeconds", "eventsProcessed", "events"}

// DecodeYAMLWith decodes the shorthand or the mapping.
func (m *rawMetric) DecodeYAMLWith(d *model.Decoder, n *yaml.Node) {
	m.node, m.path = n, d.Path()
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" {
		switch n.Value {
		case "virtualSeconds":
			m.fields.VirtualSeconds = located[bool]{V: true, node: n}
			return
		case "eventsProcessed":
			m.fields.EventsProcessed = located[bool]{V: true, node: n}
			return
		}
	}
	if n.Kind != yaml.MappingNode {
		hint := "one of: {convergence: ENTRY}, {expectation: NAME}, {series: {name: NAME, aggregate: max}}, {events: REASON}, virtualSeconds, eventsProcessed"
		if h := didYouMean(n.Value, []string{"virtualSeconds", "eventsProcessed"}); n.Kind == yaml.ScalarNode && h != "" {
			hint = h
		}
		d.Fail(n, fmt.Sprintf("expected a metric, got %s", describe(n)), hint)
		return
	}
	d.Decode(n, &m.fields)
}

// rawExpect is one entry of `expect:`.
type rawExpect struct {
	node   *yaml.Node
	path   string
	fields rawExpectFields
}

type rawExpectFields struct {
	Name       located[string]       `json:"name"`
	Metric     located[string]       `json:"metric"`
	Percentile located[float64]      `json:"percentile"`
	Stat       located[string]       `json:"stat"`
	Min        rawNode               `json:"min"`
	Max        rawNode               `json:"max"`
	At         located[string]       `json:"at"`
	PassRate   *located[rawPassRate] `json:"passRate"`
	Finding    located[bool]         `json:"finding"`
}

type rawPassRate struct {
	Min located[float64] `json:"min"`
	Max located[float64] `json:"max"`
}

// DecodeYAMLWith records the node and decodes the fields.
func (e *rawExpect) DecodeYAMLWith(d *model.Decoder, n *yaml.Node) {
	e.node, e.path = n, d.Path()
	d.Decode(n, &e.fields)
}
