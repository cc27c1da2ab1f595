package operator

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/reconsim/reconsim/model"
)

// NewScheme returns a scheme holding every k8s.io/api type (client-go's scheme), the one a
// Manager starts with; a setup function adds its own API types to mgr.GetScheme(), as a
// kubebuilder main.go does with AddToScheme.
func NewScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		// client-go's own registrations cannot conflict in a fresh scheme.
		panic(fmt.Sprintf("operator: registering client-go's types: %v", err))
	}
	return s
}

// kindFor returns the model kind of gvk: the registered kind of that name served at that
// group/version. Only one version of each kind is modelled (the one KindInfo.APIVersion
// names); another version is not served.
func kindFor(gvk schema.GroupVersionKind) (model.KindInfo, bool) {
	ki, ok := model.LookupKind(model.Kind(gvk.Kind))
	if !ok || ki.APIVersion != gvk.GroupVersion().String() {
		return model.KindInfo{}, false
	}
	return ki, true
}

// gvkOf returns the GroupVersionKind of a model kind.
func gvkOf(ki model.KindInfo) schema.GroupVersionKind {
	gv, err := schema.ParseGroupVersion(ki.APIVersion)
	if err != nil {
		// The registry's API versions are constants written as group/version.
		panic(fmt.Sprintf("operator: kind %s has API version %q: %v", ki.Kind, ki.APIVersion, err))
	}
	return gv.WithKind(string(ki.Kind))
}

// restMapper maps the kinds the simulated API server serves (model.Kinds, custom resources
// included once registered) and every kind of the scheme, namespaced unless the model says
// otherwise. It is rebuilt from the registry on each lookup miss, so kinds registered after
// the manager was made are found.
type restMapper struct {
	scheme *runtime.Scheme
	meta.RESTMapper
	known int
}

func newRESTMapper(s *runtime.Scheme) *restMapper {
	m := &restMapper{scheme: s}
	m.rebuild()
	return m
}

func (m *restMapper) rebuild() {
	var gvs []schema.GroupVersion
	seen := map[schema.GroupVersion]bool{}
	kinds := model.Kinds()
	for _, ki := range kinds {
		gv := gvkOf(ki).GroupVersion()
		if !seen[gv] {
			seen[gv] = true
			gvs = append(gvs, gv)
		}
	}
	dm := meta.NewDefaultRESTMapper(gvs)
	for _, ki := range kinds {
		scope := meta.RESTScopeRoot
		if ki.Namespaced {
			scope = meta.RESTScopeNamespace
		}
		gvk := gvkOf(ki)
		dm.AddSpecific(gvk, gvk.GroupVersion().WithResource(ki.Resource),
			gvk.GroupVersion().WithResource(ki.Resource[:max(len(ki.Resource)-1, 0)]), scope)
	}
	m.RESTMapper = dm
	m.known = len(kinds)
}

func (m *restMapper) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	if len(model.Kinds()) != m.known {
		m.rebuild()
	}
	return m.RESTMapper.RESTMapping(gk, versions...)
}

// gvkForObject is apiutil.GVKForObject on the manager's scheme.
func gvkForObject(obj runtime.Object, s *runtime.Scheme) (schema.GroupVersionKind, error) {
	return apiutil.GVKForObject(obj, s)
}
