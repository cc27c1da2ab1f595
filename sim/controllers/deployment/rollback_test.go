package deployment

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
)

func TestRollbackTemplate(t *testing.T) {
	d := rollingDeployment(2, "25%", "25%")
	d.UID = "uid-d"
	owned := func(name, revision, image string) *model.ReplicaSet {
		rs := testRS(name, 1, 0, 0, 0)
		rs.Annotations = map[string]string{RevisionAnnotation: revision}
		rs.OwnerReferences = []model.OwnerReference{deploymentControllerRef(d)}
		rs.Spec.Template = podTemplate("web", image, false)
		rs.Spec.Template.Labels[DefaultDeploymentUniqueLabelKey] = "hash-" + name
		return rs
	}
	stranger := owned("stranger", "9", "x")
	stranger.OwnerReferences = nil
	rsList := []*model.ReplicaSet{owned("r1", "1", "v1"), owned("r3", "3", "v3"), owned("r2", "2", "v2"), stranger, nil}

	tests := []struct {
		name      string
		revision  int64
		paused    bool
		wantImage string
		wantErr   string
	}{
		{"previous revision", 0, false, "registry.example/app:v2", ""},
		{"a given revision", 1, false, "registry.example/app:v1", ""},
		{"the current revision", 3, false, "registry.example/app:v3", ""},
		{"a ReplicaSet the Deployment does not control is no revision of it", 9, false, "", "unable to find specified revision 9 in history"},
		{"negative", -1, false, "", "unable to find specified revision -1 in history"},
		{"paused", 0, true, "", ErrRollbackPaused.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dd := d.DeepCopy()
			dd.Spec.Paused = tt.paused
			got, err := RollbackTemplate(dd, rsList, tt.revision)
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantImage, got.Spec.Containers[0].Image)
			assert.Equal(t, map[string]string{"app": "web"}, got.Labels, "no pod-template-hash label")
		})
	}
	_, err := RollbackTemplate(d, rsList[:1], 0)
	require.EqualError(t, err, `no rollout history found for deployment "web"`)
	assert.Equal(t, "hash-r2", rsList[2].Spec.Template.Labels[DefaultDeploymentUniqueLabelKey], "the ReplicaSet is not modified")

	rs := owned("r2", "2", "v2")
	rs.Annotations["team"] = "web"
	d.Annotations = map[string]string{RevisionAnnotation: "3", "owner": "me"}
	assert.Equal(t, map[string]string{RevisionAnnotation: "3", "team": "web"}, rollbackAnnotations(d, rs),
		"kubectl keeps the Deployment's skipped annotations and takes the rest from the ReplicaSet")
}
