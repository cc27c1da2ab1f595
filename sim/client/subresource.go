package client

import (
	"context"
	"fmt"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/apiserver"
)

// Evict asks the API server to evict the pod namespace/name through the pods/eviction
// subresource (what `kubectl drain` does). It returns nil when the pod was deleted (or marked
// for graceful deletion), and the server's error otherwise: a TooManyRequests error when a
// PodDisruptionBudget would be violated. That 429 carries no Retry-After (as upstream), so the
// client does not retry it; the caller decides when to try again.
func (c *Client) Evict(ctx context.Context, namespace, name string, opts *model.DeleteOptions) error {
	ev := &model.Eviction{ObjectMeta: model.ObjectMeta{Name: name, Namespace: namespace}}
	if opts != nil {
		d := *opts
		ev.DeleteOptions = &d
	}
	return c.do(ctx, apiserver.Request{
		Verb: VerbCreate, Kind: model.KindPod, Subresource: apiserver.SubresourceEviction,
		Namespace: namespace, Name: name, Object: ev,
	}).Err
}

// GetScale reads the scale subresource of a Deployment, ReplicaSet or StatefulSet.
func (c *Client) GetScale(ctx context.Context, kind model.Kind, namespace, name string) (*model.Scale, error) {
	resp := c.do(ctx, apiserver.Request{
		Verb: VerbGet, Kind: kind, Subresource: apiserver.SubresourceScale, Namespace: namespace, Name: name,
	})
	if resp.Err != nil {
		return nil, resp.Err
	}
	return scaleOut(resp.Object)
}

// UpdateScale writes the scale subresource (spec.replicas) of a Deployment, ReplicaSet or
// StatefulSet; scale's resourceVersion is a precondition (0: unconditional), so a stale one
// gives a Conflict error.
func (c *Client) UpdateScale(ctx context.Context, kind model.Kind, namespace, name string, scale *model.Scale) (*model.Scale, error) {
	if scale == nil {
		return nil, fmt.Errorf("client %s: UpdateScale with a nil scale", c.name)
	}
	resp := c.do(ctx, apiserver.Request{
		Verb: VerbUpdate, Kind: kind, Subresource: apiserver.SubresourceScale,
		Namespace: namespace, Name: name, Object: scale.DeepCopyObject(),
	})
	if resp.Err != nil {
		return nil, resp.Err
	}
	return scaleOut(resp.Object)
}

func scaleOut(obj model.Object) (*model.Scale, error) {
	s, ok := obj.(*model.Scale)
	if !ok {
		return nil, fmt.Errorf("scale subresource returned %T, want *model.Scale", obj)
	}
	return s.DeepCopy(), nil
}

// PatchSubresource applies patch of type pt to the named object's subresource ("status", or
// "" for the main resource) and returns a private copy of the result.
func (c *Client) PatchSubresource(ctx context.Context, kind model.Kind, namespace, name, subresource string, pt model.PatchType, patch []byte) (model.Object, error) {
	resp := c.do(ctx, apiserver.Request{
		Verb: VerbPatch, Kind: kind, Subresource: subresource, Namespace: namespace, Name: name,
		Patch: append([]byte(nil), patch...), PatchType: pt,
	})
	if resp.Err != nil {
		return nil, resp.Err
	}
	return copyOut(resp.Object), nil
}
