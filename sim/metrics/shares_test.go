package metrics

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/reconsim/reconsim/model"
)

// TestRefreshSharesIsContainerShares holds refreshShares to containerShares over seeded
// sequences of pod versions, as writers make them: a status update hands the container list
// over (the shares are kept), a spec change brings a new list with other requests and limits,
// or an equal copy of the old one (the shares are computed again). After every version the
// pod's shares are what containerShares gives for it.
func TestRefreshSharesIsContainerShares(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 0))
	quantities := func() model.ResourceList {
		rl := model.ResourceList{}
		if r.IntN(3) > 0 {
			rl[model.ResourceCPU] = resource.MustParse(fmt.Sprintf("%dm", 100*r.IntN(4)))
		}
		if r.IntN(3) > 0 {
			rl[model.ResourceMemory] = resource.MustParse(fmt.Sprintf("%dMi", 64*r.IntN(4)))
		}
		return rl
	}
	containers := func() []model.Container {
		cs := make([]model.Container, r.IntN(4))
		for i := range cs {
			cs[i].Name = fmt.Sprint("c", i)
			cs[i].Resources.Requests = quantities()
			cs[i].Resources.Limits = quantities()
		}
		return cs
	}
	kept := 0
	for seq := range 50 {
		ps := &podState{}
		pod := &model.Pod{}
		pod.Spec.Containers = containers()
		for v := range 20 {
			next := *pod
			switch r.IntN(4) {
			case 0:
				next.Spec.Containers = containers()
			case 1:
				next.Spec.Containers = append([]model.Container(nil), pod.Spec.Containers...)
			default:
				next.ResourceVersion = uint64(v + 1)
			}
			pod = &next
			before := ps.containers
			refreshShares(ps, pod)
			if len(before) > 0 && len(ps.containers) > 0 && &before[0] == &ps.containers[0] {
				kept++
			}
			shares, cpuLim, memLim, cpuReq := containerShares(pod)
			require.Equal(t, shares, ps.containers, "sequence %d version %d", seq, v)
			require.Equal(t, cpuLim, ps.cpuLimitCores, "sequence %d version %d", seq, v)
			require.Equal(t, memLim, ps.memLimitBytes, "sequence %d version %d", seq, v)
			require.Equal(t, cpuReq, ps.cpuRequestMill, "sequence %d version %d", seq, v)
		}
	}
	require.Greater(t, kept, 100, "status updates keep the shares")
}
