package apiserver

import (
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/reconsim/reconsim/model"
)

// Field selector labels. Every kind has metadata.name, namespaced kinds metadata.namespace
// ([apiserver@HEAD] pkg/registry/generic/matcher.go ObjectMetaFieldsSet); the rest are the
// kind's own selectable fields from its registry (ToSelectableFields / GetAttrs).
const (
	fieldMetadataName      = "metadata.name"
	fieldMetadataNamespace = "metadata.namespace"
	fieldSpecNodeName      = "spec.nodeName"
)

// fieldValue returns the value of a selectable field of obj, and whether the kind supports
// the field at all. It allocates only for non-string fields.
func fieldValue(info *model.KindInfo, obj model.Object, field string) (string, bool) {
	switch field {
	case fieldMetadataName:
		return obj.Meta().Name, true
	case fieldMetadataNamespace:
		if info.Namespaced {
			return obj.Meta().Namespace, true
		}
		return "", false
	}
	switch o := obj.(type) {
	case *model.Pod:
		// pod.ToSelectableFields (pkg/registry/core/pod/strategy.go), modelled subset.
		switch field {
		case fieldSpecNodeName:
			return o.Spec.NodeName, true
		case "spec.restartPolicy":
			return o.Spec.RestartPolicy, true
		case "spec.schedulerName":
			return o.Spec.SchedulerName, true
		case "status.phase":
			return o.Status.Phase, true
		case "status.podIP":
			return o.Status.PodIP, true
		}
	case *model.Node:
		// node.NodeToSelectableFields.
		if field == "spec.unschedulable" {
			return strconv.FormatBool(o.Spec.Unschedulable), true
		}
	case *model.Namespace:
		// namespace.NamespaceToSelectableFields.
		if field == "status.phase" {
			return o.Status.Phase, true
		}
	case *model.ReplicaSet:
		// replicaset.ToSelectableFields.
		if field == "status.replicas" {
			return strconv.Itoa(int(o.Status.Replicas)), true
		}
	case *model.Event:
		// event.EventToSelectableFields.
		switch field {
		case "involvedObject.kind":
			return string(o.InvolvedObject.Kind), true
		case "involvedObject.namespace":
			return o.InvolvedObject.Namespace, true
		case "involvedObject.name":
			return o.InvolvedObject.Name, true
		case "involvedObject.uid":
			return o.InvolvedObject.UID, true
		case "involvedObject.apiVersion":
			return o.InvolvedObject.APIVersion, true
		case "involvedObject.resourceVersion":
			if o.InvolvedObject.ResourceVersion == 0 {
				return "", true
			}
			return model.RV(o.InvolvedObject.ResourceVersion), true
		case "reason":
			return o.Reason, true
		case "source":
			return o.Source.Component, true
		case "type":
			return o.Type, true
		}
	}
	return "", false
}

// matcher is a compiled ListOptions: namespace, label selector and field requirements,
// checked without allocating.
type matcher struct {
	info      *model.KindInfo
	namespace string
	label     labels.Selector // nil when it selects everything
	fields    fields.Requirements
	nothing   bool // a field selector that matches nothing (fields.Nothing())
	// triggerValue is the value an equality requirement on the kind's trigger field pins,
	// when triggered is true (upstream cacher's indexed trigger).
	triggerValue string
	triggered    bool
	// besidesTrigger are the field requirements other than those that pin the trigger field
	// to triggerValue: what an object found under triggerValue in an index must still pass.
	besidesTrigger fields.Requirements
}

// compileMatcher checks opts against the kind and compiles them. An unsupported field
// label is a 400 BadRequest naming it, as upstream's field label conversion answers
// ("field label not supported: <label>").
func compileMatcher(info *model.KindInfo, st *strategy, opts model.ListOptions) (matcher, error) {
	m := matcher{info: info, namespace: opts.Namespace}
	if !info.Namespaced {
		m.namespace = ""
	}
	if opts.LabelSelector != nil && !opts.LabelSelector.Empty() {
		m.label = opts.LabelSelector
	}
	if opts.FieldSelector != nil && !opts.FieldSelector.Empty() {
		reqs := opts.FieldSelector.Requirements()
		if len(reqs) == 0 {
			m.nothing = true
		}
		probe := info.New()
		for _, r := range reqs {
			if _, ok := fieldValue(info, probe, r.Field); !ok {
				return matcher{}, apierrors.NewBadRequest("field label not supported: " + r.Field)
			}
			switch r.Operator {
			case selection.Equals, selection.DoubleEquals, selection.NotEquals:
			default:
				return matcher{}, apierrors.NewBadRequest("unsupported operator " + string(r.Operator) + " in field selector " + opts.FieldSelector.String())
			}
			if st.triggerField != "" && r.Field == st.triggerField && r.Operator != selection.NotEquals {
				m.triggerValue, m.triggered = r.Value, true
			}
		}
		m.fields = reqs
		if m.triggered {
			for _, r := range reqs {
				if r.Field != st.triggerField || r.Operator == selection.NotEquals || r.Value != m.triggerValue {
					m.besidesTrigger = append(m.besidesTrigger, r)
				}
			}
		}
	}
	return m, nil
}

// everything reports whether m selects every object of the kind.
func (m *matcher) everything() bool {
	return m.namespace == "" && m.label == nil && len(m.fields) == 0 && !m.nothing
}

// matches reports whether obj passes m.
func (m *matcher) matches(obj model.Object) bool {
	return !m.nothing && m.passes(obj, m.fields)
}

// matchesTriggered reports whether obj, known to have the trigger value m pins (triggered is
// true), passes m. It reads obj only for the rest of m.
func (m *matcher) matchesTriggered(obj model.Object) bool {
	return m.passes(obj, m.besidesTrigger)
}

// passes checks obj against m's namespace and label selector and the field requirements reqs.
func (m *matcher) passes(obj model.Object, reqs fields.Requirements) bool {
	if m.namespace != "" || m.label != nil {
		meta := obj.Meta()
		if m.namespace != "" && meta.Namespace != m.namespace {
			return false
		}
		if m.label != nil && !m.label.Matches(labels.Set(meta.Labels)) {
			return false
		}
	}
	for i := range reqs {
		r := &reqs[i]
		v, _ := fieldValue(m.info, obj, r.Field)
		if (v == r.Value) == (r.Operator == selection.NotEquals) {
			return false
		}
	}
	return true
}
