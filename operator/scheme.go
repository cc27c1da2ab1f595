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
	return servedAs(gvk, model.LookupKind)
}

// kindFor is the package's kindFor, and then the kinds the scenario's
// CustomResourceDefinitions define (registered per run, in the API server's store).
func (m *manager) kindFor(gvk schema.GroupVersionKind) (model.KindInfo, bool) {
	if ki, ok := kindFor(gvk); ok || m.env.Client == nil {
		return ki, ok
	}
	return servedAs(gvk, m.env.Client.LookupKind)
}

// servedAs returns lookup's kind of gvk's name if it is served at gvk's group/version.
func servedAs(gvk schema.GroupVersionKind, lookup func(model.Kind) (model.KindInfo, bool)) (model.KindInfo, bool) {
	ki, ok := lookup(model.Kind(gvk.Kind))
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
	// custom looks up the kinds of the scenario's CustomResourceDefinitions, which the
	// registry does not hold; nil when there is no API server.
	custom func(model.Kind) (model.KindInfo, bool)
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
	mapping, err := m.RESTMapper.RESTMapping(gk, versions...)
	if err != nil && meta.IsNoMatchError(err) && m.custom != nil {
		if ki, ok := m.custom(model.Kind(gk.Kind)); ok && gvkOf(ki).Group == gk.Group {
			scope := meta.RESTScopeRoot
			if ki.Namespaced {
				scope = meta.RESTScopeNamespace
			}
			gvk := gvkOf(ki)
			return &meta.RESTMapping{Resource: gvk.GroupVersion().WithResource(ki.Resource), GroupVersionKind: gvk, Scope: scope}, nil
		}
	}
	return mapping, err
}

// gvkForObject is apiutil.GVKForObject on the manager's scheme.
func gvkForObject(obj runtime.Object, s *runtime.Scheme) (schema.GroupVersionKind, error) {
	return apiutil.GVKForObject(obj, s)
}
