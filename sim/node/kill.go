package node

import (
	"fmt"
	"sort"
)

// reasonOOMKilled is the terminated reason a runtime reports for a container the kernel's
// OOM killer ended (CRI: containerd and CRI-O set "OOMKilled"; the exit code is 137).
const reasonOOMKilled = "OOMKilled"

// KillContainer ends the running instance of container in the pod namespace/name now, as a
// process exiting by itself, a `kill` inside the container or the OOM killer does: exit code
// exitCode with reason Completed (0) or Error, or with oom reason OOMKilled and code 137.
// The kubelet notices at its next PLEG relist and restarts the container as its pod's
// restartPolicy says, with the CrashLoopBackOff back-off on repeated exits
// (pkg/kubelet/kuberuntime/kuberuntime_manager.go computePodActions, pkg/kubelet/kubelet.go
// containerBackOffPeriod). container "" means the pod's first container. It returns an error
// when the kubelet is not running, the pod is not on this node, or the container is not
// running.
func (kl *Kubelet) KillContainer(namespace, name, container string, exitCode int32, oom bool) error {
	if kl.State() != StateRunning {
		return fmt.Errorf("node %s is %s", kl.nodeName, kl.State())
	}
	key := namespace + "/" + name
	uids := make([]string, 0, len(kl.workers))
	for uid, w := range kl.workers { //detlint:ordered collected then sorted
		if w.key == key {
			uids = append(uids, uid)
		}
	}
	sort.Strings(uids)
	if len(uids) == 0 {
		return fmt.Errorf("pod %s is not running on node %s", key, kl.nodeName)
	}
	w := kl.workers[uids[0]]
	if w.rt == nil || len(w.rt.regular()) == 0 {
		return fmt.Errorf("pod %s has no containers yet", key)
	}
	cr := w.rt.regular()[0]
	if container != "" {
		cr = nil
		for _, c := range w.rt.containers {
			if c.name == container {
				cr = c
			}
		}
		if cr == nil {
			return fmt.Errorf("pod %s has no container %q", key, container)
		}
	}
	if !cr.running {
		return fmt.Errorf("container %s of pod %s is not running", cr.name, key)
	}
	reason := exitReason(exitCode)
	if oom {
		exitCode, reason = exitCodeSIGKILL, reasonOOMKilled
	}
	cr.exit(kl.k.Now(), exitCode, reason)
	kl.emit("container-exit", w.object(), 0, fmt.Sprintf("container=%s code=%d reason=%s killed", cr.name, exitCode, reason))
	if w.killWait == cr {
		w.proc.Unpark()
		return nil
	}
	if w.terminating {
		w.wake()
	} else {
		w.wakeAtRelist()
	}
	return nil
}
