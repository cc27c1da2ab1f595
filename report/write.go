package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/reconsim/reconsim/internal/atomicfile"
	"github.com/reconsim/reconsim/internal/boundedfile"
)

// File names inside an output directory.
const (
	ResultFile = "result.json"
	EventsFile = "events.jsonl"
	SeriesFile = "series.csv"
)

// maxReadBytes bounds what ReadResult and ReadEvents accept, so a wrong path (a huge file)
// fails with an error instead of exhausting memory.
const maxReadBytes = 1 << 30

// EncodeResult returns r as indented JSON followed by a newline, exactly the bytes
// WriteResult writes. It returns an error, and no bytes, if a number in r is NaN or infinite.
func EncodeResult(r *Result) ([]byte, error) {
	n, err := r.normalized()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(n); err != nil {
		return nil, fmt.Errorf("report: encoding result: %w", err)
	}
	return buf.Bytes(), nil
}

// WriteResult writes r to dir/result.json, creating dir if needed. The file is written to a
// temporary name in dir and renamed into place; on error no result.json is created or changed
// and the temporary file is removed.
func WriteResult(dir string, r *Result) error {
	data, err := EncodeResult(r)
	if err != nil {
		return err
	}
	return writeAtomicBytes(dir, ResultFile, data)
}

// WriteEvents writes events to dir/events.jsonl, one JSON object per line in the given order,
// creating dir if needed; an empty slice gives an empty file. It is atomic like WriteResult.
// It returns an error naming the line of the first event whose Time is NaN or infinite.
func WriteEvents(dir string, events []EventRecord) error {
	for i, e := range events {
		if math.IsNaN(e.Time) || math.IsInf(e.Time, 0) {
			return fmt.Errorf("report: event %d (%s %s) has time %v, which JSON cannot represent", i+1, e.Reason, e.Name, e.Time)
		}
	}
	return writeAtomic(dir, EventsFile, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		for i := range events {
			if err := enc.Encode(&events[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// EncodeSeriesCSV returns the series as CSV (RFC 4180), one row per sample: a header
// "series,unit,t,v", then every point of every series, the series sorted by name as in
// result.json and each one's points in time order. t is virtual seconds, v the value, both in
// the shortest decimal form that reads back exactly, never with an exponent. A series name or
// unit that starts with =, +, - or @ is prefixed with ' so that a spreadsheet does not take it
// for a formula. It returns an error naming the first point that is NaN or infinite.
func EncodeSeriesCSV(series []Series) ([]byte, error) {
	var buf bytes.Buffer
	if err := encodeSeriesCSV(&buf, series); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// encodeSeriesCSV writes EncodeSeriesCSV(series) to w a row at a time. On an error part of
// the CSV may have been written.
func encodeSeriesCSV(w io.Writer, series []Series) error {
	sorted := make([]Series, len(series))
	copy(sorted, series)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"series", "unit", "t", "v"}); err != nil {
		return err
	}
	num := func(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
	row := make([]string, 4)
	for _, s := range sorted {
		row[0], row[1] = csvText(s.Name), csvText(s.Unit)
		for j, p := range s.Points {
			if math.IsNaN(p.T) || math.IsInf(p.T, 0) || math.IsNaN(p.V) || math.IsInf(p.V, 0) {
				return fmt.Errorf("report: series %q point %d is (%v, %v), which CSV readers cannot take", s.Name, j, p.T, p.V)
			}
			row[2], row[3] = num(p.T), num(p.V)
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvText keeps a spreadsheet from evaluating s as a formula.
func csvText(s string) string {
	if s != "" && strings.ContainsRune("=+-@", rune(s[0])) {
		return "'" + s
	}
	return s
}

// WriteSeriesCSV writes EncodeSeriesCSV(series) to dir/series.csv, atomically like
// WriteResult, a row at a time.
func WriteSeriesCSV(dir string, series []Series) error {
	return writeAtomic(dir, SeriesFile, func(w io.Writer) error {
		return encodeSeriesCSV(w, series)
	})
}

// writeAtomic writes dir/name through fill, atomically and synced (atomicfile.Write),
// creating dir if needed. An error of fill's own (an encoder's, which says what was wrong
// before the file is touched) is returned as it is; an error writing the file is prefixed
// "report: ".
func writeAtomic(dir, name string, fill func(w io.Writer) error) error {
	var own error
	err := atomicfile.Write(dir, name, true, func(w io.Writer) error {
		own = fill(w)
		return own
	})
	if err != nil && err != own {
		return fmt.Errorf("report: %w", err)
	}
	return err
}

// writeAtomicBytes writes data to dir/name as writeAtomic does.
func writeAtomicBytes(dir, name string, data []byte) error {
	return writeAtomic(dir, name, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// ReadResult reads a result.json. It returns an error if the file cannot be read, is not
// valid JSON for a Result, holds unknown fields, or has a schemaVersion other than
// ResultSchemaVersion (so a reader never silently misreads another format).
func ReadResult(path string) (*Result, error) {
	data, err := boundedfile.Read(path, maxReadBytes)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r Result
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("report: %s: %w", path, err)
	}
	if r.SchemaVersion != ResultSchemaVersion {
		return nil, fmt.Errorf("report: %s: schemaVersion is %q, want %q", path, r.SchemaVersion, ResultSchemaVersion)
	}
	return &r, nil
}

// ReadEvents reads an events.jsonl. It returns an error naming the line of the first record
// that is not a valid EventRecord.
func ReadEvents(path string) ([]EventRecord, error) {
	data, err := boundedfile.Read(path, maxReadBytes)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	events := []EventRecord{}
	line := 0
	for len(data) > 0 {
		line++
		i := bytes.IndexByte(data, '\n')
		var rec []byte
		if i < 0 {
			rec, data = data, nil
		} else {
			rec, data = data[:i], data[i+1:]
		}
		if len(bytes.TrimSpace(rec)) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(rec))
		dec.DisallowUnknownFields()
		var e EventRecord
		if err := dec.Decode(&e); err != nil {
			return nil, fmt.Errorf("report: %s:%d: %w", path, line, err)
		}
		events = append(events, e)
	}
	return events, nil
}
