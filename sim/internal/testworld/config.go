package testworld

import (
	"fmt"
	"strings"
	"testing"
)

// ConfigCase is one edit of a component's DefaultConfig and what its Validate must say about
// the result: an error containing Want, or no error when Want is "".
type ConfigCase[C any] struct {
	Name string
	Edit func(c *C)
	Want string
}

// CheckConfig is every component's configuration table test: the DefaultConfig validates, and
// each case's edit of a fresh DefaultConfig is rejected with an error that contains Want (or
// accepted when Want is ""). Every case that does not hold is reported.
func CheckConfig[C interface{ Validate() error }](t testing.TB, defaults func() C, cases []ConfigCase[C]) {
	t.Helper()
	for _, p := range configProblems(defaults, cases) {
		t.Error(p)
	}
}

// configProblems is CheckConfig's verdict: one line per case that does not hold.
func configProblems[C interface{ Validate() error }](defaults func() C, cases []ConfigCase[C]) []string {
	var out []string
	if err := defaults().Validate(); err != nil {
		out = append(out, fmt.Sprintf("DefaultConfig is invalid: %v", err))
	}
	for _, tc := range cases {
		c := defaults()
		tc.Edit(&c)
		err := c.Validate()
		switch {
		case tc.Want == "" && err != nil:
			out = append(out, fmt.Sprintf("%s: Validate: %v, want no error", tc.Name, err))
		case tc.Want != "" && err == nil:
			out = append(out, fmt.Sprintf("%s: Validate accepted the config, want an error containing %q", tc.Name, tc.Want))
		case tc.Want != "" && !strings.Contains(err.Error(), tc.Want):
			out = append(out, fmt.Sprintf("%s: Validate: %q, want it to contain %q", tc.Name, err, tc.Want))
		}
	}
	return out
}
