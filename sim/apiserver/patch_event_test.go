package apiserver

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	modelpatch "github.com/reconsim/reconsim/model/patch"
)

func storedEvent() *model.Event {
	return &model.Event{
		ObjectMeta: model.ObjectMeta{
			Name: "p.17", Namespace: "default", UID: "u-1", ResourceVersion: 42, CreationTimestamp: 5,
			Labels: map[string]string{"a": "b"},
		},
		InvolvedObject: model.ObjectReference{Kind: model.KindPod, Namespace: "default", Name: "p", UID: "pu", APIVersion: "v1"},
		Reason:         "BackOff", Message: "Back-off restarting", Source: model.EventSource{Component: "kubelet", Host: "n-1"},
		FirstTimestamp: 5, LastTimestamp: 5, Count: 1, Type: model.EventTypeWarning,
		ReportingController: "kubelet", ReportingInstance: "n-1",
	}
}

// TestEventCountPatchIsTheGenericPatch checks that wherever eventCountPatch gives a result,
// it is what strategicpatch and decoding the merged document give, and that it gives one
// for the recorder's count patches.
func TestEventCountPatchIsTheGenericPatch(t *testing.T) {
	current, err := json.Marshal(storedEvent())
	require.NoError(t, err)
	cases := []struct {
		patch string
		fast  bool
	}{
		{`{"count":2,"lastTimestamp":1234567890123456789,"message":"Back-off restarting"}`, true},
		{`{"count":7,"lastTimestamp":0,"message":""}`, true},
		{`{"message":"new \u00e9 \ud83d\ude00 text"}`, true},
		{`{"count":-0}`, true},
		{`{"lastTimestamp":-5}`, true},
		{`{}`, false},
		{`{"count":null}`, false},
		{`{"message":null}`, false},
		{`{"count":2.0}`, false},
		{`{"count":2e0}`, false},
		{`{"count":"2"}`, false},
		{`{"count":2147483648}`, false},
		{`{"lastTimestamp":99999999999999999999}`, false},
		{`{"message":5}`, false},
		{`{"Count":3}`, false},
		{`{"reason":"Other"}`, false},
		{`{"count":2,"metadata":{"labels":{"c":"d"}}}`, false},
		{`{"$patch":"replace","count":2}`, false},
		{`[]`, false},
		{`"x"`, false},
	}
	for _, tc := range cases {
		doc, err := model.DecodeJSONExact([]byte(tc.patch))
		require.NoError(t, err, tc.patch)
		got, ok := eventCountPatch(current, doc, []byte(tc.patch))
		require.Equal(t, tc.fast, ok, tc.patch)
		if !ok {
			continue
		}
		merged, err := modelpatch.Apply(model.KindEvent, current, model.StrategicMergePatchType, []byte(tc.patch))
		require.NoError(t, err, tc.patch)
		want := &model.Event{}
		require.NoError(t, json.Unmarshal(merged, want), tc.patch)
		require.Equal(t, want, got, tc.patch)
	}
}

// TestEventCountPatchThroughTheStore checks the store's answer to a recorder's count patch
// and that it does not take strategicpatch's path (which made about 170 allocations a patch).
func TestEventCountPatchThroughTheStore(t *testing.T) {
	_, s := newTestStore(t, nil)
	ev := storedEvent()
	ev.ResourceVersion = 0
	mustCreate(t, s, ev)
	count := int32(1)
	allocs := testing.AllocsPerRun(20, func() {
		count++
		patch, err := json.Marshal(map[string]any{"count": count, "lastTimestamp": 9, "message": "m"})
		require.NoError(t, err)
		obj, err := s.PatchAs(model.KindEvent, "default", "p.17", model.StrategicMergePatchType, patch)
		require.NoError(t, err)
		got := obj.(*model.Event)
		require.Equal(t, count, got.Count)
		require.Equal(t, "m", got.Message)
		require.EqualValues(t, 9, got.LastTimestamp)
		require.EqualValues(t, 5, got.FirstTimestamp)
		require.Equal(t, "kubelet", got.Source.Component)
	})
	require.Less(t, allocs, 100.0)
}
