package node

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
)

// TestKubeletScript runs the scripts in testdata against a real API server and client: the
// kubelet's behaviour over virtual time, printed as its trace lines and its events.
//
// Commands:
//
//	node name=<n> [cpu=<q>] [memory=<q>] [pods=<n>] [settled] [constant-latency] [nostart] [no-sidecars]
//	    make and start a kubelet (constant-latency: image pull 2s, sandbox 300ms, container
//	    start 200ms, for readable timelines; settled: the Node exists already; no-sidecars: the
//	    SidecarContainers gate off)
//	start node=<n>                       start a kubelet made with nostart
//	pod name=<p> node=<n> [containers=<n>] [cpu=<q>] [memory=<q>] [image=<i>]
//	    [restart=<policy>] [grace=<s>] [readiness=<probe>] [startup=<probe>] [liveness=<probe>]
//	    [init=<name>[:sidecar],...] [sidecar-startup=<probe>] [running] [ann=<key>=<value>,...]
//	    create a pod bound to a node (probe: period/initial/success/failure as 5/0/1/3; init
//	    containers in order, ":sidecar" making one restartable, with sidecar-startup as its
//	    startup probe and the liveness probe)
//	delete name=<p> [grace=<s>]         graceful delete through the store
//	delete-node name=<n>                delete a Node through the store
//	run for=<d> [show=<actions>]         run and print the kubelet's trace lines (and events)
//	crash|partition|recover node=<n>    node faults; stall node=<n> for=<d>
//	status name=<p>                      the pod as the API server has it
//	lease node=<n>                       the node's lease
//	nodestatus node=<n>                  the node's conditions
//	stats node=<n>                       the kubelet client's request counts
//	mark-node-unknown node=<n>           set the node's conditions Unknown, as the node
//	                                     lifecycle controller does
//	mark-pod-not-ready name=<p>          set the pod's Ready condition False, as the node
//	                                     lifecycle controller does
//	kill-container node=<n> name=<p> [container=<c>] [code=N] [oom]
//	                                     end a running container now (Kubelet.KillContainer)
func TestKubeletScript(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		w := newWorld(t, 1)
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			return w.command(t, d)
		})
	})
}

func (w *world) command(t *testing.T, d *datadriven.TestData) string {
	arg := func(key string) string {
		for _, a := range d.CmdArgs {
			if a.Key == key {
				if len(a.Vals) == 0 {
					return "true"
				}
				return strings.Join(a.Vals, ",")
			}
		}
		return ""
	}
	duration := func(key string) time.Duration {
		v, err := time.ParseDuration(arg(key))
		require.NoError(t, err, "%s=%q", key, arg(key))
		return v
	}
	kubelet := func() *Kubelet {
		kl, ok := w.kubelets[arg("node")]
		require.True(t, ok, "no node %q", arg("node"))
		return kl
	}
	switch d.Cmd {
	case "node":
		cfg := DefaultConfig()
		if arg("no-sidecars") != "" {
			cfg.SidecarContainers = false
		}
		if arg("constant-latency") != "" {
			cfg.ImagePull = sim.Constant(2 * time.Second)
			cfg.SandboxStart = sim.Constant(300 * time.Millisecond)
			cfg.ContainerStart = sim.Constant(200 * time.Millisecond)
		}
		capacity := model.ResourceList{}
		for _, r := range []string{"cpu", "memory", "pods"} {
			if v := arg(r); v != "" {
				capacity[r] = mustQuantity(t, v)
			}
		}
		kl := w.addNode(arg("name"), capacity, cfg, arg("settled") != "")
		if arg("nostart") == "" {
			kl.Start()
		}
		return ""
	case "start":
		kubelet().Start()
		return ""
	case "pod":
		ps := podSpec{name: arg("name"), node: arg("node"), image: arg("image"), cpu: arg("cpu"), memory: arg("memory"),
			restartPolicy: arg("restart"), running: arg("running") != ""}
		if v := arg("containers"); v != "" {
			n, err := strconv.Atoi(v)
			require.NoError(t, err)
			ps.containers = n
		}
		if v := arg("grace"); v != "" {
			g, err := strconv.ParseInt(v, 10, 64)
			require.NoError(t, err)
			ps.graceSeconds = &g
		}
		ps.readiness = parseProbe(t, arg("readiness"))
		ps.startup = parseProbe(t, arg("startup"))
		ps.liveness = parseProbe(t, arg("liveness"))
		ps.sidecarStartup = parseProbe(t, arg("sidecar-startup"))
		if v := arg("init"); v != "" {
			ps.inits = strings.Split(v, ",")
		}
		if v := arg("ann"); v != "" {
			ps.annotations = map[string]string{}
			for _, kv := range strings.Split(v, ",") {
				key, value, _ := strings.Cut(kv, "=")
				ps.annotations["sim.reconsim.dev/"+key] = value
			}
		}
		w.createPod(ps)
		return ""
	case "delete":
		opts := model.DeleteOptions{}
		if v := arg("grace"); v != "" {
			g, err := strconv.ParseInt(v, 10, 64)
			require.NoError(t, err)
			opts.GracePeriodSeconds = &g
		}
		_, err := w.Store.Delete(model.KindPod, "default", arg("name"), opts)
		require.NoError(t, err)
		return ""
	case "run":
		w.Run(duration("for"))
		show := map[string]bool{}
		if v := arg("show"); v != "" {
			for _, a := range strings.Split(v, ",") {
				show[a] = true
			}
		}
		return w.newTrace(func(line string) bool {
			_, component, action, _ := traceFields(line)
			if !strings.HasPrefix(component, "kubelet") {
				return false
			}
			return len(show) == 0 || show[action]
		}) + fmt.Sprintf("now %s\n", w.K.Now())
	case "delete-node":
		_, err := w.Store.Delete(model.KindNode, "", arg("name"), model.DeleteOptions{})
		require.NoError(t, err)
		return ""
	case "crash":
		kubelet().Crash()
		return w.newTrace(func(line string) bool { return strings.Contains(line, " fault ") })
	case "partition":
		require.NoError(t, kubelet().Partition())
		return w.newTrace(func(line string) bool { return strings.Contains(line, " fault ") })
	case "stall":
		kubelet().Stall(duration("for"))
		return w.newTrace(func(line string) bool { return strings.Contains(line, " fault ") })
	case "recover":
		kubelet().Recover()
		return w.newTrace(func(line string) bool { return strings.Contains(line, " fault ") })
	case "kill-container":
		code := int64(137)
		if c := arg("code"); c != "" {
			var err error
			code, err = strconv.ParseInt(c, 10, 32)
			require.NoError(t, err)
		}
		if err := kubelet().KillContainer("default", arg("name"), arg("container"), int32(code), arg("oom") == "true"); err != nil {
			return "error: " + err.Error() + "\n"
		}
		return w.newTrace(func(line string) bool { return strings.Contains(line, " container-exit ") })
	case "state":
		kl := kubelet()
		return fmt.Sprintf("state=%s ready=%t pods=%d running=%d\n", kl.State(), kl.Ready(), kl.Pods(), kl.RunningPods())
	case "status":
		pod, ok := w.pod(arg("name"))
		if !ok {
			return "not found\n"
		}
		return describePod(pod)
	case "lease":
		obj, err := w.Store.Get(model.KindLease, NodeLeaseNamespace, arg("node"))
		if err != nil {
			return err.Error() + "\n"
		}
		l := obj.(*model.Lease)
		owner := "none"
		if len(l.OwnerReferences) > 0 {
			owner = string(l.OwnerReferences[0].Kind) + "/" + l.OwnerReferences[0].Name
		}
		return fmt.Sprintf("holder=%s duration=%ds renew=%s owner=%s rv=%d\n",
			l.Spec.HolderIdentity, *l.Spec.LeaseDurationSeconds, *l.Spec.RenewTime, owner, l.ResourceVersion)
	case "nodestatus":
		obj, err := w.Store.Get(model.KindNode, "", arg("node"))
		if err != nil {
			return err.Error() + "\n"
		}
		n := obj.(*model.Node)
		var b strings.Builder
		for _, c := range n.Status.Conditions {
			fmt.Fprintf(&b, "%s=%s reason=%s heartbeat=%s transition=%s\n", c.Type, c.Status, c.Reason, c.LastHeartbeatTime, c.LastTransitionTime)
		}
		return b.String()
	case "mark-node-unknown":
		// What the node lifecycle controller does to a node that stopped heartbeating.
		obj, err := w.Store.Get(model.KindNode, "", arg("node"))
		require.NoError(t, err)
		n := obj.(*model.Node).DeepCopy()
		for i := range n.Status.Conditions {
			n.Status.Conditions[i].Status = model.ConditionUnknown
			n.Status.Conditions[i].Reason = "NodeStatusUnknown"
			n.Status.Conditions[i].Message = "Kubelet stopped posting node status."
			n.Status.Conditions[i].LastTransitionTime = w.K.Now()
		}
		_, err = w.Store.UpdateStatus(n)
		require.NoError(t, err)
		return ""
	case "mark-pod-not-ready":
		// What the node lifecycle controller's MarkPodsNotReady does.
		pod, ok := w.pod(arg("name"))
		require.True(t, ok)
		pod = pod.DeepCopy()
		for i := range pod.Status.Conditions {
			if pod.Status.Conditions[i].Type == model.PodReady {
				pod.Status.Conditions[i].Status = model.ConditionFalse
				pod.Status.Conditions[i].LastTransitionTime = w.K.Now()
			}
		}
		_, err := w.Store.UpdateStatus(pod)
		require.NoError(t, err)
		return ""
	case "stats":
		s := w.clients[arg("node")].Stats()
		return fmt.Sprintf("get=%d list=%d watch=%d create=%d update=%d delete=%d errors=%d\n",
			s.RequestsFor(model.VerbGet), s.RequestsFor(model.VerbList), s.RequestsFor(model.VerbWatch),
			s.RequestsFor(model.VerbCreate), s.RequestsFor(model.VerbUpdate), s.RequestsFor(model.VerbDelete), s.Errors)
	}
	t.Fatalf("unknown command %q", d.Cmd)
	return ""
}

// parseProbe reads "period/initial/success/failure" (any suffix may be left out).
func parseProbe(t testing.TB, s string) *model.Probe {
	if s == "" {
		return nil
	}
	p := &model.Probe{}
	fields := []*int32{&p.PeriodSeconds, &p.InitialDelaySeconds, &p.SuccessThreshold, &p.FailureThreshold}
	for i, part := range strings.Split(s, "/") {
		require.Less(t, i, len(fields), "probe %q has too many fields", s)
		n, err := strconv.Atoi(part)
		require.NoError(t, err)
		*fields[i] = int32(n)
	}
	return p
}

// describePod prints a pod's phase, conditions and container statuses compactly.
func describePod(pod *model.Pod) string {
	var b strings.Builder
	s := &pod.Status
	fmt.Fprintf(&b, "phase=%s", s.Phase)
	if s.Reason != "" {
		fmt.Fprintf(&b, " reason=%s", s.Reason)
	}
	if pod.DeletionTimestamp != nil {
		fmt.Fprintf(&b, " deleting-at=%s", *pod.DeletionTimestamp)
	}
	if s.StartTime != nil {
		fmt.Fprintf(&b, " start=%s", *s.StartTime)
	}
	if s.PodIP != "" {
		fmt.Fprintf(&b, " ip=%s", s.PodIP)
	}
	b.WriteString("\n")
	if s.Message != "" {
		fmt.Fprintf(&b, "  message: %s\n", s.Message)
	}
	for _, c := range s.Conditions {
		fmt.Fprintf(&b, "  %s=%s since %s", c.Type, c.Status, c.LastTransitionTime)
		if c.Reason != "" {
			fmt.Fprintf(&b, " reason=%s", c.Reason)
		}
		b.WriteString("\n")
	}
	if len(s.InitContainerStatuses) > 0 {
		fmt.Fprintf(&b, "  kubectl status: %s\n", kubectlStatus(pod))
		for _, c := range s.Conditions {
			if c.Message != "" && c.Type == model.PodInitialized {
				fmt.Fprintf(&b, "  %s message: %s\n", c.Type, c.Message)
			}
		}
	}
	for _, cs := range s.InitContainerStatuses {
		writeContainerStatus(&b, "init", cs)
	}
	for _, cs := range s.ContainerStatuses {
		writeContainerStatus(&b, "container", cs)
	}
	return b.String()
}

// writeContainerStatus writes one line of a container's status, kind being "init" or
// "container".
func writeContainerStatus(b *strings.Builder, kind string, cs model.ContainerStatus) {
	fmt.Fprintf(b, "  %s %s restarts=%d ready=%t", kind, cs.Name, cs.RestartCount, cs.Ready)
	if cs.Started != nil {
		fmt.Fprintf(b, " started=%t", *cs.Started)
	}
	fmt.Fprintf(b, " state=%s", describeState(cs.State))
	if cs.LastState.Terminated != nil {
		fmt.Fprintf(b, " last=%s", describeState(cs.LastState))
	}
	b.WriteString("\n")
}

func describeState(s model.ContainerState) string {
	switch {
	case s.Running != nil:
		return fmt.Sprintf("running(since %s)", s.Running.StartedAt)
	case s.Waiting != nil:
		if s.Waiting.Message != "" {
			return fmt.Sprintf("waiting(%s: %s)", s.Waiting.Reason, s.Waiting.Message)
		}
		return fmt.Sprintf("waiting(%s)", s.Waiting.Reason)
	case s.Terminated != nil:
		t := s.Terminated
		return fmt.Sprintf("terminated(%s code=%d %s..%s)", t.Reason, t.ExitCode, t.StartedAt, t.FinishedAt)
	}
	return "none"
}

// kubectlStatus is the STATUS column `kubectl get pods` prints for a pod with init containers
// (k8s.io/kubernetes pkg/printers/internalversion/printers.go printPod, reduced): Init:N/M while
// the plain init containers run, Init:<reason> when one waits or failed, else the first
// container's waiting or terminated reason, or the phase.
func kubectlStatus(pod *model.Pod) string {
	reason := pod.Status.Phase
	initializing := false
	for i := range pod.Status.InitContainerStatuses {
		if initializing {
			break
		}
		cs := &pod.Status.InitContainerStatuses[i]
		sidecar := i < len(pod.Spec.InitContainers) && model.IsRestartableInitContainer(&pod.Spec.InitContainers[i])
		switch {
		case cs.State.Terminated != nil && cs.State.Terminated.ExitCode == 0:
			continue
		case sidecar && cs.Started != nil && *cs.Started:
			continue
		case cs.State.Terminated != nil:
			if cs.State.Terminated.Reason != "" {
				reason = "Init:" + cs.State.Terminated.Reason
			} else {
				reason = fmt.Sprintf("Init:ExitCode:%d", cs.State.Terminated.ExitCode)
			}
		case cs.State.Waiting != nil && cs.State.Waiting.Reason != "" && cs.State.Waiting.Reason != "PodInitializing":
			reason = "Init:" + cs.State.Waiting.Reason
		default:
			reason = fmt.Sprintf("Init:%d/%d", i, len(pod.Spec.InitContainers))
		}
		initializing = true
	}
	if initializing {
		return reason
	}
	for _, cs := range pod.Status.ContainerStatuses {
		switch {
		case cs.State.Waiting != nil && cs.State.Waiting.Reason != "":
			return cs.State.Waiting.Reason
		case cs.State.Terminated != nil && cs.State.Terminated.Reason != "":
			return cs.State.Terminated.Reason
		}
	}
	return reason
}
