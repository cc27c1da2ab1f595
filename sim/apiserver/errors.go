package apiserver

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/reconsim/reconsim/model"
)

// optimisticLockErrorMsg is the conflict detail upstream returns for a stale resourceVersion
// ([apiserver@HEAD] pkg/registry/generic/registry/store.go OptimisticLockErrorMsg).
const optimisticLockErrorMsg = "the object has been modified; please apply your changes to the latest version and try again"

// tooManyRequestsMsg is the body the max-in-flight filter answers with
// ([apiserver@HEAD] pkg/server/filters/maxinflight.go tooManyRequests).
const tooManyRequestsMsg = "Too many requests, please try again later."

// groupOf returns the API group of an apiVersion ("apps/v1" -> "apps", "v1" -> "").
func groupOf(apiVersion string) string {
	if i := strings.IndexByte(apiVersion, '/'); i >= 0 {
		return apiVersion[:i]
	}
	return ""
}

// errUnknownResource is what the API answers for a kind it does not serve: upstream's
// 404 "the server could not find the requested resource" ([apimachinery@HEAD] errors.go
// NewGenericServerResponse for 404). Not inlined: its Status would take room in the frames of
// the request path (Server.Do).
//
//go:noinline
func errUnknownResource(kind model.Kind) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusNotFound,
		Reason:  metav1.StatusReasonNotFound,
		Details: &metav1.StatusDetails{Kind: string(kind)},
		Message: "the server could not find the requested resource",
	}}
}

// errConflict is the 409 for a stale resourceVersion on update: apierrors.NewConflict with
// upstream's optimistic-lock detail (TestConflictIsNewConflicts holds it to that). Its message
// is built without fmt, whose frames would double the stack of a process that meets a conflict
// (Server.Do), and conflicts are frequent in a herd.
func (ks *kindStore) errConflict(name string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure,
		Code:   http.StatusConflict,
		Reason: metav1.StatusReasonConflict,
		Details: &metav1.StatusDetails{
			Group: ks.gr.Group,
			Kind:  ks.gr.Resource,
			Name:  name,
		},
		Message: "Operation cannot be fulfilled on " + ks.gr.String() + " " + strconv.Quote(name) + ": " + optimisticLockErrorMsg,
	}}
}

// errInvalid is a 422 naming the kind the way BeforeCreate/BeforeUpdate do (kind.GroupKind()).
func (ks *kindStore) errInvalid(name string, errs field.ErrorList) error {
	return apierrors.NewInvalid(ks.gk, name, errs)
}

// errTooLargeResourceVersion mirrors storage.NewTooLargeResourceVersionError
// ([apiserver@HEAD] pkg/storage/errors.go): a 504 Timeout whose cause says the requested
// resourceVersion is newer than the server has.
func errTooLargeResourceVersion(minimumRV, currentRV uint64) error {
	err := apierrors.NewTimeoutError(fmt.Sprintf("Too large resource version: %d, current: %d", minimumRV, currentRV), 1)
	err.ErrStatus.Details.Causes = []metav1.StatusCause{{
		Type:    metav1.CauseTypeResourceVersionTooLarge,
		Message: "Too large resource version",
	}}
	return err
}
