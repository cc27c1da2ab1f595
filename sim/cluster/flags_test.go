package cluster

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/kubeapiserver"
)

// TestAPIServerOptionsAreTheServerDefaults: kube-apiserver's documented defaults
// (kubeapiserver.DefaultOptions, which scenarios checks against its flag table) equal the
// defaults sim/apiserver's DefaultConfig has for the same upstream flags.
func TestAPIServerOptionsAreTheServerDefaults(t *testing.T) {
	o := kubeapiserver.DefaultOptions()
	def := apiserver.DefaultConfig()
	assert.Equal(t, def.MaxRequestsInflight, o.MaxRequestsInflight)
	assert.Equal(t, def.MaxMutatingRequestsInflight, o.MaxMutatingRequestsInflight)
	assert.Equal(t, def.Store.EventTTL, o.EventTTL)
	assert.Equal(t, apiserver.DefaultRequestTimeout, o.RequestTimeout)
	assert.Nil(t, def.Store.DefaultNotReadyTolerationSeconds, "nil means DefaultTolerationSeconds")
	assert.Nil(t, def.Store.DefaultUnreachableTolerationSeconds, "nil means DefaultTolerationSeconds")
	assert.Equal(t, int64(apiserver.DefaultTolerationSeconds), o.DefaultNotReadyTolerationSeconds)
	assert.Equal(t, int64(apiserver.DefaultTolerationSeconds), o.DefaultUnreachableTolerationSeconds)
}

// TestAPIServerConfigSetsEveryOption: apiServerConfig carries each option into the server's
// Config.
func TestAPIServerConfigSetsEveryOption(t *testing.T) {
	d := func(ms int) sim.Dist { return sim.Constant(time.Duration(ms) * time.Millisecond) }
	o := kubeapiserver.Options{MaxRequestsInflight: 7, MaxMutatingRequestsInflight: 3, EventTTL: time.Minute,
		DefaultNotReadyTolerationSeconds: 11, DefaultUnreachableTolerationSeconds: 13,
		WatchDelay: d(1), ServiceTimeGet: d(2), ServiceTimeList: d(3), ServiceTimeMutating: d(4)}
	cfg := apiServerConfig(o)
	assert.Equal(t, 7, cfg.MaxRequestsInflight)
	assert.Equal(t, 3, cfg.MaxMutatingRequestsInflight)
	assert.Equal(t, time.Minute, cfg.Store.EventTTL)
	assert.Equal(t, int64(11), *cfg.Store.DefaultNotReadyTolerationSeconds)
	assert.Equal(t, int64(13), *cfg.Store.DefaultUnreachableTolerationSeconds)
	assert.Equal(t, d(1), cfg.Store.WatchDelay)
	assert.Equal(t, d(2), cfg.ServiceTime[model.VerbGet])
	assert.Equal(t, d(3), cfg.ServiceTime[model.VerbList])
	for _, v := range []model.Verb{model.VerbCreate, model.VerbUpdate, model.VerbPatch, model.VerbDelete} {
		assert.Equal(t, d(4), cfg.ServiceTime[v], v)
	}
	assert.Equal(t, apiserver.DefaultConfig().ServiceTime[model.VerbWatch], cfg.ServiceTime[model.VerbWatch], "watch establishment keeps the server's default")
}
