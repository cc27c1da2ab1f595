package model

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/reconsim/reconsim/internal/words"
)

// Fields that Kubernetes has and the simulator does not model. A manifest written for a real
// cluster is full of them (imagePullPolicy, ports, env, volumes, ...); they are not typos, so
// they are ignored with a warning saying so, and only a name that Kubernetes does not have is
// an "unknown field". The list of real fields is upstream's own, read from k8s.io/api by
// model/internal/genupstream into upstream_gen.go.
//
// Most such fields change nothing the simulator models. The ones that change where a pod is
// scheduled or how it lives (behaviourNotes) each get a warning that says what the simulation
// does differently; the others are summed up in one warning.

// maxListedUnmodelled caps how many field names the summary warning lists.
const maxListedUnmodelled = 12

// behaviourNotes says, for a field the simulator does not model that changes scheduling or a
// pod's lifecycle (upstream type "Type.field"), what the simulation does instead.
var behaviourNotes = map[string]string{
	"PodSpec.volumes":                      "volumes are not modelled: pods start with no attach, mount or provisioning delay, and the scheduler checks no volume limits or zones",
	"StatefulSetSpec.volumeClaimTemplates": "no PersistentVolumeClaims are made: pods start without waiting for storage",
	"StatefulSetSpec.ordinals":             "pods are numbered from 0 whatever ordinals.start says",
	"Container.lifecycle":                  "postStart and preStop hooks are not run: a container stops after its sim.reconsim.dev/termination-seconds (default 1s) once told to",
	"Probe.httpGet":                        probeNote,
	"Probe.exec":                           probeNote,
	"Probe.tcpSocket":                      probeNote,
	"Probe.grpc":                           probeNote,
	"PodSpec.readinessGates":               "readiness gates are not evaluated: the pod is Ready when its containers are",
	"PodSpec.activeDeadlineSeconds":        "the kubelet does not enforce it: the pod never fails with DeadlineExceeded",
	"PodSpec.overhead":                     "pod overhead is not added to the requests the scheduler and the kubelet count",
	"PodSpec.runtimeClassName":             "RuntimeClass is not modelled: no overhead, node selector or tolerations come from it",
	"PodSpec.schedulingGates":              "scheduling gates are not modelled: the scheduler places the pod at once",
	"PodSpec.resourceClaims":               "dynamic resource allocation is not modelled: the pod is scheduled as if it claimed no devices",
	"PodSpec.resources":                    "pod-level resources are not counted: the scheduler and the kubelet add up the containers' requests",
}

const (
	probeNote = "probe handlers are not run: probes succeed unless the pod's sim.reconsim.dev/* annotations say otherwise (`sim explain sim.reconsim.dev/ready-after`)"
)

// partlyModelled says, for a field the simulator decodes but does not fully act on, what the
// simulation does differently with the value written; "" when that value changes nothing.
var partlyModelled = map[string]func(value *yaml.Node) string{
	"PodSpec.schedulerName": func(v *yaml.Node) string {
		// The scheduler's profile is default-scheduler, as upstream's default
		// (v1.DefaultSchedulerName, k8s.io/api core/v1/types.go).
		if v.Kind == yaml.ScalarNode && v.Value != "" && v.Value != "default-scheduler" {
			return fmt.Sprintf("no scheduler called %q runs in the simulation (only default-scheduler): the pod stays Pending", v.Value)
		}
		return ""
	},
}

// unmodelledField is one field that was ignored, or decoded with a behaviour note.
type unmodelledField struct {
	pos  Position
	path string
	// field is the upstream "Type.field".
	field string
	// note says what the simulation does differently; "" for a field that changes nothing.
	note string
}

var (
	modelPkgPath  = reflect.TypeFor[Pod]().PkgPath()
	metav1PkgPath = reflect.TypeFor[metav1.LabelSelector]().PkgPath()
	upstreamSets  = sync.OnceValue(func() map[string][]string {
		out := make(map[string][]string, len(upstreamFields))
		//detlint:ordered each value is looked up by key
		for name, fields := range upstreamFields {
			out[name] = strings.Fields(fields)
		}
		return out
	})
)

// mirrorsUpstream reports whether t is a model (or apimachinery) type named after the
// upstream type it reduces, so that upstream's field names apply to it.
func mirrorsUpstream(t reflect.Type) bool {
	return t.PkgPath() == modelPkgPath || t.PkgPath() == metav1PkgPath
}

// isUnmodelled reports whether name is a field of the upstream type that struct type t
// mirrors.
func (d *Decoder) isUnmodelled(t reflect.Type, name string) bool {
	if !mirrorsUpstream(t) {
		return false
	}
	_, found := slices.BinarySearch(upstreamSets()[t.Name()], name)
	return found
}

// upstreamNames returns the field names of the upstream type t mirrors, or nil.
func upstreamNames(t reflect.Type) []string {
	if !mirrorsUpstream(t) {
		return nil
	}
	return upstreamSets()[t.Name()]
}

// IsUpstreamField reports whether upstream type typeName (for example "PodSpec") has a field
// with JSON name field, in the Kubernetes API version the simulator follows.
func IsUpstreamField(typeName, field string) bool {
	_, found := slices.BinarySearch(upstreamSets()[typeName], field)
	return found
}

// noteUnmodelled records a field Kubernetes has that the simulator does not model: an error
// under RefuseUnmodelled, else a warning that finish writes.
func (d *Decoder) noteUnmodelled(key, value *yaml.Node, path string, t reflect.Type, name string) {
	if isNull(value) {
		return
	}
	field := t.Name() + "." + name
	note := behaviourNotes[field]
	if d.opts.RefuseUnmodelled {
		msg := "not modelled"
		if note != "" {
			msg += ": " + note
		}
		d.fail(key, path, msg, "--strict refuses fields the simulator ignores; remove it, or run without --strict")
		return
	}
	d.unmodelled = append(d.unmodelled, unmodelledField{pos: d.pos(key), path: path, field: field, note: note})
}

// notePartlyModelled records a behaviour note for a decoded field whose value the simulator
// does not fully act on.
func (d *Decoder) notePartlyModelled(key, value *yaml.Node, path string, t reflect.Type, name string) {
	if t.PkgPath() != modelPkgPath {
		return
	}
	check := partlyModelled[t.Name()+"."+name]
	if check == nil {
		return
	}
	if r := resolveQuiet(value); r != nil {
		if note := check(r); note != "" {
			d.unmodelled = append(d.unmodelled, unmodelledField{pos: d.pos(key), path: path, field: t.Name() + "." + name, note: note})
		}
	}
}

// finish turns what was collected into warnings: one per distinct behaviour note (at its
// first place, with how many more there are), one for the fields that change nothing (listed
// by upstream type and name), then the dump summary (see dumpSummary).
func (d *Decoder) finish() {
	type noted struct {
		first unmodelledField
		more  int
	}
	var notes []*noted
	byNote := map[string]*noted{}
	var plain []unmodelledField
	plainFields := map[string]bool{}
	var plainNames []string
	for _, u := range d.unmodelled {
		if u.note == "" {
			plain = append(plain, u)
			if !plainFields[u.field] {
				plainFields[u.field] = true
				plainNames = append(plainNames, u.field)
			}
			continue
		}
		if n := byNote[u.note]; n != nil {
			n.more++
			continue
		}
		n := &noted{first: u}
		byNote[u.note] = n
		notes = append(notes, n)
	}
	for _, n := range notes {
		msg := "not modelled (ignored): " + n.first.note
		if n.first.field != "" && partlyModelled[n.first.field] != nil {
			msg = "only partly modelled: " + n.first.note
		}
		if n.more > 0 {
			msg += fmt.Sprintf(" (and %d more %s)", n.more, words.Plural(n.more, "place", "places"))
		}
		d.addWarning(Warning{Pos: n.first.pos, Path: n.first.path, Msg: msg})
	}
	switch {
	case len(plain) == 1:
		d.addWarning(Warning{Pos: plain[0].pos, Path: plain[0].path, Msg: "not modelled (ignored)"})
	case len(plain) > 1:
		slices.Sort(plainNames)
		listed := plainNames
		if len(listed) > maxListedUnmodelled {
			listed = listed[:maxListedUnmodelled]
		}
		msg := fmt.Sprintf("%d fields that Kubernetes has are not modelled (ignored); none changes scheduling or a pod's lifecycle: %s",
			len(plain), strings.Join(listed, ", "))
		if len(plainNames) > len(listed) {
			msg += fmt.Sprintf(" and %d more", len(plainNames)-len(listed))
		}
		msg += " (--strict lists each)"
		d.addWarning(Warning{Pos: plain[0].pos, Msg: msg})
	}
	d.unmodelled = nil
	d.finishDump()
}

// addWarning appends w unless the warning cap is reached.
func (d *Decoder) addWarning(w Warning) {
	if len(d.warnings) < maxDecodeWarnings {
		d.warnings = append(d.warnings, w)
	}
}
