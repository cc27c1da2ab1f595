package node

import (
	"fmt"
	"time"

	"github.com/reconsim/reconsim/internal/bounds"
	"github.com/reconsim/reconsim/sim"
)

// Config holds a kubelet's settings. Fields named after upstream flags or constants take their
// upstream defaults in DefaultConfig; the last group are simulator knobs for what the simulator
// does not run (the container runtime and the registry) and are documented with the default
// chosen and why.
type Config struct {
	// NodeStatusUpdateFrequency is how often the kubelet computes its node status; it posts it
	// only if it changed or NodeStatusReportFrequency elapsed (kubelet
	// --node-status-update-frequency, default 10s; [kubelet-cfg@HEAD] config/v1beta1/types.go,
	// docs/upstream.md#kubelet).
	NodeStatusUpdateFrequency time.Duration
	// NodeStatusReportFrequency is the longest the kubelet goes without posting its node
	// status when nothing changed (nodeStatusReportFrequency, default 5m;
	// docs/upstream.md#kubelet).
	// Upstream defaults it to NodeStatusUpdateFrequency when only that one is set explicitly;
	// whoever maps scenario flags onto Config should do the same.
	NodeStatusReportFrequency time.Duration
	// NodeLeaseDurationSeconds is the Lease's spec.leaseDurationSeconds
	// (nodeLeaseDurationSeconds, default 40; docs/upstream.md#kubelet).
	NodeLeaseDurationSeconds int32
	// NodeLeaseRenewIntervalFraction times the lease duration is the renew interval
	// (nodeLeaseRenewIntervalFraction = 0.25 in pkg/kubelet/kubelet.go, giving 10s).
	NodeLeaseRenewIntervalFraction float64
	// LeaseMaxUpdateRetries is how many immediate update attempts one lease sync makes
	// (maxUpdateRetries = 5, [component-helpers@HEAD] apimachinery/lease/controller.go).
	LeaseMaxUpdateRetries int
	// LeaseRetryBackoffInitial is the sleep backoffEnsureLease doubles before each retry,
	// so the first wait is twice it (100ms, same file).
	LeaseRetryBackoffInitial time.Duration
	// LeaseRetryBackoffMax caps that sleep (maxBackoff = 7s, same file).
	LeaseRetryBackoffMax time.Duration
	// NodeStatusUpdateRetry is how many attempts one node status sync makes
	// (nodeStatusUpdateRetry = 5, pkg/kubelet/kubelet.go).
	NodeStatusUpdateRetry int
	// MaxPods is the node's pod capacity when the Node given to New does not set one
	// (maxPods, default 110; docs/upstream.md#kubelet).
	MaxPods int32
	// KubeAPIQPS and KubeAPIBurst are the kubelet's client throttling (kubeAPIQPS 50,
	// kubeAPIBurst 100; [kubelet-cfg@HEAD] config/v1beta1/types.go,
	// docs/upstream.md#client-rate-limits). The kubelet does not build its client: the
	// integrator passes these to client.New. Upstream
	// sends lease and node status through a second, unthrottled client; here everything shares
	// the one client, so a kubelet saturating its QPS delays its own heartbeats.
	KubeAPIQPS   float64
	KubeAPIBurst int
	// ContainerBackOffPeriod is the first CrashLoopBackOff delay (containerBackOffPeriod = 10s,
	// pkg/kubelet/kubelet.go; docs/upstream.md#kubelet).
	ContainerBackOffPeriod time.Duration
	// MaxContainerBackOff caps the CrashLoopBackOff delay; a container that ran longer than
	// twice this since its last back-off starts over (MaxContainerBackOff = 300s; client-go
	// util/flowcontrol/backoff.go hasExpired; docs/upstream.md#kubelet).
	MaxContainerBackOff time.Duration
	// SyncFrequency bounds how long a pod worker waits before retrying a failed sync
	// (syncFrequency, default 1m; pod_workers.go completeWork clamps its back-off to the
	// resync interval; docs/upstream.md#kubelet).
	SyncFrequency time.Duration
	// RetryAtBackOffExpiry is the simulator's gate KubeletPodWorkerRetryAtBackOff
	// (sim/features; on since v1.35, #133066): a pod worker whose sync failed on a crash-loop
	// back-off retries when the back-off expires (x [1, 1.5], at most SyncFrequency later);
	// off, it retries after backOffPeriod 10s x [1, 1.5], as releases up to v1.34 did.
	RetryAtBackOffExpiry bool
	// SidecarContainers is the SidecarContainers gate (sim/features; KEP-753, beta and on
	// since v1.29, GA in v1.33): an init container with restartPolicy Always is a sidecar,
	// started before the regular containers and stopped after them. Off, it is run as a plain
	// init container (the API server drops the field when the gate is off).
	SidecarContainers bool
	// ImageBackOffPeriod is the first image pull back-off and MaxImageBackOff its cap
	// (imageBackOffPeriod = 10s and MaxImageBackOff = 300s in pkg/kubelet/kubelet.go, k/k
	// v1.33; flowcontrol.NewBackOff(imageBackOffPeriod, MaxImageBackOff) in NewMainKubelet):
	// after a failed pull the next one waits 10s, 20s, 40s, ... up to 300s.
	ImageBackOffPeriod time.Duration
	MaxImageBackOff    time.Duration
	// PLEGRelistPeriod is how often the generic PLEG relists containers, so how late the
	// kubelet notices that a container started or exited (plegRelistPeriod = 1s,
	// pkg/kubelet/kubelet.go; docs/upstream.md#kubelet). This is the kubelet's status update
	// delay: a change on the node reaches the pod status at the next relist.
	PLEGRelistPeriod time.Duration
	// StatusSyncPeriod is how often the status manager re-checks every pod status against the
	// API server (syncPeriod = 10s, pkg/kubelet/status/status_manager.go).
	StatusSyncPeriod time.Duration
	// SerializeImagePulls makes the node pull one image at a time, in request order
	// (serializeImagePulls, default true; [kubelet-cfg@HEAD] config/v1beta1/types.go).
	SerializeImagePulls bool

	// ImagePull is the time to pull an image that is not on the node yet (kubelet.image-pull,
	// a simulator setting: upstream has no such default). Default: lognormal, median 1s, p99
	// 5s, capped at 60s: a small image from a registry near the cluster. The pod startup SLO
	// excludes image pulls (docs/upstream.md#slos), so a scenario checking that SLO should look
	// at startup minus the Pulled durations.
	ImagePull sim.Dist
	// SandboxStart is the time to create a pod sandbox with its network (CRI RunPodSandbox
	// plus CNI ADD). Default: lognormal, median 300ms, p99 1.5s, capped at 10s.
	SandboxStart sim.Dist
	// ContainerStart is the time to create and start one container (CRI CreateContainer plus
	// StartContainer; kubelet.container-start, a simulator setting). Default: lognormal, median
	// 300ms, p99 1.5s, capped at 10s. The defaults keep a pod's startup without image pull
	// inside the 5s p99 SLO, as on a healthy cluster.
	ContainerStart sim.Dist

	// EventRecordQPS and EventBurst are the kubelet's event client throttling (eventRecordQPS
	// 50, eventBurst 100; [kubelet-cfg@HEAD] config/v1beta1/types.go): its Events go through
	// kubeDeps.EventClient, a clientset of its own (cmd/kubelet/app/server.go). QPS 0 means
	// unlimited. The kubelet does not build that client: the integrator passes these to
	// client.New.
	EventRecordQPS float64
	EventBurst     int
}

// Upper bounds Validate enforces, so that a typo cannot make a run take forever or allocate
// without limit.
const (
	maxPeriod      = 24 * time.Hour
	maxPodsLimit   = 10000
	maxRetryLimit  = 100
	maxLeaseSecond = 3600
)

// DefaultConfig returns the upstream defaults and the simulator's documented defaults.
func DefaultConfig() Config {
	return Config{
		NodeStatusUpdateFrequency:      10 * time.Second,
		NodeStatusReportFrequency:      5 * time.Minute,
		NodeLeaseDurationSeconds:       40,
		NodeLeaseRenewIntervalFraction: 0.25,
		LeaseMaxUpdateRetries:          5,
		LeaseRetryBackoffInitial:       100 * time.Millisecond,
		LeaseRetryBackoffMax:           7 * time.Second,
		NodeStatusUpdateRetry:          5,
		MaxPods:                        110,
		KubeAPIQPS:                     50,
		KubeAPIBurst:                   100,
		ContainerBackOffPeriod:         10 * time.Second,
		MaxContainerBackOff:            300 * time.Second,
		SyncFrequency:                  time.Minute,
		RetryAtBackOffExpiry:           true,
		SidecarContainers:              true,
		ImageBackOffPeriod:             10 * time.Second,
		MaxImageBackOff:                300 * time.Second,
		PLEGRelistPeriod:               time.Second,
		StatusSyncPeriod:               10 * time.Second,
		SerializeImagePulls:            true,
		ImagePull:                      sim.Dist{Kind: sim.DistLogNormal, Median: time.Second, P99: 5 * time.Second, Max: time.Minute},
		SandboxStart:                   sim.Dist{Kind: sim.DistLogNormal, Median: 300 * time.Millisecond, P99: 1500 * time.Millisecond, Max: 10 * time.Second},
		ContainerStart:                 sim.Dist{Kind: sim.DistLogNormal, Median: 300 * time.Millisecond, P99: 1500 * time.Millisecond, Max: 10 * time.Second},
		EventRecordQPS:                 50,
		EventBurst:                     100,
	}
}

// LeaseRenewInterval is the lease controller's period: NodeLeaseDurationSeconds times
// NodeLeaseRenewIntervalFraction (10s with the defaults). Its receiver is a pointer: a value
// receiver made every renewal copy the whole Config (368 bytes, six cache lines of a kubelet
// untouched for 10 s) to read two fields.
func (c *Config) LeaseRenewInterval() time.Duration {
	return time.Duration(float64(time.Duration(c.NodeLeaseDurationSeconds)*time.Second) * c.NodeLeaseRenewIntervalFraction)
}

// Validate reports the first unusable setting, naming it; nil if the configuration is usable.
func (c Config) Validate() error {
	periods := []struct {
		name string
		v    time.Duration
	}{
		{"NodeStatusUpdateFrequency", c.NodeStatusUpdateFrequency},
		{"NodeStatusReportFrequency", c.NodeStatusReportFrequency},
		{"LeaseRetryBackoffInitial", c.LeaseRetryBackoffInitial},
		{"LeaseRetryBackoffMax", c.LeaseRetryBackoffMax},
		{"ContainerBackOffPeriod", c.ContainerBackOffPeriod},
		{"MaxContainerBackOff", c.MaxContainerBackOff},
		{"ImageBackOffPeriod", c.ImageBackOffPeriod},
		{"MaxImageBackOff", c.MaxImageBackOff},
		{"SyncFrequency", c.SyncFrequency},
		{"PLEGRelistPeriod", c.PLEGRelistPeriod},
		{"StatusSyncPeriod", c.StatusSyncPeriod},
	}
	for _, p := range periods {
		if err := bounds.PositiveAtMost(p.name, p.v, maxPeriod); err != nil {
			return fmt.Errorf("node config: %w", err)
		}
	}
	if err := bounds.First("node config",
		bounds.In("NodeLeaseDurationSeconds", c.NodeLeaseDurationSeconds, 1, maxLeaseSecond),
		bounds.In("LeaseMaxUpdateRetries", c.LeaseMaxUpdateRetries, 1, maxRetryLimit),
		bounds.In("NodeStatusUpdateRetry", c.NodeStatusUpdateRetry, 1, maxRetryLimit),
		bounds.In("MaxPods", c.MaxPods, 1, maxPodsLimit),
		bounds.NonNegative("EventBurst", c.EventBurst),
	); err != nil {
		return err
	}
	if c.NodeLeaseRenewIntervalFraction <= 0 || c.NodeLeaseRenewIntervalFraction >= 1 {
		return fmt.Errorf("node config: NodeLeaseRenewIntervalFraction must be in (0, 1), got %g", c.NodeLeaseRenewIntervalFraction)
	}
	if c.LeaseRenewInterval() <= 0 {
		return fmt.Errorf("node config: the lease renew interval (%d s x %g) rounds to zero", c.NodeLeaseDurationSeconds, c.NodeLeaseRenewIntervalFraction)
	}
	if c.LeaseRetryBackoffInitial > c.LeaseRetryBackoffMax {
		return fmt.Errorf("node config: LeaseRetryBackoffInitial (%s) exceeds LeaseRetryBackoffMax (%s)", c.LeaseRetryBackoffInitial, c.LeaseRetryBackoffMax)
	}
	if c.ContainerBackOffPeriod > c.MaxContainerBackOff {
		return fmt.Errorf("node config: ContainerBackOffPeriod (%s) exceeds MaxContainerBackOff (%s)", c.ContainerBackOffPeriod, c.MaxContainerBackOff)
	}
	if c.ImageBackOffPeriod > c.MaxImageBackOff {
		return fmt.Errorf("node config: ImageBackOffPeriod (%s) exceeds MaxImageBackOff (%s)", c.ImageBackOffPeriod, c.MaxImageBackOff)
	}
	if c.KubeAPIQPS == 0 || c.KubeAPIBurst < 0 {
		return fmt.Errorf("node config: KubeAPIQPS must be non-zero (negative disables throttling) and KubeAPIBurst non-negative, got %g/%d", c.KubeAPIQPS, c.KubeAPIBurst)
	}
	for _, d := range []struct {
		name string
		v    sim.Dist
	}{{"ImagePull", c.ImagePull}, {"SandboxStart", c.SandboxStart}, {"ContainerStart", c.ContainerStart}} {
		if err := d.v.Validate(); err != nil {
			return fmt.Errorf("node config: %s: %w", d.name, err)
		}
	}
	return nil
}
