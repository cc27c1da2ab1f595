package kubecontrollermanager

import "time"

// Options are kube-controller-manager's generic flags (k8s.io/controller-manager
// GenericControllerManagerConfiguration): its client connection and informer resync.
type Options struct {
	// KubeAPIQPS and KubeAPIBurst are --kube-api-qps and --kube-api-burst: the token bucket
	// of each controller's own client, and of the shared informers' client.
	KubeAPIQPS   float64
	KubeAPIBurst int
	// MinResyncPeriod is --min-resync-period: each informer factory resyncs at a random period
	// in [MinResyncPeriod, 2*MinResyncPeriod) (cmd/kube-controller-manager/app/controllermanager.go
	// ResyncPeriod).
	MinResyncPeriod time.Duration
}

// DefaultOptions returns upstream's defaults: QPS 20, burst 30, min resync 12h (see Flags for
// the sources).
func DefaultOptions() Options {
	return Options{KubeAPIQPS: 20, KubeAPIBurst: 30, MinResyncPeriod: 12 * time.Hour}
}
