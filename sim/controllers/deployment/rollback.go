package deployment

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/client"
)

// Rollback, the way `kubectl rollout undo [--to-revision=N]` does it (kubectl
// polymorphichelpers/rollback.go DeploymentRollbacker). apps/v1 has no rollbackTo field and the
// controller's rollback.go only serves the deprecated extensions/v1beta1 annotation, so a
// rollback is a client writing an old ReplicaSet's template back into the Deployment; the
// controller then rolls that template out like any other change, and getNewReplicaSet finds the
// old ReplicaSet as the new one and raises its revision.

// rollbackRetries bounds Rollback's read-modify-write attempts on conflicts (client-go
// retry.DefaultRetry has 5 steps).
const rollbackRetries = 5

// Messages of Rollback, as kubectl prints them.
const (
	rollbackSuccess = "rolled back"
	rollbackSkipped = "skipped rollback"
)

// ErrRollbackPaused is returned for a paused Deployment: kubectl refuses to roll it back.
var ErrRollbackPaused = errors.New("you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again")

// RollbackTemplate returns the pod template of the given revision of d, without the
// pod-template-hash label, chosen from the ReplicaSets of rsList that d controls: revision 0
// means the previous one (the second highest revision present). It returns an error for a
// negative revision, a paused Deployment (ErrRollbackPaused), a revision not found ("unable to
// find specified revision N in history"), or, for revision 0, no previous revision ("no rollout
// history found"). The template returned is a copy; it may equal d's current template, which
// kubectl reports as a skipped rollback.
func RollbackTemplate(d *model.Deployment, rsList []*model.ReplicaSet, revision int64) (*model.PodTemplateSpec, error) {
	rs, err := rollbackReplicaSet(d, rsList, revision)
	if err != nil {
		return nil, err
	}
	var t model.PodTemplateSpec
	rs.Spec.Template.DeepCopyInto(&t)
	delete(t.Labels, DefaultDeploymentUniqueLabelKey)
	if len(t.Labels) == 0 {
		t.Labels = nil
	}
	return &t, nil
}

// rollbackReplicaSet picks the ReplicaSet of the revision (kubectl deploymentRevision).
func rollbackReplicaSet(d *model.Deployment, rsList []*model.ReplicaSet, revision int64) (*model.ReplicaSet, error) {
	if revision < 0 {
		return nil, fmt.Errorf("unable to find specified revision %d in history", revision)
	}
	if d.Spec.Paused {
		return nil, ErrRollbackPaused
	}
	var latest, previous *model.ReplicaSet
	latestRevision, previousRevision := int64(-1), int64(-1)
	for _, rs := range rsList {
		if rs == nil || !isControlledBy(rs, d) {
			continue
		}
		v, err := Revision(rs)
		if err != nil {
			continue
		}
		switch {
		case revision > 0:
			if v == revision {
				return rs, nil
			}
		case latestRevision < v:
			previous, previousRevision = latest, latestRevision
			latest, latestRevision = rs, v
		case previousRevision < v:
			previous, previousRevision = rs, v
		}
	}
	if revision > 0 {
		return nil, fmt.Errorf("unable to find specified revision %d in history", revision)
	}
	if previous == nil {
		return nil, fmt.Errorf("no rollout history found for deployment %q", d.Name)
	}
	return previous, nil
}

// rollbackAnnotations is what kubectl writes as the Deployment's annotations: its own skipped
// annotations (revision and the like) plus every other annotation of the ReplicaSet.
func rollbackAnnotations(d *model.Deployment, rs *model.ReplicaSet) map[string]string {
	out := map[string]string{}
	//detlint:ordered filtering into a new map gives the same map in any order
	for k, v := range d.Annotations {
		if annotationsToSkip[k] {
			out[k] = v
		}
	}
	//detlint:ordered copying into a map gives the same map in any order
	for k, v := range rs.Annotations {
		if !annotationsToSkip[k] {
			out[k] = v
		}
	}
	return out
}

// Rollback rolls the Deployment namespace/name back to a revision (0: the previous one) through
// c, as `kubectl rollout undo --to-revision=N` does: it reads the Deployment and its
// ReplicaSets, and writes the revision's template and annotations into the Deployment. It must
// run in a simulated process (ctx). It returns kubectl's message: "rolled back", or "skipped
// rollback (current template already matches revision N)" without writing anything; or the
// error of RollbackTemplate, of a read, or of the write ("failed restoring revision N: ...").
// kubectl sends a JSON patch, which cannot conflict; the simulated server takes merge patches,
// which would merge into the template instead of replacing it, so Rollback updates the whole
// object and retries on a conflict with a fresh read, up to 5 times.
func Rollback(ctx context.Context, c *client.Client, namespace, name string, revision int64) (string, error) {
	for attempt := 1; ; attempt++ {
		obj, err := c.Get(ctx, model.KindDeployment, namespace, name)
		if err != nil {
			return "", err
		}
		d, ok := client.ObjectAs[*model.Deployment](obj)
		if !ok {
			return "", fmt.Errorf("deployment: GET %s/%s returned a %s", namespace, name, obj.GetKind())
		}
		selector, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
		if err != nil {
			return "", fmt.Errorf("failed to retrieve replica sets from deployment %s: %v", name, err)
		}
		objs, _, err := c.List(ctx, model.KindReplicaSet, model.ListOptions{Namespace: namespace, LabelSelector: selector})
		if err != nil {
			return "", fmt.Errorf("failed to retrieve replica sets from deployment %s: %v", name, err)
		}
		rsList := make([]*model.ReplicaSet, 0, len(objs))
		for _, o := range objs {
			if rs, ok := client.ObjectAs[*model.ReplicaSet](o); ok {
				rsList = append(rsList, rs)
			}
		}
		rs, err := rollbackReplicaSet(d, rsList, revision)
		if err != nil {
			return "", err
		}
		if EqualIgnoreHash(&rs.Spec.Template, &d.Spec.Template) {
			return fmt.Sprintf("%s (current template already matches revision %d)", rollbackSkipped, revision), nil
		}
		template, err := RollbackTemplate(d, rsList, revision)
		if err != nil {
			return "", err
		}
		d.Annotations = rollbackAnnotations(d, rs)
		d.Spec.Template = *template
		_, err = c.Update(ctx, d)
		switch {
		case err == nil:
			return rollbackSuccess, nil
		case apierrors.IsConflict(err) && attempt < rollbackRetries:
			continue
		}
		return "", fmt.Errorf("failed restoring revision %d: %v", revision, err)
	}
}
