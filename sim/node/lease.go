package node

import (
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/client"
	"github.com/reconsim/reconsim/vtime"
)

// leaseJitterFactor jitters the lease controller's period (wait.JitterUntil(c.sync,
// c.renewInterval, 0.04, true, ...) in [component-helpers@HEAD] apimachinery/lease/controller.go).
const leaseJitterFactor = 0.04

// runLease is the node lease controller's process: sync, then wait the renew interval
// (jittered), for as long as the kubelet runs.
func (kl *Kubelet) runLease(p *sim.Proc) {
	for {
		kl.gate(p)
		kl.leaseSync(p)
		p.Idle(kl.jitter(kl.cfg.LeaseRenewInterval(), leaseJitterFactor))
	}
}

// leaseSync is controller.sync: renew the lease from the last one written (no GET), and if
// that fails, make sure the lease exists (creating it if needed) and renew from what the
// server has.
func (kl *Kubelet) leaseSync(p *sim.Proc) {
	if kl.latestLease != nil {
		if err := kl.retryUpdateLease(p, kl.latestLease); err == nil {
			return
		}
	}
	lease, created := kl.backoffEnsureLease(p)
	kl.latestLease = lease
	if !created && lease != nil {
		if err := kl.retryUpdateLease(p, lease); err != nil {
			kl.emit("lease-error", kl.leaseObject(), 0, err.Error())
		}
	}
}

func (kl *Kubelet) leaseObject() string { return kl.leaseObjectName }

// backoffEnsureLease retries ensureLease until it succeeds, sleeping twice as long before
// each retry (from 2x LeaseRetryBackoffInitial up to LeaseRetryBackoffMax). The lease is nil
// if it could not be built yet (the Node does not exist), in which case the next sync tries
// again.
func (kl *Kubelet) backoffEnsureLease(p *sim.Proc) (*model.Lease, bool) {
	sleep := kl.cfg.LeaseRetryBackoffInitial
	for {
		kl.gate(p)
		lease, created, err := kl.ensureLease(p)
		if err == nil {
			return lease, created
		}
		sleep = min(2*sleep, kl.cfg.LeaseRetryBackoffMax)
		kl.emit("lease-error", kl.leaseObject(), 0, fmt.Sprintf("ensure: %v; retry in %s", err, sleep))
		p.Idle(sleep)
	}
}

// ensureLease gets the lease, creating it if it does not exist; created says whether this
// call created it.
func (kl *Kubelet) ensureLease(p *sim.Proc) (*model.Lease, bool, error) {
	// The lease found is the stored one, shared and read-only: it becomes latestLease, the
	// base of the next renewal, which newLease copies before it changes anything.
	obj, err := kl.c.GetShared(ctx(p), model.KindLease, NodeLeaseNamespace, kl.nodeName)
	if apierrors.IsNotFound(err) {
		lease, err := kl.newLease(p, nil)
		if err != nil {
			// The owner reference could not be set: do not create the lease this time.
			return nil, false, nil
		}
		created, err := kl.c.CreateShared(ctx(p), lease) // lease is new and not kept
		if err != nil {
			return nil, false, err
		}
		l := created.(*model.Lease)
		kl.emit("lease-create", kl.leaseObject(), l.ResourceVersion, "")
		return l, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	lease, ok := client.ObjectAs[*model.Lease](obj)
	if !ok {
		return nil, false, fmt.Errorf("lease %s: got %T", kl.nodeName, obj)
	}
	return lease, false, nil
}

// renewedLease is a renewed lease and the time its Spec.RenewTime points to, allocated
// together (newLease).
type renewedLease struct {
	lease     model.Lease
	renewTime vtime.Time
}

var errLeaseUpdate = errors.New("failed to update lease")

// retryUpdateLease tries up to LeaseMaxUpdateRetries times to renew the lease from base;
// after a conflict it starts again from a fresh copy.
func (kl *Kubelet) retryUpdateLease(p *sim.Proc, base *model.Lease) error {
	for i := 0; i < kl.cfg.LeaseMaxUpdateRetries; i++ {
		kl.gate(p)
		lease, _ := kl.newLease(p, base)
		updated, err := kl.c.UpdateShared(ctx(p), lease) // lease is new and not kept
		if err == nil {
			l := updated.(*model.Lease)
			kl.latestLease = l
			kl.emit("lease-renew", kl.leaseObject(), l.ResourceVersion, "")
			return nil
		}
		kl.emit("lease-error", kl.leaseObject(), 0, "update: "+err.Error())
		if apierrors.IsConflict(err) {
			base, _ = kl.backoffEnsureLease(p)
			if base == nil {
				return errLeaseUpdate
			}
		}
	}
	return fmt.Errorf("%w: %d attempts", errLeaseUpdate, kl.cfg.LeaseMaxUpdateRetries)
}

// newLease is controller.newLease: a new lease held by the node (base nil) or a copy of base,
// renewed now, with the kubelet's post-processing (pkg/kubelet/util/nodelease.go
// setNodeOwnerFunc): until the lease has an owner reference, each renewal GETs the Node to
// set one; if that fails the error is returned, which stops a create but not an update.
//
// A base that already has its owner reference is renewed as a shallow copy: base may be the
// stored object itself (UpdateShared's answer, kept as latestLease), which nobody may change,
// and only the renew time differs, which the copy gets afresh.
func (kl *Kubelet) newLease(p *sim.Proc, base *model.Lease) (*model.Lease, error) {
	var lease *model.Lease
	if base != nil && len(base.OwnerReferences) > 0 {
		// One allocation for the copy and its renew time: the time lives beside the lease
		// and stays reachable through Spec.RenewTime for as long as the lease does.
		r := &renewedLease{lease: *base, renewTime: kl.k.Now()}
		r.lease.Spec.RenewTime = &r.renewTime
		return &r.lease, nil
	}
	if base == nil {
		lease = &model.Lease{
			ObjectMeta: model.ObjectMeta{Name: kl.nodeName, Namespace: NodeLeaseNamespace},
			Spec: model.LeaseSpec{
				HolderIdentity:       kl.nodeName,
				LeaseDurationSeconds: model.Ptr(kl.cfg.NodeLeaseDurationSeconds),
			},
		}
	} else {
		lease = base.DeepCopy()
	}
	lease.Spec.RenewTime = model.Ptr(kl.k.Now())
	if len(lease.OwnerReferences) == 0 {
		// Only the Node's uid is read: the stored Node, uncopied.
		obj, err := kl.c.GetShared(ctx(p), model.KindNode, "", kl.nodeName)
		if err != nil {
			return lease, err
		}
		lease.OwnerReferences = []model.OwnerReference{{
			APIVersion: "v1", Kind: model.KindNode, Name: kl.nodeName, UID: obj.Meta().UID,
		}}
	}
	return lease, nil
}
