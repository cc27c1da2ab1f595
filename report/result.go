package report

import (
	"fmt"
	"math"
	"sort"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

// SimulatorVersion is the version of reconsim recorded in every result.
const SimulatorVersion = "0.1.0-dev"

// ResultSchemaVersion names the result.json format described in docs/results.md. v2: a
// verdict's reason is a CamelCase word and its message the text (v1's reason held the text);
// convergence entries gained firstConvergedAt and divergences, and convergedAt became the last
// lasting convergence.
const ResultSchemaVersion = "reconsim.dev/result/v2"

// EventsSchemaVersion names the events.jsonl format described in docs/results.md.
// v2: a line is one write of an Event as the API server stored it (a create, or a PATCH of
// a repeat's count), with the Event's name, first and last timestamps and the time it was
// stored; v1 had one line per recorded call.
const EventsSchemaVersion = "reconsim.dev/events/v2"

// StopInterrupted is the StopReason of a run that was interrupted by the user (Ctrl-C); the
// result then holds what was recorded up to that point.
const StopInterrupted = "interrupted"

// Result is everything a run reports, written as result.json. Times are virtual seconds since
// the start of the run unless the field name says otherwise.
type Result struct {
	// SchemaVersion is ResultSchemaVersion; WriteResult fills it when empty.
	SchemaVersion string `json:"schemaVersion"`
	// EventsSchemaVersion names the format of the events.jsonl written beside this file;
	// WriteResult fills it when empty.
	EventsSchemaVersion string `json:"eventsSchemaVersion"`

	Scenario         string     `json:"scenario"`
	Description      string     `json:"description,omitempty"`
	Seed             uint64     `json:"seed"`
	SimulatorVersion string     `json:"simulatorVersion"`
	UpstreamVersion  string     `json:"upstreamVersion"`
	Overrides        []Override `json:"overrides"`

	// VirtualSeconds is the virtual time at which the run stopped.
	VirtualSeconds float64 `json:"virtualSeconds"`
	// WallSeconds is the wall-clock duration of the run as measured by the caller. It is the
	// only field that differs between two runs of the same scenario and seed.
	WallSeconds     float64 `json:"wallSeconds"`
	EventsProcessed uint64  `json:"eventsProcessed"`
	// StopReason is the kernel's stop reason (time-limit, event-limit, quiescent, drained,
	// stopped, error) or StopInterrupted.
	StopReason string `json:"stopReason"`
	StopDetail string `json:"stopDetail,omitempty"`
	// TraceHash is the trace's FNV-1a hash as 16 lowercase hex digits (see TraceHashHex).
	TraceHash string `json:"traceHash"`

	Expectations []ExpectationResult `json:"expectations"`
	Convergence  []Convergence       `json:"convergence"`
	Verdicts     []Verdict           `json:"verdicts"`
	Series       []Series            `json:"series"`
	// Leadership lists the terms of the replicated control-plane components that ran leader
	// election (kube-controller-manager, kube-scheduler), in start order per component;
	// empty when none did.
	Leadership []LeaderTerm `json:"leadership,omitempty"`

	// Passed is true when every expectation held.
	Passed bool `json:"passed"`

	// Events are the Kubernetes Events the run recorded, in the order they were recorded.
	// They are written to events.jsonl (WriteEvents), not into result.json.
	Events []EventRecord `json:"-"`
}

// Override is one --set KEY=VALUE that was applied to the scenario, in command-line order.
type Override struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// ExpectationResult is the outcome of one `expect:` entry of the scenario.
type ExpectationResult struct {
	Name    string `json:"name"`
	Passed  bool   `json:"passed"`
	Message string `json:"message"`
}

// Convergence reports, for one timeline action, when the world converged after it. The world
// may converge, diverge again and reconverge: ConvergedAt is when it last became converged and
// stayed so until the run ended, FirstConvergedAt the first time, Divergences how many times
// in between it stopped being converged.
type Convergence struct {
	// Action is the action kind (node-crash, scale, ...).
	Action string `json:"action"`
	// Name is the timeline entry's name; empty when the entry has none.
	Name string `json:"name"`
	// Actor is who performed the action (the entry's as:); empty for the scenario's own
	// hand.
	Actor string `json:"actor,omitempty"`
	// At is when the action ran.
	At float64 `json:"at"`
	// ConvergedAt is when the world last became converged after the action and stayed so
	// until the run ended; nil if it was not converged at the end.
	ConvergedAt *float64 `json:"convergedAt"`
	// Seconds is ConvergedAt-At; nil when ConvergedAt is.
	Seconds *float64 `json:"seconds"`
	// FirstConvergedAt is the first time the world was converged after the action; nil if it
	// never was.
	FirstConvergedAt *float64 `json:"firstConvergedAt"`
	// Divergences counts the times the world stopped being converged after FirstConvergedAt.
	Divergences int `json:"divergences"`
}

// LeaderTerm is one replica's term as leader of a control-plane component.
type LeaderTerm struct {
	Component string `json:"component"`
	// Replica is the replica's index (0-based); Identity its holderIdentity in the Lease.
	Replica  int    `json:"replica"`
	Identity string `json:"identity"`
	// From is when it started leading; To when it stopped, nil if it still led at the end.
	From float64  `json:"from"`
	To   *float64 `json:"to"`
}

// Verdict names something the run created that had not converged when the run ended (a
// workload short of replicas, a Pending pod, a rollout or a drain that did not complete), and
// why.
type Verdict struct {
	// Workload is "Kind namespace/name", for display.
	Workload  string `json:"workload"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Desired   int32  `json:"desired"`
	Ready     int32  `json:"ready"`
	// Short is Desired-Ready.
	Short int32 `json:"short"`
	// Reason is why, as one CamelCase word (Unschedulable, CrashLoopBackOff, DrainBlocked,
	// ...; docs/results.md lists them); a verdict expectation matches it.
	Reason string `json:"reason"`
	// Message is why, in the words of the component that knows (the scheduler's
	// FailedScheduling message, the StatefulSet controller's blockage, ...).
	Message string `json:"message"`
}

// Series is one time series sampled during the run (for example "pods.ready").
type Series struct {
	Name string `json:"name"`
	// Unit is the unit of V ("pods", "requests/s", "seconds"); empty for a plain count.
	Unit   string  `json:"unit,omitempty"`
	Points []Point `json:"points"`
}

// Point is one sample: the value V at virtual time T (seconds).
type Point struct {
	T float64 `json:"t"`
	V float64 `json:"v"`
}

// TraceHashHex formats a trace hash the way Result.TraceHash holds it.
func TraceHashHex(h uint64) string { return fmt.Sprintf("%016x", h) }

// FailedExpectations returns the expectations that did not hold, in result order.
func (r *Result) FailedExpectations() []ExpectationResult {
	var failed []ExpectationResult
	for _, e := range r.Expectations {
		if !e.Passed {
			failed = append(failed, e)
		}
	}
	return failed
}

// normalized returns a shallow copy of r ready to be encoded: schema versions filled, nil
// slices turned into empty ones (so readers always see arrays, never null), and series sorted
// by name. r itself is not modified. It returns an error naming the first field that holds
// NaN or an infinity, which JSON cannot represent.
func (r *Result) normalized() (*Result, error) {
	c := *r
	if c.SchemaVersion == "" {
		c.SchemaVersion = ResultSchemaVersion
	}
	if c.EventsSchemaVersion == "" {
		c.EventsSchemaVersion = EventsSchemaVersion
	}
	if c.Overrides == nil {
		c.Overrides = []Override{}
	}
	if c.Expectations == nil {
		c.Expectations = []ExpectationResult{}
	}
	if c.Convergence == nil {
		c.Convergence = []Convergence{}
	}
	if c.Verdicts == nil {
		c.Verdicts = []Verdict{}
	}
	c.Series = make([]Series, len(r.Series))
	copy(c.Series, r.Series)
	sort.SliceStable(c.Series, func(i, j int) bool { return c.Series[i].Name < c.Series[j].Name })
	for i := range c.Series {
		if c.Series[i].Points == nil {
			c.Series[i].Points = []Point{}
		}
	}

	check := func(field string, v float64) error {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("report: %s is %v, which JSON cannot represent", field, v)
		}
		return nil
	}
	if err := check("virtualSeconds", c.VirtualSeconds); err != nil {
		return nil, err
	}
	if err := check("wallSeconds", c.WallSeconds); err != nil {
		return nil, err
	}
	for i, cv := range c.Convergence {
		if err := check(fmt.Sprintf("convergence[%d].at", i), cv.At); err != nil {
			return nil, err
		}
		if cv.ConvergedAt != nil {
			if err := check(fmt.Sprintf("convergence[%d].convergedAt", i), *cv.ConvergedAt); err != nil {
				return nil, err
			}
		}
		if cv.Seconds != nil {
			if err := check(fmt.Sprintf("convergence[%d].seconds", i), *cv.Seconds); err != nil {
				return nil, err
			}
		}
		if cv.FirstConvergedAt != nil {
			if err := check(fmt.Sprintf("convergence[%d].firstConvergedAt", i), *cv.FirstConvergedAt); err != nil {
				return nil, err
			}
		}
	}
	for _, s := range c.Series {
		for j, p := range s.Points {
			if err := check(fmt.Sprintf("series %q point %d t", s.Name, j), p.T); err != nil {
				return nil, err
			}
			if err := check(fmt.Sprintf("series %q point %d v", s.Name, j), p.V); err != nil {
				return nil, err
			}
		}
	}
	return &c, nil
}

// EventRecord is one line of events.jsonl: a Kubernetes Event as the API server stored it,
// as `kubectl get events` shows it. Times are virtual seconds.
type EventRecord struct {
	// Time is when the Event last happened: its lastTimestamp.
	Time      float64 `json:"time"`
	Type      string  `json:"type"`
	Reason    string  `json:"reason"`
	Kind      string  `json:"kind"`
	Namespace string  `json:"namespace"`
	Name      string  `json:"name"`
	Message   string  `json:"message"`
	// Source is the reporting component (kubelet, default-scheduler, node-controller, ...).
	Source string `json:"source"`
	// Host is the node the source runs on, for kubelet events; empty otherwise.
	Host string `json:"host"`
	// Count is how many times the Event had happened when stored (at least 1).
	Count int32 `json:"count"`
	// EventName is the Event object's own name ("<object>.<hex time>"); a repeat stored as a
	// PATCH has the name of the Event it updates.
	EventName string `json:"eventName"`
	// FirstTimestamp is when the Event first happened; LastTimestamp (= Time) when last.
	FirstTimestamp float64 `json:"firstTimestamp"`
	LastTimestamp  float64 `json:"lastTimestamp"`
	// Stored is when the API server stored this version: later than LastTimestamp when the
	// write waited in the component's queue or behind its client's rate limit.
	Stored float64 `json:"stored"`
}

// EventRecordFrom converts an Event stored at virtual time stored into an EventRecord. The
// time is the Event's LastTimestamp (when it last happened), or FirstTimestamp if
// LastTimestamp is zero; a zero Count is recorded as 1, since an Event that exists happened
// at least once.
func EventRecordFrom(e *model.Event, stored vtime.Time) EventRecord {
	t := e.LastTimestamp
	if t == 0 {
		t = e.FirstTimestamp
	}
	count := e.Count
	if count == 0 {
		count = 1
	}
	return EventRecord{
		Time:           t.Seconds(),
		Type:           e.Type,
		Reason:         e.Reason,
		Kind:           string(e.InvolvedObject.Kind),
		Namespace:      e.InvolvedObject.Namespace,
		Name:           e.InvolvedObject.Name,
		Message:        e.Message,
		Source:         e.Source.Component,
		Host:           e.Source.Host,
		Count:          count,
		EventName:      e.Name,
		FirstTimestamp: e.FirstTimestamp.Seconds(),
		LastTimestamp:  t.Seconds(),
		Stored:         stored.Seconds(),
	}
}
