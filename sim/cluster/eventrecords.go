package cluster

import (
	"iter"

	"github.com/reconsim/reconsim/report"
)

// eventRecords is events.jsonl's records in the order they were stored, kept in blocks:
// adding one never moves the records already kept. A slice grown by append copied every
// record about four times over as it grew (Go grows a large slice by a quarter): 50 MB of
// the 863 MB thundering-herd allocated, for 53,708 records of 176 bytes.
type eventRecords struct {
	blocks [][]report.EventRecord
	n      int
}

// Block sizes: the first block holds minEventBlock records, each next one as many as are
// kept so far, up to maxEventBlock, so a small run allocates little and a large one
// allocates at most twice its records.
const (
	minEventBlock = 64
	maxEventBlock = 4096
)

// add keeps rec after the records kept so far.
func (r *eventRecords) add(rec report.EventRecord) {
	last := len(r.blocks) - 1
	if last < 0 || len(r.blocks[last]) == cap(r.blocks[last]) {
		r.blocks = append(r.blocks, make([]report.EventRecord, 0, min(max(r.n, minEventBlock), maxEventBlock)))
		last++
	}
	r.blocks[last] = append(r.blocks[last], rec)
	r.n++
}

// all yields every record, in order.
func (r *eventRecords) all() iter.Seq[*report.EventRecord] {
	return func(yield func(*report.EventRecord) bool) {
		for _, b := range r.blocks {
			for i := range b {
				if !yield(&b[i]) {
					return
				}
			}
		}
	}
}

// slice returns the records, in order, in one slice of their number (nil when there are none).
func (r *eventRecords) slice() []report.EventRecord {
	if r.n == 0 {
		return nil
	}
	out := make([]report.EventRecord, 0, r.n)
	for _, b := range r.blocks {
		out = append(out, b...)
	}
	return out
}
