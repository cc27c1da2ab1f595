package client

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/reconsim/reconsim/vtime"
)

// Reflector backoff, client-go tools/cache/reflector.go NewReflectorWithOptions: an exponential
// backoff manager with initial 800ms, cap 30s, reset after 2 minutes without backoff
// (defaultBackoffReset), factor 2.0 and jitter 1.0.
const (
	reflectorBackoffInitial = 800 * time.Millisecond
	reflectorBackoffCap     = 30 * time.Second
	reflectorBackoffReset   = 2 * time.Minute
	reflectorBackoffFactor  = 2.0
	reflectorBackoffJitter  = 1.0
)

// backoffManager is apimachinery's exponentialBackoffManagerImpl over wait.Backoff, with its
// jitter drawn from a seeded stream instead of the global source.
type backoffManager struct {
	r         *rand.Rand
	duration  time.Duration
	steps     int
	lastStart vtime.Time
}

func newBackoffManager(r *rand.Rand, now vtime.Time) *backoffManager {
	b := &backoffManager{r: r, lastStart: now}
	b.restart()
	return b
}

func (b *backoffManager) restart() {
	b.duration = reflectorBackoffInitial
	b.steps = math.MaxInt32
}

// next returns the next wait: restart from the initial delay if the previous backoff began
// more than the reset period ago, then take one wait.Backoff step (double, capped, and once
// capped stay there) and add up to jitter×delay at random.
func (b *backoffManager) next(now vtime.Time) time.Duration {
	if now.Sub(b.lastStart) > reflectorBackoffReset {
		b.restart()
	}
	b.lastStart = now
	d := b.duration
	if b.steps >= 1 {
		b.steps--
		next := time.Duration(float64(b.duration) * reflectorBackoffFactor)
		if next > reflectorBackoffCap {
			next = reflectorBackoffCap
			b.steps = 0
		}
		b.duration = next
	}
	return d + time.Duration(b.r.Float64()*reflectorBackoffJitter*float64(d))
}
