// Package scheduler is kube-scheduler with the default profile, running its upstream
// algorithms (pkg/scheduler in kubernetes/kubernetes, docs/upstream.md#scheduler) against
// the simulated API server on the virtual clock.
//
// What it does, in upstream's terms:
//
//   - Informers on pods and nodes feed the scheduling queue (unassigned pods whose
//     spec.schedulerName is Config.SchedulerName) and the scheduler cache (nodes, and the
//     assigned pods summed per node). Pods in phase Succeeded or Failed leave both, as
//     upstream's pod informer selects them away.
//   - The scheduling queue has activeQ (a heap in PrioritySort order: higher spec.priority,
//     then the earlier queue timestamp), backoffQ (a heap by backoff expiry, with upstream's
//     separate heap for pods that failed with an error) and unschedulablePods. Backoff is
//     podInitialBackoffSeconds·2^(attempts-1) capped at podMaxBackoffSeconds. A failed pod goes
//     to unschedulablePods; cluster events move it back early when one of the plugins that
//     rejected it says the event may help (the plugins' QueueingHints: a node added or its
//     allocatable grown enough, taints gone, uncordoned, labels now matching; an assigned pod
//     deleted), to backoffQ while it is still backing off and to activeQ otherwise. Events
//     during the pod's own attempt are kept and applied when it fails. backoffQ is flushed
//     every second, unschedulablePods every 30 s (pods older than 5 min move). With the
//     SchedulerPopFromBackoffQ gate (Config.PopFromBackoffQ, on by default as upstream since
//     v1.33) expiries fall on whole-second windows and an idle scheduler pops backoffQ early.
//   - One process runs the scheduling cycle: it pops activeQ (parking when it is empty), runs
//     the PreFilter steps that look at the whole cluster (PodTopologySpread, InterPodAffinity),
//     then the filters NodeUnschedulable, NodeName, TaintToleration, NodeAffinity,
//     NodeResourcesFit, PodTopologySpread and InterPodAffinity over a node list sorted by name,
//     from a rotating start index, until numFeasibleNodesToFind nodes fit; scores them with
//     NodeResourcesFit (LeastAllocated, weight 1), NodeResourcesBalancedAllocation (1),
//     TaintToleration (3), NodeAffinity (2), PodTopologySpread (2) and InterPodAffinity (2);
//     and picks the best total, ties broken uniformly with the stream k.Rand("kube-scheduler").
//   - PodTopologySpread (topologyspread.go) filters on the pod's DoNotSchedule constraints and
//     scores its ScheduleAnyway ones, with maxSkew, minDomains, nodeAffinityPolicy,
//     nodeTaintsPolicy and matchLabelKeys; a pod without constraints that a Service,
//     ReplicaSet or StatefulSet selects or controls is scored with the system defaults
//     (hostname maxSkew 3, zone maxSkew 5, ScheduleAnyway) over their selectors. InterPodAffinity
//     (interpodaffinity.go) filters on the pod's required affinity and anti-affinity and the
//     existing pods' required anti-affinity, and scores the preferred terms of both sides and
//     the existing pods' required affinity (hardPodAffinityWeight 1), with namespaces,
//     namespaceSelector and matchLabelKeys/mismatchLabelKeys. Both read Services, ReplicaSets,
//     StatefulSets and Namespaces through informers of their own (listers.go), as upstream's
//     do. Their queueing hints requeue a pod they rejected on an assigned pod's add or delete
//     and on node adds and label (or, for spreading, taint) changes.
//     The cycle decides on the cache as it is when it starts and takes Config.CycleBase plus
//     Config.CyclePerNode per node evaluated; its outcome lands at its end.
//   - A placement is assumed in the cache and bound by its own process: an update of the pod
//     setting spec.nodeName (the simulator's stand-in for the binding subresource; the API
//     server then sets PodScheduled=True). A resourceVersion conflict makes the binder read the
//     pod again and retry while it is still unbound. Success records the event Scheduled
//     ("Successfully assigned ns/name to node"); failure forgets the pod and requeues it after
//     backoff.
//   - A pod that fits nowhere goes to DefaultPreemption (preemption.go): unless its
//     preemptionPolicy is Never, or victims of its earlier preemption are still terminating on
//     its nominated node, the nodes whose rejection was Unschedulable (not unresolvable) are
//     dry-run from a random offset (stream "kube-scheduler/preemption"), each on its own copy
//     of the NodeInfo and of the cycle state, without their lower-priority pods (removed from
//     PodTopologySpread's and InterPodAffinity's PreFilter counts too, their RemovePod),
//     adding back (AddPod) the most important ones that still fit (PDB-violating ones first),
//     until
//     max(10% of them, 100) candidates are found; pickOneNodeForPreemption chooses (fewest PDB
//     violations, lowest top victim priority, smallest priority sum, fewest victims, latest
//     start). At the end of the cycle each victim gets DisruptionTarget=True (reason
//     PreemptionByScheduler), is deleted with its own grace period and gets the event Preempted
//     ("Preempted by pod <uid> on node <node>"); the preemptor's status.nominatedNodeName is set
//     with its PodScheduled condition. The queue's nominator keeps the nominated pods: the
//     filters count a node's nominated pods of equal or higher priority (in copies of the
//     NodeInfo and of the PreFilter states, addGENominatedPods), and a pod with a nominated
//     node tries that node first. The PodDisruptionBudget informer starts and syncs with
//     the others, before the first cycle (cmd/kube-scheduler/app/server.go Run:
//     InformerFactory.Start, WaitForCacheSync).
//   - A pod that fits nowhere gets the event FailedScheduling with upstream's message, for
//     example "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient
//     cpu. preemption: 0/3 nodes are
//     available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for
//     incoming pod." (reasons counted per node and sorted as strings), and the condition
//     PodScheduled=False, reason Unschedulable, with the same message, written only when it
//     changed. An empty cluster gives "no nodes available to schedule pods" and a retry after
//     backoff.
//
// Promises: the same seed and the same cluster history give the same placements, events and
// trace (no map order leaks; every random draw is from the scheduler's own streams). A pod is
// bound at most once by this scheduler, and never to a node the cache shows without room for
// its requests at the time of the cycle. QueueLengths, Stats, Attempts and LastFailure expose
// the queue and the latest FailedScheduling message for the recorder and verdicts.
//
// Not modelled, and why it matters:
//
//   - Preemption details. The victims' API calls are made in the scheduling cycle, as upstream
//     before SchedulerAsyncPreemption (beta and on since v1.33, where a goroutine makes them
//     while the preemptor waits): the next cycles start a few requests later. The dry run takes
//     no virtual time of its own. nominatedNodeName stays on a bound pod; an error or a failed
//     binding clears it (schedule_one.go clearNominatedNode). How the releases differ there
//     (CHANGELOG-1.34 #133276, CHANGELOG-1.35 #135007) is not modelled. Waiting (Permit)
//     pods, extenders and the victims' affinity are not modelled (upstream ignores the latter
//     too). Releases up to v1.33 printed the preemption sentence with a doubled
//     final period, newer ones one (Config.FitErrorSinglePeriod); up to v1.34 the taint reason
//     named the taint ("node(s) had untolerated taint {key: value}"), since v1.35 it is
//     "node(s) had untolerated taint(s)" (Config.TaintMessageWithoutKey).
//   - Plugins outside the list above: ImageLocality, NodePorts, volume plugins, DRA,
//     scheduling gates, extenders, multiple profiles, pod overhead, sidecar
//     containers. ReplicationControllers (a source of PodTopologySpread's default selector)
//     are not modelled.
//   - Upstream's snapshot interleaves zones (nodeTree); here the node list is sorted by name.
//   - The status write after a failure is skipped for a pod already gone or bound (upstream
//     would send it and fail or be overruled). Status writes are synchronous in the cycle, as
//     before the SchedulerAsyncAPICalls gate.
package scheduler
