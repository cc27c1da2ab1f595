package sweep

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/reconsim/reconsim/internal/boundedfile"
	"github.com/reconsim/reconsim/internal/flagtab"
	"github.com/reconsim/reconsim/internal/suggest"
	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/scenarios"
)

// Errors is every problem found in a sweep file (and in the scenario it names), each with its
// file:line:col, field path, message and, when there is one, a hint, sorted by file and
// position. Parse and Load return it, never empty, when the sweep is invalid.
type Errors = model.ErrorList

// Load reads and parses the sweep file at path; a scenario path inside it is relative to the
// file's directory. It returns the read error if the file cannot be read, and otherwise what
// Parse returns.
func Load(path string) (*Spec, []model.Warning, error) {
	return LoadWithOptions(path, scenarios.ParseOptions{})
}

// LoadWithOptions is Load with the options the scenario is parsed with. AllowOutsidePaths
// also lets the sweep's scenario: name a file outside the sweep file's directory.
func LoadWithOptions(path string, opts scenarios.ParseOptions) (*Spec, []model.Warning, error) {
	data, err := boundedfile.Read(path, MaxFileBytes)
	if err != nil {
		return nil, nil, err
	}
	return ParseWithOptions(path, data, filepath.Dir(path), opts)
}

// Parse parses and validates a sweep file. file names it in positions and in Spec.File;
// baseDir is the directory a scenario path is relative to ("" is the current directory).
// It loads the scenario the sweep names and checks every parameter value and every grid
// point against it, as `sim run --set` would. It returns the Spec and the scenario's
// warnings; when anything is wrong the Spec is nil and the error is Errors, holding every
// problem found. Parse never panics on any input.
func Parse(file string, data []byte, baseDir string) (*Spec, []model.Warning, error) {
	return ParseWithOptions(file, data, baseDir, scenarios.ParseOptions{})
}

// ParseWithOptions is Parse with the options the scenario is parsed with (see
// LoadWithOptions).
func ParseWithOptions(file string, data []byte, baseDir string, opts scenarios.ParseOptions) (*Spec, []model.Warning, error) {
	p := &parser{file: file, baseDir: baseDir, spec: &Spec{File: file, scenarioOpts: opts}}
	if len(data) > MaxFileBytes {
		p.errAt(nil, "", fmt.Sprintf("the file is %d bytes, more than the limit of %d", len(data), MaxFileBytes), "")
		return nil, nil, p.errs
	}
	root := p.parseYAML(data)
	if root == nil {
		return nil, nil, p.errs
	}
	var raw rawSpec
	warns, errs := model.DecodeNode(root, &raw, model.DecodeOptions{File: file, Strict: true})
	for _, e := range errs {
		var de *model.DecodeError
		if errors.As(e, &de) {
			p.errs = append(p.errs, de)
		} else {
			p.errAt(root, "", e.Error(), "")
		}
	}
	p.warns = append(p.warns, warns...)
	p.check(root, &raw)
	if len(p.errs) > 0 {
		return nil, p.warns, p.errs.Sorted(p.file)
	}
	return p.spec, p.warns, nil
}

// parser holds the state of one Parse.
type parser struct {
	file, baseDir string
	spec          *Spec
	errs          Errors
	warns         []model.Warning
	// scenario is the parsed scenario, nil if it could not be loaded (checks that need it
	// are then skipped).
	scenario *scenarios.Scenario
	// sampleNode is where sample: is written, for problems found with the grid.
	sampleNode *yaml.Node
}

// overLimit reports, at n and path, a list of count items (what: "seeds") longer than limit,
// and whether it was.
func (p *parser) overLimit(n *yaml.Node, path string, count int, what string, limit int) bool {
	if count <= limit {
		return false
	}
	p.errAt(n, path, fmt.Sprintf("%d %s, more than the limit of %d", count, what, limit), "")
	return true
}

func (p *parser) errAt(n *yaml.Node, path, msg, hint string) {
	pos := model.Position{File: p.file, Line: 1, Column: 1}
	if n != nil && n.Line > 0 {
		pos.Line, pos.Column = n.Line, n.Column
	}
	p.errs = append(p.errs, &model.DecodeError{Pos: pos, Path: path, Msg: msg, Hint: hint})
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parseYAML parses the file's one document; nil (with the problem recorded) when there is
// none, the YAML is invalid or there is a second document.
func (p *parser) parseYAML(data []byte) *yaml.Node {
	const hint = "a sweep starts with apiVersion: " + APIVersion + " and kind: " + Kind
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	err := model.DecodeYAMLDocument(dec, &doc)
	if err == io.EOF {
		p.errAt(nil, "", "the file is empty", hint)
		return nil
	}
	if err != nil {
		p.syntaxError(data, err)
		return nil
	}
	if len(doc.Content) == 0 || doc.Content[0].ShortTag() == "!!null" {
		p.errAt(&doc, "", "the file holds no sweep", hint)
		return nil
	}
	var next yaml.Node
	switch err := model.DecodeYAMLDocument(dec, &next); {
	case err == io.EOF:
	case err != nil:
		p.syntaxError(data, err)
		return nil
	default:
		p.errAt(&next, "", "a sweep file holds one YAML document; this is a second one", "remove the --- separator")
		return nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		p.errAt(root, "", fmt.Sprintf("expected a sweep (a mapping), got %s", describe(root)), hint)
		return nil
	}
	return root
}

// syntaxError records a YAML syntax error at the line yaml.v3 names (column 1: it names
// none), or, for a problem it reports without a line (bad UTF-8, an unknown anchor), where
// scanning data finds it.
func (p *parser) syntaxError(data []byte, err error) {
	msg := err.Error()
	line, col := 1, 1
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		if n, convErr := strconv.Atoi(m[1]); convErr == nil && n > 0 {
			line = n
		}
		msg = m[2]
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
		if l, c, ok := model.LocateYAMLProblem(data, err); ok {
			line, col = l, c
		}
	}
	p.errs = append(p.errs, &model.DecodeError{Pos: model.Position{File: p.file, Line: line, Column: col}, Msg: "invalid YAML: " + msg})
}

var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)

// check validates the decoded file and fills p.spec.
func (p *parser) check(root *yaml.Node, raw *rawSpec) {
	s := p.spec
	switch {
	case !raw.APIVersion.set():
		p.errAt(root, "apiVersion", "missing apiVersion", "apiVersion: "+APIVersion)
	case raw.APIVersion.V != APIVersion:
		p.errAt(raw.APIVersion.node, "apiVersion", fmt.Sprintf("unsupported apiVersion %q", raw.APIVersion.V), "apiVersion: "+APIVersion)
	}
	switch {
	case !raw.Kind.set():
		p.errAt(root, "kind", "missing kind", "kind: "+Kind)
	case raw.Kind.V != Kind:
		hint := "kind: " + Kind
		if raw.Kind.V == scenarios.Kind {
			hint = "this is a scenario; run it with `sim run`, or name it in a sweep's scenario:"
		}
		p.errAt(raw.Kind.node, "kind", fmt.Sprintf("expected kind %s, got %q", Kind, raw.Kind.V), hint)
	}
	switch {
	case !raw.Name.set():
		p.errAt(root, "name", "missing name", "name: my-sweep (it names the output directory)")
	case !namePattern.MatchString(raw.Name.V):
		p.errAt(raw.Name.node, "name", fmt.Sprintf("invalid name %q", raw.Name.V),
			"letters, digits, '.', '_' and '-', starting with a letter or digit, at most 100 characters")
	}
	s.Name, s.Description = raw.Name.V, raw.Description

	p.checkScenario(root, raw.Scenario)
	p.checkParameters(&raw.Parameters)
	p.checkSeeds(root, &raw.Seeds)
	p.checkSample(raw.Sample)
	p.checkGrid(&raw.Parameters)
	p.checkMetrics(&raw.Metrics)
	p.checkExpect(raw.Expect)
	if s.Parameters == nil {
		s.Parameters = []Parameter{}
	}
	if s.Metrics == nil {
		s.Metrics = []Metric{}
	}
	if s.Expect == nil {
		s.Expect = []Expectation{}
	}
}

// checkScenario resolves and loads the scenario.
func (p *parser) checkScenario(root *yaml.Node, sc located[string]) {
	if !sc.set() || sc.V == "" {
		p.errAt(root, "scenario", "missing scenario", "scenario: node-failure (a built-in scenario), or the path of a scenario file relative to this file")
		return
	}
	s := p.spec
	s.Scenario = sc.V
	name := sc.V
	isPath := strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") || strings.ContainsAny(name, `/\`)
	if !isPath {
		data, ok := scenarios.Builtin(name)
		if !ok {
			names := scenarios.BuiltinNames()
			msg := fmt.Sprintf("no built-in scenario is called %q", name)
			hint := "built-in scenarios: " + strings.Join(names, ", ") + "; a scenario file is named by its path relative to this file, ending in .yaml"
			if h := didYouMean(name, names); h != "" {
				hint = h + " " + hint
			}
			p.errAt(sc.node, "scenario", msg, hint)
			return
		}
		s.ScenarioPath = name
		p.loadScenario(scenarios.BuiltinFile(name), data, "")
		return
	}
	path := filepath.Clean(name)
	if outside := filepath.IsAbs(path) || path == ".." || strings.HasPrefix(path, ".."+string(filepath.Separator)); outside && !s.scenarioOpts.AllowOutsidePaths {
		p.errAt(sc.node, "scenario", fmt.Sprintf("%q is outside the sweep file's directory", name),
			"write a path relative to the sweep file that stays in its directory, or pass --allow-outside-paths")
		return
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(p.baseDir, path)
	}
	data, err := boundedfile.Read(path, scenarios.MaxFileBytes)
	if err != nil {
		p.errAt(sc.node, "scenario", fmt.Sprintf("cannot read the scenario file %s: %v", path, errors.Unwrap(err)),
			"a path is relative to the sweep file's directory; a built-in scenario is named without .yaml")
		return
	}
	s.ScenarioPath = path
	p.loadScenario(path, data, filepath.Dir(path))
}

func (p *parser) loadScenario(file string, data []byte, baseDir string) {
	s := p.spec
	sum := sha256.Sum256(data)
	s.ScenarioSHA256 = hex.EncodeToString(sum[:])
	scn, warns, err := scenarios.ParseWith(file, data, baseDir, s.scenarioOpts)
	p.warns = append(p.warns, warns...)
	if err != nil {
		var errs scenarios.Errors
		if errors.As(err, &errs) {
			p.errs = append(p.errs, errs...)
		} else {
			p.errAt(nil, "scenario", err.Error(), "")
		}
		return
	}
	p.scenario = scn
	s.scenarioFile, s.scenarioData, s.scenarioBaseDir = file, data, baseDir
}

// parameterType returns the value type of an override key, or an error message and hint.
func parameterType(key string) (typ, msg, hint string) {
	switch key {
	case "seed":
		return "", "seed cannot be a parameter", "list the seeds under seeds: (every grid point runs every seed)"
	case "duration", "stop.quiescence":
		return string(flagtab.Duration), "", ""
	case "stop.maxEvents":
		return string(flagtab.Int), "", ""
	}
	if _, err := scenarios.ParseOverride(key + "=x"); err != nil {
		var oe *scenarios.OverrideError
		if errors.As(err, &oe) {
			return "", oe.Msg, oe.Hint
		}
		return "", err.Error(), ""
	}
	component, flag, _ := strings.Cut(key, ".")
	f, _ := scenarios.LookupFlag(component, flag)
	return string(f.Type), "", ""
}

func (p *parser) checkParameters(raw *rawParameters) {
	if p.overLimit(raw.node, "parameters", len(raw.entries), "parameters", MaxParameters) {
		return
	}
	for _, e := range raw.entries {
		key := e.key.Value
		path := "parameters." + key
		typ, msg, hint := parameterType(key)
		if msg != "" {
			p.errAt(e.key, path, msg, hint)
			continue
		}
		param := Parameter{Key: key, Type: typ}
		var nodes []*yaml.Node
		switch v := e.value; {
		case v.list != nil:
			seen := map[string]*yaml.Node{}
			for i, x := range v.list {
				if x.node == nil || x.node.Kind != yaml.ScalarNode {
					continue // the decoder reported it
				}
				if prev, dup := seen[string(x.V)]; dup {
					p.errAt(x.node, fmt.Sprintf("%s[%d]", path, i), fmt.Sprintf("duplicate value %q (first at line %d, column %d)", x.V, prev.Line, prev.Column), "")
					continue
				}
				seen[string(x.V)] = x.node
				param.Values = append(param.Values, string(x.V))
				nodes = append(nodes, x.node)
			}
		case v.ranged != nil:
			param.Values = p.expandRange(path, typ, v.node, v.ranged)
		case v.logRange != nil:
			param.Values = p.expandLogRange(path, typ, v.node, v.logRange)
			param.Log = true
		default:
			continue // the decoder reported it
		}
		if len(param.Values) == 0 {
			if e.value.list != nil || e.value.node != nil && e.value.node.Kind == yaml.SequenceNode {
				p.errAt(e.value.node, path, "no values", valuesHint)
			}
			continue
		}
		if p.overLimit(e.value.node, path, len(param.Values), "values", MaxValuesPerParameter) {
			continue
		}
		p.checkValues(path, param, nodes, e.value.node)
		p.spec.Parameters = append(p.spec.Parameters, param)
	}
}

// checkValues applies each value alone to the scenario, as `sim run --set` would, and
// reports the values it refuses at their position (a range's values at the range).
func (p *parser) checkValues(path string, param Parameter, nodes []*yaml.Node, at *yaml.Node) {
	if p.scenario == nil {
		return
	}
	for i, v := range param.Values {
		c := *p.scenario
		err := c.Apply([]scenarios.Override{{Key: param.Key, Value: v}})
		if err == nil {
			continue
		}
		n, valuePath := at, path
		if i < len(nodes) {
			n, valuePath = nodes[i], fmt.Sprintf("%s[%d]", path, i)
		}
		for _, oe := range overrideProblems(err) {
			p.errAt(n, valuePath, fmt.Sprintf("value %q: %s", v, oe.msg), oe.hint)
		}
	}
}

type problem struct{ msg, hint string }

// overrideProblems splits an error of Scenario.Apply into its problems.
func overrideProblems(err error) []problem {
	var list []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		list = j.Unwrap()
	} else {
		list = []error{err}
	}
	var out []problem
	for _, e := range list {
		var oe *scenarios.OverrideError
		if errors.As(e, &oe) {
			out = append(out, problem{oe.Msg, oe.Hint})
		} else {
			// Cross-checks come as "--set: problem" or "--set KEY=VALUE: problem"; the
			// caller says which value.
			msg := e.Error()
			if rest, ok := strings.CutPrefix(msg, "--set"); ok {
				if _, after, found := strings.Cut(rest, ": "); found {
					msg = after
				}
			}
			out = append(out, problem{msg, ""})
		}
	}
	return out
}

// number reads a range bound of the parameter's type: a duration (nanoseconds) or a number.
func (p *parser) number(typ string, n *yaml.Node, path string) (float64, bool) {
	switch flagtab.Type(typ) {
	case flagtab.Duration:
		if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" {
			d, err := time.ParseDuration(strings.TrimSpace(n.Value))
			if err == nil {
				return float64(d), true
			}
		}
		if n.Kind == yaml.ScalarNode && (n.ShortTag() == "!!int" || n.ShortTag() == "!!float") && n.Value == "0" {
			return 0, true
		}
		p.errAt(n, path, fmt.Sprintf("expected a duration, got %s", describe(n)), `a duration with a unit, such as "30s" or "5m"`)
	case flagtab.Int:
		if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!int" {
			v, err := strconv.ParseInt(n.Value, 0, 64)
			if err == nil && v > -1<<53 && v < 1<<53 {
				return float64(v), true
			}
		}
		p.errAt(n, path, fmt.Sprintf("expected an integer, got %s", describe(n)), "")
	case flagtab.Float:
		if n.Kind == yaml.ScalarNode && (n.ShortTag() == "!!int" || n.ShortTag() == "!!float") {
			v, err := strconv.ParseFloat(n.Value, 64)
			if err == nil && !math.IsNaN(v) && !math.IsInf(v, 0) {
				return v, true
			}
		}
		p.errAt(n, path, fmt.Sprintf("expected a number, got %s", describe(n)), "")
	}
	return 0, false
}

// rangeTypes are the parameter types a range or logRange can produce.
func rangeType(typ string) bool {
	switch flagtab.Type(typ) {
	case flagtab.Duration, flagtab.Int, flagtab.Float:
		return true
	}
	return false
}

func (p *parser) expandRange(path, typ string, at *yaml.Node, r *rawRange) []string {
	path += ".range"
	if !rangeType(typ) {
		p.errAt(at, path, fmt.Sprintf("a range needs a duration or numeric parameter; this one is a %s", typ), "list the values instead")
		return nil
	}
	if r.From.node == nil || r.To.node == nil || r.Step.node == nil {
		p.errAt(at, path, "a range needs from, to and step", "range: {from: 10s, to: 60s, step: 10s}")
		return nil
	}
	from, ok1 := p.number(typ, r.From.node, path+".from")
	to, ok2 := p.number(typ, r.To.node, path+".to")
	step, ok3 := p.number(typ, r.Step.node, path+".step")
	if !ok1 || !ok2 || !ok3 {
		return nil
	}
	if step <= 0 {
		p.errAt(r.Step.node, path+".step", "step must be greater than 0", "")
		return nil
	}
	if to < from {
		p.errAt(r.To.node, path+".to", "to is less than from", "")
		return nil
	}
	count := math.Floor((to-from)/step+1e-9) + 1
	if count > MaxValuesPerParameter {
		p.errAt(at, path, fmt.Sprintf("the range has %.0f values, more than the limit of %d", count, MaxValuesPerParameter), "use a larger step")
		return nil
	}
	out := make([]string, 0, int(count))
	for i := 0; i < int(count); i++ {
		out = append(out, formatValue(typ, from+float64(float64(i)*step)))
	}
	return dedupe(out)
}

func (p *parser) expandLogRange(path, typ string, at *yaml.Node, r *rawLogRange) []string {
	path += ".logRange"
	if !rangeType(typ) {
		p.errAt(at, path, fmt.Sprintf("a logRange needs a duration or numeric parameter; this one is a %s", typ), "list the values instead")
		return nil
	}
	if r.From.node == nil || r.To.node == nil || !r.Count.set() {
		p.errAt(at, path, "a logRange needs from, to and count", "logRange: {from: 1, to: 1000, count: 4}")
		return nil
	}
	from, ok1 := p.number(typ, r.From.node, path+".from")
	to, ok2 := p.number(typ, r.To.node, path+".to")
	if !ok1 || !ok2 {
		return nil
	}
	count := r.Count.V
	switch {
	case from <= 0:
		p.errAt(r.From.node, path+".from", "from must be greater than 0", "a log scale has no 0")
		return nil
	case to <= from:
		p.errAt(r.To.node, path+".to", "to must be greater than from", "")
		return nil
	case count < 2 || count > MaxValuesPerParameter:
		p.errAt(r.Count.node, path+".count", fmt.Sprintf("count must be between 2 and %d, got %d", MaxValuesPerParameter, count), "")
		return nil
	}
	out := make([]string, 0, count)
	ratio := to / from
	for i := 0; i < count; i++ {
		v := from * math.Pow(ratio, float64(i)/float64(count-1))
		switch i {
		case 0:
			v = from
		case count - 1:
			v = to
		}
		if flagtab.Type(typ) == flagtab.Int {
			v = math.Round(v)
		} else {
			v = roundSignificant(v, 3)
		}
		out = append(out, formatValue(typ, v))
	}
	values := dedupe(out)
	if len(values) < len(out) {
		p.errAt(r.Count.node, path+".count", fmt.Sprintf("the values round to only %d distinct ones: %s", len(values), strings.Join(values, ", ")), "lower count or widen the range")
		return nil
	}
	return values
}

// roundSignificant rounds v to digits significant decimal digits.
func roundSignificant(v float64, digits int) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', digits, 64), 64)
	if err != nil {
		return v
	}
	return r
}

// formatValue writes a generated value as on the command line: durations compactly ("1m30s",
// "250ms"), integers without a fraction, other numbers in their shortest form after rounding
// away the float error of from+i*step (12 significant digits).
func formatValue(typ string, v float64) string {
	switch flagtab.Type(typ) {
	case flagtab.Duration:
		return formatDuration(time.Duration(math.Round(v)))
	case flagtab.Int:
		return strconv.FormatInt(int64(math.Round(v)), 10)
	}
	return formatNumber(roundSignificant(v, 12))
}

func dedupe(values []string) []string {
	seen := map[string]bool{}
	out := values[:0:0]
	for _, v := range values {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

func (p *parser) checkSeeds(root *yaml.Node, raw *rawSeeds) {
	s := p.spec
	switch {
	case raw.node == nil:
		p.errAt(root, "seeds", "missing seeds", "seeds: 20 runs every grid point with seeds 1 to 20; seeds: [3, 7] with those")
	case raw.list != nil:
		if p.overLimit(raw.node, "seeds", len(raw.list), "seeds", MaxSeeds) {
			return
		}
		seen := map[uint64]*yaml.Node{}
		for i, x := range raw.list {
			if prev, dup := seen[x.V]; dup {
				p.errAt(x.node, fmt.Sprintf("seeds[%d]", i), fmt.Sprintf("duplicate seed %d (first at line %d, column %d)", x.V, prev.Line, prev.Column), "")
				continue
			}
			seen[x.V] = x.node
			s.Seeds = append(s.Seeds, x.V)
		}
		if len(raw.list) == 0 {
			p.errAt(raw.node, "seeds", "no seeds", "")
		}
	case raw.node.Kind == yaml.ScalarNode:
		if raw.count < 1 || raw.count > MaxSeeds {
			if raw.node.ShortTag() == "!!int" {
				p.errAt(raw.node, "seeds", fmt.Sprintf("the seed count must be between 1 and %d, got %d", MaxSeeds, raw.count), "")
			}
			return
		}
		for i := 1; i <= raw.count; i++ {
			s.Seeds = append(s.Seeds, uint64(i))
		}
	}
}

func (p *parser) checkSample(in *located[rawSample]) {
	if in == nil {
		return
	}
	raw, node := &in.V, in.node
	sample := &Sample{Count: raw.Count.V, Seed: 1}
	if raw.Seed.set() {
		sample.Seed = raw.Seed.V
	}
	p.sampleNode = node
	if !raw.Count.set() {
		p.errAt(node, "sample.count", "missing sample.count", "sample: {count: 20, seed: 1} runs 20 grid points drawn at random")
		return
	}
	if sample.Count < 1 {
		p.errAt(raw.Count.node, "sample.count", fmt.Sprintf("must be at least 1, got %d", sample.Count), "")
		return
	}
	p.spec.Sample = sample
}

// gridSize returns the number of grid points (1 with no parameters), or -1 past
// MaxGridPoints.
func gridSize(params []Parameter) int {
	n := 1
	for _, pr := range params {
		n *= len(pr.Values)
		if n > MaxGridPoints {
			return -1
		}
	}
	return n
}

// checkGrid checks the sizes of the grid and the run list, and applies every grid point's
// overrides together to the scenario (each value alone was checked already).
func (p *parser) checkGrid(raw *rawParameters) {
	s := p.spec
	grid := gridSize(s.Parameters)
	at := raw.node
	if grid < 0 {
		p.errAt(at, "parameters", fmt.Sprintf("the grid has more than %d points", MaxGridPoints), "use fewer values")
		return
	}
	points := grid
	if s.Sample != nil {
		if s.Sample.Count > grid {
			p.errAt(p.sampleNode, "sample.count", fmt.Sprintf("sample.count is %d but the grid has only %d points", s.Sample.Count, grid), "remove sample: to run every point")
			return
		}
		points = s.Sample.Count
	}
	if points > MaxPoints {
		p.errAt(at, "parameters", fmt.Sprintf("%d grid points, more than the limit of %d", points, MaxPoints), "use fewer values, or sample: {count: N}")
		return
	}
	if len(s.Seeds) > 0 && points*len(s.Seeds) > MaxRuns {
		p.errAt(at, "parameters", fmt.Sprintf("%d grid points × %d seeds is %d runs, more than the limit of %d", points, len(s.Seeds), points*len(s.Seeds), MaxRuns), "")
		return
	}
	if p.scenario == nil || len(p.errs) > 0 || len(s.Parameters) < 2 {
		return
	}
	const maxReported = 10
	reported := 0
	for _, pt := range s.Plan().Points {
		c := *p.scenario
		if err := c.Apply(s.overrides(pt.Values)); err != nil {
			for _, pr := range overrideProblems(err) {
				if reported == maxReported {
					return
				}
				reported++
				p.errAt(at, "parameters", fmt.Sprintf("grid point %s: %s", s.pointLabel(pt.Values), pr.msg), pr.hint)
			}
		}
	}
}

// suggestOptions is the sweep parser's "did you mean" policy: words longer than 128 bytes get
// no suggestion.
var suggestOptions = suggest.Options{MaxInput: 128}

// didYouMean formats a hint for word among candidates (suggest.DidYouMean with
// suggestOptions): `did you mean "x"?`, or "".
func didYouMean(word string, candidates []string) string {
	return suggest.DidYouMean(word, candidates, suggestOptions)
}
