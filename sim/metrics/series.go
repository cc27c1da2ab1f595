package metrics

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
)

// Limits of a recorded series.
const (
	// MaxSeriesPoints bounds the points of a series.
	MaxSeriesPoints = 1_000_000
	// MaxSeriesFileBytes bounds the size of a series file (the scenario file limit).
	MaxSeriesFileBytes = 16 << 20
	// maxSeriesErrors is how many problems ParseSeriesCSV reports before it stops looking.
	maxSeriesErrors = 10
)

// ReadSeriesFile reads a CSV series file (see ParseSeriesCSV). Errors name the file and, for
// content problems, the line.
func ReadSeriesFile(path string) ([]SeriesPoint, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading load series: %w", err)
	}
	defer f.Close()
	return ParseSeriesCSV(f, path)
}

// ParseSeriesCSV parses a recorded load series: one "time,value" line per point, time in
// seconds since the start of the run (a decimal number, not negative, strictly increasing from
// line to line) and value the load in units per second (not negative). Blank lines and lines
// starting with '#' are skipped, and so is a first line whose time field is not a number (a
// header such as "seconds,rps"). Fields may be surrounded by spaces.
//
// Every problem is reported as "name:line: message", up to 10 of them joined in one error;
// input larger than MaxSeriesFileBytes, with more than MaxSeriesPoints points, or with no
// point at all is an error.
func ParseSeriesCSV(r io.Reader, name string) ([]SeriesPoint, error) {
	sc := bufio.NewScanner(io.LimitReader(r, MaxSeriesFileBytes+1))
	sc.Buffer(make([]byte, 0, 64*1024), MaxSeriesFileBytes+1)
	var (
		points    []SeriesPoint
		problems  []error
		read      int
		line      int
		sawRecord bool
	)
	fail := func(format string, args ...any) {
		problems = append(problems, fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, args...)))
	}
	for sc.Scan() && len(problems) < maxSeriesErrors {
		line++
		read += len(sc.Bytes()) + 1
		if read > MaxSeriesFileBytes {
			return nil, fmt.Errorf("%s: larger than %d bytes", name, MaxSeriesFileBytes)
		}
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		first := !sawRecord
		sawRecord = true
		fields := strings.Split(text, ",")
		if len(fields) != 2 {
			if first && !numeric(fields[0]) {
				continue
			}
			fail("want 2 fields (seconds,value), got %d", len(fields))
			continue
		}
		tf, vf := strings.TrimSpace(fields[0]), strings.TrimSpace(fields[1])
		secs, err := strconv.ParseFloat(tf, 64)
		if err != nil {
			if first {
				continue // a header line
			}
			fail("time %q is not a number of seconds", tf)
			continue
		}
		value, err := strconv.ParseFloat(vf, 64)
		if err != nil {
			fail("value %q is not a number", vf)
			continue
		}
		maxSecs := MaxShapeTime.Seconds()
		if math.IsNaN(secs) || secs < 0 || secs > maxSecs {
			fail("time %s is outside 0..%g seconds", tf, maxSecs)
			continue
		}
		if math.IsNaN(value) || math.IsInf(value, 0) || value < 0 || value > MaxLoadValue {
			fail("value %s is outside 0..%g", vf, float64(MaxLoadValue))
			continue
		}
		at := time.Duration(math.Round(secs * float64(time.Second)))
		if n := len(points); n > 0 && at <= points[n-1].At {
			fail("time %s is not after the previous point's (%gs)", tf, points[n-1].At.Seconds())
			continue
		}
		if len(points) == MaxSeriesPoints {
			fail("more than %d points", MaxSeriesPoints)
			break
		}
		points = append(points, SeriesPoint{At: at, Value: value})
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: line longer than %d bytes", name, line+1, MaxSeriesFileBytes)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	if len(points) == 0 {
		return nil, fmt.Errorf("%s: no points (want lines of seconds,value)", name)
	}
	return points, nil
}

func numeric(s string) bool {
	_, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return err == nil
}
