package statefulset

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/controllers/internal/history"
	"github.com/reconsim/reconsim/sim/internal/testworld"
)

const testNS = testworld.Namespace

// world is the shared test world with the StatefulSet controller on its own client and
// informers, and the test-played scheduler and kubelets (testworld.FakeNodes): a new pod is
// bound to the live node with the fewest pods, started (Running and Ready) 2s later, and a
// graceful deletion is finished 1s after it starts, with the kubelet's final delete (grace 0,
// UID precondition). A dead node's kubelet does nothing at all.
type world struct {
	*testworld.World
	ssc *Controller
	inv invariants
}

func newWorld(t testing.TB, cfg Config) *world {
	w := &world{inv: invariants{pods: map[string]*model.Pod{}, policy: map[string]string{}}}
	w.World = testworld.New(t, testworld.Options{Check: w.inv.commit})
	ssc, f := testworld.NewController(w.World, Component, Component, New, cfg)
	w.ssc = ssc
	w.StartFakeNodes().StartDetail = testworld.StartedDetail
	w.PodLine = func(_ int, p *model.Pod) string { return podLine(p) }
	w.Show = testworld.StatusOnRequest(Component, testworld.Sources(Component, "test"))
	f.Start(w.K)
	ssc.Start()
	w.Settle(100 * time.Millisecond)
	return w
}

func (w *world) set(name string) *model.StatefulSet {
	return testworld.Get[*model.StatefulSet](w.World, model.KindStatefulSet, testNS, name)
}

func (w *world) revisions() []*model.ControllerRevision {
	out := testworld.List[*model.ControllerRevision](w.World, model.KindControllerRevision, testNS)
	history.SortControllerRevisions(out)
	return out
}

func podLine(p *model.Pod) string {
	return fmt.Sprintf("%s node=%s %s rev=%s index=%s owner=%s image=%s", p.Name, testworld.PodNode(p), testworld.PodState(p),
		p.Labels[StatefulSetRevisionLabel], p.Labels[PodIndexLabel], testworld.OwnerText(p), image(p))
}

func image(p *model.Pod) string {
	if len(p.Spec.Containers) == 0 {
		return "-"
	}
	return p.Spec.Containers[0].Image
}

// newSet builds a StatefulSet with one container.
func newSet(name string, replicas int32, policy string, img string) *model.StatefulSet {
	set := &model.StatefulSet{}
	set.Name, set.Namespace = name, testNS
	set.Spec.Replicas = model.Ptr(replicas)
	set.Spec.PodManagementPolicy = policy
	set.Spec.ServiceName = name
	set.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}
	set.Spec.Template.Labels = map[string]string{"app": name}
	set.Spec.Template.Spec.Containers = []model.Container{{Name: "app", Image: img}}
	return set
}

// ---- invariants, checked at every write the API server commits ----

// invariants follows every committed write and reports the first violation of (on top of
// the shared world's): OrderedReady: pod i of a set is created only while pods 0..i-1 of the
// set exist and are Running, Ready and not being deleted.
type invariants struct {
	pods   map[string]*model.Pod // by name, as committed
	policy map[string]string     // set name -> pod management policy, as committed
}

func (inv *invariants) commit(kind model.Kind, old, new model.Object) string {
	switch kind {
	case model.KindStatefulSet:
		if set, ok := new.(*model.StatefulSet); ok {
			p := set.Spec.PodManagementPolicy
			if p == "" {
				p = model.OrderedReadyPodManagement
			}
			inv.policy[set.Name] = p
		}
	case model.KindPod:
		if new == nil {
			delete(inv.pods, old.Meta().Name)
			return ""
		}
		p := new.(*model.Pod)
		msg := ""
		if old == nil {
			msg = inv.checkOrderedCreate(p)
		}
		inv.pods[p.Name] = p
		return msg
	}
	return ""
}

func (inv *invariants) checkOrderedCreate(p *model.Pod) string {
	ref := model.ControllerOf(p)
	if ref == nil || ref.Kind != model.KindStatefulSet || inv.policy[ref.Name] != model.OrderedReadyPodManagement {
		return ""
	}
	_, ord := parentNameAndOrdinal(p.Name)
	for i := 0; i < ord; i++ {
		q, ok := inv.pods[podName(ref.Name, i)]
		if !ok || !isRunningAndReady(q) || q.DeletionTimestamp != nil {
			state := "missing"
			if ok {
				state = podState(q)
			}
			return fmt.Sprintf("OrderedReady: %s created while %s is not Running and Ready (%s)", p.Name, podName(ref.Name, i), state)
		}
	}
	return ""
}
