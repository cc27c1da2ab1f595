package client

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/apiserver"
)

// callLog records every notification with its key and object identities.
type callLog struct{ calls []string }

func (l *callLog) OnAdd(obj model.Object, initial bool) {
	l.calls = append(l.calls, fmt.Sprintf("add %p %v", obj, initial))
}
func (l *callLog) OnUpdate(oldObj, newObj model.Object) {
	l.calls = append(l.calls, fmt.Sprintf("update %p %p", oldObj, newObj))
}
func (l *callLog) OnDelete(obj any) { l.calls = append(l.calls, fmt.Sprintf("delete %v", obj)) }
func (l *callLog) OnAddKeyed(key string, obj model.Object, initial bool) {
	l.calls = append(l.calls, fmt.Sprintf("add %s %p %v", key, obj, initial))
}
func (l *callLog) OnUpdateKeyed(key string, oldObj, newObj model.Object) {
	l.calls = append(l.calls, fmt.Sprintf("update %s %p %p", key, oldObj, newObj))
}
func (l *callLog) OnDeleteKeyed(key string, obj any) {
	l.calls = append(l.calls, fmt.Sprintf("delete %s %p", key, obj))
}

// plainLog is a callLog seen as a plain EventHandler only.
type plainLog struct{ log *callLog }

func (p plainLog) OnAdd(obj model.Object, initial bool) { p.log.OnAdd(obj, initial) }
func (p plainLog) OnUpdate(oldObj, newObj model.Object) { p.log.OnUpdate(oldObj, newObj) }
func (p plainLog) OnDelete(obj any)                     { p.log.OnDelete(obj) }

// TestWatchEventsAreApplyAndRemove holds an informer fed watch events (watchSink.OnWatchEvent,
// which applies and removes the entry its lookup found) to one given the same changes through
// the general path (apply, which looks the key up again, and store.remove by key), over seeded
// scripts of adds, updates and deletes (of cached and uncached keys, namespaced and
// cluster-scoped) into a cache with an index built: the same notifications with the same keys
// and objects, in the same order, the same cache and index, and the same removal count.
func TestWatchEventsAreApplyAndRemove(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		var infs [2]*Informer
		var logs, plains [2]*callLog
		for i := range infs {
			infs[i] = &Informer{store: newStore(), running: true}
			logs[i], plains[i] = &callLog{}, &callLog{}
			infs[i].AddEventHandler(logs[i])
			infs[i].AddEventHandler(plainLog{plains[i]})
			infs[i].store.build(IndexNodeName)
		}
		sink := &watchSink{inf: infs[0], gen: infs[0].watchGen}
		general := infs[1]
		for step := 0; step < 300; step++ {
			var obj model.Object
			name := fmt.Sprintf("o%d", r.IntN(12))
			if r.IntN(4) == 0 {
				obj = &model.Node{ObjectMeta: model.ObjectMeta{Name: name}}
			} else {
				pod := &model.Pod{ObjectMeta: model.ObjectMeta{Namespace: fmt.Sprintf("ns%d", r.IntN(3)), Name: name}}
				pod.Spec.NodeName = fmt.Sprintf("n%d", r.IntN(3))
				obj = pod
			}
			obj.Meta().ResourceVersion = uint64(step + 1)
			typ := []apiserver.EventType{apiserver.Added, apiserver.Modified, apiserver.Deleted}[r.IntN(3)]
			sink.OnWatchEvent(apiserver.WatchEvent{Type: typ, Object: obj, ResourceVersion: uint64(step + 1)})
			key := model.Key(obj)
			if typ == apiserver.Deleted {
				general.store.remove(key)
				general.notifyDelete(key, obj)
			} else {
				general.apply(key, obj, false)
			}
			require.Equal(t, logs[1].calls, logs[0].calls, "seed %d step %d", seed, step)
			require.Equal(t, plains[1].calls, plains[0].calls, "seed %d step %d", seed, step)
		}
		want, got := general.store, infs[0].store
		require.Equal(t, entryKeys(want.all()), entryKeys(got.all()), "seed %d", seed)
		for i, e := range want.all() {
			require.Same(t, e.obj, got.all()[i].obj, "seed %d", seed)
			require.Same(t, got.items[e.key], got.all()[i], "seed %d", seed)
		}
		for n := range 3 {
			node := fmt.Sprintf("n%d", n)
			require.Equal(t, entryKeys(want.byIndex(IndexNodeName, node)), entryKeys(got.byIndex(IndexNodeName, node)), "seed %d", seed)
		}
		require.Equal(t, want.removals, got.removals, "seed %d", seed)
		require.Equal(t, uint64(300), infs[0].lastRV)
	}
}
