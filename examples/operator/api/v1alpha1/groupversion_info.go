// +kubebuilder:object:generate=true
// +groupName=webapp.example.com

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	// GroupVersion is the group and version these objects are registered under.
	GroupVersion = schema.GroupVersion{Group: "webapp.example.com", Version: "v1alpha1"}

	// SchemeBuilder adds the Go types to a runtime.Scheme. It is apimachinery's builder, not
	// controller-runtime's pkg/scheme (deprecated: an API package should depend on
	// apimachinery alone, so that clients can import it cheaply).
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme adds the types of this group and version to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// addKnownTypes registers WebApp and WebAppList, and the metav1 options types every group
// version serves (ListOptions, DeleteOptions, ...).
func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &WebApp{}, &WebAppList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
