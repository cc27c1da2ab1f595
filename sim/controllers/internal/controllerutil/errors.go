package controllerutil

import apierrors "k8s.io/apimachinery/pkg/api/errors"

// ErrorReason is what a trace line says about a failed write: the API status reason of err
// (apierrors.ReasonForError: "Conflict", "NotFound", ...), or its message when it carries none.
func ErrorReason(err error) string {
	if r := apierrors.ReasonForError(err); r != "" {
		return string(r)
	}
	return err.Error()
}
