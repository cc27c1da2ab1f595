package operator

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"

	simrecord "github.com/reconsim/reconsim/sim/client/record"
)

// eventRecorder is client-go's record.EventRecorder on the simulator's recorder: Events go
// to the run's events.jsonl with the virtual time, as the built-in controllers' do.
type eventRecorder struct {
	m   *manager
	rec simrecord.Recorder
}

var _ record.EventRecorder = (*eventRecorder)(nil)

func (r *eventRecorder) Event(object runtime.Object, eventtype, reason, message string) {
	r.Eventf(object, eventtype, reason, "%s", message)
}

func (r *eventRecorder) Eventf(object runtime.Object, eventtype, reason, messageFmt string, args ...any) {
	obj, ok := object.(client.Object)
	if !ok {
		return
	}
	gvk, err := gvkForObject(obj, r.m.scheme)
	if err != nil {
		return
	}
	mo, err := r.m.toModel(obj, gvk)
	if err != nil {
		return // an object of a kind the simulator does not serve: upstream drops it too
	}
	r.rec.Eventf(mo, eventtype, reason, "%s", fmt.Sprintf(messageFmt, args...))
}

// AnnotatedEventf records the event; the simulator's Events carry no annotations.
func (r *eventRecorder) AnnotatedEventf(object runtime.Object, annotations map[string]string, eventtype, reason, messageFmt string, args ...any) {
	r.Eventf(object, eventtype, reason, messageFmt, args...)
}
