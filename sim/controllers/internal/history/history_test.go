package history

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
)

func TestNewControllerRevision(t *testing.T) {
	set := &model.StatefulSet{}
	set.Name, set.Namespace, set.UID = "db", "ns", "uid-1"
	set.Spec.Template.Labels = map[string]string{"app": "db"}
	ref := controllerutil.NewControllerRef(set, model.KindStatefulSet, "apps/v1")

	cr := NewControllerRevision(set, ref, &set.Spec.Template, "db-h", "h", 3)
	assert.Equal(t, "db-h", cr.Name)
	assert.Equal(t, "ns", cr.Namespace)
	assert.Equal(t, int64(3), cr.Revision)
	assert.Equal(t, map[string]string{"app": "db", ControllerRevisionHashLabel: "h"}, cr.Labels)
	assert.Equal(t, []model.OwnerReference{ref}, cr.OwnerReferences)

	// The revision owns its copies: changing it leaves the parent's template alone.
	cr.Data.Template.Labels["app"] = "changed"
	assert.Equal(t, "db", set.Spec.Template.Labels["app"])
	assert.NotContains(t, set.Spec.Template.Labels, ControllerRevisionHashLabel)
}

func TestEqualRevisionByData(t *testing.T) {
	mk := func(hash, image string) *model.ControllerRevision {
		cr := &model.ControllerRevision{}
		cr.Labels = map[string]string{ControllerRevisionHashLabel: hash}
		cr.Data.Template.Spec.Containers = []model.Container{{Name: "c", Image: image}}
		return cr
	}
	data := func(cr *model.ControllerRevision) []byte {
		b, err := TemplatePatch(&cr.Data.Template)
		require.NoError(t, err)
		return b
	}
	a, same, other := mk("h", "v1"), mk("h", "v1"), mk("h", "v2")
	assert.True(t, EqualRevision(a, same, data))
	assert.False(t, EqualRevision(a, other, data))
	assert.False(t, EqualRevision(a, mk("g", "v1"), data), "different hash labels differ whatever the data")
	assert.Equal(t, []*model.ControllerRevision{a, same}, FindEqualRevisions([]*model.ControllerRevision{a, other, same}, a, data))
}
