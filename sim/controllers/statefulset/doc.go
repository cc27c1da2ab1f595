// Package statefulset is the StatefulSet controller of kube-controller-manager
// ([k8s:pkg/controller/statefulset] stateful_set.go, stateful_set_control.go,
// stateful_set_utils.go, stateful_pod_control.go, stateful_set_status_updater.go and
// pkg/controller/history), run on the simulator's virtual clock against the simulated API
// server. It gives every replica a stable identity, the ordinal, and changes pods in ordinal
// order.
//
// What it promises, each as upstream:
//
//   - Identity. Pod i of set "db" is named db-i and labelled
//     statefulset.kubernetes.io/pod-name=db-i, apps.kubernetes.io/pod-index=i and
//     controller-revision-hash=<revision name>. A pod being deleted keeps its ordinal: nothing
//     is created for that ordinal until the old object is gone from the API server. A pod of a
//     dead node therefore stays Terminating, and is not replaced, until the kubelet comes back,
//     the Node is deleted and pod GC removes it, or someone force-deletes it
//     (kubernetes/kubernetes#72226, rancher/rke2#3913). WaitingFor names such a pod.
//   - OrderedReady (the default, "monotonic"): ordinals are created in order, pod i only once
//     pods 0..i-1 are Running, Ready and available (minReadySeconds); scale-down deletes the
//     highest ordinal first, one at a time, each only after the previous is gone, and only
//     while every remaining pod is healthy (or the one it deletes is the first unhealthy).
//     Parallel creates and deletes all at once, in slow-start batches of 1, 2, 4, ... up to
//     MaxBatchSize (500), and never waits.
//   - Failed or Succeeded pods are deleted and, once gone, recreated.
//   - History: a ControllerRevision per distinct template, named "<set>-<hash>", with the
//     template's labels plus controller-revision-hash. The hash is FNV-1 (32-bit) over the
//     JSON of upstream's revision patch {"spec":{"template":{...,"$patch":"replace"}}} built
//     from the template (encoding/json: struct fields in declaration order, map keys sorted),
//     then the decimal collision count, printed in decimal and safe-encoded as upstream's
//     rand.SafeEncodeString: the same template gives the same name in every run. A template
//     equal to an older revision renumbers that revision (rollback); name collisions bump
//     status.collisionCount. Unused revisions beyond revisionHistoryLimit (10) are deleted
//     oldest first.
//   - Rolling update (RollingUpdate strategy): pods at or above the partition whose revision is
//     not the update revision are deleted from the highest ordinal down and recreated at the
//     update revision. With the MaxUnavailableStatefulSet gate (on by default since 1.35) up to
//     maxUnavailable (default 1) pods may be unavailable at once, counting every unavailable
//     replica; without it, one pod at a time, waiting at each unavailable pod. Pods below the
//     partition keep (and are recreated at) the current revision. When every replica is
//     updated and Ready, the update revision becomes the current one. OnDelete never deletes
//     pods for an update; a pod deleted by someone else is recreated at the update revision.
//   - Status: replicas (created pods), readyReplicas (Running and Ready), availableReplicas,
//     currentReplicas and updatedReplicas (by revision label, not counting terminating pods),
//     currentRevision, updateRevision, collisionCount and observedGeneration; written only when
//     it changes, conflicts retried with client-go's retry.DefaultRetry. With minReadySeconds
//     the set is synced again that long after a pod turns Ready and after a sync that leaves a
//     replica unavailable.
//   - Events with upstream reasons and messages: SuccessfulCreate "create Pod db-0 in
//     StatefulSet db successful", SuccessfulDelete "delete Pod ...", SuccessfulUpdate, and the
//     Failed* variants "... failed error: <err>".
//   - Claims: matching orphans named like members are adopted (after an uncached GET of the
//     set), owned pods that stop matching are released; orphaned revisions are adopted.
//   - A sync error requeues the set through client-go's default controller rate limiter.
//
// Not modelled: volumeClaimTemplates and PVC retention, spec.ordinals (start is 0),
// hostname/subdomain, the status conditions.
//
// Simulation choices: concurrent requests (a Parallel batch) are one process each, started at
// the same instant, and the sync parks until all return; merge patches carrying the whole
// ownerReferences list stand for upstream's strategic merge patches.
//
// Trace lines (component statefulset-controller): started, waiting (the sync stopped at a pod,
// with the reason), unblocked, delete-pod, create-exists, revision-create, revision-renumber,
// revision-delete, revision-collision, adopt, release, update-status, update-status-error,
// sync-error, invalid-selector, overlapping-selectors, and one line per recorded event.
package statefulset
