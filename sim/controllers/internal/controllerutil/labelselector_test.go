package controllerutil

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestLabelSelectorsEqual(t *testing.T) {
	web := func() *metav1.LabelSelector {
		return &metav1.LabelSelector{
			MatchLabels:      map[string]string{"app": "web"},
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"a", "b"}}},
		}
	}
	tests := []struct {
		name string
		a, b *metav1.LabelSelector
		want bool
	}{
		{"both nil", nil, nil, true},
		{"nil and empty differ", nil, &metav1.LabelSelector{}, false},
		{"empty and empty maps", &metav1.LabelSelector{}, &metav1.LabelSelector{MatchLabels: map[string]string{}}, true},
		{"equal copies", web(), web(), true},
		{"label value", web(), func() *metav1.LabelSelector { s := web(); s.MatchLabels["app"] = "db"; return s }(), false},
		{"extra label", web(), func() *metav1.LabelSelector { s := web(); s.MatchLabels["x"] = "y"; return s }(), false},
		{"operator", web(), func() *metav1.LabelSelector {
			s := web()
			s.MatchExpressions[0].Operator = metav1.LabelSelectorOpNotIn
			return s
		}(), false},
		{"values order", web(), func() *metav1.LabelSelector { s := web(); s.MatchExpressions[0].Values = []string{"b", "a"}; return s }(), false},
		{"expression key", web(), func() *metav1.LabelSelector { s := web(); s.MatchExpressions[0].Key = "zone"; return s }(), false},
	}
	for _, tc := range tests {
		require.Equal(t, tc.want, LabelSelectorsEqual(tc.a, tc.b), tc.name)
		require.Equal(t, tc.want, LabelSelectorsEqual(tc.b, tc.a), tc.name)
	}
}

func TestVersionCacheGetSameKeepsValueForSameVersion(t *testing.T) {
	type obj struct{ spec, status int }
	var c VersionCache[string, *obj, int]
	calls := 0
	derive := func(o *obj) (int, error) { calls++; return o.spec * 2, nil }
	same := func(a, b *obj) bool { return a.spec == b.spec }
	v1, v2, v3 := &obj{1, 0}, &obj{1, 5}, &obj{2, 5}
	got, _ := c.GetSame("a", v1, same, derive)
	require.Equal(t, 2, got)
	got, _ = c.GetSame("a", v2, same, derive)
	require.Equal(t, 2, got)
	require.Equal(t, 1, calls, "a status-only version keeps the value")
	_, _ = c.Get("a", v2, derive)
	require.Equal(t, 1, calls, "and is the cached version now")
	got, _ = c.GetSame("a", v3, same, derive)
	require.Equal(t, 4, got)
	require.Equal(t, 2, calls, "a changed spec derives again")
}
