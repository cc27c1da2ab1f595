package scheduler

import "strings"

// spreadMemos keeps, across scheduling cycles, the sums PodTopologySpread's PreScore takes over
// every node: for one (namespace, selector) and topology key, the matching pods per topology
// value. Upstream counts every node's pods again in every cycle (scoring.go PreScore's
// processAllNode); the replicas of one workload, scheduled one after another, ask for the same
// sums over a cluster that changed on a node or two in between. A memo remembers each node's
// contribution with the node's countsGeneration and counts again only the nodes that changed, so
// the sums are upstream's (TestSpreadMemoMatchesFullCount holds them to a full count). It is a
// simulator shortcut, used only where a node's contribution depends on nothing but the node and
// the selector: no node inclusion policy that reads the incoming pod (nodeAffinityPolicy Honor
// with a required node affinity or nodeSelector, or nodeTaintsPolicy Honor).
type spreadMemos struct {
	entries map[string]*spreadMemo
}

// maxSpreadMemos bounds the memos a scheduler keeps; past it they start over.
const maxSpreadMemos = 256

// spreadMemo is one memo: per position in the node list, the node it saw, at which generation,
// whether it counted, its topology value and its count; and the sums per value.
type spreadMemo struct {
	nodes    []*NodeInfo
	gens     []uint64
	included []bool
	values   []string
	counts   []int64
	totals   map[string]int64
}

func newSpreadMemos() *spreadMemos { return &spreadMemos{entries: map[string]*spreadMemo{}} }

// memoFor returns the memo of constraint c for pods of namespace ns (c.match.key names both) over
// the node list; requireAll is PreScore's requireAllTopologies, keys the topology keys of all
// the pod's constraints when it is set.
func (m *spreadMemos) memoFor(c *spreadConstraint, requireAll bool, constraints []spreadConstraint) *spreadMemo {
	var key strings.Builder
	key.WriteString(c.match.key)
	key.WriteString("\x00")
	key.WriteString(c.topologyKey)
	if requireAll {
		for i := range constraints {
			key.WriteString("\x00")
			key.WriteString(constraints[i].topologyKey)
		}
	}
	k := key.String()
	if e, ok := m.entries[k]; ok {
		return e
	}
	if len(m.entries) >= maxSpreadMemos {
		clear(m.entries)
	}
	e := &spreadMemo{totals: map[string]int64{}}
	m.entries[k] = e
	return e
}

// sums brings the memo up to date with nodes and returns the matching pods per topology value
// over the nodes that count (include); the caller must not modify the map.
func (e *spreadMemo) sums(nodes []*NodeInfo, include func(*NodeInfo) bool, valueOf func(*NodeInfo) string, count func(*NodeInfo) int64) map[string]int64 {
	if len(e.nodes) != len(nodes) {
		n := len(nodes)
		e.nodes, e.gens, e.included = make([]*NodeInfo, n), make([]uint64, n), make([]bool, n)
		e.values, e.counts = make([]string, n), make([]int64, n)
		clear(e.totals)
	}
	for j, ni := range nodes {
		if e.nodes[j] == ni && e.gens[j] == ni.countsGeneration {
			continue
		}
		if e.included[j] {
			e.totals[e.values[j]] -= e.counts[j]
		}
		e.nodes[j], e.gens[j] = ni, ni.countsGeneration
		e.included[j] = include(ni)
		if !e.included[j] {
			continue
		}
		e.values[j], e.counts[j] = valueOf(ni), count(ni)
		e.totals[e.values[j]] += e.counts[j]
	}
	return e.totals
}
