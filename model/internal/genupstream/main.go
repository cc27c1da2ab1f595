//go:build genupstream

package main

import (
	"bytes"
	"fmt"
	"go/format"
	"maps"
	"os"
	"reflect"
	"runtime/debug"
	"slices"
	"sort"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	admissionregistrationv1alpha1 "k8s.io/api/admissionregistration/v1alpha1"
	admissionregistrationv1beta1 "k8s.io/api/admissionregistration/v1beta1"
	apiserverinternalv1alpha1 "k8s.io/api/apiserverinternal/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	appsv1beta1 "k8s.io/api/apps/v1beta1"
	appsv1beta2 "k8s.io/api/apps/v1beta2"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	batchv1beta1 "k8s.io/api/batch/v1beta1"
	certificatesv1 "k8s.io/api/certificates/v1"
	certificatesv1alpha1 "k8s.io/api/certificates/v1alpha1"
	certificatesv1beta1 "k8s.io/api/certificates/v1beta1"
	coordinationv1 "k8s.io/api/coordination/v1"
	coordinationv1alpha2 "k8s.io/api/coordination/v1alpha2"
	coordinationv1beta1 "k8s.io/api/coordination/v1beta1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	discoveryv1beta1 "k8s.io/api/discovery/v1beta1"
	eventsv1 "k8s.io/api/events/v1"
	eventsv1beta1 "k8s.io/api/events/v1beta1"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	flowcontrolv1beta1 "k8s.io/api/flowcontrol/v1beta1"
	flowcontrolv1beta2 "k8s.io/api/flowcontrol/v1beta2"
	flowcontrolv1beta3 "k8s.io/api/flowcontrol/v1beta3"
	networkingv1 "k8s.io/api/networking/v1"
	networkingv1beta1 "k8s.io/api/networking/v1beta1"
	nodev1 "k8s.io/api/node/v1"
	nodev1alpha1 "k8s.io/api/node/v1alpha1"
	nodev1beta1 "k8s.io/api/node/v1beta1"
	policyv1 "k8s.io/api/policy/v1"
	policyv1beta1 "k8s.io/api/policy/v1beta1"
	rbacv1 "k8s.io/api/rbac/v1"
	rbacv1alpha1 "k8s.io/api/rbac/v1alpha1"
	rbacv1beta1 "k8s.io/api/rbac/v1beta1"
	resourcev1 "k8s.io/api/resource/v1"
	resourcev1alpha3 "k8s.io/api/resource/v1alpha3"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	resourcev1beta2 "k8s.io/api/resource/v1beta2"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	storagev1 "k8s.io/api/storage/v1"
	storagev1alpha1 "k8s.io/api/storage/v1alpha1"
	storagev1beta1 "k8s.io/api/storage/v1beta1"
	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	storagemigrationv1beta1 "k8s.io/api/storagemigration/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
)

// output is the generated file, relative to the repository root.
const output = "model/upstream_gen.go"

// schemes are the built-in API groups whose kinds a `kubectl get -o yaml` dump can hold (the
// review and admission types, never stored, are left out).
var schemes = []func(*runtime.Scheme) error{
	admissionregistrationv1.AddToScheme, admissionregistrationv1alpha1.AddToScheme, admissionregistrationv1beta1.AddToScheme,
	apiserverinternalv1alpha1.AddToScheme,
	appsv1.AddToScheme, appsv1beta1.AddToScheme, appsv1beta2.AddToScheme,
	autoscalingv1.AddToScheme, autoscalingv2.AddToScheme,
	batchv1.AddToScheme, batchv1beta1.AddToScheme,
	certificatesv1.AddToScheme, certificatesv1alpha1.AddToScheme, certificatesv1beta1.AddToScheme,
	coordinationv1.AddToScheme, coordinationv1alpha2.AddToScheme, coordinationv1beta1.AddToScheme,
	corev1.AddToScheme,
	discoveryv1.AddToScheme, discoveryv1beta1.AddToScheme,
	eventsv1.AddToScheme, eventsv1beta1.AddToScheme,
	extensionsv1beta1.AddToScheme,
	flowcontrolv1.AddToScheme, flowcontrolv1beta1.AddToScheme, flowcontrolv1beta2.AddToScheme, flowcontrolv1beta3.AddToScheme,
	networkingv1.AddToScheme, networkingv1beta1.AddToScheme,
	nodev1.AddToScheme, nodev1alpha1.AddToScheme, nodev1beta1.AddToScheme,
	policyv1.AddToScheme, policyv1beta1.AddToScheme,
	rbacv1.AddToScheme, rbacv1alpha1.AddToScheme, rbacv1beta1.AddToScheme,
	resourcev1.AddToScheme, resourcev1alpha3.AddToScheme, resourcev1beta1.AddToScheme, resourcev1beta2.AddToScheme,
	schedulingv1.AddToScheme, schedulingv1alpha3.AddToScheme, schedulingv1beta1.AddToScheme,
	storagev1.AddToScheme, storagev1alpha1.AddToScheme, storagev1beta1.AddToScheme,
	storagemigrationv1.AddToScheme, storagemigrationv1beta1.AddToScheme,
}

// notObjects are kinds every group registers that are requests or wrappers, not objects.
var notObjects = []string{
	"CreateOptions", "DeleteOptions", "GetOptions", "ListOptions", "PatchOptions", "UpdateOptions",
	"WatchEvent", "Status", "APIVersions", "APIGroup", "APIGroupList", "APIResourceList",
	"Binding", "Eviction", "PodAttachOptions", "PodExecOptions", "PodLogOptions", "PodPortForwardOptions",
	"PodProxyOptions", "NodeProxyOptions", "ServiceProxyOptions", "RangeAllocation", "SerializedReference",
	"Scale", "DeploymentRollback", "EphemeralContainers", "PodStatusResult", "List",
}

func main() {
	src, err := generate()
	if err != nil {
		fmt.Fprintln(os.Stderr, "genupstream:", err)
		os.Exit(1)
	}
	old, _ := os.ReadFile(output)
	if bytes.Equal(old, src) {
		return
	}
	if err := os.WriteFile(output, src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "genupstream:", err)
		os.Exit(1)
	}
	fmt.Println("genupstream: updated", output)
}

// generate returns the content of model/upstream_gen.go.
func generate() ([]byte, error) {
	scheme := runtime.NewScheme()
	for _, add := range schemes {
		if err := add(scheme); err != nil {
			return nil, err
		}
	}
	kinds := map[string][]string{} // kind -> apiVersions
	fields := map[string]map[string]bool{}
	seen := map[reflect.Type]bool{}
	//detlint:ordered the field sets are unions and the apiVersions are sorted below
	for gvk, t := range scheme.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal || strings.HasSuffix(gvk.Kind, "List") || slices.Contains(notObjects, gvk.Kind) {
			continue
		}
		kinds[gvk.Kind] = append(kinds[gvk.Kind], gvk.GroupVersion().String())
		collect(t, fields, seen)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by go run -tags genupstream ./model/internal/genupstream; DO NOT EDIT.\n\n")
	fmt.Fprintf(&b, "package model\n\n")
	fmt.Fprintf(&b, "// upstreamAPIVersion is the k8s.io/api release the tables below were read from.\n")
	fmt.Fprintf(&b, "const upstreamAPIVersion = %q\n\n", apiVersion())
	fmt.Fprintf(&b, "// upstreamKinds maps every kind the built-in API groups serve to the apiVersions that\n// serve it.\n")
	fmt.Fprintf(&b, "var upstreamKinds = map[string][]string{\n")
	for _, k := range slices.Sorted(maps.Keys(kinds)) {
		vs := kinds[k]
		sort.Strings(vs)
		fmt.Fprintf(&b, "\t%q: {%s},\n", k, quoteAll(vs))
	}
	fmt.Fprintf(&b, "}\n\n")
	fmt.Fprintf(&b, "// upstreamFields maps the name of every struct type reachable from those kinds to its JSON\n// field names, space-separated and sorted (the union over types of that name).\n")
	fmt.Fprintf(&b, "var upstreamFields = map[string]string{\n")
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		fmt.Fprintf(&b, "\t%q: %q,\n", name, strings.Join(slices.Sorted(maps.Keys(fields[name])), " "))
	}
	fmt.Fprintf(&b, "}\n")
	return format.Source(b.Bytes())
}

// collect records t's fields, and those of every struct type reachable from it.
func collect(t reflect.Type, fields map[string]map[string]bool, seen map[reflect.Type]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return
	}
	seen[t] = true
	set := fields[t.Name()]
	if set == nil {
		set = map[string]bool{}
		fields[t.Name()] = set
	}
	addFields(t, set, fields, seen)
}

// addFields adds t's JSON field names to set, flattening inlined structs, and collects the
// field types.
func addFields(t reflect.Type, set map[string]bool, fields map[string]map[string]bool, seen map[reflect.Type]bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && (name == "" || strings.Contains(opts, "inline")) {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				addFields(ft, set, fields, seen)
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		set[name] = true
		collect(f.Type, fields, seen)
	}
}

func apiVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "k8s.io/api" {
				return m.Version
			}
		}
	}
	return "unknown"
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
