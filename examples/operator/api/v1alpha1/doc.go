// Package v1alpha1 holds the API of the webapp.example.com/v1alpha1 group: the WebApp custom
// resource, laid out as `kubebuilder create api --group webapp --version v1alpha1 --kind
// WebApp` scaffolds it (webapp_types.go, groupversion_info.go and the controller-gen output
// zz_generated.deepcopy.go).
//
// Contract: the Go types match the CustomResourceDefinition in ../../scenarios/crd.yaml field
// for field (a test decodes the scenarios' WebApps into them strictly); AddToScheme registers
// WebApp and WebAppList under GroupVersion. Nothing here imports reconsim.
package v1alpha1
