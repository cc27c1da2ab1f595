package controllerutil

import (
	"slices"
	"strings"

	"github.com/reconsim/reconsim/sim"
)

// KillInNameOrder kills the processes of set (a controller's helper processes, kept in a map
// so that each can remove itself when it ends) in the order of their names, so that a
// controller-manager restart kills them in the same order in every run although a map has
// none. It does not empty set.
func KillInNameOrder(set map[*sim.Proc]struct{}) {
	procs := make([]*sim.Proc, 0, len(set))
	//detlint:ordered collected, then killed in name order below
	for p := range set {
		procs = append(procs, p)
	}
	slices.SortStableFunc(procs, func(a, b *sim.Proc) int { return strings.Compare(a.Name(), b.Name()) })
	for _, p := range procs {
		p.Kill()
	}
}
