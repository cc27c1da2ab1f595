package deployment

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
)

func TestComputeHash(t *testing.T) {
	base := podTemplate("web", "v1", false)
	base.Labels["tier"] = "frontend"
	base.Spec.Containers[0].Resources.Requests = model.ResourceList{"cpu": resource.MustParse("100m"), "memory": resource.MustParse("64Mi")}
	h := ComputeHash(&base, nil)

	t.Run("stable", func(t *testing.T) {
		// The value is fixed by the algorithm (FNV-32a of the JSON encoding, SafeEncodeString):
		// a change here renames every ReplicaSet in every trace.
		assert.Equal(t, "776564b74", h)
		for i := 0; i < 3; i++ {
			assert.Equal(t, h, ComputeHash(&base, nil))
		}
	})
	t.Run("independent of map insertion order", func(t *testing.T) {
		other := podTemplate("web", "v1", false)
		other.Labels = map[string]string{"tier": "frontend", "app": "web"}
		other.Spec.Containers[0].Resources.Requests = model.ResourceList{"memory": resource.MustParse("64Mi"), "cpu": resource.MustParse("100m")}
		assert.Equal(t, h, ComputeHash(&other, nil))
	})
	t.Run("uses the safe alphabet", func(t *testing.T) {
		for _, c := range h {
			assert.True(t, strings.ContainsRune(controllerutil.SafeEncodeAlphabet, c), "%q", c)
		}
		assert.LessOrEqual(t, len(h), 10, "the decimal of a uint32 has at most 10 digits")
	})
	t.Run("changes with the template", func(t *testing.T) {
		changed := podTemplate("web", "v2", false)
		changed.Labels["tier"] = "frontend"
		changed.Spec.Containers[0].Resources.Requests = base.Spec.Containers[0].Resources.Requests
		assert.NotEqual(t, h, ComputeHash(&changed, nil))
	})
	t.Run("changes with the collision count", func(t *testing.T) {
		seen := map[string]bool{h: true}
		for _, n := range []int32{0, 1, 2, 3} {
			hn := ComputeHash(&base, model.Ptr(n))
			assert.False(t, seen[hn], "collisionCount %d gives a new hash", n)
			seen[hn] = true
			assert.Equal(t, hn, ComputeHash(&base, model.Ptr(n)), "and the same one every time")
		}
	})
}

func TestSafeEncodeString(t *testing.T) {
	// Digit d maps to alphabet[(48+d) % 27]: 0->4 1->5 2->6 3->7 4->8 5->9 6->b 7->c 8->d 9->f.
	assert.Equal(t, "456789bcdf", controllerutil.SafeEncodeString("0123456789"))
}
