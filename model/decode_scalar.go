package model

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/reconsim/reconsim/vtime"
	"gopkg.in/yaml.v3"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Scalar decoding. Tags are yaml.v3's resolution of the plain text (!!int for 5, !!str for
// "5"); like Kubernetes' own JSON-based decoding, a value of the wrong YAML type is an error
// rather than being converted, so `replicas: "3"` and `version: 1.0` (a number, in a label)
// are caught.

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

func isQuoted(n *yaml.Node) bool {
	return n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0
}

// plainTag is the tag the scalar's text would get if it were written without quotes.
func plainTag(n *yaml.Node) string {
	probe := yaml.Node{Kind: yaml.ScalarNode, Value: n.Value}
	return probe.ShortTag()
}

// describe names what a node holds, for "expected X, got Y" messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a sequence"
	case yaml.AliasNode:
		return "an alias"
	case yaml.DocumentNode:
		return "a document"
	}
	v := n.Value
	if n.Kind == yaml.ScalarNode && n.Style == 0 && len(v) > 40 && n.ShortTag() == "!!str" {
		// A long unquoted text is what a file that is not YAML (a password file, a log)
		// parses as: say what it is without printing its content.
		return fmt.Sprintf("a text of %d characters", utf8.RuneCountInString(v))
	}
	if len(v) > 40 {
		v = truncateUTF8(v, 40) + "..."
	}
	switch n.ShortTag() {
	case "!!str":
		return fmt.Sprintf("a string %q", v)
	case "!!int":
		return "an integer (" + v + ")"
	case "!!float":
		return "a number (" + v + ")"
	case "!!bool":
		return "a boolean (" + v + ")"
	case "!!null":
		return "null"
	case "!!timestamp":
		return fmt.Sprintf("a timestamp %q", v)
	}
	return fmt.Sprintf("a %s value %q", n.ShortTag(), v)
}

func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// typeError reports a node of the wrong shape. When the value is a quoted scalar that would
// have the wanted type without quotes, the hint says to remove them.
func (d *Decoder) typeError(n *yaml.Node, path, want, wantTag string) {
	hint := ""
	if n.Kind == yaml.ScalarNode && isQuoted(n) && wantTag != "" && plainTag(n) == wantTag {
		hint = "remove the quotes"
	}
	d.fail(n, path, fmt.Sprintf("expected %s, got %s", want, describe(n)), hint)
}

func (d *Decoder) decodeString(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.ScalarNode {
		d.typeError(n, path, "a string", "")
		return
	}
	switch n.ShortTag() {
	case "!!int", "!!float", "!!bool":
		// Kubernetes (JSON underneath) refuses these too: `version: 1.0` is a number.
		d.fail(n, path, fmt.Sprintf("expected a string, got %s", describe(n)), fmt.Sprintf("quote it: %q", n.Value))
		return
	}
	v.SetString(n.Value)
}

func (d *Decoder) decodeBool(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
		d.typeError(n, path, "a boolean (true or false)", "!!bool")
		return
	}
	var b bool
	if err := n.Decode(&b); err != nil {
		d.fail(n, path, fmt.Sprintf("invalid boolean %q", n.Value), "use true or false")
		return
	}
	v.SetBool(b)
}

// parseInteger reads an !!int scalar as a signed value, or, when it does not fit int64, as an
// unsigned one (big is then true).
func parseInteger(n *yaml.Node) (i int64, u uint64, big bool, err error) {
	if i, ok := decimalInt(n.Value); ok {
		return i, 0, false, nil
	}
	return parseIntegerYAML(n)
}

// parseIntegerYAML is parseInteger for what decimalInt does not read. It is a function of its
// own so that the values yaml.v3 decodes into move to the heap here only, not on every integer
// (two allocations for each of a large scenario's port numbers).
func parseIntegerYAML(n *yaml.Node) (i int64, u uint64, big bool, err error) {
	if err = n.Decode(&i); err == nil {
		return i, 0, false, nil
	}
	if err = n.Decode(&u); err == nil {
		return 0, u, true, nil
	}
	return 0, 0, false, err
}

// decimalInt reads the integers nearly every manifest has (0, 80, -1: a decimal of at most 18
// digits without a sign other than '-', leading zeros or underscores) the way yaml.v3 reads
// them (resolve.go, strconv.ParseInt), without the decoder yaml.v3 allocates for Node.Decode.
// ok is false for any other text, which is then left to yaml.v3.
func decimalInt(s string) (i int64, ok bool) {
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || len(digits) > 18 || (digits[0] == '0' && len(s) > 1) {
		return 0, false
	}
	for j := 0; j < len(digits); j++ {
		c := digits[j]
		if c < '0' || c > '9' {
			return 0, false
		}
		i = i*10 + int64(c-'0')
	}
	if len(digits) < len(s) {
		i = -i
	}
	return i, true
}

func (d *Decoder) decodeInt(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
		d.typeError(n, path, "an integer", "!!int")
		return
	}
	i, u, big, err := parseInteger(n)
	if err != nil {
		d.fail(n, path, fmt.Sprintf("invalid integer %q", n.Value), "")
		return
	}
	t := v.Type()
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if big || v.OverflowInt(i) {
			bits := t.Bits()
			lo, hi := int64(-1)<<(bits-1), int64(uint64(1)<<(bits-1)-1)
			d.fail(n, path, fmt.Sprintf("%s is out of range for %s", n.Value, t), fmt.Sprintf("must be between %d and %d", lo, hi))
			return
		}
		v.SetInt(i)
	default:
		if !big && i < 0 {
			d.fail(n, path, fmt.Sprintf("expected a non-negative integer, got %s", n.Value), "")
			return
		}
		if !big {
			u = uint64(i)
		}
		if v.OverflowUint(u) {
			hi := uint64(math.MaxUint64) >> (64 - t.Bits())
			d.fail(n, path, fmt.Sprintf("%s is out of range for %s", n.Value, t), fmt.Sprintf("must be between 0 and %d", hi))
			return
		}
		v.SetUint(u)
	}
}

func (d *Decoder) decodeFloat(n *yaml.Node, v reflect.Value, path string) {
	tag := n.ShortTag()
	if n.Kind != yaml.ScalarNode || (tag != "!!float" && tag != "!!int") {
		d.typeError(n, path, "a number", "!!float")
		return
	}
	var f float64
	if err := n.Decode(&f); err != nil {
		d.fail(n, path, fmt.Sprintf("invalid number %q", n.Value), "")
		return
	}
	if v.OverflowFloat(f) {
		d.fail(n, path, fmt.Sprintf("%s is out of range for %s", n.Value, v.Type()), "")
		return
	}
	v.SetFloat(f)
}

const simTimeHint = `a time is virtual time since the start of the run: a duration such as "90s" or "1m30s", or a number of seconds`

func (d *Decoder) decodeSimTime(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.ScalarNode {
		d.typeError(n, path, "a time", "")
		return
	}
	var t vtime.Time
	switch n.ShortTag() {
	case "!!str":
		dur, err := time.ParseDuration(n.Value)
		if err != nil {
			d.fail(n, path, fmt.Sprintf("invalid time %q", n.Value), simTimeHint)
			return
		}
		t = vtime.FromDuration(dur)
	case "!!int":
		i, _, big, err := parseInteger(n)
		if err != nil || big || i > math.MaxInt64/int64(time.Second) || i < math.MinInt64/int64(time.Second) {
			d.fail(n, path, fmt.Sprintf("time %s seconds is out of range", n.Value), "at most 292 years")
			return
		}
		t = vtime.Time(i * int64(time.Second))
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil || math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) >= math.MaxInt64/float64(time.Second) {
			d.fail(n, path, fmt.Sprintf("time %s seconds is out of range", n.Value), "at most 292 years")
			return
		}
		t = vtime.Time(math.Round(f * float64(time.Second)))
	default:
		d.fail(n, path, fmt.Sprintf("expected a time, got %s", describe(n)), simTimeHint)
		return
	}
	if t < 0 {
		d.fail(n, path, fmt.Sprintf("time %s is negative", n.Value), simTimeHint)
		return
	}
	v.SetInt(int64(t))
}

func (d *Decoder) decodeDuration(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.ScalarNode {
		d.typeError(n, path, "a duration", "")
		return
	}
	switch n.ShortTag() {
	case "!!str":
		dur, err := time.ParseDuration(n.Value)
		if err != nil {
			d.fail(n, path, fmt.Sprintf("invalid duration %q", n.Value), `use a Go duration such as "30s", "1m30s" or "500ms"`)
			return
		}
		v.SetInt(int64(dur))
	case "!!int", "!!float":
		if f, err := strconv.ParseFloat(n.Value, 64); err == nil && f == 0 {
			v.SetInt(0)
			return
		}
		d.fail(n, path, fmt.Sprintf("duration %s has no unit", n.Value), fmt.Sprintf("add a unit, e.g. %q", n.Value+"s"))
	default:
		d.fail(n, path, fmt.Sprintf("expected a duration, got %s", describe(n)), `use a Go duration such as "30s", "1m30s" or "500ms"`)
	}
}

func (d *Decoder) decodeQuantity(n *yaml.Node, v reflect.Value, path string) {
	const hint = `a quantity is a number with an optional suffix, e.g. "100m", "0.5", "128Mi", "2Gi"`
	tag := n.ShortTag()
	if n.Kind != yaml.ScalarNode || (tag != "!!str" && tag != "!!int" && tag != "!!float") {
		d.fail(n, path, fmt.Sprintf("expected a quantity, got %s", describe(n)), hint)
		return
	}
	q, err := resource.ParseQuantity(n.Value)
	if err != nil {
		d.fail(n, path, fmt.Sprintf("invalid quantity %q", n.Value), hint)
		return
	}
	v.Set(reflect.ValueOf(q))
}

func (d *Decoder) decodeIntOrString(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.ScalarNode {
		d.typeError(n, path, "an integer or a string", "")
		return
	}
	switch n.ShortTag() {
	case "!!int":
		i, _, big, err := parseInteger(n)
		if err != nil || big || i < math.MinInt32 || i > math.MaxInt32 {
			d.fail(n, path, fmt.Sprintf("%s is out of range for an int-or-string", n.Value), "must be between -2147483648 and 2147483647")
			return
		}
		v.Set(reflect.ValueOf(intstr.FromInt32(int32(i))))
	case "!!str":
		v.Set(reflect.ValueOf(intstr.FromString(n.Value)))
	default:
		d.fail(n, path, fmt.Sprintf("expected an integer or a string, got %s", describe(n)), `e.g. 3 or "25%"`)
	}
}
