package sim

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/vtime"
)

// TestScheduleReservedFiresWhereScheduleWould runs one seeded script twice: events scheduled
// at random times from inside other events, some with delays they share, once each with
// Schedule when it is decided, and once with the shared-delay events held back in a queue
// (Reserve when decided, ScheduleReserved of the queue's earliest only, the next one when it
// fires). Both runs must fire the same events in the same order at the same times.
func TestScheduleReservedFiresWhereScheduleWould(t *testing.T) {
	for seed := range uint64(20) {
		require.Equal(t, reservedScript(seed, false), reservedScript(seed, true), "seed %d", seed)
	}
}

// reservedScript returns "<time> <id>" of every event fired, in order.
func reservedScript(seed uint64, queued bool) []string {
	k := New(seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	const sharedDelay = 3 * time.Second
	type pending struct {
		at  vtime.Time
		seq uint64
		id  int
	}
	var queue []pending
	var fired []string
	var fire func(id int)
	var nextID int
	var handler HandlerFunc
	handler = func(arg uint64) {
		id := int(arg)
		if queued && len(queue) > 0 && queue[0].id == id {
			queue = queue[1:]
			if len(queue) > 0 {
				k.ScheduleReserved(queue[0].at, queue[0].seq, handler, uint64(queue[0].id), false)
			}
		}
		fire(id)
	}
	schedule := func(d time.Duration, shared bool) {
		nextID++
		id := nextID
		at := k.Now().Add(d)
		if !shared || !queued {
			k.Schedule(at, handler, uint64(id), false)
			return
		}
		queue = append(queue, pending{at: at, seq: k.Reserve(), id: id})
		if len(queue) == 1 {
			k.ScheduleReserved(at, queue[0].seq, handler, uint64(id), false)
		}
	}
	fire = func(id int) {
		fired = append(fired, fmt.Sprintf("%s %d", k.Now(), id))
		if nextID >= 3000 {
			return
		}
		for range rng.IntN(3) {
			switch rng.IntN(4) {
			case 0: // the shared delay, from any instant
				schedule(sharedDelay, true)
			case 1: // an ordinary event landing on an instant the shared delay also hits
				schedule(sharedDelay-time.Duration(rng.IntN(3))*time.Second, false)
			case 2:
				schedule(0, false)
			default:
				schedule(time.Duration(rng.IntN(4))*time.Second, false)
			}
		}
	}
	for range 5 {
		schedule(0, false)
	}
	k.Run(Limits{})
	return fired
}
