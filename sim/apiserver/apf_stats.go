package apiserver

import "time"

// APFLevelStats is one priority level's state and counters, the simulator's view of
// upstream's apiserver_flowcontrol_* metrics (current_inqueue_requests,
// request_concurrency_in_use, rejected_requests_total by reason, request_wait_duration_seconds,
// current_limit_seats).
type APFLevelStats struct {
	Name string
	// NominalCL, MinCL, MaxCL and CurrentCL are the level's seat limits; CurrentCL moves
	// with borrowing.
	NominalCL, MinCL, MaxCL, CurrentCL int
	// InQueue is the requests waiting now; ExecutingSeats the seats in use now (lingering
	// final seats included); Executing the requests executing now.
	InQueue, ExecutingSeats, Executing int
	// Dispatched counts requests that got seats; the Rejected counters count 429s by reason.
	Dispatched                                                   uint64
	RejectedQueueFull, RejectedTimeOut, RejectedConcurrencyLimit uint64
	// WaitSum is the total time requests spent in queues (rejected ones included); WaitMax the
	// longest wait of a dispatched request.
	WaitSum, WaitMax time.Duration
}

// Rejected is the sum of the reject counters.
func (s APFLevelStats) Rejected() uint64 {
	return s.RejectedQueueFull + s.RejectedTimeOut + s.RejectedConcurrencyLimit
}

// APFEnabled reports whether API Priority and Fairness is on.
func (s *Server) APFEnabled() bool { return s.apf != nil }

// APFLevels returns the priority levels' statistics, in configuration order (bootstrap
// order: exempt, catch-all, system, node-high, leader-election, workload-high, workload-low,
// global-default; then the levels of stored PriorityLevelConfigurations, by name), or nil
// when API Priority and Fairness is off. A level a reconfiguration removed is no longer
// listed.
func (s *Server) APFLevels() []APFLevelStats {
	if s.apf == nil {
		return nil
	}
	out := make([]APFLevelStats, 0, len(s.apf.levels))
	for _, l := range s.apf.levels {
		st := *l.stats
		st.NominalCL, st.MinCL, st.MaxCL, st.CurrentCL = l.nominalCL, l.minCL, l.maxCL, l.currentCL
		st.InQueue = l.qs.totRequestsWaiting
		st.ExecutingSeats = l.qs.totSeatsInUse
		st.Executing = l.qs.totRequestsExecuting
		// The requests a replaced level of the same name still drains count here too.
		for _, d := range s.apf.draining {
			if d.name == l.name {
				st.InQueue += d.qs.totRequestsWaiting
				st.ExecutingSeats += d.qs.totSeatsInUse
				st.Executing += d.qs.totRequestsExecuting
			}
		}
		out = append(out, st)
	}
	return out
}

// APFClassify returns the flow schema and priority level a request would be classified into.
// It is for tests and explanations; nothing is queued.
func (s *Server) APFClassify(req *Request) (flowSchema, priorityLevel string) {
	if s.apf == nil {
		return "", ""
	}
	c := s.apf.classify(req)
	return c.fs, c.pl.name
}
