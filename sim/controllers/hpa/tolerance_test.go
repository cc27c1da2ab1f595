package hpa

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/reconsim/reconsim/model"
)

// TestTolerancesForHpa follows horizontal.go tolerancesForHpa with the HPAConfigurableTolerance
// gate on (1.35 and later) and off (up to 1.34, where the API server drops the field): a
// behavior's per-direction tolerance overrides --horizontal-pod-autoscaler-tolerance only with
// the gate on.
func TestTolerancesForHpa(t *testing.T) {
	q := resource.MustParse("0.05")
	hpa := &model.HorizontalPodAutoscaler{Spec: model.HorizontalPodAutoscalerSpec{Behavior: &model.HorizontalPodAutoscalerBehavior{
		ScaleUp: &model.HPAScalingRules{Tolerance: &q},
	}}}
	tests := []struct {
		name string
		gate bool
		want Tolerances
	}{
		{"gate on (1.35+): scale-up tolerance from the behavior", true, Tolerances{ScaleDown: 0.1, ScaleUp: 0.05}},
		{"gate off (1.32-1.34): the flag in both directions", false, Tolerances{ScaleDown: 0.1, ScaleUp: 0.1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.ConfigurableTolerance = tt.gate
			assert.Equal(t, tt.want, (&Controller{cfg: cfg}).tolerancesForHpa(hpa))
		})
	}
}
