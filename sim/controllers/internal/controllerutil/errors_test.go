package controllerutil

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestErrorReason(t *testing.T) {
	assert.Equal(t, "Conflict", ErrorReason(apierrors.NewConflict(schema.GroupResource{Resource: "pods"}, "p", errors.New("changed"))))
	assert.Equal(t, "connection refused", ErrorReason(errors.New("connection refused")))
}
