package sweep

import (
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
)

// WriteResults writes a sweep's summary files into dir: sweep.json (EncodeResult),
// sweep.csv (one row per run), junit.xml (one test case per grid point), plots/ (PNG and SVG)
// and sweep.html. Each file is written atomically. It returns the paths written, and an error
// naming the first file it could not produce (files before it are written).
func WriteResults(dir string, res *Result) ([]string, error) {
	var files []string
	write := func(name string, data []byte, err error) error {
		if err != nil {
			return fmt.Errorf("sweep: %s: %w", name, err)
		}
		if err := writeAtomic(dir, name, data, true); err != nil {
			return err
		}
		files = append(files, filepath.Join(dir, name))
		return nil
	}
	data, err := EncodeResult(res)
	if err := write(SweepJSON, data, err); err != nil {
		return files, err
	}
	data, err = EncodeCSV(res)
	if err := write(SweepCSV, data, err); err != nil {
		return files, err
	}
	data, err = EncodeJUnit(res)
	if err := write(JUnitFile, data, err); err != nil {
		return files, err
	}
	figs := Figures(res)
	svgs := make([][]byte, len(figs))
	plotDir := filepath.Join(dir, SweepPlots)
	for i, f := range figs {
		for _, format := range []string{"png", "svg"} {
			img, err := f.Render(format)
			if err != nil {
				return files, err
			}
			if format == "svg" {
				svgs[i] = img
			}
			name := f.Name + "." + format
			if err := writeAtomic(plotDir, name, img, true); err != nil {
				return files, err
			}
			files = append(files, filepath.Join(plotDir, name))
		}
	}
	data, err = encodeHTML(res, figs, svgs)
	if err := write(SweepHTML, data, err); err != nil {
		return files, err
	}
	return files, nil
}

// EncodeResult returns res as indented JSON with a final newline: exactly sweep.json.
func EncodeResult(res *Result) ([]byte, error) { return encodeJSON(res) }

// EncodeCSV returns sweep.csv: a header, then one row per run in run order with the run's
// ID, point, each parameter's value, seed, each metric's value (empty when none), passed,
// the failed scenario expectations (joined by ";"), the stop reason and the error.
func EncodeCSV(res *Result) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	header := []string{"run", "point"}
	for _, p := range res.Spec.Parameters {
		header = append(header, csvText(p.Key))
	}
	header = append(header, "seed")
	for _, m := range res.Spec.Metrics {
		header = append(header, csvText(m.Name))
	}
	header = append(header, "passed", "failed_expectations", "stop_reason", "error")
	if err := w.Write(header); err != nil {
		return nil, err
	}
	for _, r := range res.Runs {
		row := []string{csvText(r.ID), csvText(r.Point)}
		for _, p := range r.Parameters {
			row = append(row, csvText(p.Value))
		}
		row = append(row, strconv.FormatUint(r.Seed, 10))
		for _, m := range res.Spec.Metrics {
			cell := ""
			if v := r.Metrics[m.Name]; v != nil {
				cell = formatNumber(*v)
			}
			row = append(row, cell)
		}
		row = append(row, strconv.FormatBool(r.Passed), csvText(strings.Join(r.FailedExpectations, ";")), csvText(r.StopReason), csvText(r.Error))
		if err := w.Write(row); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

// csvText makes a text cell safe to open in a spreadsheet: a cell starting with =, +, -, @,
// tab or carriage return is a formula to Excel, LibreOffice and Google Sheets (CSV
// injection, OWASP), so it gets a leading apostrophe, which they show as text. A number
// ("-1", "+2.5") is left as it is.
func csvText(s string) string {
	if s == "" || !strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return s
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return s
	}
	return "'" + s
}

// JUnitSuites is a JUnit XML document, as Jenkins, GitLab and GitHub test reporters read it
// (sweeps and `sim explore` write one).
type JUnitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []JUnitSuite `xml:"testsuite"`
}

// JUnitSuite is one test suite.
type JUnitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Properties []JUnitProperty `xml:"properties>property"`
	Cases      []JUnitCase     `xml:"testcase"`
}

// JUnitProperty is one suite property.
type JUnitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// JUnitCase is one test case; Failure or Error is set when it did not pass.
type JUnitCase struct {
	ClassName string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Failure   *JUnitProblem `xml:"failure,omitempty"`
	Error     *JUnitProblem `xml:"error,omitempty"`
}

// JUnitProblem is a test case's failure or error.
type JUnitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// EncodeJUnit returns junit.xml: one test case per grid point, failing when an every-point
// expectation does not hold there (the text lists the failing seeds and a command to
// reproduce one) and erroring when a run of the point failed; plus one test case per overall
// expectation. No times are written, so the file is deterministic.
func EncodeJUnit(res *Result) ([]byte, error) {
	spec := res.Spec
	suite := JUnitSuite{Name: spec.Name, Properties: []JUnitProperty{
		{"scenario", spec.Scenario},
		{"seeds", strconv.Itoa(len(spec.Seeds))},
		{"runs", strconv.Itoa(res.TotalRuns)},
		{"simulatorVersion", res.SimulatorVersion},
	}}
	class := "sweep." + spec.Name
	units := map[string]string{}
	for _, m := range spec.Metrics {
		units[m.Name] = m.Unit()
	}
	every := everyPoint(spec)
	for _, pr := range res.Points {
		tc := JUnitCase{ClassName: class, Name: pr.ID + ": " + paramsLabel(pr.Parameters)}
		runs := res.pointRuns(pr.ID)
		var failed []string
		for i, pe := range pr.Expectations {
			if pe.Passed || every[i].Finding {
				continue
			}
			failed = append(failed, pe.Name)
			tc.failureText(every[i], pe.Message, pe.FailingSeeds, runs)
		}
		var errText strings.Builder
		nErr := 0
		for _, r := range runs {
			if r.Failed() {
				nErr++
				fmt.Fprintf(&errText, "run %s (seed %d) failed: %s\n  reproduce: %s\n", r.ID, r.Seed, r.Error, r.Reproduce)
			}
		}
		switch {
		case nErr > 0:
			text := errText.String()
			if tc.Failure != nil {
				text += "\n" + tc.Failure.Text
			}
			tc.Error = &JUnitProblem{Message: fmt.Sprintf("%d of %d runs failed", nErr, len(runs)), Type: "run-failed", Text: text}
			tc.Failure = nil
			suite.Errors++
		case tc.Failure != nil:
			tc.Failure.Message = "expectations failed: " + strings.Join(failed, "; ")
			suite.Failures++
		}
		suite.Cases = append(suite.Cases, tc)
	}
	for i, x := range spec.Expect {
		if x.At != AtOverall {
			// A finding held at every point: the finding is gone, which fails the sweep.
			if er := res.Expectations[i]; x.Finding && er.Passed {
				suite.Cases = append(suite.Cases, JUnitCase{ClassName: class, Name: "finding: " + x.Name,
					Failure: &JUnitProblem{Type: "expectation", Message: "finding not reproduced: " + x.Name, Text: er.Message + "\n"}})
				suite.Failures++
			}
			continue
		}
		er := res.Expectations[i]
		tc := JUnitCase{ClassName: class, Name: "overall: " + x.Name}
		if er.Passed == x.Finding {
			tc.failureText(x, er.Message, er.FailingSeeds, res.Runs)
			tc.Failure.Message = "expectation failed: " + x.Name
			suite.Failures++
		}
		suite.Cases = append(suite.Cases, tc)
	}
	suite.Tests = len(suite.Cases)
	doc := JUnitSuites{Name: "sweep " + spec.Name, Tests: suite.Tests, Failures: suite.Failures, Errors: suite.Errors, Suites: []JUnitSuite{suite}}
	return doc.Encode()
}

// Encode writes the document: the XML header, two-space indentation, a final newline.
func (doc JUnitSuites) Encode() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	buf.WriteString("\n")
	return buf.Bytes(), nil
}

// maxSeedsListed bounds the seeds a JUnit message lists.
const maxSeedsListed = 50

// failureText appends an expectation's failure to the test case's failure text.
func (tc *JUnitCase) failureText(x Expectation, msg string, seeds []uint64, runs []RunRecord) {
	if tc.Failure == nil {
		tc.Failure = &JUnitProblem{Type: "expectation"}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", x.Name, msg)
	if len(seeds) > 0 {
		listed := seeds[:min(len(seeds), maxSeedsListed)]
		words := make([]string, len(listed))
		for i, s := range listed {
			words[i] = strconv.FormatUint(s, 10)
		}
		more := ""
		if len(seeds) > len(listed) {
			more = fmt.Sprintf(" and %d more", len(seeds)-len(listed))
		}
		fmt.Fprintf(&b, "  failing seeds: %s%s\n", strings.Join(words, ", "), more)
		for _, r := range runs {
			if r.Seed == seeds[0] {
				fmt.Fprintf(&b, "  reproduce: %s\n", r.Reproduce)
				break
			}
		}
	}
	tc.Failure.Text += b.String()
}

// everyPoint returns the every-point expectations of spec, in order (the order of
// PointResult.Expectations).
func everyPoint(spec *Spec) []Expectation {
	var out []Expectation
	for _, x := range spec.Expect {
		if x.At == AtEveryPoint {
			out = append(out, x)
		}
	}
	return out
}

// paramsLabel writes parameter values as "key=value, key=value" ("all runs" for none).
func paramsLabel(ps []ParamValue) string {
	if len(ps) == 0 {
		return "all runs"
	}
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.Key + "=" + p.Value
	}
	return strings.Join(parts, ", ")
}

// numericValue reads a parameter value as a number for a plot axis: a duration in seconds,
// or a number. ok is false for other types.
func numericValue(typ, value string) (float64, bool) {
	switch typ {
	case "duration":
		d, err := parseDurationText(value)
		if err != nil {
			return 0, false
		}
		return d.Seconds(), true
	case "int", "float":
		v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, false
		}
		return v, true
	}
	return 0, false
}
