package client

import (
	"context"
	"time"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
)

// SharedInformerFactory hands out one shared informer per (kind, list options) for one
// component, as upstream's does. Informers are kept in creation order, which is the order Start
// runs them and WaitForCacheSync waits for them.
type SharedInformerFactory struct {
	c         *Client
	resync    time.Duration
	informers []*Informer
	k         *sim.Kernel
}

// NewSharedInformerFactory returns a factory whose informers use c and resync every resync
// (0: never).
func NewSharedInformerFactory(c *Client, resync time.Duration) *SharedInformerFactory {
	return &SharedInformerFactory{c: c, resync: resync}
}

// For returns the informer for every object of kind, creating it on first use.
func (f *SharedInformerFactory) For(kind model.Kind) *Informer {
	return f.ForOptions(kind, model.ListOptions{})
}

// ForOptions returns the informer for kind restricted by opts, creating it on first use. Two
// calls share an informer when the kind, namespace and selector strings are equal. An informer
// created after Start is started at once.
func (f *SharedInformerFactory) ForOptions(kind model.Kind, opts model.ListOptions) *Informer {
	for _, inf := range f.informers {
		if inf.Kind() == kind && sameOptions(inf.opts, opts) {
			return inf
		}
	}
	inf := NewInformer(f.c, kind, opts, f.resync)
	f.informers = append(f.informers, inf)
	if f.k != nil {
		inf.Run(f.k)
	}
	return inf
}

func sameOptions(a, b model.ListOptions) bool {
	return a.Namespace == b.Namespace && selectorString(a.LabelSelector) == selectorString(b.LabelSelector) &&
		selectorString(b.FieldSelector) == selectorString(a.FieldSelector)
}

func selectorString(s interface{ String() string }) string {
	if s == nil {
		return ""
	}
	return s.String()
}

// Informers returns the informers in creation order.
func (f *SharedInformerFactory) Informers() []*Informer { return f.informers }

// Start runs every informer that is not running, in creation order, and remembers k so that
// informers created later start at once.
func (f *SharedInformerFactory) Start(k *sim.Kernel) {
	f.k = k
	for _, inf := range f.informers {
		inf.Run(k)
	}
}

// Stop stops every informer (a component restart); Start runs them again.
func (f *SharedInformerFactory) Stop() {
	f.k = nil
	for _, inf := range f.informers {
		inf.Stop()
	}
}

// WaitForCacheSync parks the calling process until every started informer has synced.
func (f *SharedInformerFactory) WaitForCacheSync(ctx context.Context) {
	for _, inf := range f.informers {
		if inf.Running() {
			inf.WaitForSync(ctx)
		}
	}
}
