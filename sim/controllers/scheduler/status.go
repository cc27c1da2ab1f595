package scheduler

import "strings"

// Code is the outcome of a plugin (upstream framework.Code, the subset the modelled plugins
// return).
type Code int

// The codes. Unschedulable means preemption might help on this node;
// UnschedulableAndUnresolvable means it cannot (upstream uses the difference to pick the
// nodes a preemption dry run looks at).
const (
	Success Code = iota
	Unschedulable
	UnschedulableAndUnresolvable
)

// Plugin names, as in pkg/scheduler/framework/plugins/names.
const (
	PluginNodeUnschedulable  = "NodeUnschedulable"
	PluginNodeName           = "NodeName"
	PluginTaintToleration    = "TaintToleration"
	PluginNodeAffinity       = "NodeAffinity"
	PluginNodeResourcesFit   = "NodeResourcesFit"
	PluginBalancedAllocation = "NodeResourcesBalancedAllocation"
	PluginDefaultPreemption  = "DefaultPreemption"
	PluginDefaultBinder      = "DefaultBinder"
	PluginPrioritySort       = "PrioritySort"
)

// Status is a plugin's verdict on a pod and a node: a code, the human-readable reasons that
// end up in the FailedScheduling message, and the plugin that returned it. A nil *Status is
// Success.
type Status struct {
	code    Code
	reasons []string
	plugin  string
}

func newStatus(code Code, plugin string, reasons ...string) *Status {
	return &Status{code: code, reasons: reasons, plugin: plugin}
}

// Code returns the status code; Success for nil.
func (s *Status) Code() Code {
	if s == nil {
		return Success
	}
	return s.code
}

// IsSuccess reports whether s is nil or Success.
func (s *Status) IsSuccess() bool { return s.Code() == Success }

// Reasons returns the reasons (nil for Success).
func (s *Status) Reasons() []string {
	if s == nil {
		return nil
	}
	return s.reasons
}

// Plugin returns the name of the plugin that returned s.
func (s *Status) Plugin() string {
	if s == nil {
		return ""
	}
	return s.plugin
}

// Message joins the reasons with ", " (upstream Status.Message).
func (s *Status) Message() string {
	if s == nil {
		return ""
	}
	return strings.Join(s.reasons, ", ")
}
