package scheduler

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
)

// numFeasibleNodesToFind bounds, from schedule_one.go.
const (
	// minFeasibleNodesToFind: with fewer nodes than this, every node is checked, and the
	// adaptive search never stops before finding this many feasible nodes.
	minFeasibleNodesToFind = 100
	// minFeasibleNodesPercentageToFind is the floor of the adaptive percentage.
	minFeasibleNodesPercentageToFind = 5
)

// errNoNodesAvailable is ErrNoNodesAvailable (schedule_one.go): the cache has no node.
var errNoNodesAvailable = errors.New("no nodes available to schedule pods")

// NumFeasibleNodesToFind returns how many feasible nodes the filter step looks for before it
// stops (Scheduler.numFeasibleNodesToFind): every node below 100 nodes; otherwise
// percentage of the nodes, where a percentage of 0 means the adaptive 50 - nodes/125
// (at least 5), and never fewer than 100.
func NumFeasibleNodesToFind(percentageOfNodesToScore int32, numAllNodes int32) int32 {
	if numAllNodes < minFeasibleNodesToFind {
		return numAllNodes
	}
	percentage := percentageOfNodesToScore
	if percentage == 0 {
		percentage = 50 - numAllNodes/125
		if percentage < minFeasibleNodesPercentageToFind {
			percentage = minFeasibleNodesPercentageToFind
		}
	}
	numNodes := numAllNodes * percentage / 100
	if numNodes < minFeasibleNodesToFind {
		return minFeasibleNodesToFind
	}
	return numNodes
}

// noNodeAvailableMsg and separatorFormat are framework.NoNodeAvailableMsg and SeparatorFormat.
const (
	noNodeAvailableMsg = "0/%v nodes are available"
	separatorFormat    = " %v."
	// ErrReasonNoVictims and ErrReasonPreemptionNotHelpful are DefaultPreemption's per-node
	// dry-run outcomes (framework/preemption/preemption.go).
	ErrReasonNoVictims            = "No preemption victims found for incoming pod"
	ErrReasonPreemptionNotHelpful = "Preemption is not helpful for scheduling"
)

// FitError says why a pod fits no node (framework.FitError): the number of nodes, each
// rejected node's status, and the PostFilter (preemption) message.
type FitError struct {
	NumAllNodes   int
	NodeToStatus  map[string]*Status
	PostFilterMsg string
	// DoublePeriod renders the PostFilter sentence as releases up to 1.33 did, ending in its own
	// period and the separator's ("...for incoming pod.."); Config.FitErrorSinglePeriod off.
	DoublePeriod bool
}

// Error renders the upstream message: "0/N nodes are available: " then a histogram of the
// rejection reasons, each as "<count> <reason>", sorted as strings (so "10 ..." sorts before
// "2 ..."), joined by ", " and ended by "."; then the PostFilter message as a further
// sentence.
func (f *FitError) Error() string {
	reasons := map[string]int{}
	for _, st := range f.NodeToStatus { //detlint:ordered counting; order does not matter
		for _, r := range st.Reasons() {
			reasons[r]++
		}
	}
	histogram := make([]string, 0, len(reasons))
	for r, n := range reasons { //detlint:ordered the histogram is sorted below
		histogram = append(histogram, fmt.Sprintf("%v %v", n, r))
	}
	sort.Strings(histogram)
	msg := fmt.Sprintf(noNodeAvailableMsg+":", f.NumAllNodes)
	if len(histogram) > 0 {
		msg += fmt.Sprintf(separatorFormat, strings.Join(histogram, ", "))
	}
	if f.PostFilterMsg != "" {
		// The preemption message is itself a FitError sentence ending in "."; v1.27-v1.33
		// printed it with a doubled "..", newer releases with one (features
		// SchedulerFitErrorSinglePeriod).
		post := f.PostFilterMsg
		if !f.DoublePeriod {
			post = strings.TrimSuffix(post, ".")
		}
		msg += fmt.Sprintf(separatorFormat, post)
	}
	return msg
}

// diagnosis is what the filter step learned about the nodes it rejected.
type diagnosis struct {
	nodeToStatus         map[string]*Status
	unschedulablePlugins pluginSet
}

// scheduleResult is a successful placement.
type scheduleResult struct {
	host      string
	evaluated int // nodes the filters ran on
	feasible  int
}

// findNodesThatPassFilters runs the filters on the nodes starting at *nextStart and stops once
// numFeasibleNodesToFind nodes fit; *nextStart then moves past the nodes processed, so that
// across pods every node gets examined equally (schedule_one.go findNodesThatPassFilters,
// sequential here where upstream runs 16 goroutines).
func findNodesThatPassFilters(s *cycleState, nodes []*NodeInfo, percentage int32, nextStart *int, diag *diagnosis) []*NodeInfo {
	numAll := len(nodes)
	toFind := int(NumFeasibleNodesToFind(percentage, int32(numAll)))
	feasible := s.buffers.feasibleList(toFind)
	processed := 0
	for i := 0; i < numAll && len(feasible) < toFind; i++ {
		ni := nodes[(*nextStart+i)%numAll]
		processed++
		st := runFilterPluginsWithNominatedPods(s, ni)
		if st.IsSuccess() {
			feasible = append(feasible, ni)
			continue
		}
		diag.nodeToStatus[ni.node.Name] = st
		diag.unschedulablePlugins |= pluginBit(st.plugin)
	}
	if numAll > 0 {
		*nextStart = (*nextStart + processed) % numAll
	}
	return feasible
}

// selectHost picks the feasible node with the highest total score; among equal totals each is
// equally likely, by reservoir sampling with r (upstream selectHost draws with rand.Intn as it
// pops the score heap; the order of the draws differs, the distribution does not).
func selectHost(scores []nodeScore, r *rand.Rand) *NodeInfo {
	if len(scores) == 0 {
		return nil
	}
	best, ties := 0, 1
	for i := 1; i < len(scores); i++ {
		switch {
		case scores[i].total > scores[best].total:
			best, ties = i, 1
		case scores[i].total == scores[best].total:
			ties++
			if r.IntN(ties) == 0 {
				best = i
			}
		}
	}
	return scores[best].ni
}

// schedulePod is Scheduler.schedulePod: filter, then score and select. It returns the
// placement; or a *FitError (without the PostFilter message) and the diagnosis when no node
// fits; or errNoNodesAvailable for an empty cluster. evaluated is the number of nodes the
// filters ran on, whatever the outcome. A single feasible node is taken without scoring.
func schedulePod(s *cycleState, nodes []*NodeInfo, percentage int32, nextStart *int, r *rand.Rand) (scheduleResult, *FitError, diagnosis, error) {
	diag := diagnosis{nodeToStatus: map[string]*Status{}}
	if len(nodes) == 0 {
		return scheduleResult{}, nil, diag, errNoNodesAvailable
	}
	s.preFilter(nodes)
	if ni := evaluateNominatedNode(s, nodes, percentage, nextStart, &diag); ni != nil {
		return scheduleResult{host: ni.node.Name, evaluated: 1, feasible: 1}, nil, diag, nil
	}
	feasible := findNodesThatPassFilters(s, nodes, percentage, nextStart, &diag)
	evaluated := len(feasible) + len(diag.nodeToStatus)
	if len(feasible) == 0 {
		return scheduleResult{evaluated: evaluated}, &FitError{NumAllNodes: len(nodes), NodeToStatus: diag.nodeToStatus}, diag, nil
	}
	if len(feasible) == 1 {
		return scheduleResult{host: feasible[0].node.Name, evaluated: evaluated, feasible: 1}, nil, diag, nil
	}
	host := selectHost(prioritizeNodes(s, feasible), r)
	return scheduleResult{host: host.node.Name, evaluated: evaluated, feasible: len(feasible)}, nil, diag, nil
}

// eventMessageLimit is the longest FailedScheduling event message (schedule_one.go
// truncateMessage: noteLengthLimit 1024, events API note limit).
const eventMessageLimit = 1024

// truncateMessage cuts a message to the event note limit, ending it with "...".
func truncateMessage(message string) string {
	if len(message) <= eventMessageLimit {
		return message
	}
	const suffix = " ..."
	return message[:eventMessageLimit-len(suffix)] + suffix
}
