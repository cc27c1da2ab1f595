package history

import (
	"bytes"
	"encoding/json"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/sim/controllers/internal/controllerutil"
)

// ControllerRevisionHashLabel is the label every ControllerRevision carries with its hash, and
// every pod with the hash of the revision it was created from (upstream
// history.ControllerRevisionHashLabel, apps.ControllerRevisionHashLabelKey and
// apps.DefaultDaemonSetUniqueLabelKey, all "controller-revision-hash").
const ControllerRevisionHashLabel = "controller-revision-hash"

// maxRevisionNamePrefix is the longest parent-name prefix of a revision name (upstream
// ControllerRevisionName truncates the prefix to 223 characters).
const maxRevisionNamePrefix = 223

// TemplatePatch returns the bytes upstream stores as a revision's data for a template,
// {"spec":{"template":{...,"$patch":"replace"}}} (upstream getPatch of the DaemonSet and
// StatefulSet controllers). The simulator keeps the template typed in
// ControllerRevision.Data; these bytes are what revisions are hashed and compared by. They are
// deterministic: encoding/json writes struct fields in declaration order and map keys sorted,
// and the template holds no floating-point values.
func TemplatePatch(template *model.PodTemplateSpec) ([]byte, error) {
	raw, err := json.Marshal(template)
	if err != nil {
		return nil, err
	}
	var tmpl map[string]any
	if err := json.Unmarshal(raw, &tmpl); err != nil {
		return nil, err
	}
	tmpl["$patch"] = "replace"
	return json.Marshal(map[string]any{"spec": map[string]any{"template": tmpl}})
}

// HashControllerRevision is upstream HashControllerRevision: FNV-1 (32-bit) over the
// revision's data, then the decimal collision count if there is one, printed in decimal and
// safe-encoded. The data is TemplatePatch of the template, so equal templates hash alike in
// every run; the value differs from a real cluster's only because upstream's JSON carries the
// fields the model does not have.
func HashControllerRevision(data []byte, collisionCount *int32) string {
	h := fnv.New32()
	h.Write(data)
	if collisionCount != nil {
		h.Write([]byte(strconv.FormatInt(int64(*collisionCount), 10)))
	}
	return controllerutil.SafeEncodeString(strconv.FormatUint(uint64(h.Sum32()), 10))
}

// ControllerRevisionName is "<prefix>-<hash>" with the prefix cut to 223 characters (upstream
// ControllerRevisionName).
func ControllerRevisionName(prefix, hash string) string {
	if len(prefix) > maxRevisionNamePrefix {
		prefix = prefix[:maxRevisionNamePrefix]
	}
	return prefix + "-" + hash
}

// NewControllerRevision returns a revision named name, in parent's namespace, recording template
// at revision number revision: its labels are the template's plus ControllerRevisionHashLabel
// set to hash, and ref (parent's controller reference) owns it (upstream
// NewControllerRevision; the DaemonSet controller's snapshot builds the same object). The
// template is deep-copied.
func NewControllerRevision(parent model.Object, ref model.OwnerReference, template *model.PodTemplateSpec, name, hash string, revision int64) *model.ControllerRevision {
	cr := &model.ControllerRevision{Revision: revision}
	cr.Name = name
	cr.Namespace = parent.Meta().Namespace
	cr.Labels = make(map[string]string, len(template.Labels)+1)
	maps.Copy(cr.Labels, template.Labels)
	cr.Labels[ControllerRevisionHashLabel] = hash
	cr.OwnerReferences = []model.OwnerReference{ref}
	template.DeepCopyInto(&cr.Data.Template)
	return cr
}

// EqualRevision is upstream EqualRevision: two revisions with different hash labels differ;
// otherwise they are equal when their data (data(revision), nil for data that cannot be
// computed) is.
func EqualRevision(lhs, rhs *model.ControllerRevision, data func(*model.ControllerRevision) []byte) bool {
	if lhs == nil || rhs == nil {
		return lhs == rhs
	}
	lh, lok := lhs.Labels[ControllerRevisionHashLabel]
	rh, rok := rhs.Labels[ControllerRevisionHashLabel]
	if lok && rok && lh != rh {
		return false
	}
	l, r := data(lhs), data(rhs)
	return l != nil && bytes.Equal(l, r)
}

// FindEqualRevisions returns the revisions equal to needle (EqualRevision), in the order given
// (upstream FindEqualRevisions).
func FindEqualRevisions(revisions []*model.ControllerRevision, needle *model.ControllerRevision, data func(*model.ControllerRevision) []byte) []*model.ControllerRevision {
	var out []*model.ControllerRevision
	for _, r := range revisions {
		if EqualRevision(r, needle, data) {
			out = append(out, r)
		}
	}
	return out
}

// SortControllerRevisions sorts by revision number, then creation time, then name (upstream
// SortControllerRevisions).
func SortControllerRevisions(revisions []*model.ControllerRevision) {
	slices.SortStableFunc(revisions, func(a, b *model.ControllerRevision) int {
		switch {
		case a.Revision != b.Revision:
			if a.Revision < b.Revision {
				return -1
			}
			return 1
		case a.CreationTimestamp != b.CreationTimestamp:
			if a.CreationTimestamp < b.CreationTimestamp {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
}
