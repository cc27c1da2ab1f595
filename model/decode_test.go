package model

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/reconsim/reconsim/internal/suggest"
	"github.com/reconsim/reconsim/internal/testsupport"
	"github.com/reconsim/reconsim/vtime"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// decodeAll has a field of every type the decoder supports.
type decodeAll struct {
	S     string                `json:"s,omitempty"`
	B     bool                  `json:"b"`
	I     int                   `json:"i"`
	I8    int8                  `json:"i8"`
	I16   int16                 `json:"i16"`
	I32   int32                 `json:"i32"`
	I64   int64                 `json:"i64"`
	U     uint                  `json:"u"`
	U8    uint8                 `json:"u8"`
	U16   uint16                `json:"u16"`
	U32   uint32                `json:"u32"`
	U64   uint64                `json:"u64"`
	F     float64               `json:"f"`
	F32   float32               `json:"f32"`
	P     *int32                `json:"p"`
	PS    *decodeInner          `json:"ps"`
	L     []string              `json:"l"`
	LS    []decodeInner         `json:"ls"`
	M     map[string]int        `json:"m"`
	MK    map[Kind]string       `json:"mk"`
	Inner decodeInner           `json:"inner"`
	T     vtime.Time            `json:"t"`
	PT    *vtime.Time           `json:"pt"`
	D     time.Duration         `json:"d"`
	Q     resource.Quantity     `json:"q"`
	RL    ResourceList          `json:"rl"`
	IOS   intstr.IntOrString    `json:"ios"`
	Sel   *metav1.LabelSelector `json:"sel"`
	K     Kind                  `json:"k"`
	C     customScalar          `json:"c"`
	CW    customUnion           `json:"cw"`
	Skip  string                `json:"-"`
	NoTag string
	decodeEmbedded
	Meta ObjectMeta `json:"metadata"`
}

type decodeInner struct {
	Name  string `json:"name"`
	Count int32  `json:"count"`
}

type decodeEmbedded struct {
	Promoted string `json:"promoted"`
}

// customScalar decodes "a:b" into two parts and rejects anything else.
type customScalar struct{ A, B string }

func (c *customScalar) DecodeYAML(n *yaml.Node) error {
	a, b, ok := strings.Cut(n.Value, ":")
	if n.Kind != yaml.ScalarNode || !ok {
		return errors.New(`want "a:b"`)
	}
	c.A, c.B = a, b
	return nil
}

// customUnion looks at `type` and decodes the rest into the matching struct.
type customUnion struct {
	Inner *decodeInner
	Named *decodeEmbedded
}

func (c *customUnion) DecodeYAMLWith(d *Decoder, n *yaml.Node) {
	n = d.Resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		d.Fail(n, "expected a mapping", "")
		return
	}
	var typ string
	rest := *n
	rest.Content = nil
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "type" {
			d.DecodeField(n.Content[i+1], "type", &typ)
			continue
		}
		rest.Content = append(rest.Content, n.Content[i], n.Content[i+1])
	}
	switch typ {
	case "inner":
		c.Inner = &decodeInner{}
		d.Decode(&rest, c.Inner)
	case "named":
		c.Named = &decodeEmbedded{}
		d.Decode(&rest, c.Named)
	default:
		d.Fail(n, fmt.Sprintf("unknown type %q", typ), `use "inner" or "named"`)
	}
}

func parseNode(t *testing.T, src string) *yaml.Node {
	t.Helper()
	var n yaml.Node
	require.NoError(t, yaml.Unmarshal([]byte(src), &n))
	return &n
}

func errStrings(errs []error) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	return out
}

func warnStrings(ws []Warning) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.String()
	}
	return out
}

func TestDecodeNodeValues(t *testing.T) {
	src := `
s: hello
b: true
i: -5
i8: 127
i16: -32768
i32: 2147483647
i64: -9223372036854775808
u: 7
u8: 255
u16: 65535
u32: 4294967295
u64: 18446744073709551615
f: 1.5
f32: 2
p: 3
ps: {name: x, count: 2}
l: [a, b]
ls:
  - name: one
  - name: two
    count: 9
m: {a: 1, b: 2}
mk: {Pod: pods}
inner: {name: in}
t: 90s
pt: 1.5
d: 1m30s
q: 100m
rl: {cpu: "2", memory: 128Mi, pods: 110}
ios: 25%
sel:
  matchLabels: {app: web}
  matchExpressions:
    - {key: tier, operator: In, values: [a, b]}
k: ReplicaSet
c: "x:y"
cw: {type: inner, name: n, count: 4}
NoTag: plain
promoted: yes-promoted
metadata: {name: web, labels: {app: web}}
`
	var got decodeAll
	warnings, errs := DecodeNode(parseNode(t, src), &got, DecodeOptions{File: "v.yaml", Strict: true})
	require.Empty(t, errs)
	require.Empty(t, warnings)

	want := decodeAll{
		S: "hello", B: true, I: -5, I8: 127, I16: -32768, I32: 2147483647, I64: -9223372036854775808,
		U: 7, U8: 255, U16: 65535, U32: 4294967295, U64: 18446744073709551615,
		F: 1.5, F32: 2, P: Ptr(int32(3)), PS: &decodeInner{Name: "x", Count: 2},
		L:  []string{"a", "b"},
		LS: []decodeInner{{Name: "one"}, {Name: "two", Count: 9}},
		M:  map[string]int{"a": 1, "b": 2}, MK: map[Kind]string{KindPod: "pods"},
		Inner: decodeInner{Name: "in"},
		T:     vtime.Time(90 * time.Second), PT: Ptr(vtime.Time(1500 * time.Millisecond)),
		D:   90 * time.Second,
		Q:   resource.MustParse("100m"),
		RL:  ResourceList{"cpu": resource.MustParse("2"), "memory": resource.MustParse("128Mi"), "pods": resource.MustParse("110")},
		IOS: intstr.FromString("25%"),
		Sel: &metav1.LabelSelector{
			MatchLabels:      map[string]string{"app": "web"},
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"a", "b"}}},
		},
		K:              KindReplicaSet,
		C:              customScalar{A: "x", B: "y"},
		CW:             customUnion{Inner: &decodeInner{Name: "n", Count: 4}},
		NoTag:          "plain",
		decodeEmbedded: decodeEmbedded{Promoted: "yes-promoted"},
		Meta:           ObjectMeta{Name: "web", Labels: map[string]string{"app": "web"}},
	}
	// Quantities carry a cached string; compare them by value, then the rest exactly.
	assert.Equal(t, 0, want.Q.Cmp(got.Q))
	for k, q := range want.RL {
		assert.Equal(t, 0, q.Cmp(got.RL[k]), k)
	}
	want.Q, got.Q, want.RL, got.RL = resource.Quantity{}, resource.Quantity{}, nil, nil
	assert.Equal(t, want, got)
}

func TestDecodeNodeScalarForms(t *testing.T) {
	tests := []struct {
		name, src string
		check     func(t *testing.T, got decodeAll)
	}{
		{"int hex", "i: 0x10", func(t *testing.T, g decodeAll) { assert.Equal(t, 16, g.I) }},
		{"int-or-string int", "ios: 3", func(t *testing.T, g decodeAll) { assert.Equal(t, intstr.FromInt32(3), g.IOS) }},
		{"time integer seconds", "t: 120", func(t *testing.T, g decodeAll) { assert.Equal(t, vtime.Time(120*time.Second), g.T) }},
		{"time zero", "t: 0", func(t *testing.T, g decodeAll) { assert.Equal(t, vtime.Time(0), g.T) }},
		{"duration zero without unit", "d: 0", func(t *testing.T, g decodeAll) { assert.Equal(t, time.Duration(0), g.D) }},
		{"quantity integer", "q: 3", func(t *testing.T, g decodeAll) { assert.Equal(t, int64(3), g.Q.Value()) }},
		{"quantity float", "q: 0.5", func(t *testing.T, g decodeAll) { assert.Equal(t, int64(500), g.Q.MilliValue()) }},
		{"null leaves pointer nil", "p: null\nps: ~", func(t *testing.T, g decodeAll) { assert.Nil(t, g.P); assert.Nil(t, g.PS) }},
		{"empty value is null", "l:\ns: ", func(t *testing.T, g decodeAll) { assert.Nil(t, g.L); assert.Equal(t, "", g.S) }},
		{"timestamp-looking string", "s: 2001-12-14", func(t *testing.T, g decodeAll) { assert.Equal(t, "2001-12-14", g.S) }},
		{"float accepts integer", "f: 3", func(t *testing.T, g decodeAll) { assert.Equal(t, 3.0, g.F) }},
		{"named second custom branch", "cw: {type: named, promoted: p}", func(t *testing.T, g decodeAll) {
			assert.Equal(t, &decodeEmbedded{Promoted: "p"}, g.CW.Named)
		}},
		{"document node", "---\ns: doc\n", func(t *testing.T, g decodeAll) { assert.Equal(t, "doc", g.S) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got decodeAll
			warnings, errs := DecodeNode(parseNode(t, tc.src), &got, DecodeOptions{Strict: true})
			require.Empty(t, errs)
			require.Empty(t, warnings)
			tc.check(t, got)
		})
	}
}

func TestDecodeNodeErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"mapping for string", "s: {a: 1}", []string{`f.yaml:1:4: s: expected a string, got a mapping`}},
		{"sequence for string", "s:\n  - a", []string{`f.yaml:2:3: s: expected a string, got a sequence`}},
		{"number for string", "s: 1.0", []string{`f.yaml:1:4: s: expected a string, got a number (1.0) (quote it: "1.0")`}},
		{"bool for string", "s: true", []string{`f.yaml:1:4: s: expected a string, got a boolean (true) (quote it: "true")`}},
		{"string for int", "i: abc", []string{`f.yaml:1:4: i: expected an integer, got a string "abc"`}},
		{"quoted int", `i: "5"`, []string{`f.yaml:1:4: i: expected an integer, got a string "5" (remove the quotes)`}},
		{"float for int", "i32: 1.5", []string{`f.yaml:1:6: i32: expected an integer, got a number (1.5)`}},
		{"int8 overflow", "i8: 128", []string{`f.yaml:1:5: i8: 128 is out of range for int8 (must be between -128 and 127)`}},
		{"int32 overflow", "i32: 2147483648", []string{`f.yaml:1:6: i32: 2147483648 is out of range for int32 (must be between -2147483648 and 2147483647)`}},
		{"int64 overflow", "i64: 9223372036854775808", []string{`f.yaml:1:6: i64: 9223372036854775808 is out of range for int64 (must be between -9223372036854775808 and 9223372036854775807)`}},
		{"negative uint", "u: -1", []string{`f.yaml:1:4: u: expected a non-negative integer, got -1`}},
		{"uint8 overflow", "u8: 256", []string{`f.yaml:1:5: u8: 256 is out of range for uint8 (must be between 0 and 255)`}},
		{"string for bool", "b: yes", []string{`f.yaml:1:4: b: expected a boolean (true or false), got a string "yes"`}},
		{"quoted bool", `b: "true"`, []string{`f.yaml:1:4: b: expected a boolean (true or false), got a string "true" (remove the quotes)`}},
		{"string for float", "f: fast", []string{`f.yaml:1:4: f: expected a number, got a string "fast"`}},
		{"scalar for struct", "inner: x", []string{`f.yaml:1:8: inner: expected a mapping, got a string "x"`}},
		{"scalar for slice", "l: x", []string{`f.yaml:1:4: l: expected a sequence, got a string "x"`}},
		{"scalar for map", "m: x", []string{`f.yaml:1:4: m: expected a mapping, got a string "x"`}},
		{"bad time", "t: soon", []string{`f.yaml:1:4: t: invalid time "soon" (` + simTimeHint + `)`}},
		{"negative time", "t: -5s", []string{`f.yaml:1:4: t: time -5s is negative (` + simTimeHint + `)`}},
		{"time out of range", "t: 99999999999999", []string{`f.yaml:1:4: t: time 99999999999999 seconds is out of range (at most 292 years)`}},
		{"rfc3339 time", "t: 2024-01-01T00:00:00Z", []string{`f.yaml:1:4: t: expected a time, got a timestamp "2024-01-01T00:00:00Z" (` + simTimeHint + `)`}},
		{"duration without unit", "d: 90", []string{`f.yaml:1:4: d: duration 90 has no unit (add a unit, e.g. "90s")`}},
		{"bad duration", "d: 5 minutes", []string{`f.yaml:1:4: d: invalid duration "5 minutes" (use a Go duration such as "30s", "1m30s" or "500ms")`}},
		{"bad quantity", "q: lots", []string{`f.yaml:1:4: q: invalid quantity "lots" (a quantity is a number with an optional suffix, e.g. "100m", "0.5", "128Mi", "2Gi")`}},
		{"quantity in resource list", "rl: {cpu: 1x}", []string{`f.yaml:1:11: rl.cpu: invalid quantity "1x" (a quantity is a number with an optional suffix, e.g. "100m", "0.5", "128Mi", "2Gi")`}},
		{"bool for quantity", "q: true", []string{`f.yaml:1:4: q: expected a quantity, got a boolean (true) (a quantity is a number with an optional suffix, e.g. "100m", "0.5", "128Mi", "2Gi")`}},
		{"int-or-string out of range", "ios: 3000000000", []string{`f.yaml:1:6: ios: 3000000000 is out of range for an int-or-string (must be between -2147483648 and 2147483647)`}},
		{"int-or-string bool", "ios: false", []string{`f.yaml:1:6: ios: expected an integer or a string, got a boolean (false) (e.g. 3 or "25%")`}},
		{"selector label value type", "sel: {matchLabels: {app: 1}}", []string{`f.yaml:1:26: sel.matchLabels.app: expected a string, got an integer (1) (quote it: "1")`}},
		{"nested path in slice", "ls:\n  - name: a\n  - count: x", []string{`f.yaml:3:12: ls[1].count: expected an integer, got a string "x"`}},
		{"map key with dots", "metadata: {labels: {app.kubernetes.io/name: 3}}", []string{`f.yaml:1:45: metadata.labels[app.kubernetes.io/name]: expected a string, got an integer (3) (quote it: "3")`}},
		{"custom decoder error", "c: nocolon", []string{`f.yaml:1:4: c: want "a:b"`}},
		{"custom decoder with decoder", "cw: {type: other}", []string{`f.yaml:1:5: cw: unknown type "other" (use "inner" or "named")`}},
		{"custom decoder nested error", "cw: {type: inner, count: x}", []string{`f.yaml:1:26: cw.count: expected an integer, got a string "x"`}},
		{"duplicate key", "s: a\ns: b", []string{`f.yaml:2:1: s: duplicate key "s" (first at line 1, column 1)`}},
		{"non-string key", "m: {[a]: 1}", []string{`f.yaml:1:5: m: mapping keys must be strings, got a sequence`}},
		{"merge of nested sequence", "inner: {<<: [[{name: a}]]}", []string{`f.yaml:1:14: inner: a merge key (<<) takes a mapping or a sequence of mappings, got a sequence`}},
		{"merge of scalar", "inner: {<<: x}", []string{`f.yaml:1:13: inner: a merge key (<<) takes a mapping or a sequence of mappings, got a string "x"`}},
		{"all errors collected", "i: x\nb: 1\nls: [{count: y}]", []string{
			`f.yaml:1:4: i: expected an integer, got a string "x"`,
			`f.yaml:2:4: b: expected a boolean (true or false), got an integer (1)`,
			`f.yaml:3:14: ls[0].count: expected an integer, got a string "y"`,
		}},
		{"unknown field strict with suggestion", "inner: {nmae: x}", []string{`f.yaml:1:9: inner.nmae: unknown field "nmae" (did you mean "name"?)`}},
		{"unknown field strict case", "Inner: {}", []string{`f.yaml:1:1: Inner: unknown field "Inner" (did you mean "inner"?)`}},
		{"unknown field strict no suggestion", "inner: {zzzzzzzz: 1}", []string{`f.yaml:1:9: inner.zzzzzzzz: unknown field "zzzzzzzz" (known fields: count, name)`}},
		{"skipped field is unknown", "Skip: x", []string{`f.yaml:1:1: Skip: unknown field "Skip" (known fields: NoTag, b, c, cw, d, f, f32, i, i16, i32, i64, i8, inner, ios, k, l, ls, m, metadata, mk, p, promoted, ps, pt, q, rl, s, sel, t, u, u16, u32, u64, u8)`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got decodeAll
			warnings, errs := DecodeNode(parseNode(t, tc.src), &got, DecodeOptions{File: "f.yaml", Strict: true})
			assert.Empty(t, warnings)
			assert.Equal(t, tc.want, errStrings(errs))
			for _, e := range errs {
				var de *DecodeError
				require.ErrorAs(t, e, &de)
				assert.Equal(t, "f.yaml", de.Pos.File)
			}
		})
	}
}

func TestDecodeNodeUnknownFieldWarnings(t *testing.T) {
	src := `
inner: {name: a, extra: 1}
ls:
  - {name: a, port: 1}
  - {name: b, port: 2}
replicaz: 3
`
	// The same unknown field reached twice through an alias gives one warning.
	src += "again: &x {name: a, port: 1}\nps: *x\nps2: *x\n"
	var got decodeAll
	warnings, errs := DecodeNode(parseNode(t, src), &got, DecodeOptions{File: "w.yaml"})
	require.Empty(t, errs)
	assert.Equal(t, []string{
		`w.yaml:2:18: inner.extra: unknown field "extra", ignored`,
		`w.yaml:4:15: ls[0].port: unknown field "port", ignored`,
		`w.yaml:5:15: ls[1].port: unknown field "port", ignored`,
		`w.yaml:6:1: replicaz: unknown field "replicaz", ignored`,
		`w.yaml:7:1: again: unknown field "again", ignored`,
		`w.yaml:7:21: ps.port: unknown field "port", ignored`,
		`w.yaml:9:1: ps2: unknown field "ps2", ignored; did you mean "ps"?`,
	}, warnStrings(warnings))
	assert.Equal(t, "a", got.Inner.Name)
	assert.Equal(t, &decodeInner{Name: "a"}, got.PS)
}

func TestDecodeNodeWarningsDeduplicatedByPath(t *testing.T) {
	// Both merged maps carry the unknown key; the path is the same, so one warning.
	src := "xa: &a {zzz: 1}\nxb: &b {zzz: 2}\ninner:\n  <<: [*a, *b]\n  name: n\n"
	var got decodeAll
	warnings, errs := DecodeNode(parseNode(t, src), &got, DecodeOptions{File: "w.yaml"})
	require.Empty(t, errs)
	var paths []string
	for _, w := range warnings {
		paths = append(paths, w.Path)
	}
	assert.Equal(t, []string{"xa", "xb", "inner.zzz"}, paths)
}

func TestDecodeNodeAliasesAndMerge(t *testing.T) {
	src := `
base: &base {name: shared, count: 1}
ls:
  - *base
  - <<: *base
    count: 2
  - <<: [{name: first}, {name: second, count: 7}]
`
	var got decodeAll
	_, errs := DecodeNode(parseNode(t, src), &got, DecodeOptions{})
	require.Empty(t, errs)
	assert.Equal(t, []decodeInner{{Name: "shared", Count: 1}, {Name: "shared", Count: 2}, {Name: "first", Count: 7}}, got.LS)
}

type decodeTree struct {
	Kids []decodeTree `json:"kids"`
}

func TestDecodeNodeRecursiveAlias(t *testing.T) {
	// yaml.v3 leaves recursion in a node tree for the consumer to catch; with a recursive Go
	// type the decoder would otherwise loop forever.
	n := parseNode(t, "kids: &a [{kids: *a}]\n")
	var tree decodeTree
	_, errs := DecodeNode(n, &tree, DecodeOptions{File: "r.yaml"})
	assert.Equal(t, []string{
		"r.yaml:1:18: kids[0].kids[0].kids: alias *a refers to a value that contains it (an anchor cannot contain an alias to itself)",
	}, errStrings(errs))

	var got decodeAll
	n = parseNode(t, "inner: &m {<<: *m}\n")
	_, errs = DecodeNode(n, &got, DecodeOptions{File: "r.yaml"})
	assert.Equal(t, []string{
		"r.yaml:1:16: inner: alias *m refers to a value that contains it (an anchor cannot contain an alias to itself)",
	}, errStrings(errs))
}

func TestDecodeNodeAliasBomb(t *testing.T) {
	src := testsupport.AliasBomb(8) + "bomb: *a8\n"
	type bomb struct {
		Bomb [][][][][][][][][]string `json:"bomb"`
	}
	var got bomb
	warnings, errs := DecodeNode(parseNode(t, src), &got, DecodeOptions{File: "bomb.yaml", MaxNodes: 100_000})
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0].Error(), "document expands to more than 100000 values")
	assert.Len(t, warnings, 9) // a0..a8 are unknown fields
}

func TestDecodeNodeTooManyErrors(t *testing.T) {
	var b strings.Builder
	b.WriteString("ls:\n")
	for i := 0; i < maxDecodeErrors+50; i++ {
		b.WriteString("  - {count: x}\n")
	}
	var got decodeAll
	_, errs := DecodeNode(parseNode(t, b.String()), &got, DecodeOptions{})
	require.Len(t, errs, maxDecodeErrors+1)
	assert.Contains(t, errs[maxDecodeErrors].Error(), "too many errors")
}

func TestDecodeNodeBadTarget(t *testing.T) {
	var got decodeAll
	_, errs := DecodeNode(parseNode(t, "s: x"), got, DecodeOptions{})
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0].Error(), "must be a non-nil pointer")
	_, errs = DecodeNode(nil, &got, DecodeOptions{})
	assert.Empty(t, errs)
}

func TestDecodeNodePathPrefix(t *testing.T) {
	var got decodeAll
	_, errs := DecodeNode(parseNode(t, "i: x"), &got, DecodeOptions{File: "s.yaml", Path: "cluster.objects[2]"})
	require.Len(t, errs, 1)
	assert.Equal(t, `s.yaml:1:4: cluster.objects[2].i: expected an integer, got a string "x"`, errs[0].Error())
}

func TestDecodeErrorFormatting(t *testing.T) {
	tests := []struct {
		err  DecodeError
		want string
	}{
		{DecodeError{Pos: Position{File: "a.yaml", Line: 3, Column: 7}, Path: "spec.replicas", Msg: "bad", Hint: "fix it"}, "a.yaml:3:7: spec.replicas: bad (fix it)"},
		{DecodeError{Pos: Position{File: "a.yaml", Line: 3, Column: 7}, Msg: "bad"}, "a.yaml:3:7: bad"},
		{DecodeError{Pos: Position{Line: 1, Column: 2}, Path: "x", Msg: "bad"}, "1:2: x: bad"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, tc.err.Error())
	}
	errs := DecodeErrors{&tests[0].err, &tests[1].err}
	assert.Equal(t, "a.yaml:3:7: spec.replicas: bad (fix it)\na.yaml:3:7: bad", errs.Error())
	var de *DecodeError
	require.ErrorAs(t, error(errs), &de)
	assert.Equal(t, "bad", de.Msg)
	assert.Equal(t, "w.yaml:1:1: p: m", Warning{Pos: Position{File: "w.yaml", Line: 1, Column: 1}, Path: "p", Msg: "m"}.String())
}

func TestSuggest(t *testing.T) {
	known := []string{"containers", "image", "name", "replicas", "restartPolicy", "selector"}
	tests := []struct{ in, want string }{
		{"replica", "replicas"},
		{"Replicas", "replicas"},
		{"restartpolicy", "restartPolicy"},
		{"imagee", "image"},
		{"contaners", "containers"},
		{"selectr", "selector"},
		{"zzzzzz", ""},
		{strings.Repeat("a", maxSuggestInput+1), ""},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, suggest.Nearest(tc.in, known, maxSuggestInput), tc.in)
	}
}

// upperString uses yaml.v3's own Unmarshaler interface.
type upperString string

func (u *upperString) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	if s == "" {
		return errors.New("empty")
	}
	*u = upperString(strings.ToUpper(s))
	return nil
}

// twoProblems returns several errors at once, one already positioned.
type twoProblems struct{}

func (twoProblems) DecodeYAML(n *yaml.Node) error {
	return DecodeErrors{
		&DecodeError{Msg: "first", Hint: "h"},
		&DecodeError{Pos: Position{Line: 9, Column: 9}, Path: "elsewhere", Msg: "second"},
		errors.New("third"),
	}
}

func TestDecodeNodeOtherCustomDecoders(t *testing.T) {
	type target struct {
		U upperString `json:"u"`
		T twoProblems `json:"t"`
	}
	var got target
	_, errs := DecodeNode(parseNode(t, "u: shout\n"), &got, DecodeOptions{File: "c.yaml"})
	require.Empty(t, errs)
	assert.Equal(t, upperString("SHOUT"), got.U)

	_, errs = DecodeNode(parseNode(t, "u: ''\nt: x\n"), &got, DecodeOptions{File: "c.yaml"})
	assert.Equal(t, []string{
		"c.yaml:1:4: u: empty",
		"c.yaml:2:4: t: first (h)",
		"c.yaml:9:9: elsewhere: second",
		"c.yaml:2:4: t: third",
	}, errStrings(errs))
}

// TestDecimalIntMatchesYAMLv3 checks the integer fast path against yaml.v3's decoding of the
// same !!int scalar: equal where it reads the text, and the rest left to yaml.v3.
func TestDecimalIntMatchesYAMLv3(t *testing.T) {
	for _, tc := range []struct {
		text string
		fast bool
	}{
		{"0", true}, {"7", true}, {"80", true}, {"-1", true},
		{"123456789012345678", true}, {"-123456789012345678", true},
		{"1234567890123456789", false}, {"9223372036854775807", false},
		{"-0", false}, {"00", false}, {"010", false}, {"+5", false}, {"0x1f", false},
		{"0o17", false}, {"1_000", false}, {"", false}, {"-", false}, {"1e3", false}, {"12a", false},
	} {
		i, ok := decimalInt(tc.text)
		if ok != tc.fast {
			t.Errorf("decimalInt(%q) ok = %v, want %v", tc.text, ok, tc.fast)
		}
		if !ok {
			continue
		}
		var want int64
		if err := (&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: tc.text}).Decode(&want); err != nil || i != want {
			t.Errorf("decimalInt(%q) = %d, yaml.v3 reads %d (%v)", tc.text, i, want, err)
		}
	}
}
