package testsupport

import "testing"

// Outcomes counts the two answers the random cases of a property test got, so that the test
// can require that it exercised both: a comparison whose cases all answer the same checks
// only half of what it claims.
type Outcomes struct{ True, False int }

// Count records one case's answer.
func (o *Outcomes) Count(answer bool) {
	if answer {
		o.True++
	} else {
		o.False++
	}
}

// RequireBoth fails t unless at least minTrue cases answered true and minFalse answered false;
// trueName and falseName say what each answer means, for the message.
func (o Outcomes) RequireBoth(t testing.TB, minTrue int, trueName string, minFalse int, falseName string) {
	t.Helper()
	if o.True < minTrue {
		t.Fatalf("%d cases of %s, want at least %d", o.True, trueName, minTrue)
	}
	if o.False < minFalse {
		t.Fatalf("%d cases of %s, want at least %d", o.False, falseName, minFalse)
	}
}
