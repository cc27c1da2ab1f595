package scenarios

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/metrics"
)

// FuzzParse checks that Parse never panics and that its result is consistent: an error is
// always Errors whose every problem has a position in the parsed file, and a scenario is
// always complete (positive duration, exactly one kind per action and expectation, loads and
// load shapes sim/metrics accepts, rollouts that apply without panicking).
// Seeds: testdata/fuzz/FuzzParse plus every scenario under testdata and the built-ins.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*/*.yaml")
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	for _, name := range BuiltinNames() {
		data, _ := Builtin(name)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, _, err := Parse("fuzz.yaml", data, "")
		if err != nil {
			if s != nil {
				t.Fatalf("Parse returned a scenario and an error: %v", err)
			}
			var errs Errors
			if !errors.As(err, &errs) || len(errs) == 0 {
				t.Fatalf("Parse error is %T, not a non-empty Errors: %v", err, err)
			}
			for _, e := range errs {
				if e.Pos.File != "fuzz.yaml" || e.Pos.Line < 1 || e.Pos.Column < 1 {
					t.Fatalf("problem without a position in the file: %q (%+v)", e.Error(), e.Pos)
				}
				if e.Msg == "" {
					t.Fatalf("problem without a message at %v", e.Pos)
				}
			}
			return
		}
		if s == nil {
			t.Fatal("Parse returned neither a scenario nor an error")
		}
		if s.Duration <= 0 || s.Duration > MaxDuration {
			t.Fatalf("accepted duration %s", s.Duration)
		}
		if n := len(s.Nodes()); n > MaxClusterNodes {
			t.Fatalf("accepted %d nodes", n)
		}
		for i, e := range s.Timeline {
			if unionCount(reflect.ValueOf(e.Action)) != 1 {
				t.Fatalf("timeline[%d] has %d actions", i, unionCount(reflect.ValueOf(e.Action)))
			}
			if l := e.Action.Load; l != nil {
				if problems := l.Shape.Validate("shape"); len(problems) > 0 {
					t.Fatalf("timeline[%d]: accepted a load shape sim/metrics rejects: %v", i, problems[0])
				}
			}
			if r := e.Action.Rollout; r != nil {
				_, _ = r.ApplyTo(model.PodTemplateSpec{}) // must not panic
			}
		}
		for i, x := range s.Expect {
			if unionCount(reflect.ValueOf(x)) != 1 {
				t.Fatalf("expect[%d] has %d kinds", i, unionCount(reflect.ValueOf(x)))
			}
			for _, c := range []*ConditionExpectation{x.Eventually, x.Always, x.Never} {
				if c != nil && unionCount(reflect.ValueOf(c.Condition)) != 1 {
					t.Fatalf("expect[%d] has %d conditions", i, unionCount(reflect.ValueOf(c.Condition)))
				}
			}
		}
		if problems := metrics.ValidateLoads(s.Loads, "loads"); len(problems) > 0 {
			t.Fatalf("accepted loads sim/metrics rejects: %v", problems[0])
		}
		if err := s.Apply(nil); err != nil {
			t.Fatalf("applying no overrides to a valid scenario failed: %v", err)
		}
	})
}
