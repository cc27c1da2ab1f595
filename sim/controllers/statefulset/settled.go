package statefulset

import "github.com/reconsim/reconsim/model"

// Settled returns what the controller would have left behind for set (as stored, with its
// UID) after a complete rollout from nothing: the ControllerRevision of its template (revision
// 1, no collision), one pod per ordinal 0..replicas-1 built as the controller builds them
// (newVersionedStatefulSetPod: name, identity labels, revision label, controller reference),
// not yet created and without status, and the status the controller would then write (every
// replica current, updated, ready and available at that revision). A scenario's settled
// objects use it, so that a settled StatefulSet is the one the controller would recognise as
// its own and leave alone.
func Settled(set *model.StatefulSet) (*model.ControllerRevision, []*model.Pod, model.StatefulSetStatus, error) {
	// The controller hashes with its collision count, 0 for a new set (getStatefulSetRevisions).
	rev, err := newRevision(set, 1, int32Ptr(0))
	if err != nil {
		return nil, nil, model.StatefulSetStatus{}, err
	}
	n := specReplicas(set)
	pods := make([]*model.Pod, 0, n)
	for i := 0; i < n; i++ {
		pods = append(pods, newVersionedStatefulSetPod(set, set, rev.Name, rev.Name, i))
	}
	r := int32(n)
	st := model.StatefulSetStatus{
		ObservedGeneration: set.Generation, Replicas: r, ReadyReplicas: r, CurrentReplicas: r,
		UpdatedReplicas: r, AvailableReplicas: r, CurrentRevision: rev.Name, UpdateRevision: rev.Name,
		CollisionCount: int32Ptr(0),
	}
	return rev, pods, st, nil
}
