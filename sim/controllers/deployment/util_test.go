package deployment

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
	"github.com/reconsim/reconsim/sim/internal/testworld"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

// rollingDeployment is a RollingUpdate Deployment with the given replicas, maxSurge and
// maxUnavailable (strings: "25%" or "3").
func rollingDeployment(replicas int32, surge, unavailable string) *model.Deployment {
	return deploymentSpec{name: "web", replicas: replicas, strategy: model.RollingUpdateDeploymentStrategyType,
		maxSurge: surge, maxUnavailable: unavailable, image: "v1", progressDeadlineSeconds: 600, revisionHistoryLimit: 10}.build()
}

// testRS is a ReplicaSet of the given size and available count, created at the given second,
// with an optional max-replicas annotation (0: none).
func testRS(name string, createdSecond int64, replicas, available, maxReplicas int32) *model.ReplicaSet {
	rs := &model.ReplicaSet{}
	rs.Name, rs.Namespace, rs.UID = name, testNS, "uid-"+name
	rs.CreationTimestamp = vtime.FromDuration(time.Duration(createdSecond) * time.Second)
	rs.Spec.Replicas = model.Ptr(replicas)
	rs.Status.Replicas = replicas
	rs.Status.AvailableReplicas = available
	if maxReplicas > 0 {
		rs.Annotations = map[string]string{MaxReplicasAnnotation: fmt.Sprint(maxReplicas)}
	}
	return rs
}

func TestResolveFenceposts(t *testing.T) {
	tests := []struct {
		surge, unavailable string // "" means nil
		desired            int32
		wantSurge, wantU   int32
		wantErr            bool
	}{
		{"25%", "25%", 10, 3, 2, false}, // surge rounds up (2.5 -> 3), unavailable down (2.5 -> 2)
		{"25%", "25%", 1, 1, 0, false},  // 0.25 -> surge 1, unavailable 0
		{"25%", "25%", 4, 1, 1, false},
		{"3", "0", 10, 3, 0, false},
		{"0", "1", 3, 0, 1, false},
		{"0%", "1%", 2, 0, 1, false},  // both round to 0: unavailable becomes 1
		{"1%", "25%", 2, 1, 0, false}, // surge 0.02 rounds up to 1
		{"0", "0", 5, 0, 1, false},    // explicit zeros (validation forbids them) still resolve
		{"", "", 4, 0, 1, false},      // nil counts as 0
		{"50%", "100%", 3, 2, 3, false},
		{"25%", "25%", 0, 0, 1, false},
		{"abc", "25%", 10, 0, 0, true}, // not a percentage
		{"25%", "x%", 10, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s/%d", tt.surge, tt.unavailable, tt.desired), func(t *testing.T) {
			var s, u = intOrPercent(tt.surge), intOrPercent(tt.unavailable)
			if tt.surge == "" {
				s = nil
			}
			if tt.unavailable == "" {
				u = nil
			}
			gotS, gotU, err := ResolveFenceposts(s, u, tt.desired)
			if tt.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantSurge, gotS, "surge")
			assert.Equal(t, tt.wantU, gotU, "unavailable")
		})
	}
}

func TestMaxSurgeAndMaxUnavailable(t *testing.T) {
	tests := []struct {
		name                 string
		d                    *model.Deployment
		wantSurge, wantUnavl int32
	}{
		{"defaults of 10", rollingDeployment(10, "25%", "25%"), 3, 2},
		{"zero replicas has no unavailable budget", rollingDeployment(0, "25%", "25%"), 0, 0},
		{"unavailable capped at replicas", rollingDeployment(2, "0", "5"), 0, 2},
		{"recreate has neither", deploymentSpec{name: "web", replicas: 5, strategy: model.RecreateDeploymentStrategyType, image: "v1"}.build(), 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.wantSurge, MaxSurge(tt.d))
			assert.Equal(t, tt.wantUnavl, MaxUnavailable(tt.d))
		})
	}
}

func TestNewRSNewReplicas(t *testing.T) {
	tests := []struct {
		name       string
		d          *model.Deployment
		old, newRS int32
		want       int32
		wantErr    bool
	}{
		{"first step fills the surge", rollingDeployment(10, "25%", "25%"), 10, 0, 3, false},
		{"grows into room freed by old", rollingDeployment(10, "25%", "25%"), 8, 3, 5, false},
		{"no room past replicas+surge", rollingDeployment(10, "25%", "25%"), 8, 5, 5, false},
		{"never past replicas", rollingDeployment(10, "25%", "25%"), 1, 9, 10, false},
		{"surge 0 waits for old to shrink", rollingDeployment(3, "0", "1"), 3, 0, 0, false},
		{"surge 0 takes the freed slot", rollingDeployment(3, "0", "1"), 2, 0, 1, false},
		{"recreate goes to full size", deploymentSpec{name: "web", replicas: 4, strategy: model.RecreateDeploymentStrategyType, image: "v1"}.build(), 0, 0, 4, false},
		{"unknown strategy", deploymentSpec{name: "web", replicas: 4, strategy: "BlueGreen", image: "v1"}.build(), 0, 0, 0, true},
		{"invalid surge", rollingDeployment(10, "lots", "25%"), 10, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			oldRS := testRS("old", 1, tt.old, tt.old, 0)
			newRS := testRS("new", 2, tt.newRS, 0, 0)
			got, err := NewRSNewReplicas(tt.d, []*model.ReplicaSet{oldRS, newRS}, newRS)
			if tt.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// scaleDownBudget is reconcileOldReplicaSets' arithmetic on objects.
func scaleDownBudget(d *model.Deployment, allRSs []*model.ReplicaSet, newRS *model.ReplicaSet) int32 {
	minAvailable := deploymentReplicas(d) - MaxUnavailable(d)
	return maxScaledDown(GetReplicaCountForReplicaSets(allRSs), minAvailable, rsReplicas(newRS)-newRS.Status.AvailableReplicas)
}

// TestMaxScaledDownWorkedExample follows the example in the upstream rolling.go comment: 10
// replicas, maxUnavailable 2, maxSurge 3, and a new version whose pods crash-loop.
func TestMaxScaledDownWorkedExample(t *testing.T) {
	d := rollingDeployment(10, "3", "2")
	require.Equal(t, int32(3), MaxSurge(d))
	require.Equal(t, int32(2), MaxUnavailable(d))
	tests := []struct {
		name     string
		old, new *model.ReplicaSet
		want     int32
	}{
		// newRS was created with 3, old scaled to 8, newRS grew to 5; its pods never become
		// available. 13 - 8 - 5 = 0: even when a node failure makes an old pod unavailable,
		// the old ReplicaSet is not scaled down further.
		{"crash-looping new pods block the old scale-down", testRS("old", 1, 8, 7, 13), testRS("new", 2, 5, 0, 13), 0},
		// kubectl rollout undo: the good ReplicaSet (8 pods, 7 available after the node
		// failure) is the new one again, so only its 1 unavailable pod counts: 13 - 8 - 1 = 4
		// crash-looping pods can go, after which the good ReplicaSet grows back to 10.
		{"after rolling back", testRS("crashing", 2, 5, 0, 13), testRS("good", 1, 8, 7, 13), 4},
		// Rolling over to a third template instead: its ReplicaSet starts at 0 (13 pods are
		// already asked for), so nothing of it is unavailable and 13 - 8 - 0 = 5 old pods may
		// go, which lets the newest ReplicaSet grow by 5.
		{"rolling over to a new template", testRS("old", 1, 8, 7, 13), testRS("newest", 3, 0, 0, 13), 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			all := []*model.ReplicaSet{tt.old, tt.new}
			if tt.name == "rolling over to a new template" {
				all = append(all, testRS("crashing", 2, 5, 0, 13))
			}
			assert.Equal(t, tt.want, scaleDownBudget(d, all, tt.new))
		})
	}
}

func TestGetProportion(t *testing.T) {
	d := rollingDeployment(20, "3", "2") // replicas+maxSurge = 23
	tests := []struct {
		name         string
		rs           *model.ReplicaSet
		toAdd, added int32
		want         int32
	}{
		{"nil replica set", nil, 10, 0, 0},
		{"empty replica set gets nothing", testRS("a", 1, 0, 0, 13), 10, 0, 0},
		{"nothing to add", testRS("a", 1, 8, 8, 13), 0, 0, 0},
		{"all handed out already", testRS("a", 1, 8, 8, 13), 10, 10, 0},
		{"fraction round(8*23/13)-8 = 6", testRS("a", 1, 8, 8, 13), 10, 0, 6},
		{"fraction capped by what is left", testRS("a", 1, 8, 8, 13), 10, 7, 3},
		{"fraction round(5*23/13)-5 = 4", testRS("b", 2, 5, 0, 13), 10, 6, 4},
		{"missing annotation falls back to status.replicas (13)", testRS("a", 1, 8, 8, 0), 10, 0, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dd := d.DeepCopy()
			dd.Status.Replicas = 13
			assert.Equal(t, tt.want, GetProportion(tt.rs, dd, tt.toAdd, tt.added))
		})
	}
	t.Run("scaling down floors at what is left", func(t *testing.T) {
		small := rollingDeployment(5, "25%", "25%") // 5 + 2 = 7
		// round(8*7/13) - 8 = -4, allowed -6 - (-4) = -2: the fraction is bounded by -2.
		assert.Equal(t, int32(-2), GetProportion(testRS("a", 1, 8, 8, 13), small, -6, -4))
		assert.Equal(t, int32(-4), GetProportion(testRS("a", 1, 8, 8, 13), small, -6, 0))
	})
	t.Run("scaling to zero removes everything", func(t *testing.T) {
		zero := rollingDeployment(0, "25%", "25%")
		assert.Equal(t, int32(-8), GetProportion(testRS("a", 1, 8, 8, 13), zero, -13, 0))
	})
	t.Run("zero max-replicas does not divide by zero", func(t *testing.T) {
		rs := testRS("a", 1, 8, 8, 0)
		rs.Annotations = map[string]string{MaxReplicasAnnotation: "0"}
		assert.Equal(t, int32(0), GetProportion(rs, d, 10, 0))
	})
}

// TestProportionalSizes checks scale()'s distribution against sums done by hand.
func TestProportionalSizes(t *testing.T) {
	type rsSpec struct {
		name    string
		created int64
		size    int32
		maxAnn  int32
	}
	tests := []struct {
		name   string
		d      *model.Deployment
		rss    []rsSpec
		wantOp string
		want   map[string]int32
		order  []string
	}{
		{
			// 10 -> 20 mid-rollout (old 8, new 5, max-replicas 13): allowed 20+3 = 23, add 10.
			// old: round(8*23/13)-8 = 6, new: round(5*23/13)-5 = 4.
			name: "scale up mid-rollout", d: rollingDeployment(20, "3", "2"),
			rss:    []rsSpec{{"old", 1, 8, 13}, {"new", 2, 5, 13}},
			wantOp: "up", want: map[string]int32{"old": 14, "new": 9}, order: []string{"old", "new"},
		},
		{
			// 10 -> 5 with 25%: allowed 5+2 = 7, remove 6. Larger first: old round(8*7/13)-8
			// = -4, new max(round(5*7/13)-5, -2) = -2.
			name: "scale down mid-rollout", d: rollingDeployment(5, "25%", "25%"),
			rss:    []rsSpec{{"old", 1, 8, 13}, {"new", 2, 5, 13}},
			wantOp: "down", want: map[string]int32{"old": 4, "new": 3}, order: []string{"old", "new"},
		},
		{
			// Three equal sets of 3 (max 9), 9 -> 10 with surge 0: every fraction rounds to 0
			// and the leftover 1 goes to the first: when growing, the newest.
			name: "leftover goes to the newest when growing", d: rollingDeployment(10, "0", "1"),
			rss:    []rsSpec{{"a", 1, 3, 9}, {"b", 2, 3, 9}, {"c", 3, 3, 9}},
			wantOp: "up", want: map[string]int32{"a": 3, "b": 3, "c": 4}, order: []string{"c", "b", "a"},
		},
		{
			// 9 -> 8: the leftover -1 goes to the first: when shrinking, the oldest.
			name: "leftover goes to the oldest when shrinking", d: rollingDeployment(8, "0", "1"),
			rss:    []rsSpec{{"a", 1, 3, 9}, {"b", 2, 3, 9}, {"c", 3, 3, 9}},
			wantOp: "down", want: map[string]int32{"a": 2, "b": 3, "c": 3}, order: []string{"a", "b", "c"},
		},
		{
			name: "scale to zero", d: rollingDeployment(0, "25%", "25%"),
			rss:    []rsSpec{{"old", 1, 8, 13}, {"new", 2, 5, 13}},
			wantOp: "down", want: map[string]int32{"old": 0, "new": 0}, order: []string{"old", "new"},
		},
		{
			name: "nothing to add keeps sizes", d: rollingDeployment(10, "3", "2"),
			rss:    []rsSpec{{"old", 1, 8, 13}, {"new", 2, 5, 13}},
			wantOp: "", want: map[string]int32{"old": 8, "new": 5}, order: []string{"old", "new"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var all []*model.ReplicaSet
			for _, s := range tt.rss {
				all = append(all, testRS(s.name, s.created, s.size, s.size, s.maxAnn))
			}
			all = append(all, testRS("empty", 0, 0, 0, 0), nil)
			ordered, sizes, op := proportionalSizes(tt.d, all)
			assert.Equal(t, tt.wantOp, op)
			got := map[string]int32{}
			var order []string
			var total int32
			for i, rs := range ordered {
				got[rs.Name] = sizes[i]
				order = append(order, rs.Name)
				total += sizes[i]
			}
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.order, order)
			if op != "" {
				var allowed int32
				if deploymentReplicas(tt.d) > 0 {
					allowed = deploymentReplicas(tt.d) + MaxSurge(tt.d)
				}
				assert.Equal(t, allowed, total, "the sizes add up to replicas+maxSurge")
			}
		})
	}
}

func TestIsSaturatedAndFindActiveOrLatest(t *testing.T) {
	d := rollingDeployment(3, "25%", "25%")
	rs := testRS("new", 2, 3, 3, 4)
	assert.False(t, IsSaturated(d, rs), "without desired-replicas annotation")
	rs.Annotations[DesiredReplicasAnnotation] = "3"
	assert.True(t, IsSaturated(d, rs))
	rs.Status.AvailableReplicas = 2
	assert.False(t, IsSaturated(d, rs), "not all available")
	assert.False(t, IsSaturated(d, nil))

	old1, old2 := testRS("old1", 1, 0, 0, 0), testRS("old2", 2, 0, 0, 0)
	newRS := testRS("new", 3, 0, 0, 0)
	assert.Equal(t, "new", FindActiveOrLatest(newRS, []*model.ReplicaSet{old1, old2}).Name, "none active: the new one")
	assert.Equal(t, "old2", FindActiveOrLatest(nil, []*model.ReplicaSet{old1, old2}).Name, "none active, no new: the newest old")
	old1.Spec.Replicas = model.Ptr(int32(2))
	assert.Equal(t, "old1", FindActiveOrLatest(newRS, []*model.ReplicaSet{old1, old2}).Name, "the only active one")
	newRS.Spec.Replicas = model.Ptr(int32(1))
	assert.Nil(t, FindActiveOrLatest(newRS, []*model.ReplicaSet{old1, old2}), "two active")
	assert.Nil(t, FindActiveOrLatest(nil, nil))
}

func TestReplicaSetsToCleanUp(t *testing.T) {
	mk := func(name string, revision string, specReplicas, statusReplicas int32, generation, observed int64, deleting bool) *model.ReplicaSet {
		rs := testRS(name, 1, specReplicas, 0, 0)
		rs.Status.Replicas = statusReplicas
		rs.Annotations = map[string]string{RevisionAnnotation: revision}
		rs.Generation, rs.Status.ObservedGeneration = generation, observed
		if deleting {
			rs.DeletionTimestamp = model.Ptr(vtime.Time(0))
		}
		return rs
	}
	tests := []struct {
		name  string
		rss   []*model.ReplicaSet
		limit int32
		want  []string
	}{
		{"within the limit", []*model.ReplicaSet{mk("a", "1", 0, 0, 1, 1, false), mk("b", "2", 0, 0, 1, 1, false)}, 2, nil},
		{"oldest revisions go first", []*model.ReplicaSet{
			mk("r3", "3", 0, 0, 1, 1, false), mk("r1", "1", 0, 0, 1, 1, false), mk("r4", "4", 0, 0, 1, 1, false), mk("r2", "2", 0, 0, 1, 1, false),
		}, 2, []string{"r1", "r2"}},
		{"revisions compare as numbers", []*model.ReplicaSet{
			mk("r10", "10", 0, 0, 1, 1, false), mk("r9", "9", 0, 0, 1, 1, false),
		}, 1, []string{"r9"}},
		{"skips sets with replicas or an unobserved generation, without taking a younger one", []*model.ReplicaSet{
			mk("r1", "1", 1, 1, 1, 1, false), mk("r2", "2", 0, 1, 1, 1, false), mk("r3", "3", 0, 0, 2, 1, false),
			mk("r4", "4", 0, 0, 1, 1, false), mk("r5", "5", 0, 0, 1, 1, false),
		}, 1, []string{"r4"}},
		{"sets being deleted do not count", []*model.ReplicaSet{
			mk("r1", "1", 0, 0, 1, 1, true), mk("r2", "2", 0, 0, 1, 1, false), mk("r3", "3", 0, 0, 1, 1, false),
		}, 1, []string{"r2"}},
		{"limit 0 removes every idle old set", []*model.ReplicaSet{mk("r1", "1", 0, 0, 1, 1, false), mk("r2", "2", 0, 0, 1, 1, false)}, 0, []string{"r1", "r2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, rs := range replicaSetsToCleanUp(tt.rss, tt.limit) {
				got = append(got, rs.Name)
			}
			assert.Equal(t, tt.want, got)
		})
	}
	d := rollingDeployment(1, "25%", "25%")
	d.Spec.RevisionHistoryLimit = model.Ptr(int32(math.MaxInt32))
	assert.False(t, HasRevisionHistoryLimit(d), "MaxInt32 keeps every revision")
}

func TestSetNewReplicaSetAnnotations(t *testing.T) {
	d := rollingDeployment(10, "25%", "25%")
	d.Annotations = map[string]string{"team": "web", RevisionAnnotation: "7", lastAppliedConfigAnnotation: "{}"}

	rs := testRS("new", 1, 0, 0, 0)
	assert.True(t, SetNewReplicaSetAnnotations(d, rs, "3", false, maxRevHistoryLengthInChars))
	assert.Equal(t, map[string]string{"team": "web", RevisionAnnotation: "3", DesiredReplicasAnnotation: "10", MaxReplicasAnnotation: "13"}, rs.Annotations,
		"copies the Deployment's annotations except the skipped ones, sets revision and replicas annotations")
	assert.False(t, SetNewReplicaSetAnnotations(d, rs, "3", true, maxRevHistoryLengthInChars), "nothing changes the second time")
	assert.False(t, SetNewReplicaSetAnnotations(d, rs, "2", true, maxRevHistoryLengthInChars), "a revision never goes down")

	// Rolling back to this ReplicaSet: revision 3 -> 5, then 5 -> 8; the history keeps 3,5.
	assert.True(t, SetNewReplicaSetAnnotations(d, rs, "5", true, maxRevHistoryLengthInChars))
	assert.True(t, SetNewReplicaSetAnnotations(d, rs, "8", true, maxRevHistoryLengthInChars))
	assert.Equal(t, "8", rs.Annotations[RevisionAnnotation])
	assert.Equal(t, "3,5", rs.Annotations[RevisionHistoryAnnotation])
	// The history is trimmed from the front to stay within the limit.
	assert.True(t, SetNewReplicaSetAnnotations(d, rs, "9", true, 4))
	assert.Equal(t, "5,8", rs.Annotations[RevisionHistoryAnnotation])

	bad := testRS("bad", 1, 0, 0, 0)
	bad.Annotations = map[string]string{RevisionAnnotation: "x"}
	assert.False(t, SetNewReplicaSetAnnotations(&model.Deployment{}, bad, "2", true, maxRevHistoryLengthInChars), "an unreadable revision is left alone")
	assert.Equal(t, "x", bad.Annotations[RevisionAnnotation])
}

func TestFindNewAndOldReplicaSets(t *testing.T) {
	d := rollingDeployment(3, "25%", "25%")
	model.SetDefaults(d)
	hashed := func(name string, created int64, image string) *model.ReplicaSet {
		rs := testRS(name, created, 1, 1, 0)
		rs.Spec.Template = podTemplate("web", image, false)
		model.SetDefaults(rs)
		rs.Spec.Template.Labels[DefaultDeploymentUniqueLabelKey] = name
		return rs
	}
	older, newer, other := hashed("twin-old", 1, "v1"), hashed("twin-new", 2, "v1"), hashed("other", 0, "v0")
	other.Spec.Replicas = model.Ptr(int32(0))
	got := FindNewReplicaSet(d, []*model.ReplicaSet{newer, other, older})
	require.NotNil(t, got)
	assert.Equal(t, "twin-old", got.Name, "the oldest of equal templates (issue 40415), ignoring the hash label")
	withReplicas, all := FindOldReplicaSets(d, []*model.ReplicaSet{newer, other, older})
	assert.Len(t, all, 2)
	assert.Len(t, withReplicas, 1)
	assert.Equal(t, "twin-new", withReplicas[0].Name)

	changed := d.DeepCopy()
	changed.Spec.Template.Spec.Containers[0].Image = "registry.example/app:v2"
	assert.Nil(t, FindNewReplicaSet(changed, []*model.ReplicaSet{older, newer}))
}

func TestConditionsAndProgress(t *testing.T) {
	now := vtime.FromDuration(100 * time.Second)
	var s model.DeploymentStatus
	SetDeploymentCondition(&s, NewDeploymentCondition(model.DeploymentProgressing, model.ConditionTrue, NewReplicaSetReason, "a", 10))
	SetDeploymentCondition(&s, NewDeploymentCondition(model.DeploymentProgressing, model.ConditionTrue, NewReplicaSetReason, "b", 20))
	c := GetDeploymentCondition(s, model.DeploymentProgressing)
	require.NotNil(t, c)
	assert.Equal(t, "a", c.Message, "same status and reason: left alone")
	SetDeploymentCondition(&s, NewDeploymentCondition(model.DeploymentProgressing, model.ConditionTrue, ReplicaSetUpdatedReason, "c", 30))
	c = GetDeploymentCondition(s, model.DeploymentProgressing)
	assert.Equal(t, vtime.Time(10), c.LastTransitionTime, "same status keeps the transition time")
	assert.Equal(t, vtime.Time(30), c.LastUpdateTime)

	d := rollingDeployment(3, "25%", "25%")
	d.Spec.ProgressDeadlineSeconds = model.Ptr(int32(60))
	timedOut := func(reason string, updated time.Duration) bool {
		st := model.DeploymentStatus{Conditions: []model.DeploymentCondition{NewDeploymentCondition(model.DeploymentProgressing, model.ConditionTrue, reason, "", vtime.FromDuration(updated))}}
		return DeploymentTimedOut(d, &st, now)
	}
	assert.False(t, timedOut(ReplicaSetUpdatedReason, 40*time.Second), "exactly at the deadline is not past it")
	assert.True(t, timedOut(ReplicaSetUpdatedReason, 39*time.Second))
	assert.False(t, timedOut(NewRSAvailableReason, 0), "a complete rollout never times out")
	assert.True(t, timedOut(TimedOutReason, 99*time.Second), "once timed out, always")
	assert.False(t, DeploymentTimedOut(d, &model.DeploymentStatus{}, now), "no condition, no estimate")
	d.Spec.ProgressDeadlineSeconds = model.Ptr(int32(math.MaxInt32))
	assert.False(t, timedOut(ReplicaSetUpdatedReason, 0), "MaxInt32 means no deadline")

	d = rollingDeployment(3, "25%", "25%")
	d.Generation = 2
	d.Status = model.DeploymentStatus{Replicas: 4, UpdatedReplicas: 2, ReadyReplicas: 3, AvailableReplicas: 3}
	for _, tt := range []struct {
		name string
		s    model.DeploymentStatus
		want bool
	}{
		{"nothing changed", d.Status, false},
		{"more updated", model.DeploymentStatus{Replicas: 4, UpdatedReplicas: 3, ReadyReplicas: 3, AvailableReplicas: 3}, true},
		{"fewer old", model.DeploymentStatus{Replicas: 3, UpdatedReplicas: 2, ReadyReplicas: 3, AvailableReplicas: 3}, true},
		{"more ready", model.DeploymentStatus{Replicas: 4, UpdatedReplicas: 2, ReadyReplicas: 4, AvailableReplicas: 3}, true},
		{"more available", model.DeploymentStatus{Replicas: 4, UpdatedReplicas: 2, ReadyReplicas: 3, AvailableReplicas: 4}, true},
	} {
		assert.Equal(t, tt.want, DeploymentProgressing(d, &tt.s), tt.name)
	}
	complete := model.DeploymentStatus{ObservedGeneration: 2, Replicas: 3, UpdatedReplicas: 3, AvailableReplicas: 3}
	assert.True(t, DeploymentComplete(d, &complete))
	complete.ObservedGeneration = 1
	assert.False(t, DeploymentComplete(d, &complete), "an old generation is not complete")
}

func TestCalculateStatus(t *testing.T) {
	d := rollingDeployment(10, "25%", "25%")
	d.Generation = 4
	d.Status.CollisionCount = model.Ptr(int32(2))
	oldRS := testRS("old", 1, 8, 8, 13)
	oldRS.Status.ReadyReplicas = 8
	oldRS.Status.TerminatingReplicas = model.Ptr(int32(2))
	newRS := testRS("new", 2, 5, 0, 13)
	newRS.Status.TerminatingReplicas = model.Ptr(int32(0))
	s := calculateStatus([]*model.ReplicaSet{oldRS, newRS, nil}, newRS, d, 50)
	assert.Equal(t, int64(4), s.ObservedGeneration)
	assert.Equal(t, int32(13), s.Replicas)
	assert.Equal(t, int32(5), s.UpdatedReplicas)
	assert.Equal(t, int32(8), s.ReadyReplicas)
	assert.Equal(t, int32(8), s.AvailableReplicas)
	assert.Equal(t, int32(5), s.UnavailableReplicas)
	assert.Equal(t, int32(2), *s.TerminatingReplicas)
	assert.Equal(t, int32(2), *s.CollisionCount)
	c := GetDeploymentCondition(s, model.DeploymentAvailable)
	require.NotNil(t, c)
	assert.Equal(t, MinimumReplicasAvailable, c.Reason, "8 available >= 10 - 2")

	oldRS.Status.AvailableReplicas = 7
	oldRS.Status.TerminatingReplicas = nil
	s = calculateStatus([]*model.ReplicaSet{oldRS, newRS}, newRS, d, 60)
	assert.Equal(t, MinimumReplicasUnavailable, GetDeploymentCondition(s, model.DeploymentAvailable).Reason)
	assert.Nil(t, s.TerminatingReplicas, "one set without terminatingReplicas: unknown")
}

func TestCloneSelectorAndAddLabel(t *testing.T) {
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	out := cloneSelectorAndAddLabel(sel, DefaultDeploymentUniqueLabelKey, "abc")
	assert.Equal(t, map[string]string{"app": "web", DefaultDeploymentUniqueLabelKey: "abc"}, out.MatchLabels)
	assert.Equal(t, map[string]string{"app": "web"}, sel.MatchLabels, "the original is untouched")
}

func TestConfigValidate(t *testing.T) {
	assert.Equal(t, 5, DefaultConfig().ConcurrentDeploymentSyncs)
	testworld.CheckConfig(t, DefaultConfig, []testworld.ConfigCase[Config]{
		{Name: "no workers", Edit: func(c *Config) { c.ConcurrentDeploymentSyncs = 0 }, Want: "concurrent-deployment-syncs"},
		{Name: "negative workers", Edit: func(c *Config) { c.ConcurrentDeploymentSyncs = -1 }, Want: "concurrent-deployment-syncs"},
		{Name: "too many workers", Edit: func(c *Config) { c.ConcurrentDeploymentSyncs = controllerutil.MaxWorkers + 1 }, Want: "concurrent-deployment-syncs"},
	})
}
