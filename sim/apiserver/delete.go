package apiserver

import (
	"fmt"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

// immortalNamespaces may not be deleted (NamespaceLifecycle admission,
// [k8s] plugin/pkg/admission/namespace/lifecycle/admission.go).
var immortalNamespaces = map[string]bool{"default": true, "kube-system": true, "kube-public": true}

// Delete deletes an object the way the generic registry does
// ([apiserver@HEAD] pkg/registry/generic/registry/store.go Delete and
// pkg/registry/rest/delete.go BeforeDelete) and returns the object as it now is: marked
// (deletionTimestamp set) while a grace period or finalizers hold it, else its last stored
// state.
//
//   - Preconditions: a UID or resourceVersion mismatch is 409 Conflict.
//   - Pods are deleted gracefully (podStrategy.CheckGracefulDelete): the grace is the option,
//     else spec.terminationGracePeriodSeconds, and 0 for an unscheduled or finished pod; a
//     negative option means 1. The pod gets deletionTimestamp = now + grace and
//     deletionGracePeriodSeconds and stays until a delete with grace 0 (the kubelet's). Once
//     marked, a delete may only shorten the grace; a longer or equal one changes nothing.
//     A grace of 0 writes the marking and then removes the pod (two revisions).
//   - Finalizers hold the object: it is marked (deletionTimestamp now, grace 0) and stays until
//     an update empties them.
//   - Propagation: Foreground adds finalizer foregroundDeletion, Orphan adds orphan, Background
//     adds none; without a policy the object's existing GC finalizer decides, then the kind's
//     default (Background). Events never get GC finalizers.
//   - Namespaces (the namespace REST's Delete): the first delete marks the namespace
//     Terminating and keeps it; a later delete removes it. default, kube-system and
//     kube-public cannot be deleted (403).
//
// Other errors: 404 NotFound; 422 for an unknown propagation policy.
func (s *Store) Delete(kind model.Kind, namespace, name string, opts model.DeleteOptions) (model.Object, error) {
	ks, err := s.kind(kind)
	if err != nil {
		return nil, err
	}
	if errs := validateDeleteOptions(opts); len(errs) > 0 {
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: "meta.k8s.io", Kind: "DeleteOptions"}, "", errs)
	}
	key := ks.keyOf(namespace, name)
	cur := ks.objects[key]
	if cur == nil {
		return nil, apierrors.NewNotFound(ks.gr, name)
	}
	if ks.info.Kind == model.KindCustomResourceDefinition {
		return nil, apierrors.NewMethodNotSupported(ks.gr, "delete (the simulator does not model deleting a CustomResourceDefinition and its custom resources)")
	}
	if ks.info.Kind == model.KindNamespace && immortalNamespaces[name] {
		return nil, apierrors.NewForbidden(ks.gr, name, fmt.Errorf("this namespace may not be deleted"))
	}
	if err := checkPreconditions(ks, cur, opts.Preconditions); err != nil {
		return nil, err
	}
	if ks.info.Kind == model.KindNamespace && cur.Meta().DeletionTimestamp == nil {
		return s.markNamespaceTerminating(ks, key, cur, opts), nil
	}
	return s.deleteObject(ks, key, cur, opts), nil
}

// validateDeleteOptions is the part of ValidateDeleteOptions that applies here.
func validateDeleteOptions(opts model.DeleteOptions) field.ErrorList {
	if p := opts.PropagationPolicy; p != nil {
		switch *p {
		case model.DeletePropagationOrphan, model.DeletePropagationBackground, model.DeletePropagationForeground:
		default:
			return field.ErrorList{field.NotSupported(field.NewPath("propagationPolicy"), string(*p),
				[]string{string(model.DeletePropagationForeground), string(model.DeletePropagationBackground), string(model.DeletePropagationOrphan), "nil"})}
		}
	}
	return nil
}

// checkPreconditions is BeforeDelete's precondition check; like upstream it names the kind
// where the resource would go.
func checkPreconditions(ks *kindStore, cur model.Object, pre *model.Preconditions) error {
	if pre == nil {
		return nil
	}
	meta := cur.Meta()
	gr := schema.GroupResource{Group: ks.gr.Group, Resource: string(ks.info.Kind)}
	if pre.UID != nil && *pre.UID != meta.UID {
		return apierrors.NewConflict(gr, meta.Name, fmt.Errorf("the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *pre.UID, meta.UID))
	}
	if pre.ResourceVersion != nil && *pre.ResourceVersion != meta.ResourceVersion {
		return apierrors.NewConflict(gr, meta.Name, fmt.Errorf("the ResourceVersion in the precondition (%d) does not match the ResourceVersion in record (%d). The object might have been modified", *pre.ResourceVersion, meta.ResourceVersion))
	}
	return nil
}

// deleteObject is the generic registry's Delete after the preconditions held.
func (s *Store) deleteObject(ks *kindStore, key objKey, cur model.Object, opts model.DeleteOptions) model.Object {
	now := s.k.Now()
	meta := cur.Meta()
	var grace *int64
	if opts.GracePeriodSeconds != nil {
		g := *opts.GracePeriodSeconds
		if g < 0 {
			g = 1 // BeforeDelete: negative values are treated as 1s
		}
		grace = &g
	}

	// BeforeDelete: decide whether this delete is graceful, or a graceful deletion is pending.
	var (
		graceful, pending bool
		newTimestamp      vtime.Time
		newGrace          int64
		bumpGeneration    bool
	)
	if ks.strat.checkGracefulDelete != nil {
		switch current := meta.DeletionGracePeriodSeconds; {
		case meta.DeletionTimestamp == nil:
			newGrace = ks.strat.checkGracefulDelete(cur, grace)
			newTimestamp = now.Add(time.Duration(newGrace) * time.Second)
			graceful = true
			bumpGeneration = meta.Generation > 0
		case current == nil || *current == 0:
			// Already due: delete now (or keep waiting on finalizers).
		case grace == nil || *grace >= *current:
			pending = true // only a shorter grace period may be given
		default:
			newGrace = *grace
			newTimestamp = meta.DeletionTimestamp.Add(time.Duration(newGrace-*current) * time.Second)
			graceful = true
		}
	}
	if pending {
		return cur
	}

	pendingFinalizers := len(meta.Finalizers) != 0
	updateFinalizers, finalizers := gcFinalizers(ks.strat, meta, opts.PropagationPolicy)
	if !graceful && !pendingFinalizers && !updateFinalizers {
		return s.commitDelete(ks, key, cur, "")
	}

	// updateForGracefulDeletionAndFinalizers. The new version differs from cur only in
	// metadata fields that are assigned whole below (the timestamps and grace are new
	// pointers, the finalizers gcFinalizers' new slice), so a pod, the kind graceful deletion
	// is for and the hot one, is copied shallowly and shares the rest with cur, which the
	// store never changes (docs/architecture.md, "Object ownership"); the deep copy was 1% of
	// thundering-herd's CPU.
	var upd model.Object
	var marks *deletionMarks
	if pod, ok := cur.(*model.Pod); ok {
		marked := &markedPod{pod: *pod}
		upd, marks = &marked.pod, &marked.marks
	} else {
		upd = cur.DeepCopyObject()
	}
	um := upd.Meta()
	if graceful {
		if marks == nil {
			marks = new(deletionMarks)
		}
		marks.timestamp, marks.grace = newTimestamp, newGrace
		um.DeletionTimestamp = &marks.timestamp
		um.DeletionGracePeriodSeconds = &marks.grace
		if bumpGeneration {
			um.Generation++
		}
	}
	if updateFinalizers {
		um.Finalizers = finalizers
	}
	pendingFinalizers = len(um.Finalizers) != 0
	if !graceful {
		if !pendingFinalizers {
			return s.commitDelete(ks, key, cur, "") // errDeleteNow: the finalizer change is not kept
		}
		markAsDeleting(um, now)
		return s.putIfChanged(ks, key, cur, upd, "delete", "finalizers="+strconv.Itoa(len(um.Finalizers)))
	}
	written := s.putIfChanged(ks, key, cur, upd, "delete", "grace="+strconv.FormatInt(newGrace, 10)+"s")
	if pendingFinalizers || newGrace > 0 {
		return written
	}
	return s.commitDelete(ks, key, written, "")
}

// deletionMarks are the deletion timestamp and grace period a graceful deletion sets, in one
// allocation.
type deletionMarks struct {
	timestamp vtime.Time
	grace     int64
}

// markedPod is the new version of a pod that a graceful deletion marks, with its marks: one
// allocation for the three.
type markedPod struct {
	pod   model.Pod
	marks deletionMarks
}

// markAsDeleting sets deletionTimestamp to now unless it is already earlier, and the grace to
// 0, bumping generation on the first marking (store.go markAsDeleting).
func markAsDeleting(meta *model.ObjectMeta, now vtime.Time) {
	if meta.DeletionTimestamp == nil && meta.Generation > 0 {
		meta.Generation++
	}
	if meta.DeletionTimestamp == nil || *meta.DeletionTimestamp > now {
		t := now
		meta.DeletionTimestamp = &t
	}
	zero := int64(0)
	meta.DeletionGracePeriodSeconds = &zero
}

// gcFinalizers is deletionFinalizersForGarbageCollection (the garbage collector is enabled, as
// --enable-garbage-collector defaults to true): it returns whether the finalizers change, and
// the new list.
func gcFinalizers(st *strategy, meta *model.ObjectMeta, policy *model.DeletionPropagation) (bool, []string) {
	orphan := shouldOrphanDependents(st, meta, policy)
	foreground := shouldDeleteDependents(st, meta, policy)
	var out []string
	for _, f := range meta.Finalizers {
		if f != model.FinalizerOrphanDependents && f != model.FinalizerDeleteDependents {
			out = append(out, f)
		}
	}
	if orphan {
		out = append(out, model.FinalizerOrphanDependents)
	}
	if foreground {
		out = append(out, model.FinalizerDeleteDependents)
	}
	if sameSet(out, meta.Finalizers) {
		return false, meta.Finalizers
	}
	return true, out
}

func shouldOrphanDependents(st *strategy, meta *model.ObjectMeta, policy *model.DeletionPropagation) bool {
	if st.gc == gcUnsupported {
		return false
	}
	if policy != nil {
		return *policy == model.DeletePropagationOrphan
	}
	for _, f := range meta.Finalizers {
		switch f {
		case model.FinalizerOrphanDependents:
			return true
		case model.FinalizerDeleteDependents:
			return false
		}
	}
	return st.gc == gcOrphanDependents
}

func shouldDeleteDependents(st *strategy, meta *model.ObjectMeta, policy *model.DeletionPropagation) bool {
	if st.gc == gcUnsupported {
		return false
	}
	if policy != nil {
		return *policy == model.DeletePropagationForeground
	}
	for _, f := range meta.Finalizers {
		switch f {
		case model.FinalizerDeleteDependents:
			return true
		case model.FinalizerOrphanDependents:
			return false
		}
	}
	return false
}

// sameSet reports whether a and b hold the same strings, ignoring order and repeats.
func sameSet(a, b []string) bool {
	contains := func(list []string, s string) bool {
		for _, x := range list {
			if x == s {
				return true
			}
		}
		return false
	}
	for _, x := range a {
		if !contains(b, x) {
			return false
		}
	}
	for _, x := range b {
		if !contains(a, x) {
			return false
		}
	}
	return true
}

// markNamespaceTerminating is the first delete of a namespace (the namespace REST's Delete,
// [k8s] pkg/registry/core/namespace/storage/storage.go): deletionTimestamp now, phase
// Terminating, GC finalizers as the options say. The namespace controller deletes the content
// and then deletes the namespace again.
func (s *Store) markNamespaceTerminating(ks *kindStore, key objKey, cur model.Object, opts model.DeleteOptions) model.Object {
	upd := cur.DeepCopyObject().(*model.Namespace)
	if upd.DeletionTimestamp == nil {
		now := s.k.Now()
		upd.DeletionTimestamp = &now
	}
	upd.Status.Phase = model.NamespaceTerminating
	if changed, finalizers := gcFinalizers(ks.strat, &upd.ObjectMeta, opts.PropagationPolicy); changed {
		upd.Finalizers = finalizers
	}
	return s.putIfChanged(ks, key, cur, upd, "delete", "phase=Terminating")
}
