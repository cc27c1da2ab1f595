package apiserver

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/reconsim/reconsim/model"
)

// TestMutationCheck: with CheckMutations the store reports a shared stored object that a
// reader modified, when the object is next replaced, removed, or at the end; reads (including
// a quantity's cached string, which String fills in) and copies are not modifications.
func TestMutationCheck(t *testing.T) {
	tests := []struct {
		name   string
		modify func(shared *model.Pod)
		then   func(t *testing.T, s *Store, shared *model.Pod)
		want   string // regexp of the one violation; "" for none
	}{
		{name: "read only", modify: func(p *model.Pod) {
			_ = p.Spec.Containers[0].Resources.Requests[model.ResourceCPU]
			q := p.Spec.Containers[0].Resources.Requests[model.ResourceCPU]
			_ = q.String()
		}},
		{name: "a copy is the caller's", modify: func(p *model.Pod) {
			p.DeepCopy().Labels["x"] = "y"
		}},
		{name: "label added, caught at the end", modify: func(p *model.Pod) { p.Labels["x"] = "y" },
			want: `^Pod default/p \(resourceVersion \d+\) was modified after the API server stored it, still stored at the end: ObjectMeta.Labels\[x\] was added`},
		{name: "node name set, caught by the next update", modify: func(p *model.Pod) { p.Spec.NodeName = "n1" },
			then: func(t *testing.T, s *Store, shared *model.Pod) {
				upd := shared.DeepCopy()
				upd.Annotations = map[string]string{"a": "b"}
				_, err := s.Update(upd)
				require.NoError(t, err)
			},
			want: `^Pod default/p \(resourceVersion \d+\) was modified after the API server stored it, before revision \d+ replaced it: Spec.NodeName changed from "" to "n1"`},
		{name: "quantity changed, caught by the removal", modify: func(p *model.Pod) {
			p.Spec.Containers[0].Resources.Requests[model.ResourceCPU] = resource.MustParse("3")
		},
			then: func(t *testing.T, s *Store, shared *model.Pod) {
				_, err := s.Delete(model.KindPod, "default", "p", model.DeleteOptions{GracePeriodSeconds: model.Ptr(int64(0))})
				require.NoError(t, err)
			},
			want: `before revision \d+ replaced it: Spec.Containers\[0\].Resources.Requests\[cpu\] changed from "100m" to "3"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, s := newTestStore(t, func(c *StoreConfig) { c.CheckMutations = true })
			p := newPod("p")
			p.Labels = map[string]string{"app": "web"}
			p.Spec.Containers[0].Resources.Requests = model.ResourceList{model.ResourceCPU: resource.MustParse("100m")}
			mustCreate(t, s, p)
			obj, err := s.Get(model.KindPod, "default", "p")
			require.NoError(t, err)
			shared := obj.(*model.Pod)
			tt.modify(shared)
			if tt.then != nil {
				tt.then(t, s, shared)
			}
			got := s.MutationViolations()
			if tt.want == "" {
				assert.Empty(t, got)
				return
			}
			require.Len(t, got, 1, "%q", got)
			assert.Regexp(t, tt.want, got[0])
			assert.Empty(t, s.MutationViolations()[1:], "each modification is reported once")
		})
	}
}

// TestMutationCheckOff: without CheckMutations the store keeps no copies and reports nothing.
func TestMutationCheckOff(t *testing.T) {
	_, s := newTestStore(t, nil)
	p := mustCreate(t, s, newPod("p"))
	obj, err := s.Get(model.KindPod, "default", p.Name)
	require.NoError(t, err)
	obj.(*model.Pod).Spec.NodeName = "n1"
	assert.Nil(t, s.MutationViolations())
	assert.Nil(t, s.mutations)
}
