package daemonset

import (
	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
)

// Settled returns what the controller would have left behind for ds (as stored, with its UID)
// on nodes after a complete rollout from nothing: the ControllerRevision of its template
// (revision 1, named and labelled as snapshot names it), one pod for each node the daemon pod
// should run on (nodeShouldRunDaemonPod), built as syncNodes and createPod build it (the
// template with the daemon tolerations, the revision hash label, a required node affinity for
// that node, a controller reference) and bound to that node, not yet created and without
// status, and the status updateDaemonSetStatus would then write (every pod scheduled, ready,
// available and updated). A scenario's settled objects use it, so that a settled DaemonSet is
// the one the controller would recognise as its own and leave alone.
func Settled(ds *model.DaemonSet, nodes []*model.Node) (*model.ControllerRevision, []*model.Pod, model.DaemonSetStatus, error) {
	hash := controllerutil.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount)
	rev := newRevision(ds, hash, 1)

	generation, err := getTemplateGeneration(ds)
	if err != nil {
		generation = nil
	}
	template := createPodTemplate(&ds.Spec.Template, generation, hash)
	var pods []*model.Pod
	for _, node := range nodes {
		if shouldRun, _ := nodeShouldRunDaemonPod(node, ds); !shouldRun {
			continue
		}
		var t model.PodTemplateSpec
		template.DeepCopyInto(&t)
		t.Spec.Affinity = replaceDaemonSetPodNodeNameNodeAffinity(t.Spec.Affinity, node.Name)
		pod := controllerutil.PodFromTemplate(&t, ds, controllerRef(ds))
		pod.Spec.NodeName = node.Name
		pods = append(pods, pod)
	}
	n := int32(len(pods))
	st := model.DaemonSetStatus{
		CurrentNumberScheduled: n, DesiredNumberScheduled: n, NumberReady: n, NumberAvailable: n,
		UpdatedNumberScheduled: n, ObservedGeneration: ds.Generation,
	}
	return rev, pods, st, nil
}
