package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestWorkloadSelectorAndTemplate(t *testing.T) {
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	tmpl := PodTemplateSpec{ObjectMeta: ObjectMeta{Labels: map[string]string{"app": "web"}}}
	d := &Deployment{Spec: DeploymentSpec{Selector: sel, Template: tmpl}}
	rs := &ReplicaSet{Spec: ReplicaSetSpec{Selector: sel, Template: tmpl}}
	ss := &StatefulSet{Spec: StatefulSetSpec{Selector: sel, Template: tmpl}}
	ds := &DaemonSet{Spec: DaemonSetSpec{Selector: sel, Template: tmpl}}
	for _, tc := range []struct {
		obj      Object
		template *PodTemplateSpec
	}{{d, &d.Spec.Template}, {rs, &rs.Spec.Template}, {ss, &ss.Spec.Template}, {ds, &ds.Spec.Template}} {
		assert.Same(t, sel, WorkloadSelector(tc.obj), "%T", tc.obj)
		assert.Same(t, tc.template, WorkloadTemplate(tc.obj), "%T: the object's own template, to edit", tc.obj)
	}
	for _, obj := range []Object{&Pod{}, &Job{Spec: JobSpec{Selector: sel}}, &Service{}} {
		assert.Nil(t, WorkloadSelector(obj), "%T", obj)
		assert.Nil(t, WorkloadTemplate(obj), "%T", obj)
	}
}
