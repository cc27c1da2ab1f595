package drain

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/reconsim/reconsim/internal/bounds"
)

// Upstream constants, each named after where it comes from.
const (
	// EvictionRetryInterval is how long kubectl waits before asking again for an eviction
	// that was refused with 429 ([k8s:staging/src/k8s.io/kubectl/pkg/drain/drain.go@168c15a3]
	// evictPods: "will retry after 5s", time.Sleep(5 * time.Second)).
	EvictionRetryInterval = 5 * time.Second
	// WaitForDeleteInterval is how often kubectl polls (GET) a pod it evicted or deleted until
	// it is gone (drain.go: waitForDeleteParams{interval: 1 * time.Second} over
	// wait.PollImmediate).
	WaitForDeleteInterval = time.Second
	// MirrorPodAnnotationKey marks a mirror pod, which drain never deletes
	// ([api@HEAD] core/v1 annotation_key_constants.go MirrorPodAnnotationKey).
	MirrorPodAnnotationKey = "kubernetes.io/config.mirror"
)

// Filter messages, as kubectl prints them ([k8s:staging/src/k8s.io/kubectl/pkg/drain/filters.go@94341df3]).
// Errors are reported as "cannot delete <message>: <pods>", so the unmanaged-pod error reads
// "cannot delete cannot delete Pods that declare no controller ...", as kubectl's does.
const (
	daemonSetFatal    = "DaemonSet-managed Pods (use --ignore-daemonsets to ignore)"
	daemonSetWarning  = "ignoring DaemonSet-managed Pods"
	unmanagedFatal    = "cannot delete Pods that declare no controller (use --force to override)"
	unmanagedWarning  = "deleting Pods that declare no controller"
	maxGraceSeconds   = 365 * 24 * 3600
	maxTimeout        = 365 * 24 * time.Hour
	maxSkipWaitSecond = 365 * 24 * 3600
)

// Options are the `kubectl drain` flags the model honours.
type Options struct {
	// GracePeriodSeconds is --grace-period: the grace period of the evictions (or deletions);
	// negative means each pod's own terminationGracePeriodSeconds (kubectl default -1), 0
	// deletes at once.
	GracePeriodSeconds int
	// Timeout is --timeout: how long the evictions and the wait for the pods to be gone may
	// take in all; 0 means forever (kubectl default).
	Timeout time.Duration
	// IgnoreAllDaemonSets is --ignore-daemonsets: DaemonSet-managed pods are left on the node
	// with a warning. Without it kubectl refuses to drain a node that runs any (kubectl's
	// default is false); DefaultOptions sets it, because every drain in a scenario would
	// otherwise fail on nodes that run DaemonSets.
	IgnoreAllDaemonSets bool
	// DeleteEmptyDirData is --delete-emptydir-data: pods with emptyDir volumes may be
	// deleted. The model's pods have no volumes, so no pod is ever refused for local storage
	// and the flag changes nothing; it is accepted so that scenarios can say what they would
	// pass to kubectl.
	DeleteEmptyDirData bool
	// Force is --force: pods that declare no controller are deleted too (with a warning),
	// and so are pods of a DaemonSet that no longer exists.
	Force bool
	// DisableEviction is --disable-eviction: pods are deleted instead of evicted, bypassing
	// PodDisruptionBudgets.
	DisableEviction bool
	// SkipWaitForDeleteTimeoutSeconds is --skip-wait-for-delete-timeout: pods whose
	// deletionTimestamp is older than this many seconds are skipped (0: never skip).
	SkipWaitForDeleteTimeoutSeconds int
	// PodSelector is --pod-selector: only pods whose labels match are drained ("" = all).
	PodSelector string
}

// DefaultOptions returns kubectl drain's defaults, except IgnoreAllDaemonSets, which is true
// (see the field).
func DefaultOptions() Options {
	return Options{GracePeriodSeconds: -1, IgnoreAllDaemonSets: true}
}

// Validate returns an error naming the first flag that is out of range or malformed; nil if
// the options are usable.
func (o Options) Validate() error {
	if o.GracePeriodSeconds > maxGraceSeconds {
		return fmt.Errorf("drain: --grace-period must be at most %d, got %d", maxGraceSeconds, o.GracePeriodSeconds)
	}
	if err := bounds.First("drain",
		bounds.In("--timeout", o.Timeout, 0, maxTimeout),
		bounds.In("--skip-wait-for-delete-timeout", o.SkipWaitForDeleteTimeoutSeconds, 0, maxSkipWaitSecond),
	); err != nil {
		return err
	}
	if _, err := labels.Parse(o.PodSelector); err != nil {
		return fmt.Errorf("drain: --pod-selector: %w", err)
	}
	return nil
}
