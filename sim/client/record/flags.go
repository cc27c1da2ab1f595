package record

import "github.com/reconsim/reconsim/internal/flagtab"

// Routing says where the simulated components' Kubernetes Events go.
type Routing struct {
	// ThroughAPI: through each component's own API client (a Broadcaster, as client-go's
	// StartRecordingToSink with the component's clientset); otherwise straight to the run's
	// record at no cost, every call one Event (New).
	ThroughAPI bool
}

// DefaultRouting is upstream's: Events go through the API.
func DefaultRouting() Routing { return Routing{ThroughAPI: true} }

// Flags is the table of the simulator's Event routing flag (simulator.events-through-api),
// its default (equal to DefaultRouting's; a test of scenarios checks) and the field it sets
// (internal/flagtab).
var Flags = flagtab.Table[Routing]{
	Component: "simulator",
	Defaults:  DefaultRouting,
	Flags: []flagtab.Flag[Routing]{
		{Name: "events-through-api", Type: flagtab.Bool, Default: "true", Field: "ThroughAPI",
			Source: "simulator setting; true is upstream: client-go tools/record StartRecordingToSink writes through the component's clientset",
			Ptr:    func(r *Routing) any { return &r.ThroughAPI }},
	},
}
