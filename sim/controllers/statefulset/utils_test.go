package statefulset

import (
	"strings"
	"testing"
	"time"

	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
	"github.com/reconsim/reconsim/sim/controllers/internal/history"
	"github.com/reconsim/reconsim/sim/internal/testworld"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

func TestParentNameAndOrdinal(t *testing.T) {
	tests := []struct {
		name       string
		wantParent string
		wantOrd    int
	}{
		{"db-0", "db", 0},
		{"db-12", "db", 12},
		{"my-db-3", "my-db", 3},
		{"db-01", "db", 1},           // the regexp accepts leading zeros; identityMatches then fails
		{"db", "", -1},               // no dash
		{"db-", "", -1},              // no digits
		{"db-x", "", -1},             // not digits
		{"db-1a", "", -1},            // trailing non-digit
		{"-4", "", 4},                // an empty parent still matches (.*)
		{"db-99999999999", "db", -1}, // overflows int32: parent kept, ordinal -1
		{"db-2147483647", "db", 2147483647},
		{"db-2147483648", "db", -1},
		{"web-1-2", "web-1", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent, ord := parentNameAndOrdinal(tt.name)
			assert.Equal(t, tt.wantParent, parent)
			assert.Equal(t, tt.wantOrd, ord)
		})
	}
}

func TestIdentity(t *testing.T) {
	set := newSet("db", 3, "", "app:v1")
	pod := newStatefulSetPod(set, 2)
	assert.Equal(t, "db-2", pod.Name)
	assert.Equal(t, "db-", pod.GenerateName)
	assert.Equal(t, testNS, pod.Namespace)
	assert.Equal(t, "db-2", pod.Labels[StatefulSetPodNameLabel])
	assert.Equal(t, "2", pod.Labels[PodIndexLabel])
	assert.Equal(t, "db", pod.Labels["app"])
	require.NotNil(t, model.ControllerOf(pod))
	assert.Equal(t, model.KindStatefulSet, model.ControllerOf(pod).Kind)
	assert.True(t, identityMatches(set, pod))
	assert.True(t, isMemberOf(set, pod))

	tests := []struct {
		name   string
		mutate func(p *model.Pod)
	}{
		{"pod-name label missing", func(p *model.Pod) { delete(p.Labels, StatefulSetPodNameLabel) }},
		{"pod-index label wrong", func(p *model.Pod) { p.Labels[PodIndexLabel] = "7" }},
		{"other namespace", func(p *model.Pod) { p.Namespace = "other" }},
		{"leading zero", func(p *model.Pod) { p.Name = "db-02" }},
		{"other set", func(p *model.Pod) { p.Name = "dbx-2" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := pod.DeepCopy()
			tt.mutate(p)
			assert.False(t, identityMatches(set, p))
			if tt.name != "leading zero" && tt.name != "other set" {
				updateIdentity(set, p)
				assert.True(t, identityMatches(set, p), "updateIdentity restores the identity")
			}
		})
	}
	// The template is copied, not shared.
	pod.Labels["app"] = "changed"
	assert.Equal(t, "db", set.Spec.Template.Labels["app"])
}

func TestNewVersionedStatefulSetPod(t *testing.T) {
	set := newSet("db", 4, "", "app:v1")
	update := set.DeepCopy()
	update.Spec.Template.Spec.Containers[0].Image = "app:v2"
	tests := []struct {
		name      string
		strategy  model.StatefulSetUpdateStrategy
		current   int32
		ordinal   int
		wantImage string
	}{
		{"partition 2, ordinal 1 stays current", model.StatefulSetUpdateStrategy{Type: "RollingUpdate", RollingUpdate: &model.RollingUpdateStatefulSetStrategy{Partition: model.Ptr(int32(2))}}, 0, 1, "app:v1"},
		{"partition 2, ordinal 2 is updated", model.StatefulSetUpdateStrategy{Type: "RollingUpdate", RollingUpdate: &model.RollingUpdateStatefulSetStrategy{Partition: model.Ptr(int32(2))}}, 0, 2, "app:v2"},
		{"partition 0 updates everything", model.StatefulSetUpdateStrategy{Type: "RollingUpdate", RollingUpdate: &model.RollingUpdateStatefulSetStrategy{Partition: model.Ptr(int32(0))}}, 4, 0, "app:v2"},
		{"no rollingUpdate block: below currentReplicas is current", model.StatefulSetUpdateStrategy{Type: "RollingUpdate"}, 3, 2, "app:v1"},
		{"no rollingUpdate block: at currentReplicas is updated", model.StatefulSetUpdateStrategy{Type: "RollingUpdate"}, 3, 3, "app:v2"},
		{"OnDelete: always the update revision", model.StatefulSetUpdateStrategy{Type: "OnDelete"}, 4, 0, "app:v2"},
		{"OnDelete with a partition: the partition still applies (upstream precedence)", model.StatefulSetUpdateStrategy{Type: "OnDelete", RollingUpdate: &model.RollingUpdateStatefulSetStrategy{Partition: model.Ptr(int32(2))}}, 0, 1, "app:v1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cur := set.DeepCopy()
			cur.Spec.UpdateStrategy = tt.strategy
			cur.Status.CurrentReplicas = tt.current
			upd := update.DeepCopy()
			upd.Spec.UpdateStrategy = tt.strategy
			pod := newVersionedStatefulSetPod(cur, upd, "db-cur", "db-upd", tt.ordinal)
			assert.Equal(t, tt.wantImage, image(pod))
			wantRev := "db-upd"
			if tt.wantImage == "app:v1" {
				wantRev = "db-cur"
			}
			assert.Equal(t, wantRev, getPodRevision(pod))
		})
	}
}

func TestRevisionHashing(t *testing.T) {
	set := newSet("db", 1, "", "app:v1")
	set.UID = "uid-1"
	r1, err := newRevision(set, 1, model.Ptr(int32(0)))
	require.NoError(t, err)
	r1again, err := newRevision(set.DeepCopy(), 1, model.Ptr(int32(0)))
	require.NoError(t, err)
	assert.Equal(t, r1.Name, r1again.Name, "the same template gives the same name")
	assert.True(t, strings.HasPrefix(r1.Name, "db-"))
	hash := strings.TrimPrefix(r1.Name, "db-")
	assert.Equal(t, hash, r1.Labels[history.ControllerRevisionHashLabel])
	assert.Equal(t, "db", r1.Labels["app"], "revisions carry the template labels")
	for _, c := range hash {
		assert.Contains(t, controllerutil.SafeEncodeAlphabet, string(c))
	}

	// Pinned: if this changes, so does every revision name in every trace. (The traces show
	// another value: there the API server's defaulting has filled in the template.)
	assert.Equal(t, "db-6459686c54", r1.Name)

	// Labels of the set itself, the replica count and the revision number do not matter.
	other := set.DeepCopy()
	other.Spec.Replicas = model.Ptr(int32(9))
	other.Labels = map[string]string{"x": "y"}
	r2, err := newRevision(other, 7, model.Ptr(int32(0)))
	require.NoError(t, err)
	assert.Equal(t, r1.Name, r2.Name)
	assert.True(t, history.EqualRevision(r1, r2, revisionData))

	// The template matters; so does the collision count.
	changed := set.DeepCopy()
	changed.Spec.Template.Spec.Containers[0].Image = "app:v2"
	r3, err := newRevision(changed, 2, model.Ptr(int32(0)))
	require.NoError(t, err)
	assert.NotEqual(t, r1.Name, r3.Name)
	assert.False(t, history.EqualRevision(r1, r3, revisionData))
	r4, err := newRevision(set, 1, model.Ptr(int32(1)))
	require.NoError(t, err)
	assert.NotEqual(t, r1.Name, r4.Name)
	assert.False(t, history.EqualRevision(r1, r4, revisionData), "different hash labels are different revisions")

	// Map order cannot change the data: labels in any insertion order encode alike.
	many := set.DeepCopy()
	many.Spec.Template.Labels = map[string]string{}
	for _, k := range []string{"z", "a", "m", "b", "y"} {
		many.Spec.Template.Labels[k] = k
	}
	a, err := history.TemplatePatch(&many.Spec.Template)
	require.NoError(t, err)
	for i := 0; i < 20; i++ {
		b, err := history.TemplatePatch(&many.DeepCopy().Spec.Template)
		require.NoError(t, err)
		assert.Equal(t, string(a), string(b))
	}
	assert.Contains(t, string(a), `"$patch":"replace"`)
}

func TestControllerRevisionName(t *testing.T) {
	long := strings.Repeat("a", 300)
	assert.Equal(t, strings.Repeat("a", 223)+"-h", history.ControllerRevisionName(long, "h"))
	assert.Equal(t, "db-h", history.ControllerRevisionName("db", "h"))
	// '0' is byte 48, 48 % 27 = 21: the 22nd letter of the alphabet, '4'.
	assert.Equal(t, "456", controllerutil.SafeEncodeString("012"))
}

func TestSortControllerRevisionsAndNext(t *testing.T) {
	mk := func(name string, rev int64, created vtime.Time) *model.ControllerRevision {
		r := &model.ControllerRevision{Revision: rev}
		r.Name = name
		r.CreationTimestamp = created
		return r
	}
	revs := []*model.ControllerRevision{mk("c", 2, 5), mk("b", 1, 9), mk("a", 2, 5), mk("d", 2, 1)}
	history.SortControllerRevisions(revs)
	var names []string
	for _, r := range revs {
		names = append(names, r.Name)
	}
	assert.Equal(t, []string{"b", "d", "a", "c"}, names)
	assert.Equal(t, int64(3), nextRevision(revs))
	assert.Equal(t, int64(1), nextRevision(nil))
}

func TestGetStatefulSetMaxUnavailable(t *testing.T) {
	tests := []struct {
		name     string
		v        *intstr.IntOrString
		replicas int
		want     int
		wantErr  bool
	}{
		{"nil is 1", nil, 10, 1, false},
		{"absolute", model.Ptr(intstr.FromInt32(3)), 10, 3, false},
		{"zero is raised to 1", model.Ptr(intstr.FromInt32(0)), 10, 1, false},
		{"percent rounds down", model.Ptr(intstr.FromString("25%")), 10, 2, false},
		{"small percent floors at 1", model.Ptr(intstr.FromString("1%")), 10, 1, false},
		{"bad percent", model.Ptr(intstr.FromString("abc")), 10, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := getStatefulSetMaxUnavailable(tt.v, tt.replicas)
			if tt.wantErr {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestPodPredicates(t *testing.T) {
	now := vtime.FromDuration(100 * time.Second)
	ready := func(phase string, readyAt time.Duration) *model.Pod {
		p := &model.Pod{}
		p.Status.Phase = phase
		p.Status.Conditions = []model.PodCondition{{Type: model.PodReady, Status: model.ConditionTrue, LastTransitionTime: vtime.FromDuration(readyAt)}}
		return p
	}
	notReady := &model.Pod{}
	notReady.Status.Phase = model.PodRunning
	terminating := ready(model.PodRunning, 0)
	terminating.DeletionTimestamp = model.Ptr(now)
	tests := []struct {
		name            string
		pod             *model.Pod
		minReady        int32
		runningAndReady bool
		available       bool
		unavailable     bool
	}{
		{"not created", &model.Pod{}, 0, false, false, true},
		{"running and ready", ready(model.PodRunning, 0), 0, true, true, false},
		{"ready but pending", ready(model.PodPending, 0), 0, false, true, true},
		{"not ready", notReady, 0, false, false, true},
		{"terminating", terminating, 0, true, true, true},
		{"ready 5s, minReady 10", ready(model.PodRunning, 95*time.Second), 10, true, false, true},
		{"ready exactly 10s, minReady 10: not yet", ready(model.PodRunning, 90*time.Second), 10, true, false, true},
		{"ready 11s, minReady 10", ready(model.PodRunning, 89*time.Second), 10, true, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.runningAndReady, isRunningAndReady(tt.pod))
			assert.Equal(t, tt.available, isRunningAndAvailable(tt.pod, tt.minReady, now))
			assert.Equal(t, tt.unavailable, isUnavailable(tt.pod, tt.minReady, now))
		})
	}
}

func TestCompleteRollingUpdateAndInconsistentStatus(t *testing.T) {
	set := newSet("db", 3, "", "app:v1")
	status := &model.StatefulSetStatus{Replicas: 3, ReadyReplicas: 3, UpdatedReplicas: 3, CurrentReplicas: 1, CurrentRevision: "a", UpdateRevision: "b"}
	completeRollingUpdate(set, status)
	assert.Equal(t, "b", status.CurrentRevision)
	assert.Equal(t, int32(3), status.CurrentReplicas)

	notDone := &model.StatefulSetStatus{Replicas: 3, ReadyReplicas: 2, UpdatedReplicas: 3, CurrentRevision: "a", UpdateRevision: "b"}
	completeRollingUpdate(set, notDone)
	assert.Equal(t, "a", notDone.CurrentRevision)

	onDelete := set.DeepCopy()
	onDelete.Spec.UpdateStrategy.Type = model.OnDeleteStatefulSetStrategyType
	s := &model.StatefulSetStatus{Replicas: 3, ReadyReplicas: 3, UpdatedReplicas: 3, CurrentRevision: "a", UpdateRevision: "b"}
	completeRollingUpdate(onDelete, s)
	assert.Equal(t, "a", s.CurrentRevision, "OnDelete never completes a rollout")

	set.Status = *status
	same := *status
	assert.False(t, inconsistentStatus(set, &same))
	same.AvailableReplicas = 2
	assert.True(t, inconsistentStatus(set, &same))
	newer := *status
	newer.ObservedGeneration = 5
	assert.True(t, inconsistentStatus(set, &newer))
}

func TestConfigValidate(t *testing.T) {
	testworld.CheckConfig(t, DefaultConfig, []testworld.ConfigCase[Config]{
		{Name: "no workers", Edit: func(c *Config) { c.ConcurrentStatefulSetSyncs = 0 }, Want: "concurrent-statefulset-syncs"},
		{Name: "too many workers", Edit: func(c *Config) { c.ConcurrentStatefulSetSyncs = 1001 }, Want: "concurrent-statefulset-syncs"},
		{Name: "batch", Edit: func(c *Config) { c.MaxBatchSize = 0 }, Want: "MaxBatchSize"},
		{Name: "retry steps", Edit: func(c *Config) { c.StatusRetry.Steps = 0 }, Want: "status retry steps"},
		{Name: "negative duration", Edit: func(c *Config) { c.UpdateRetry.Duration = -1 }, Want: "update retry duration"},
	})
}
