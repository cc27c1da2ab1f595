package testsupport

import "testing"

func TestOutcomesRequireBoth(t *testing.T) {
	cases := []struct {
		name    string
		answers []bool
		fails   bool
	}{
		{"both", []bool{true, false, true}, false},
		{"only true", []bool{true, true, true}, true},
		{"only false", []bool{false, false}, true},
		{"none", nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var o Outcomes
			for _, a := range c.answers {
				o.Count(a)
			}
			rec := &fatalRecorder{TB: t}
			func() {
				defer func() { recover() }()
				o.RequireBoth(rec, 1, "trues", 1, "falses")
			}()
			if rec.failed != c.fails {
				t.Fatalf("RequireBoth failed = %v, want %v (%+v)", rec.failed, c.fails, o)
			}
		})
	}
}

// fatalRecorder records a Fatalf instead of ending the test; Fatalf panics to stop the caller
// as testing's does.
type fatalRecorder struct {
	testing.TB
	failed bool
}

func (r *fatalRecorder) Helper() {}

func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.failed = true
	panic("fatal")
}
