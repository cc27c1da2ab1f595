package controllerutil

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/sim/client/record"
)

// The event reasons of upstream RealPodControl (pkg/controller/controller_utils.go, release
// 1.33: FailedCreatePodReason, SuccessfulCreatePodReason, FailedDeletePodReason,
// SuccessfulDeletePodReason).
const (
	FailedCreatePodReason     = "FailedCreate"
	SuccessfulCreatePodReason = "SuccessfulCreate"
	FailedDeletePodReason     = "FailedDelete"
	SuccessfulDeletePodReason = "SuccessfulDelete"
)

// PodWrites count the pod writes a controller makes through PodControl: PodsCreated and
// PodsDeleted the successful ones, CreateErrors and DeleteErrors the failed ones (a delete
// that finds the pod gone is neither).
type PodWrites struct {
	PodsCreated, CreateErrors, PodsDeleted, DeleteErrors uint64
}

// PodControl is upstream RealPodControl (pkg/controller/controller_utils.go, release 1.33):
// it creates and deletes a controller's pods, records the events kube-controller-manager
// records for them on the controlling object, and counts the writes in Counts.
type PodControl struct {
	Client   *client.Client
	Recorder record.Recorder
	// Shared hands each created pod over to the client (client.CreateShared): for a caller
	// that builds a fresh pod, sharing nothing, for every create.
	Shared bool
	Counts *PodWrites
}

// CreatePod is CreatePods for one pod built (PodFromTemplate) for parent. A pod without
// labels is refused with "unable to create pods, no labels". A failed create records
// FailedCreate "Error creating: <err>", unless the namespace is terminating
// (model.NamespaceTerminatingCause), and returns the API error as it is; a created pod records
// SuccessfulCreate "Created pod: <name>".
func (pc PodControl) CreatePod(ctx context.Context, parent model.Object, pod *model.Pod) error {
	if len(pod.Labels) == 0 {
		return fmt.Errorf("unable to create pods, no labels")
	}
	create := pc.Client.Create
	if pc.Shared {
		create = pc.Client.CreateShared
	}
	created, err := create(ctx, pod)
	if err != nil {
		pc.Counts.CreateErrors++
		if !apierrors.HasStatusCause(err, model.NamespaceTerminatingCause) {
			pc.Recorder.Eventf(parent, model.EventTypeWarning, FailedCreatePodReason, "Error creating: %v", err)
		}
		return err
	}
	pc.Counts.PodsCreated++
	pc.Recorder.Eventf(parent, model.EventTypeNormal, SuccessfulCreatePodReason, "Created pod: %v", created.Meta().Name)
	return nil
}

// DeletePod is DeletePod: a graceful delete of the pod namespace/name controlled by parent.
// NotFound is returned as it is, without an event; any other error records FailedDelete
// "Error deleting: <err>" and comes back as "unable to delete pods: <err>"; a deleted pod
// records SuccessfulDelete "Deleted pod: <name>".
func (pc PodControl) DeletePod(ctx context.Context, parent model.Object, namespace, name string) error {
	err := pc.Client.Delete(ctx, model.KindPod, namespace, name, model.DeleteOptions{})
	if err != nil {
		if apierrors.IsNotFound(err) {
			return err
		}
		pc.Counts.DeleteErrors++
		pc.Recorder.Eventf(parent, model.EventTypeWarning, FailedDeletePodReason, "Error deleting: %v", err)
		return fmt.Errorf("unable to delete pods: %v", err)
	}
	pc.Counts.PodsDeleted++
	pc.Recorder.Eventf(parent, model.EventTypeNormal, SuccessfulDeletePodReason, "Deleted pod: %v", name)
	return nil
}
