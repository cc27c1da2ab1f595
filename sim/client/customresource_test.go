package client_test

import (
	"context"
	_ "embed"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim"
	"github.com/reconsim/reconsim/sim/apiserver"
	"github.com/reconsim/reconsim/sim/client"
)

//go:embed testdata/gadget-crd.yaml
var gadgetCRD string

// Custom resources go through the client and informers like built-in kinds: discovery lists
// the CRD's kind, an informer lists and watches it, and status goes through UpdateStatus.
func TestCustomResourcesThroughClientAndInformer(t *testing.T) {
	k := sim.New(1)
	srv := apiserver.NewServer(k, apiserver.DefaultConfig())
	objs, _, err := model.DecodeManifests("crd.yaml", []byte(gadgetCRD))
	require.NoError(t, err)
	_, err = srv.Store().Create(objs[0])
	require.NoError(t, err)
	c := client.New(srv, "operator", client.Config{QPS: 20, Burst: 30})
	ki, ok := c.LookupKind("Gadget")
	require.True(t, ok)
	assert.Equal(t, "example.com/v1", ki.APIVersion)
	assert.True(t, ki.Namespaced)

	f := client.NewSharedInformerFactory(c, 0)
	inf := f.For("Gadget")
	f.Start(k)
	var seen []string
	inf.AddEventHandler(client.EventHandlerFuncs{AddFunc: func(o model.Object, _ bool) { seen = append(seen, o.Meta().Name) }})
	k.Spawn("writer", func(p *sim.Proc) {
		ctx := sim.WithProc(context.Background(), p)
		g := &model.Unstructured{APIVersion: "example.com/v1", Kind: "Gadget", Content: map[string]any{"spec": map[string]any{"size": int64(2)}}}
		g.Name, g.Namespace = "g1", "default"
		created, err := c.Create(ctx, g)
		require.NoError(t, err)
		u := created.(*model.Unstructured).DeepCopy()
		u.Content["status"] = map[string]any{"ready": true}
		got, err := c.UpdateStatus(ctx, u)
		require.NoError(t, err)
		assert.Equal(t, int64(1), got.Meta().Generation)
	})
	k.Run(sim.Limits{MaxTime: k.Now().Add(10 * time.Second)})
	assert.Equal(t, []string{"g1"}, seen)
	obj, ok := inf.Get("default", "g1")
	require.True(t, ok)
	assert.Equal(t, map[string]any{"ready": true}, obj.(*model.Unstructured).Content["status"])
}
