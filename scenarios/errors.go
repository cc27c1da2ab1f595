package scenarios

import (
	"github.com/reconsim/reconsim/model"
)

// Errors is every problem found in a scenario, each with its file:line:col, field path,
// message and, when there is one, a hint. Parse and Load return it (never empty) as their
// error when the scenario is invalid.
type Errors = model.ErrorList
