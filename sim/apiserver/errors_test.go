package apiserver

import (
	"errors"
	"reflect"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestConflictIsNewConflicts holds errConflict, which builds its message without fmt, to
// apierrors.NewConflict with upstream's detail, for names that quote plainly and ones that
// need escapes, in the core group and in a named one.
func TestConflictIsNewConflicts(t *testing.T) {
	groups := []schema.GroupResource{{Resource: "leases"}, {Group: "coordination.k8s.io", Resource: "leases"}, {Group: "apps", Resource: "replicasets"}}
	names := []string{"", "node-1", "web-7d9f-x2k", `quote"d`, "back\\slash", "tab\there", "new\nline", "ünïcode", "\x00\x7f", string([]byte{0xff, 'a'})}
	for _, gr := range groups {
		for _, name := range names {
			ks := &kindStore{gr: gr}
			got := ks.errConflict(name)
			want := apierrors.NewConflict(gr, name, errors.New(optimisticLockErrorMsg))
			if !reflect.DeepEqual(got, want) {
				t.Errorf("errConflict(%v, %q) = %#v, want %#v", gr, name, got, want)
			}
			if !apierrors.IsConflict(got) {
				t.Errorf("errConflict(%v, %q) is not a conflict", gr, name)
			}
		}
	}
}
