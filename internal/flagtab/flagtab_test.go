package flagtab

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

type value struct {
	i    int64
	f    float64
	d    time.Duration
	b    bool
	s    string
	dist any
}

func (v value) Int() int64              { return v.i }
func (v value) Float() float64          { return v.f }
func (v value) Duration() time.Duration { return v.d }
func (v value) Bool() bool              { return v.b }
func (v value) StringValue() string     { return v.s }
func (v value) Dist() any               { return v.dist }

type dist struct{ median time.Duration }

type config struct {
	Workers int
	Limit   int32
	Rate    float32
	Period  time.Duration
	On      bool
	Mode    string
	Latency dist
	Other   int
}

func table() Table[config] {
	return Table[config]{
		Component: "c",
		Defaults: func() config {
			return config{Workers: 5, Limit: 50, Rate: 0.1, Period: time.Second, Mode: "a", Other: 9}
		},
		Flags: []Flag[config]{
			{Name: "workers", Type: Int, Default: "5", Field: "Workers", Ptr: func(c *config) any { return &c.Workers }},
			{Name: "limit", Type: Int, Default: "50", Field: "Limit", Ptr: func(c *config) any { return &c.Limit }},
			{Name: "rate", Type: Float, Default: "0.1", Field: "Rate", Ptr: func(c *config) any { return &c.Rate }},
			{Name: "period", Type: Duration, Default: "1s", Field: "Period", Ptr: func(c *config) any { return &c.Period }},
			{Name: "on", Type: Bool, Default: "false", Field: "On", Ptr: func(c *config) any { return &c.On }},
			{Name: "mode", Type: String, Default: "a", Field: "Mode", Ptr: func(c *config) any { return &c.Mode }},
			{Name: "latency", Type: Dist, Default: "d", Field: "Latency", Ptr: func(c *config) any { return &c.Latency }},
		},
	}
}

func TestApplySetsExactlyTheTableFields(t *testing.T) {
	cfg := config{Other: 9}
	table().Apply(&cfg, func(in Info) Value {
		return value{i: 7, f: 0.25, d: time.Minute, b: true, s: in.Name, dist: dist{time.Millisecond}}
	})
	assert.Equal(t, config{Workers: 7, Limit: 7, Rate: 0.25, Period: time.Minute, On: true, Mode: "mode", Latency: dist{time.Millisecond}, Other: 9}, cfg)
}

func TestApplySomeSetsOnlyTheGivenFlags(t *testing.T) {
	tab := table()
	cfg := tab.Defaults()
	tab.ApplySome(&cfg, func(in Info) (Value, bool) { return value{i: 7}, in.Name == "limit" })
	want := tab.Defaults()
	want.Limit = 7
	assert.Equal(t, want, cfg)
}

func TestMismatches(t *testing.T) {
	defaults := map[string]value{
		"workers": {i: 5}, "limit": {i: 50}, "rate": {f: 0.1}, "period": {d: time.Second},
		"on": {}, "mode": {s: "a"}, "latency": {dist: dist{}},
	}
	tab := table()
	assert.Empty(t, tab.Mismatches(func(in Info) Value { return defaults[in.Name] }))
	defaults["period"] = value{d: 2 * time.Second}
	assert.Equal(t, []string{`c.period: documented default "1s" sets Period to 2s; DefaultConfig has 1s`},
		tab.Mismatches(func(in Info) Value { return defaults[in.Name] }))
}

func TestInfosNameTheConfigType(t *testing.T) {
	in := table().Infos()[0]
	assert.Equal(t, Info{Component: "c", Name: "workers", Type: Int, Default: "5", Field: "Workers", Config: "flagtab.config"}, in)
}

func TestForNamesAnotherComponent(t *testing.T) {
	tab := table()
	other := tab.For("d")
	assert.Equal(t, "d", other.Infos()[0].Component)
	assert.Equal(t, "c", tab.Component, "the original table is unchanged")
}

func TestWrongFieldTypePanics(t *testing.T) {
	tab := Table[config]{Component: "c", Defaults: func() config { return config{} },
		Flags: []Flag[config]{{Name: "mode", Type: Int, Field: "Mode", Ptr: func(c *config) any { return &c.Mode }}}}
	assert.PanicsWithValue(t, "flagtab: int flag mode cannot set a field of type string", func() {
		tab.Apply(&config{}, func(Info) Value { return value{} })
	})
}
