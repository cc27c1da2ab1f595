package testworld

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/apiserver"
)

// lineFilter receives the kernel trace and keeps the lines of chosen components, with the
// " rv=N" field removed.
type lineFilter struct {
	keep    map[string]bool
	partial []byte
	out     bytes.Buffer
}

func newLineFilter(components []string) *lineFilter {
	f := &lineFilter{keep: make(map[string]bool, len(components))}
	for _, c := range components {
		f.keep[c] = true
	}
	return f
}

// Write implements io.Writer; the trace writes whole lines, but partial writes are handled.
func (f *lineFilter) Write(b []byte) (int, error) {
	f.partial = append(f.partial, b...)
	for {
		i := bytes.IndexByte(f.partial, '\n')
		if i < 0 {
			break
		}
		f.line(string(f.partial[:i]))
		f.partial = f.partial[i+1:]
	}
	return len(b), nil
}

func (f *lineFilter) line(s string) {
	fields := strings.SplitN(s, " ", 3)
	if len(fields) < 2 || !f.keep[fields[1]] {
		return
	}
	parts := strings.Split(s, " ")
	kept := parts[:0]
	for _, p := range parts {
		if strings.HasPrefix(p, "rv=") {
			continue
		}
		kept = append(kept, p)
	}
	f.out.WriteString(strings.Join(kept, " "))
	f.out.WriteByte('\n')
}

func (f *lineFilter) take() string {
	s := f.out.String()
	f.out.Reset()
	return s
}

// invariants are checked after every run: resourceVersions only grow, a pod is bound to one
// node at most (its nodeName never changes once set), and no node's pods request more CPU than
// it has allocatable.
type invariants struct {
	lastRV   map[string]uint64
	podNode  map[string]string
	revision uint64
}

func newInvariants() invariants {
	return invariants{lastRV: make(map[string]uint64), podNode: make(map[string]string)}
}

func (inv *invariants) check(s *apiserver.Store) error {
	if rev := s.Revision(); rev < inv.revision {
		return fmt.Errorf("invariant: store revision went back from %d to %d", inv.revision, rev)
	}
	inv.revision = s.Revision()
	requested := map[string]int64{}
	allocatable := map[string]int64{}
	for _, kind := range []model.Kind{model.KindNode, model.KindPod, model.KindLease} {
		objs, _, err := s.List(kind, model.ListOptions{})
		if err != nil {
			return err
		}
		for _, o := range objs {
			key := string(kind) + " " + model.Key(o)
			rv := o.Meta().ResourceVersion
			if last, ok := inv.lastRV[key]; ok && rv < last {
				return fmt.Errorf("invariant: %s resourceVersion went back from %d to %d", key, last, rv)
			}
			inv.lastRV[key] = rv
			if n, ok := o.(*model.Node); ok {
				if q, ok := n.Status.Allocatable[model.ResourceCPU]; ok {
					allocatable[n.Name] = q.MilliValue()
				}
			}
			if p, ok := o.(*model.Pod); ok && p.Spec.NodeName != "" {
				uidKey := key + " " + p.UID
				if prev, ok := inv.podNode[uidKey]; ok && prev != p.Spec.NodeName {
					return fmt.Errorf("invariant: %s moved from node %s to %s", key, prev, p.Spec.NodeName)
				}
				inv.podNode[uidKey] = p.Spec.NodeName
				if p.Status.Phase != model.PodSucceeded && p.Status.Phase != model.PodFailed {
					for _, c := range p.Spec.Containers {
						if q, ok := c.Resources.Requests[model.ResourceCPU]; ok {
							requested[p.Spec.NodeName] += q.MilliValue()
						}
					}
				}
			}
		}
	}
	for _, node := range sortedNames(requested) {
		if alloc, ok := allocatable[node]; ok && requested[node] > alloc {
			return fmt.Errorf("invariant: pods on node %s request %dm CPU, allocatable is %dm", node, requested[node], alloc)
		}
	}
	return nil
}

func sortedNames(m map[string]int64) []string {
	out := make([]string, 0, len(m))
	//detlint:ordered sorted below
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
