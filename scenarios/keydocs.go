package scenarios

import (
	"fmt"
	"strings"
)

// keyDoc documents one key of the scenario format. The key registry (Keys) walks the Go
// types; this table says what each key means. A test fails when a key has no entry here or
// an entry names no key, so docs, schema and types cannot drift apart.
type keyDoc struct {
	// Doc says what the key means, in one paragraph.
	Doc string
	// Default is the value an optional key takes when it is left out ("" when it has none
	// worth saying, or the key is required).
	Default string
	// Example is YAML showing the key: the whole entry for an action, condition or
	// expectation kind, a line or two for an argument.
	Example string
	// Type overrides the type the walk derives, where words say more (a pod template
	// fragment rather than "manifest").
	Type string
	// Enum lists the values the key accepts, when it is a closed set.
	Enum []string
}

// keyDocs holds the documentation of every key, by canonical path. A path segment "*"
// matches any one segment (timeline.*.nodes documents the nodes argument of every node
// action); an exact entry wins over a wildcard one.
var keyDocs = map[string]keyDoc{
	// ---- top level ----
	"apiVersion": {Doc: "The version of the scenario format.", Enum: []string{APIVersion},
		Example: "apiVersion: " + APIVersion},
	"kind": {Doc: "Always " + Kind + ".", Enum: []string{Kind}, Example: "kind: " + Kind},
	"name": {Doc: "The scenario's name, a DNS subdomain; also the default output directory out/<name>.",
		Example: "name: node-failure"},
	"description": {Doc: "Free text; `sim list` shows its first line.",
		Example: "description: |\n  One node of three crashes; its pods are replaced."},
	"seed": {Doc: "The seed every random draw of the run derives from; the same scenario and seed give the same run, byte for byte. `sim run --seed N` overrides it.",
		Default: fmt.Sprint(DefaultSeed), Example: "seed: 7"},
	"duration": {Doc: "The virtual-time limit of the run: greater than 0, at most 30 days (720h). The run stops there if nothing stopped it earlier. `sim run --duration D` overrides it.",
		Example: "duration: 20m"},
	"stop": {Doc: "Conditions that end the run before its duration.",
		Example: "stop: {maxEvents: 50000000, quiescence: 6m}"},
	"stop.maxEvents": {Doc: "The run stops after this many kernel events (stop reason event-limit), so a runaway scenario ends. At most 10000000000.",
		Default: fmt.Sprint(DefaultMaxEvents), Example: "maxEvents: 50000000"},
	"stop.quiescence": {Doc: "The run stops when nothing significant happened for this long and no work is pending (stop reason quiescent); heartbeats do not count. 0 disables it. The default is longer than the default unreachable toleration (300s) plus node-monitor-grace-period (50s).",
		Default: formatDuration(DefaultQuiescence), Example: "quiescence: 6m"},

	// ---- cluster ----
	"cluster": {Doc: "The simulated cluster's nodes and namespaces.",
		Example: "cluster:\n  nodeGroups:\n  - {name: worker, count: 3, zone: zone-a, capacity: {cpu: \"4\", memory: 16Gi}}\n  namespaces: [prod]"},
	"cluster.nodeGroups": {Doc: "Groups of identical nodes, named <namePrefix><index>. At most 10000 nodes in all.",
		Example: "nodeGroups:\n- name: worker\n  count: 3\n  zone: zone-a\n  capacity: {cpu: \"4\", memory: 16Gi, pods: \"110\"}"},
	"cluster.nodeGroups.name": {Doc: "The group's name, a DNS label; nodes are called <name>-0, <name>-1, ... unless namePrefix says otherwise.",
		Example: "name: worker"},
	"cluster.nodeGroups.namePrefix": {Doc: "The prefix of the group's node names.", Default: "name + \"-\"",
		Example: "namePrefix: spot-node-"},
	"cluster.nodeGroups.count": {Doc: "How many nodes the group has, 0 to 10000.", Example: "count: 3"},
	"cluster.nodeGroups.zone": {Doc: "The nodes' zone: the topology.kubernetes.io/zone label, which node lifecycle's zone states, zone-outage and node targets use.",
		Example: "zone: zone-a"},
	"cluster.nodeGroups.region": {Doc: "The nodes' topology.kubernetes.io/region label.", Example: "region: region-1"},
	"cluster.nodeGroups.capacity": {Doc: "The nodes' capacity: cpu and memory are required; pods defaults to the kubelet's max-pods. Resources are cpu, memory, pods, ephemeral-storage, hugepages-* or an extended resource with a domain (example.com/gpu).",
		Example: "capacity: {cpu: \"4\", memory: 16Gi, pods: \"110\"}"},
	"cluster.nodeGroups.allocatable": {Doc: "What the scheduler may place, per resource, at most the capacity.",
		Default: "the capacity, per resource", Example: "allocatable: {cpu: 3900m}"},
	"cluster.nodeGroups.labels": {Doc: "Extra node labels. The simulator sets kubernetes.io/hostname, kubernetes.io/os, kubernetes.io/arch and the zone and region labels itself.",
		Example: "labels: {pool: default}"},
	"cluster.nodeGroups.taints": {Doc: "Node taints: key, value and effect (NoSchedule, PreferNoSchedule or NoExecute).",
		Example: "taints: [{key: dedicated, value: batch, effect: NoSchedule}]"},
	"cluster.nodeGroups.startupTime": {Doc: "When the group's nodes join the cluster; before the end of the run.",
		Default: "0s (at the start)", Example: "startupTime: 2m"},
	"cluster.namespaces": {Doc: "Namespaces to create. default, kube-system and kube-node-lease always exist; a Namespace manifest creates one too.",
		Example: "namespaces: [prod, batch]"},

	"components": {Doc: "Component flags by their upstream names, per component (kube-apiserver, kube-controller-manager, kube-scheduler, kubelet, simulator), written as on the command line. `sim explain COMPONENT` lists a component's flags; `sim explain COMPONENT.FLAG` explains one.",
		Type:    "mapping of component to {flag: value}",
		Example: "components:\n  kube-controller-manager:\n    node-monitor-grace-period: 20s\n  simulator:\n    watch-delay: lognormal(median=2ms,p99=20ms)"},

	// ---- objects ----
	"objects": {Doc: "Kubernetes manifests that exist at the start, inline or from files.",
		Example: "objects:\n- manifest:\n    apiVersion: v1\n    kind: Namespace\n    metadata: {name: batch}\n- file: manifests/app.yaml\n  settled: true"},
	"objects.manifest": {Doc: "One manifest, written inline, as kubectl would take it.",
		Example: "manifest:\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: web}\n  spec: {...}"},
	"objects.file": {Doc: "A file of manifests (multi-document YAML, or a List as `kubectl get -o yaml` prints it), relative to the scenario file's directory. From a cluster dump, what the API server set is dropped, and objects the simulated cluster makes itself and kinds it does not model are skipped, each with a warning (--strict makes them errors; `sim import` writes a whole scenario from a dump). Built-in scenarios cannot use files.",
		Example: "file: manifests/app.yaml"},
	"objects.settled": {Doc: "Start the objects as if their controllers had already reconciled them: a workload's pods (Pod, ReplicaSet, Deployment, StatefulSet, DaemonSet) exist, scheduled and running, and a Service's EndpointSlices exist, at time 0. Other kinds cannot start settled: settled: true on them is an error. Settled pods are placed by a simple placer, not the scheduler: it ignores inter-pod affinity and topology spread constraints, so start workloads that use them unsettled.",
		Default: "false", Example: "settled: true"},
	"objects.copies": {Doc: "Make the entry N objects, 1 to 100000 (counted with the scenario's other objects against its limit of 100000, before anything is copied): copy i (0 to N-1) is the inline manifest with every " + IndexToken + " in a string, anywhere in it (names, labels, selectors, annotations, keys too), replaced by i in decimal, unpadded. It is an exact text substitution, not a template: any other {{ in a copied manifest is an error, a substituted value stays a string, and a value holding the token is best quoted (\"svc-{{ .Index }}\"): YAML reads an unquoted { at the start of a value, or anywhere inside a flow mapping {...}, as flow syntax. With N above 1 the name must hold " + IndexToken + ". Each copy is checked as if written out; errors point at the entry. Only with manifest:, not file:.",
		Default: "1", Example: "copies: 300\nmanifest:\n  apiVersion: apps/v1\n  kind: ReplicaSet\n  metadata: {name: \"svc-{{ .Index }}\"}\n  spec:\n    replicas: 500\n    selector: {matchLabels: {app: \"svc-{{ .Index }}\"}}\n    template:\n      metadata: {labels: {app: \"svc-{{ .Index }}\"}}\n      spec: {containers: [{name: app, image: app:1.0}]}"},

	// ---- timeline ----
	"timeline": {Doc: "Actions at given times: workload changes, node failures, control-plane faults and load.",
		Example: "timeline:\n- at: 60s\n  name: crash\n  action: node-crash\n  nodes: {names: [worker-0]}"},
	"timeline.name": {Doc: "Names the entry, so that later entries (at: {after: NAME}) and expectations (after: NAME) can refer to it, and in results. Unique within the timeline.",
		Example: "name: crash"},
	"timeline.at": {Doc: "When the entry runs: a duration since the start (\"60s\"); \"converged\", when the world has converged after the previous entry; {after: NAME, delay: D}, D after the earlier entry NAME ran; {converged: true, delay: D}; or {write: K, by: COMPONENT, delay: D}, D after the K-th acknowledged write of a controller (or kube-scheduler), counted across restarts (never, if it writes fewer times). A fixed time must not be after duration.",
		Type: "time", Example: "at: {after: crash, delay: 5m}"},
	"timeline.action": {Doc: "The action to run; its arguments are written beside it in the entry.",
		Example: "action: node-crash"},

	"timeline.as": {Doc: "Who performs the action (a person or a tool, \"alice\", \"ci\"). The trace line of the action and its convergence record in result.json carry it, so a report can say who changed what and what reconciled it back. A name without spaces, at most 63 characters.",
		Default: "the scenario's own hand (kubectl)", Example: "as: alice"},
	"timeline.patch": {Doc: "Changes an object as `kubectl patch` does: one PATCH request, applied by the API server to the object as it is then, with apimachinery's patch libraries (kube-apiserver's patch handler, apiserver pkg/endpoints/handlers/patch.go): a strategic merge patch (the default; lists such as containers merge by their merge key, `$patch: delete` removes an item), a JSON merge patch (RFC 7386; lists are replaced) or a JSON patch (RFC 6902 operations). The loader applies the patch to the declared object: a patch that does not apply, or whose result the API server would reject, is an error at the patch.",
		Example: "- at: 5m\n  action: patch\n  as: alice\n  target: {kind: Deployment, name: web}\n  body: {spec: {template: {spec: {containers: [{name: web, image: nginx:1.28}]}}}}"},
	"timeline.patch.target": {Doc: "The object; any kind but Node and Event (Pods by name need not be declared)."},
	"timeline.patch.type": {Doc: "The patch type, as kubectl patch --type.", Enum: patchTypeNames,
		Default: "strategic", Example: "type: json"},
	"timeline.patch.body": {Doc: "The patch document (kubectl patch --patch): a mapping for strategic and merge, a list of operations ({op, path, value}) for json.",
		Type: "patch document", Example: "body: [{op: replace, path: /spec/replicas, value: 5}]"},
	"timeline.edit": {Doc: "Replaces fields of an object as `kubectl edit` does: reads the object, changes the fields and writes the whole object back (an update carrying the resourceVersion it read; a conflict is retried with a fresh read). The loader applies the edit to the declared object and reports a result the API server would reject.",
		Example: "- at: 5m\n  action: edit\n  as: alice\n  target: {kind: Deployment, name: web}\n  set: {spec.replicas: 5}"},
	"timeline.edit.target": {Doc: "The object; any kind but Node and Event."},
	"timeline.edit.set": {Doc: "Field paths and their new values: dot-separated names, [i] for a list item, [key] for a key with dots (metadata.labels[app.kubernetes.io/name]); null removes the field. At most 100 fields.",
		Type: "mapping of field path to value", Example: "set: {spec.replicas: 5, \"spec.template.spec.containers[0].image\": nginx:1.28}"},
	"timeline.kill-container": {Doc: "Makes a container exit now, as a crashing process, a `kill` inside the container or the kernel's OOM killer does. The kubelet sees the exit at its next PLEG relist and restarts the container as the pod's restartPolicy says (Always; OnFailure for a non-zero code; never with Never, which fails the pod), after the CrashLoopBackOff back-off when it exited recently (10s doubling to 300s; pkg/kubelet/kubelet.go containerBackOffPeriod, MaxContainerBackOff).",
		Example: "- at: 5m\n  action: kill-container\n  as: alice\n  target: {kind: Deployment, name: web}\n  oomKilled: true"},
	"timeline.kill-container.target": {Doc: "A Pod by name, or a Deployment, ReplicaSet, StatefulSet or DaemonSet one of whose running pods is picked with the run's seed."},
	"timeline.kill-container.container": {Doc: "The container, by name; it must exist in the pod template.",
		Default: "the pod's first container", Example: "container: web"},
	"timeline.kill-container.exitCode":  {Doc: "The exit status, 0 to 255.", Default: "137 (killed by SIGKILL)", Example: "exitCode: 1"},
	"timeline.kill-container.oomKilled": {Doc: "Report the exit as an OOM kill: reason OOMKilled, exit code 137.", Default: "false", Example: "oomKilled: true"},

	"timeline.apply": {Doc: "Creates objects, or replaces the spec of existing ones, like `kubectl apply`. Takes manifest (inline) or file.",
		Example: "- at: 5m\n  action: apply\n  manifest:\n    apiVersion: v1\n    kind: Namespace\n    metadata: {name: extra}"},
	"timeline.apply.manifest": {Doc: "One manifest, inline.", Example: "manifest: {apiVersion: v1, kind: Namespace, metadata: {name: extra}}"},
	"timeline.apply.file":     {Doc: "A file of manifests, relative to the scenario file.", Example: "file: manifests/v2.yaml"},
	"timeline.delete": {Doc: "Deletes one object gracefully, like `kubectl delete` (its dependents go through the garbage collector). Delete nodes with node-delete.",
		Example: "- at: 10m\n  action: delete\n  target: {kind: Service, name: web}"},
	"timeline.delete.target": {Doc: "The object to delete."},
	"timeline.delete.commit": {Doc: "Remove the object from the GitOps agent's source (a git commit) instead of deleting it: the agent prunes it when prune is on, else the Application stays OutOfSync. Needs the gitops-agent.",
		Default: "false", Example: "commit: true"},
	"timeline.apply.commit": {Doc: "Commit the manifests to the GitOps agent's source instead of applying them: the agent picks the new revision up at its next refresh (Argo CD polls git every app-resync; Flux every interval) and applies it when it syncs (with automated sync). Needs the gitops-agent.",
		Default: "false", Example: "commit: true"},
	"timeline.scale": {Doc: "Sets spec.replicas of a ReplicaSet, Deployment or StatefulSet, like `kubectl scale`.",
		Example: "- at: 2m\n  action: scale\n  target: {kind: Deployment, name: web}\n  replicas: 12"},
	"timeline.scale.target":   {Doc: "The workload: a ReplicaSet, Deployment or StatefulSet."},
	"timeline.scale.replicas": {Doc: "The new spec.replicas, 0 to 1000000.", Example: "replicas: 12"},
	"timeline.rollout": {Doc: "Changes the pod template of a Deployment, StatefulSet or DaemonSet, which starts a rollout: image sets one container's image (`kubectl set image`), template merges a fragment into the template (`kubectl patch`), annotations sets pod-template annotations (`kubectl rollout restart`). At least one of them; the loader applies it to the declared object and reports a missing container or an invalid result.",
		Example: "- at: 3m\n  name: v2\n  action: rollout\n  target: {kind: Deployment, name: web}\n  image: {container: web, image: nginx:1.28}\n  annotations: {example.com/change-cause: v2}"},
	"timeline.rollout.target": {Doc: "The workload: a Deployment, StatefulSet or DaemonSet."},
	"timeline.rollout.image": {Doc: "Sets the image of the named container.",
		Example: "image: {container: web, image: nginx:1.28}"},
	"timeline.rollout.image.container": {Doc: "The container, by name; it must exist in the pod template.", Example: "container: web"},
	"timeline.rollout.image.image":     {Doc: "The new image.", Example: "image: nginx:1.28"},
	"timeline.rollout.template": {Doc: "A fragment of the pod template (metadata and spec), merged as `kubectl patch --type strategic` merges: mappings key by key, null removes a key, containers, initContainers, env, volumes, volumeMounts and imagePullSecrets item by item by name (ports by containerPort); other lists are replaced.",
		Type:    "pod template fragment",
		Example: "template:\n  spec:\n    containers:\n    - name: web\n      resources: {requests: {cpu: 750m}}"},
	"timeline.rollout.annotations": {Doc: "Annotations set on the pod template; a new value restarts every pod, as `kubectl rollout restart` does.",
		Example: "annotations: {kubectl.kubernetes.io/restartedAt: \"2024-01-01T00:00:00Z\"}"},
	"timeline.rollback": {Doc: "Rolls a Deployment back, as `kubectl rollout undo` does: the template of the ReplicaSet with revision toRevision (the previous revision when 0) becomes the Deployment's template again. Something in the timeline must roll the Deployment out first.",
		Example: "- at: {after: v2, delay: 5m}\n  action: rollback\n  target: {kind: Deployment, name: web}"},
	"timeline.rollback.target": {Doc: "The Deployment."},
	"timeline.rollback.toRevision": {Doc: "The revision to go back to; 0 means the previous one. Revision 1 is the template the Deployment starts with; each rollout adds one.",
		Default: "0 (the previous revision)", Example: "toRevision: 1"},
	"timeline.pause": {Doc: "Pauses a Deployment's rollouts (spec.paused: true), as `kubectl rollout pause` does; scaling still happens.",
		Example: "- at: 4m\n  action: pause\n  target: {kind: Deployment, name: web}"},
	"timeline.pause.target": {Doc: "The Deployment."},
	"timeline.resume": {Doc: "Resumes a paused Deployment (spec.paused: false), as `kubectl rollout resume` does.",
		Example: "- at: 6m\n  action: resume\n  target: {kind: Deployment, name: web}"},
	"timeline.resume.target": {Doc: "The Deployment."},
	"timeline.cordon": {Doc: "Marks the nodes unschedulable, like `kubectl cordon`.",
		Example: "- at: 1m\n  action: cordon\n  nodes: {names: [worker-1]}"},
	"timeline.uncordon": {Doc: "Marks the nodes schedulable again, like `kubectl uncordon`.",
		Example: "- at: 9m\n  action: uncordon\n  nodes: {names: [worker-1]}"},
	"timeline.drain": {Doc: "Drains nodes as `kubectl drain --force --delete-emptydir-data` does: cordons them, evicts their pods through the eviction API (a PodDisruptionBudget can refuse an eviction with 429; refused evictions are retried every 5s) and waits until the pods are gone. DaemonSet pods stay (see ignoreDaemonSets) and so do mirror pods.",
		Example: "- at: 5m\n  action: drain\n  nodes: {names: [worker-2]}\n  timeout: 10m\n  gracePeriodSeconds: 30\n  ignoreDaemonSets: true"},
	"timeline.drain.timeout": {Doc: "Gives up after this long; the nodes stay cordoned (kubectl drain --timeout). 0 waits for ever.",
		Default: "0s (no limit)", Example: "timeout: 10m"},
	"timeline.drain.gracePeriodSeconds": {Doc: "Overrides each evicted pod's terminationGracePeriodSeconds (kubectl drain --grace-period).",
		Default: "each pod's own", Example: "gracePeriodSeconds: 30"},
	"timeline.drain.ignoreDaemonSets": {Doc: "Leaves DaemonSet pods in place (kubectl drain --ignore-daemonsets). false is kubectl's default, with which draining a node that runs a DaemonSet pod fails before evicting anything (the node stays cordoned).",
		Default: "true", Example: "ignoreDaemonSets: false"},
	"timeline.node-crash": {Doc: "Stops the nodes' kubelets and kills their containers; the Node objects stay, and nothing reports for them until node-recover.",
		Example: "- at: 60s\n  name: crash\n  action: node-crash\n  nodes: {names: [worker-0]}"},
	"timeline.node-partition": {Doc: "Cuts the nodes off from the API server: kubelets and containers keep running, but no heartbeat, status or watch event gets through until node-recover.",
		Example: "- at: 2m\n  action: node-partition\n  nodes: {zone: zone-a, random: 1}"},
	"timeline.kubelet-stall": {Doc: "Freezes the nodes' kubelets for a while (no heartbeats, no pod syncs); containers keep running.",
		Example: "- at: 3m\n  action: kubelet-stall\n  nodes: {selector: \"pool=default\", random: 2}\n  for: 90s"},
	"timeline.kubelet-stall.for": {Doc: "How long the kubelets stall.", Example: "for: 90s"},
	"timeline.image-pull-failure": {Doc: "Makes every image pull on the nodes fail for a while (a registry they cannot reach): a container whose image is not on the node waits in ErrImagePull, then ImagePullBackOff (the kubelet's image back-off, 10s doubling to 300s per pod and image), and starts at the first pull after the fault ends. Images already on the node still start.",
		Example: "- at: 2m\n  action: image-pull-failure\n  nodes: {names: [worker-0]}\n  for: 5m"},
	"timeline.image-pull-failure.for": {Doc: "How long the nodes' pulls fail.", Example: "for: 5m"},
	"timeline.node-recover": {Doc: "Ends a crash or partition of the nodes: the kubelets start again and report.",
		Example: "- at: {after: crash, delay: 5m}\n  action: node-recover\n  nodes: {names: [worker-0]}"},
	"timeline.node-delete": {Doc: "Deletes the Node objects, as a cloud provider does for a removed VM (their kubelets stop).",
		Example: "- at: 8m\n  action: node-delete\n  nodes: {names: [worker-0]}"},
	"timeline.zone-outage": {Doc: "Crashes every node of the zone.",
		Example: "- at: 4m\n  action: zone-outage\n  zone: zone-a"},
	"timeline.zone-outage.zone": {Doc: "The zone whose nodes all crash; some node group must be in it.", Example: "zone: zone-a"},
	"timeline.*.nodes":          {Doc: "Which nodes: {names: [...]}, {selector: \"...\"}, {zone: ...}, {random: N}, or a combination of selector, zone and random."},

	"timeline.api-latency": {Doc: "Adds latency to the API requests that verbs, resources and clients select (each list empty means all), for a while: each such request first waits a draw from extra.",
		Example: "- at: 5m\n  action: api-latency\n  verbs: [update, patch]\n  resources: [pods/status]\n  clients: [\"kubelet/*\"]\n  extra: lognormal(median=200ms,p99=2s)\n  for: 3m"},
	"timeline.api-latency.extra": {Doc: "The added latency: a duration, uniform(1ms..5ms), exponential(min=1ms,mean=3ms), lognormal(median=2ms,p99=20ms,max=1s), or {kind: lognormal, median: 2ms, p99: 20ms}.",
		Example: "extra: lognormal(median=200ms,p99=2s)"},
	"timeline.api-latency.for": {Doc: "How long the added latency lasts.", Example: "for: 3m"},
	"timeline.*.verbs": {Doc: "API verbs to select; empty means all.", Enum: verbNames,
		Example: "verbs: [create, update, patch]"},
	"timeline.*.resources": {Doc: "Resources to select, named as in RBAC rules (pods, nodes, deployments, ...); \"pods\" selects pods and their subresources, \"pods/status\" only the status subresource. Empty means all.",
		Example: "resources: [pods, pods/status]"},
	"timeline.*.clients": {Doc: "Clients to select, by name as the trace shows it (kubectl, default-scheduler, replicaset-controller, node-controller, kubelet/worker-0, ...); * matches any run of characters. Each pattern must match a client of the scenario. Empty means all.",
		Example: "clients: [replicaset-controller, \"kubelet/*\"]"},
	"timeline.api-errors": {Doc: "Makes a fraction of the API requests that verbs, resources and clients select fail with an HTTP status, for a while. A 429 or 5xx with retryAfterSeconds is retried by client-go after that many seconds; other failures go back to the caller (controllers requeue with backoff).",
		Example: "- at: 5m\n  action: api-errors\n  verbs: [create]\n  resources: [pods]\n  fraction: 0.5\n  code: 500\n  for: 2m"},
	"timeline.api-errors.fraction": {Doc: "The fraction of selected requests that fail, in (0, 1], drawn from the run's seed.",
		Example: "fraction: 0.1"},
	"timeline.api-errors.code": {Doc: "The status: 409 Conflict, 429 TooManyRequests, 500 InternalError, 503 ServiceUnavailable or 504 Timeout.",
		Enum: []string{"409", "429", "500", "503", "504"}, Example: "code: 503"},
	"timeline.api-errors.retryAfterSeconds": {Doc: "The Retry-After the failing answers carry; 0 sends none. Not allowed with 409, which client-go never retries.",
		Default: "1 for 429 (as the max-in-flight filter), else 0", Example: "retryAfterSeconds: 2"},
	"timeline.api-errors.for": {Doc: "How long the errors last.", Example: "for: 2m"},
	"timeline.controller-restart": {Doc: "Restarts kube-controller-manager (all its controllers), kube-scheduler, or one controller by its upstream name: it loses its informer caches, work queues and in-flight work at once, stays down for downtime, then relists everything and resyncs. A component that runs leader election (replicas 2 or more) restarts as a process instead: its leader shuts down as in leader-release and comes back as a standby after downtime.",
		Example: "- at: 7m\n  action: controller-restart\n  component: kube-controller-manager\n  downtime: 15s"},
	"timeline.controller-restart.component": {Doc: "What restarts: kube-controller-manager, kube-scheduler, or a controller by its name in kube-controller-manager's --controllers (replicaset-controller, deployment-controller, node-lifecycle-controller, ...).",
		Enum: restartableComponents(), Example: "component: replicaset-controller"},
	"timeline.controller-restart.downtime": {Doc: "How long it stays down before it starts again.",
		Default: "0s (restarts at once)", Example: "downtime: 15s"},
	"timeline.watch-stall": {Doc: "The watches of a component, or of the clients matching patterns, stop delivering for a while: events are held back and delivered in order when the stall ends; a watch whose events fall out of the API server's watch history meanwhile gets 410 Gone and its informer relists. Give component or clients.",
		Example: "- at: 6m\n  action: watch-stall\n  component: kube-scheduler\n  for: 1m"},
	"timeline.watch-stall.component": {Doc: "Whose watches stall: kubelet (every kubelet), kube-controller-manager (its shared informers, which all its controllers read) or kube-scheduler.",
		Enum: stallableComponents(), Example: "component: kube-scheduler"},
	"timeline.watch-stall.clients": {Doc: "Client name patterns whose watches stall, as in api-errors; instead of component.",
		Example: "clients: [\"kubelet/worker-0\"]"},
	"timeline.watch-stall.for": {Doc: "How long the watches stall.", Example: "for: 1m"},
	"timeline.watch-coalesce": {Doc: "The watch events of a component, or of the clients matching patterns, are held back for a while and only each object's newest state is delivered when the window ends (an object created and deleted inside it is never seen): the watchers miss the intermediate states, Sieve's unobserved-state perturbation. Watches opened during the window are not affected. Give component or clients.",
		Example: "- at: {write: 2, by: statefulset-controller}\n  action: watch-coalesce\n  component: kube-controller-manager\n  for: 10s"},
	"timeline.watch-coalesce.component": {Doc: "Whose watch events coalesce: kubelet (every kubelet), kube-controller-manager (its shared informers) or kube-scheduler.",
		Enum: stallableComponents(), Example: "component: kube-controller-manager"},
	"timeline.watch-coalesce.clients": {Doc: "Client name patterns whose watch events coalesce, as in api-errors; instead of component.",
		Example: "clients: [\"kube-controller-manager/*\"]"},
	"timeline.watch-coalesce.for": {Doc: "How long the window lasts.", Example: "for: 10s"},

	// ---- explore ----
	"explore": {Doc: "The fault space `sim explore` searches and the invariants every run is held to (docs/explore.md): which faults a random run may draw and with which arguments, how many per run and when, and which invariants must hold. `sim run` checks the invariants too, so a reproducer fails `sim run` as it failed the search.",
		Example: "explore:\n  faults: {min: 1, max: 2}\n  window: {from: 30s, to: 5m}\n  actions:\n  - action: node-crash\n    nodes: {selector: pool=default}\n    heal: {min: 30s, max: 3m}\n  - action: controller-restart\n    component: [statefulset-controller]\n  invariants: [statefulset-ordinal-once, converges]"},
	"explore.faults": {Doc: "How many faults a random run draws, uniformly between min and max (at most 20).",
		Default: "{min: 1, max: 1}", Example: "faults: {min: 1, max: 3}"},
	"explore.faults.min":  {Doc: "The fewest faults a run draws, 0 or more.", Example: "min: 1"},
	"explore.faults.max":  {Doc: "The most faults a run draws, at least min, at most 20.", Example: "max: 3"},
	"explore.window":      {Doc: "When drawn faults may start: from and to, inside the run's duration.", Default: "the whole run", Example: "window: {from: 30s, to: 5m}"},
	"explore.window.from": {Doc: "The earliest start of a drawn fault.", Default: "0s", Example: "from: 30s"},
	"explore.window.to":   {Doc: "The latest start of a drawn fault, at most duration.", Default: "duration", Example: "to: 5m"},
	"explore.settle": {Doc: "The liveness bound of invariant converges: after the last fault the world has to converge within this long.",
		Default: formatDuration(DefaultSettle), Example: "settle: 8m"},
	"explore.actions": {Doc: "The faults a random run draws from, each with its candidates and parameter ranges. Each fault picks an entry (by weight), then draws its targets and parameters uniformly.",
		Example: "actions:\n- action: kubelet-stall\n  nodes: {names: [worker-0, worker-1]}\n  for: {min: 10s, max: 2m}"},
	"explore.actions.action": {Doc: "The timeline action to draw: node-crash, node-partition, node-recover, node-delete, kubelet-stall, controller-restart, watch-stall, watch-coalesce, api-errors or api-latency.",
		Enum: ExploreActions(), Example: "action: node-partition"},
	"explore.actions.weight": {Doc: "The entry's relative chance of being drawn, 1 to 1000.", Default: "1", Example: "weight: 3"},
	"explore.actions.nodes": {Doc: "The candidate nodes of a node action; a fault draws one of them (random of them, when random is set) and names it in its timeline entry.",
		Example: "nodes: {selector: pool=default}"},
	"explore.actions.component": {Doc: "The candidate components of controller-restart (kube-controller-manager, kube-scheduler or a controller), watch-stall and watch-coalesce (kubelet, kube-controller-manager or kube-scheduler); a fault draws one.",
		Example: "component: [statefulset-controller, kube-scheduler]"},
	"explore.actions.for":      {Doc: "The range the length of kubelet-stall, watch-stall, watch-coalesce, api-errors or api-latency is drawn from.", Example: "for: {min: 10s, max: 1m}"},
	"explore.actions.downtime": {Doc: "The range controller-restart's downtime is drawn from.", Default: "0s", Example: "downtime: {min: 0s, max: 30s}"},
	"explore.actions.heal": {Doc: "For node-crash and node-partition: a node-recover of the same nodes follows after a time drawn from this range; without it the nodes stay down.",
		Example: "heal: {min: 30s, max: 3m}"},
	"explore.actions.latency": {Doc: "The range api-latency's extra latency (a constant per fault) is drawn from.", Example: "latency: {min: 100ms, max: 2s}"},
	"explore.actions.*.min":   {Doc: "The lower end of the range (inclusive).", Example: "min: 10s"},
	"explore.actions.*.max":   {Doc: "The upper end of the range (inclusive), at least min.", Example: "max: 1m"},
	"explore.actions.code":    {Doc: "The status codes api-errors draws from: 409, 429, 500, 503 or 504.", Default: "[500]", Example: "code: [500, 503]"},
	"explore.actions.clients": {Doc: "Client name patterns api-errors and api-latency apply to, as in their timeline form.", Default: "every client", Example: "clients: [\"kube-controller-manager/*\"]"},
	"explore.invariants": {Doc: "What must hold in every run: built-in invariants (pod-bound-once, node-within-allocatable, resource-versions-grow, statefulset-ordinal-once, pdb-respected: checked on every committed write; no-lost-update, converges: checked at the end) or the name of one of the scenario's expectations. A failure names the invariant. `sim explain explore` and docs/explore.md say what each means.",
		Default: "every built-in safety invariant (all but converges)", Example: "invariants: [statefulset-ordinal-once, converges]"},
	"explore.controllers": {Doc: "The components the targeted strategies (intermediate, stale, unobserved) perturb.", Default: "every controller that writes in the reference run",
		Example: "controllers: [statefulset-controller]"},
	"explore.bound": {Doc: "The targeted strategies try each controller's first bound writes as decision points (1 to 1000).", Default: fmt.Sprint(DefaultExploreBound), Example: "bound: 12"},

	"timeline.leader-crash": {Doc: "Kills the process that leads kube-controller-manager or kube-scheduler (which must run leader election: replicas 2 or more). It releases nothing, so the standbys wait until the Lease has expired by their own clocks (leader-elect-lease-duration, 15s, after they last saw it renewed) and take it at their next attempt (every leader-elect-retry-period, 2s, jittered by up to 1.2 times): a new leader 13s to 24s after the crash with the defaults (client-go tools/leaderelection/leaderelection.go tryAcquireOrRenew). A new kube-controller-manager leader then lists everything before its controllers work (cold standby); a kube-scheduler standby has warm caches. While no replica leads, nothing of that component reconciles.",
		Example: "- at: 2m\n  name: leader-crash\n  action: leader-crash\n  component: kube-controller-manager"},
	"timeline.leader-crash.component": {Doc: "Whose leader crashes.", Enum: electedComponents(),
		Default: ComponentControllerManager, Example: "component: kube-scheduler"},
	"timeline.leader-crash.downtime": {Doc: "How long the crashed process stays down before it comes back as a standby.",
		Default: "the component's restart-delay (10s)", Example: "downtime: 1m"},
	"timeline.leader-partition": {Doc: "Cuts the leader of kube-controller-manager or kube-scheduler off from the API server for a while: its renewals fail (each request after the retry period), it gives up leadership at leader-elect-renew-deadline (10s) from the start of the failing renewal round and exits, as upstream's process does (client-go LeaderElector.renew; cmd/kube-controller-manager/app/controllermanager.go OnStoppedLeading); another replica takes the Lease once it has expired. While it still leads, its controllers' requests fail too (their watches are not cut: the simulator keeps delivering to them until the process exits).",
		Example: "- at: 2m\n  name: leader-partition\n  action: leader-partition\n  component: kube-controller-manager\n  for: 1m"},
	"timeline.leader-partition.component": {Doc: "Whose leader is cut off.", Enum: electedComponents(),
		Default: ComponentControllerManager, Example: "component: kube-controller-manager"},
	"timeline.leader-partition.for": {Doc: "How long the partition lasts.", Example: "for: 1m"},
	"timeline.leader-release": {Doc: "Shuts the leader of kube-controller-manager or kube-scheduler down gracefully, as a rolling restart of the control plane does. kube-scheduler releases its Lease on the way out (ReleaseOnCancel in cmd/kube-scheduler/app/options/options.go makeLeaderElectionConfig), so a standby takes it at its next attempt (within 2.2 retry periods); kube-controller-manager does not set ReleaseOnCancel (cmd/kube-controller-manager/app/controllermanager.go), so its standbys wait for the Lease to expire, as after a crash.",
		Example: "- at: 2m\n  name: leader-release\n  action: leader-release\n  component: kube-scheduler"},
	"timeline.leader-release.component": {Doc: "Whose leader shuts down.", Enum: electedComponents(),
		Default: ComponentControllerManager, Example: "component: kube-scheduler"},
	"timeline.leader-release.downtime": {Doc: "How long the process stays down before it comes back as a standby.",
		Default: "the component's restart-delay (10s)", Example: "downtime: 30s"},

	"timeline.api-load": {Doc: "Starts a synthetic API client for a while: workers loops that each send the same request back to back, waiting for the answer (and honouring 429 Retry-After) before the next, as a misbehaving operator's LIST storm or hot loop of patches does. The client is an ordinary authenticated user, so API Priority and Fairness puts it in the global-default priority level.",
		Example: "- at: 60s\n  action: api-load\n  client: rogue-operator\n  verb: list\n  resource: pods\n  workers: 50\n  for: 5m"},
	"timeline.api-load.client":    {Doc: "The client's name and user.", Default: "load-generator"},
	"timeline.api-load.verb":      {Doc: "list, get, or patch (an empty merge patch {} of the named object: a mutating request that changes nothing).", Default: "list"},
	"timeline.api-load.resource":  {Doc: "The resource, as in RBAC rules.", Default: "pods"},
	"timeline.api-load.namespace": {Doc: "The namespace of the request; empty means all namespaces.", Default: "all namespaces", Example: "namespace: default"},
	"timeline.api-load.object":    {Doc: "The name of the object a get reads or a patch patches.", Example: "- at: 60s\n  action: api-load\n  verb: patch\n  resource: deployments\n  namespace: default\n  object: web\n  workers: 5\n  for: 3m"},
	"timeline.api-load.workers":   {Doc: "The number of concurrent request loops (at most 1000).", Default: "10"},
	"timeline.api-load.qps":       {Doc: "A client-side rate limit shared by the workers (token bucket, burst the same); 0 means none.", Default: "0", Example: "qps: 100"},
	"timeline.api-load.for":       {Doc: "How long the load lasts.", Example: "for: 5m"},
	"timeline.load": {Doc: "Changes the offered load of a workload from now on: the load that loads: declares for the target follows shape, with the shape's times counted from this action (its usage model, noise and metric stay). The target must have an entry in loads:.",
		Example: "- at: 10m\n  action: load\n  target: {kind: Deployment, name: web}\n  shape: {ramp: {from: 100, to: 400, start: 0s, duration: 10m}}"},
	"timeline.load.target": {Doc: "The workload, as in its loads: entry: a Deployment, StatefulSet or ReplicaSet."},
	"timeline.load.shape":  {Doc: "The new offered load over time, counted from the action."},

	// ---- loads ----
	"loads": {Doc: "The offered load on workloads (requests per second, or any unit per second) over the run, and how it turns into pod usage: the load is divided equally among the workload's Ready pods, and a pod serving s units per second uses baseCPU + s*cpuPerUnit (and the same for memory). The metrics pipeline scrapes that usage as metrics-server does, and the HorizontalPodAutoscaler reads it. At most one load per workload.",
		Example: "loads:\n- target: {kind: Deployment, name: web}\n  shape: {spikes: {base: 100, spikes: [{at: 5m, duration: 5m, factor: 3}]}}\n  usage: {cpuPerUnit: 5m, baseCPU: 50m}"},
	"loads.name": {Doc: "Names the load in results and its noise stream; unique.", Default: "the target's name", Example: "name: web-traffic"},
	"loads.target": {Doc: "The workload whose Ready pods serve the load: a Deployment, StatefulSet or ReplicaSet, declared in the scenario.",
		Example: "target: {kind: Deployment, name: web}"},
	"loads.target.kind":      {Doc: "Deployment, StatefulSet or ReplicaSet.", Example: "kind: Deployment"},
	"loads.target.namespace": {Doc: "The workload's namespace.", Default: "default", Example: "namespace: prod"},
	"loads.target.name":      {Doc: "The workload's name.", Example: "name: web"},
	"loads.shape":            {Doc: "The offered load over time, in units per second; times count from the start of the run."},
	"loads.noise": {Doc: "Multiplicative noise: during each interval the load is multiplied by max(0, 1 + stddev*N), N a standard normal draw from the load's own random stream, so the same seed gives the same noise.",
		Example: "noise: {stddev: 0.1, interval: 15s}"},
	"loads.noise.stddev":   {Doc: "The relative standard deviation, 0 to 1.", Example: "stddev: 0.1"},
	"loads.noise.interval": {Doc: "How long one draw holds, at least 1s.", Default: "15s (one metrics-server resolution)", Example: "interval: 30s"},
	"loads.usage": {Doc: "How served load becomes usage: a pod serving s units per second uses baseCPU + s*cpuPerUnit of cpu and baseMemory + s*memoryPerUnit of memory; a running pod that is not Ready uses the base amounts, a pod whose containers do not all run uses nothing. Container limits cap usage.",
		Example: "usage: {cpuPerUnit: 5m, baseCPU: 50m, memoryPerUnit: 1Mi, baseMemory: 128Mi}"},
	"loads.usage.cpuPerUnit":    {Doc: "CPU per unit of load per second, as a quantity (5m: 0.005 cores per request per second).", Example: "cpuPerUnit: 5m"},
	"loads.usage.baseCPU":       {Doc: "CPU a running pod uses with no load.", Default: "0", Example: "baseCPU: 50m"},
	"loads.usage.memoryPerUnit": {Doc: "Memory per unit of load per second.", Default: "0", Example: "memoryPerUnit: 1Mi"},
	"loads.usage.baseMemory":    {Doc: "Memory a running pod uses with no load.", Default: "0", Example: "baseMemory: 128Mi"},
	"loads.metric": {Doc: "The name the load is served under as a custom metric (a Pods metric: each pod's share; an Object metric: the whole load) and as an external metric, for HPA Pods, Object and External metrics.",
		Default: "requests_per_second", Example: "metric: queue_messages_per_second"},
	"loads.metricLabels": {Doc: "Labels of the load's metric series, which the metric selectors of HPA metrics match.", Example: "metricLabels: {queue: orders}"},
	"loads.objects":      {Doc: "Further objects in the target's namespace whose Object metric is this load (a Service or an Ingress in front of the workload).", Example: "objects: [{kind: Service, name: web}]"},
	"loads.objects.kind": {Doc: "The object's kind.", Example: "kind: Service"},
	"loads.objects.name": {Doc: "The object's name.", Example: "name: web"},

	"shape": {Doc: "Offered load over time, in units per second: exactly one of constant, steps, ramp, sine, spikes, series. Before its first time a shape holds its first value, after its last time its last value.",
		Type: "load shape", Example: "shape: {ramp: {from: 100, to: 400, start: 2m, duration: 10m}}"},
	"shape.constant":       {Doc: "The same load at every instant.", Example: "constant: {value: 200}"},
	"shape.constant.value": {Doc: "The load.", Example: "value: 200"},
	"shape.steps": {Doc: "initial until the first step, then each step's value from its at on.",
		Example: "steps: {initial: 100, steps: [{at: 5m, value: 300}, {at: 15m, value: 100}]}"},
	"shape.steps.initial":          {Doc: "The load before the first step.", Example: "initial: 100"},
	"shape.steps.steps":            {Doc: "The steps, in increasing order of at.", Example: "steps: [{at: 5m, value: 300}]"},
	"shape.steps.steps.at":         {Doc: "When the step takes effect.", Example: "at: 5m"},
	"shape.steps.steps.value":      {Doc: "The load from then on.", Example: "value: 300"},
	"shape.ramp":                   {Doc: "from until start, then a straight line to to over duration, then to.", Example: "ramp: {from: 100, to: 400, start: 2m, duration: 10m}"},
	"shape.ramp.from":              {Doc: "The load before and at the start of the ramp.", Example: "from: 100"},
	"shape.ramp.to":                {Doc: "The load at the end of the ramp and after.", Example: "to: 400"},
	"shape.ramp.start":             {Doc: "When the ramp starts.", Example: "start: 2m"},
	"shape.ramp.duration":          {Doc: "How long the ramp takes, longer than 0s.", Example: "duration: 10m"},
	"shape.sine":                   {Doc: "base + amplitude*sin(2π(t-phase)/period); amplitude is at most base, so the load never goes below zero.", Example: "sine: {base: 200, amplitude: 80, period: 10m}"},
	"shape.sine.base":              {Doc: "The middle of the oscillation.", Example: "base: 200"},
	"shape.sine.amplitude":         {Doc: "How far the load swings above and below base.", Example: "amplitude: 80"},
	"shape.sine.period":            {Doc: "The length of one cycle, at least 1s.", Example: "period: 10m"},
	"shape.sine.phase":             {Doc: "Shifts the wave later by this much.", Default: "0s", Example: "phase: 2m30s"},
	"shape.spikes":                 {Doc: "base, with rectangular spikes: during [at, at+duration) of each spike the load is the spike's value, or base*factor. Spikes are in time order and do not overlap.", Example: "spikes: {base: 100, spikes: [{at: 5m, duration: 5m, factor: 3}]}"},
	"shape.spikes.base":            {Doc: "The load outside the spikes.", Example: "base: 100"},
	"shape.spikes.spikes":          {Doc: "The spikes, in time order.", Example: "spikes: [{at: 5m, duration: 5m, value: 300}]"},
	"shape.spikes.spikes.at":       {Doc: "When the spike starts.", Example: "at: 5m"},
	"shape.spikes.spikes.duration": {Doc: "How long it lasts, longer than 0s.", Example: "duration: 5m"},
	"shape.spikes.spikes.factor":   {Doc: "The load during the spike as a multiple of base; instead of value.", Example: "factor: 3"},
	"shape.spikes.spikes.value":    {Doc: "The load during the spike; instead of factor.", Example: "value: 300"},
	"shape.series":                 {Doc: "A recorded series, linearly interpolated between its points: written inline, or read from a CSV file.", Example: "series: {file: load.csv}"},
	"shape.series.file": {Doc: "A CSV file of seconds,value lines (seconds increasing; an optional header line; # comments), relative to the scenario file. Built-in scenarios cannot use files.",
		Example: "file: load.csv"},
	"shape.series.points":       {Doc: "The points, in increasing order of at; instead of file.", Example: "points: [{at: 0s, value: 100}, {at: 10m, value: 250}]"},
	"shape.series.points.at":    {Doc: "The point's time.", Example: "at: 10m"},
	"shape.series.points.value": {Doc: "The load at that time.", Example: "value: 250"},

	// ---- expect ----
	"expect": {Doc: "What must hold; `sim run` exits 1 when an expectation fails. Each has a name and one kind: converged, event, eventually, always, never, metric or verdict.",
		Example: "expect:\n- name: recovered\n  converged: {after: crash, within: 7m}"},
	"expect.name": {Doc: "The expectation's name in results; unique.", Example: "name: recovered"},
	"expect.converged": {Doc: "The world converged (every workload has exactly its desired pods, Ready and on nodes that are up, and no pod is Pending; after a drain, the drain completed) within a time after a timeline entry ran (after the start when after is left out), and stayed converged: it holds when the world is converged at the end of the window and never diverges after it (until a later entry runs). The message says how long it took, and, when the world converged earlier and came apart again, when it first converged and how many times it diverged.",
		Example: "- name: recovered\n  converged: {after: crash, within: 7m}"},
	"expect.converged.after":  {Doc: "The timeline entry, by name; the start when left out.", Example: "after: crash"},
	"expect.converged.within": {Doc: "The longest convergence may take, greater than 0.", Example: "within: 7m"},
	"expect.event": {Doc: "At least count Events with the reason (about a matching object, when kind, name or namespace are given) were recorded, inside the window when within is given. The message says how many, and when the first was.",
		Example: "- name: evicted\n  event: {reason: TaintManagerEviction, kind: Pod, count: 2, within: {after: crash, within: 8m}}"},
	"expect.event.reason":    {Doc: "The Event reason, as upstream writes it (SuccessfulCreate, NodeNotReady, TaintManagerEviction, ScalingReplicaSet, ...).", Example: "reason: TaintManagerEviction"},
	"expect.event.kind":      {Doc: "The kind of the Event's object.", Example: "kind: Pod"},
	"expect.event.name":      {Doc: "The name of the Event's object.", Example: "name: web-6d4cf56db6-x8z2k"},
	"expect.event.namespace": {Doc: "The namespace of the Event's object.", Example: "namespace: default"},
	"expect.event.count":     {Doc: "The least number of matching Events.", Default: "1", Example: "count: 2"},
	"expect.event.within":    {Doc: "The window the Events must fall in; the whole run when left out."},
	"expect.eventually": {Doc: "The condition held at some moment of the window (the whole run without one). It passes at the first evaluation where it holds.",
		Example: "- name: all-scheduled\n  eventually: {condition: no-pending-pods, within: {after: crash, within: 10m}}"},
	"expect.always": {Doc: "The condition held at every moment of the window (the whole run without one). It fails at the first evaluation where it does not hold, and the message says when and with what values.",
		Example: "- name: surge-respected\n  always: {condition: pods-at-most, target: {kind: Deployment, name: web}, replicasPlusMaxSurge: true}"},
	"expect.never": {Doc: "The condition held at no moment of the window (the whole run without one). It fails at the first evaluation where it holds, and the message says when and with what values.",
		Example: "- name: fits\n  never: node-overcommitted"},
	"expect.*.condition": {Doc: "The built-in condition, written flat: condition: NAME and its arguments beside it; a bare name works for conditions without arguments.",
		Example: "condition: no-pending-pods"},
	"expect.*.within": {Doc: "The window the condition is checked over; the whole run when left out."},
	"expect.metric": {Doc: "An aggregate (max, min, mean or last) of a recorded time series over the window stays at most max and at least min. A series never recorded fails it. The message gives the aggregate and, for max and min, when the series first went past the threshold and its value then.",
		Example: "- name: api-not-overloaded\n  metric: {series: apiserver.inflight_mutating, aggregate: max, max: 150, within: {after: crash, within: 10m}}"},
	"expect.metric.series": {Doc: "The series' name as in result.json: pods.pending, nodes.ready, deployment.default/web.available, service.default/web.ready_endpoints, apiserver.inflight_mutating, workqueue.replicaset-controller.depth, ...",
		Example: "series: pods.pending"},
	"expect.metric.aggregate": {Doc: "How the series is reduced over the window: max, min, mean (time-weighted) or last (the value at the window's end).",
		Enum: metricAggregates, Example: "aggregate: max"},
	"expect.metric.max":    {Doc: "The aggregate must be at most this.", Example: "max: 150"},
	"expect.metric.min":    {Doc: "The aggregate must be at least this.", Example: "min: 4"},
	"expect.metric.within": {Doc: "The window; the whole run when left out."},
	"expect.verdict": {Doc: "Which non-convergence verdicts the run may end with. A verdict names anything the run created that had not converged at the end (a workload short of replicas, a Pending pod, a rollout or a drain that did not complete) with a reason and a message. none: the run must end without a verdict; any: verdicts are expected and do not fail the run; a mapping ({reason: Unschedulable}, optionally with kind, namespace and name) expects the verdicts that match: it fails when none does, and covers those that do. A verdict no expectation covers fails the run.",
		Example: "- name: gpu-pod-waits\n  verdict: {reason: Unschedulable, kind: Pod, namespace: default, name: trainer}"},
	"expect.verdict.reason": {Doc: "The verdict's reason: " + strings.Join(VerdictReasons, ", ") + " (docs/results.md says when each is given).",
		Enum: VerdictReasons, Example: "reason: Unschedulable"},
	"expect.verdict.kind":      {Doc: "Only verdicts about objects of this kind (Deployment, ReplicaSet, StatefulSet, DaemonSet, Pod, Node for a drain).", Example: "kind: Pod"},
	"expect.verdict.namespace": {Doc: "Only verdicts about objects in this namespace.", Example: "namespace: default"},
	"expect.verdict.name":      {Doc: "Only verdicts about the object of this name.", Example: "name: trainer"},

	// ---- shared types ----
	"nodes": {Doc: "A node target. Either names, or the nodes matching selector and zone (both optional), of which random picks that many, drawn from the run's seed. The target must match at least one node.",
		Type:    "node target",
		Example: "nodes: {selector: \"pool=default\", zone: zone-a, random: 1}"},
	"nodes.names":    {Doc: "These nodes, by name; they must exist. Not combined with the others.", Example: "names: [worker-0, worker-1]"},
	"nodes.selector": {Doc: "A label selector in kubectl syntax; node labels include kubernetes.io/hostname, topology.kubernetes.io/zone and the group's labels.", Example: "selector: \"pool=default,tier in (a,b)\""},
	"nodes.zone":     {Doc: "Only nodes of this zone.", Example: "zone: zone-b"},
	"nodes.random":   {Doc: "Pick this many of the matching nodes at random (the same seed picks the same nodes); at most the number that match.", Example: "random: 2"},
	"target": {Doc: "An object reference. For kinds the scenario creates (not Pod, Event, Lease, Node, Namespace) the object must be declared in objects: or applied by a timeline entry.",
		Type: "object reference", Example: "target: {kind: Deployment, namespace: default, name: web}"},
	"target.kind":      {Doc: "The object's kind.", Example: "kind: Deployment"},
	"target.namespace": {Doc: "The object's namespace.", Default: "default (for namespaced kinds)", Example: "namespace: prod"},
	"target.name":      {Doc: "The object's name.", Example: "name: web"},
	"window": {Doc: "A stretch of virtual time: from when the timeline entry after ran (the start when after is left out) to within later.",
		Type: "window", Example: "within: {after: crash, within: 8m}"},
	"window.after":  {Doc: "The timeline entry the window starts at, by name; the start when left out.", Example: "after: crash"},
	"window.within": {Doc: "The window's length, greater than 0.", Example: "within: 8m"},

	"condition": {Doc: "A built-in condition of eventually, always and never: condition: NAME with its arguments beside it.",
		Type: "condition", Example: "always: {condition: available-at-least, target: {kind: Deployment, name: web}, count: 8}"},
	"condition.no-pending-pods": {Doc: "No pod is in phase Pending. The message gives the number of pending pods.",
		Example: "- name: all-scheduled\n  eventually: {condition: no-pending-pods, within: {after: crash, within: 10m}}"},
	"condition.ready-replicas": {Doc: "The workload's status.readyReplicas is at least min. The message gives the ready replicas.",
		Example: "- name: web-ready\n  always: {condition: ready-replicas, target: {kind: Deployment, name: web}, min: 8}"},
	"condition.ready-replicas.target": {Doc: "The workload: a ReplicaSet, Deployment or StatefulSet."},
	"condition.ready-replicas.min":    {Doc: "The least number of ready replicas.", Example: "min: 8"},
	"condition.node-overcommitted": {Doc: "On some node the cpu or memory requests of its pods exceed its allocatable; use it under never. The message names the overcommitted nodes. Its old name no-node-overcommitted is a deprecated alias (with a warning).",
		Example: "- name: fits\n  never: node-overcommitted"},
	"condition.pods-at-most": {Doc: "The workload's active pods (owned by it or its ReplicaSets, not terminating, not finished) are at most count, or, with replicasPlusMaxSurge, the Deployment's spec.replicas plus its maxSurge (rounded up, as the Deployment controller resolves it) at that moment. The message gives the pods and the bound.",
		Example: "- name: surge-respected\n  always: {condition: pods-at-most, target: {kind: Deployment, name: web}, replicasPlusMaxSurge: true}"},
	"condition.replicas-at-most": {Doc: "The sum of spec.replicas over the Deployment's ReplicaSets is at most count, or, with replicasPlusMaxSurge, the Deployment's spec.replicas plus its maxSurge: the bound the Deployment controller guarantees. The pods can briefly exceed it while the old ReplicaSets' pods are still being deleted (see pods-at-most). The message gives the sum and the bound.",
		Example: "- name: rollout-within-surge\n  always: {condition: replicas-at-most, target: {kind: Deployment, name: web}, replicasPlusMaxSurge: true}"},
	"condition.replicas-at-most.target":               {Doc: "The Deployment."},
	"condition.replicas-at-most.count":                {Doc: "A fixed bound; instead of replicasPlusMaxSurge.", Example: "count: 13"},
	"condition.replicas-at-most.replicasPlusMaxSurge": {Doc: "Bound by spec.replicas + maxSurge of a RollingUpdate Deployment; instead of count.", Example: "replicasPlusMaxSurge: true"},
	"condition.pods-at-most.target":                   {Doc: "The workload: a ReplicaSet, Deployment or StatefulSet."},
	"condition.pods-at-most.count":                    {Doc: "A fixed bound; instead of replicasPlusMaxSurge.", Example: "count: 13"},
	"condition.pods-at-most.replicasPlusMaxSurge":     {Doc: "Bound by spec.replicas + maxSurge of a RollingUpdate Deployment; instead of count.", Example: "replicasPlusMaxSurge: true"},
	"condition.available-at-least": {Doc: "The workload's available pods (active, and Ready for at least minReadySeconds) are at least count, or, with replicasMinusMaxUnavailable, the Deployment's spec.replicas minus its maxUnavailable (rounded down, as the Deployment controller resolves it) at that moment. The message gives the available pods and the bound.",
		Example: "- name: capacity-kept\n  always: {condition: available-at-least, target: {kind: Deployment, name: web}, replicasMinusMaxUnavailable: true}"},
	"condition.available-at-least.target":                      {Doc: "The workload: a ReplicaSet, Deployment or StatefulSet."},
	"condition.available-at-least.count":                       {Doc: "A fixed bound; instead of replicasMinusMaxUnavailable.", Example: "count: 8"},
	"condition.available-at-least.replicasMinusMaxUnavailable": {Doc: "Bound by spec.replicas - maxUnavailable of a RollingUpdate Deployment; instead of count.", Example: "replicasMinusMaxUnavailable: true"},
	"condition.ready-endpoints-at-least": {Doc: "The Service has at least count ready endpoints: distinct addresses whose ready condition is true or unset, over its EndpointSlices. The message gives the ready endpoints.",
		Example: "- name: serving\n  always: {condition: ready-endpoints-at-least, service: web, count: 6}"},
	"condition.ready-endpoints-at-least.service":   {Doc: "The Service, by name; it must be declared.", Example: "service: web"},
	"condition.ready-endpoints-at-least.namespace": {Doc: "The Service's namespace.", Default: "default", Example: "namespace: prod"},
	"condition.ready-endpoints-at-least.count":     {Doc: "The least number of ready endpoints.", Example: "count: 6"},
	"condition.field-equals": {Doc: "The field of the object at path (a JSONPath, as kubectl -o jsonpath takes it) has exactly one value, and it equals value. It reads any kind, custom resources included ({condition: field-equals, target: {kind: Backup, name: nightly}, path: .status.phase, value: Succeeded}). An object that does not exist, or a path that finds nothing, does not hold. The message gives the value found.",
		Example: "- name: web-observed\n  eventually: {condition: field-equals, target: {kind: Deployment, name: web}, path: .status.observedGeneration, value: 1}"},
	"condition.field-equals.target": {Doc: "The object: any kind, a custom resource's included (its CustomResourceDefinition must be declared)."},
	"condition.field-equals.path":   {Doc: "A JSONPath into the object as the API serves it in JSON (kubectl's -o jsonpath syntax; the braces may be left out).", Example: "path: .status.conditions[?(@.type==\"Ready\")].status"},
	"condition.field-equals.value":  {Doc: "The value the field must equal: a string, number, boolean or null; numbers compare by value.", Example: "value: Succeeded"},
}

// lookupKeyDoc returns the documentation of a canonical key: its own entry, or the entry of a
// wildcard path that matches it (one segment replaced by *).
func lookupKeyDoc(key string) (keyDoc, bool) {
	if d, ok := keyDocs[key]; ok {
		return d, true
	}
	segs := strings.Split(key, ".")
	for i := range segs {
		saved := segs[i]
		segs[i] = "*"
		d, ok := keyDocs[strings.Join(segs, ".")]
		segs[i] = saved
		if ok {
			return d, true
		}
	}
	return keyDoc{}, false
}

// argHint is the hint for a missing argument arg of the union member at member (a key such as
// "timeline.kubelet-stall"): an example of the argument, or the first sentence of its doc.
func argHint(member, arg string) string {
	key := member + "." + arg
	if d, _ := lookupKeyDoc(key); d.Example == "" {
		if _, ok := keyDocs[sharedRootOf(arg)]; ok {
			if h := keyHint(sharedRootOf(arg)); strings.HasPrefix(h, "e.g.") {
				return h
			}
		}
	}
	return keyHint(key)
}

// keyHint is the hint for a missing key: its example when it fits on a line, or the first
// sentence of its doc.
func keyHint(key string) string {
	d, _ := lookupKeyDoc(key)
	if d.Example != "" && !strings.Contains(d.Example, "\n") {
		return "e.g. " + d.Example
	}
	first, _, _ := strings.Cut(d.Doc, ". ")
	return strings.TrimSuffix(first, ".")
}

// sharedRootOf returns the key a shared argument is documented under (nodes, target, shape,
// window),
// or "".
func sharedRootOf(arg string) string {
	switch arg {
	case "nodes", "target", "shape":
		return arg
	case "within":
		return "window"
	}
	return ""
}
