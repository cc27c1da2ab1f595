package model

// Verb names an API request verb, as in the apiserver's request metrics.
type Verb string

// The verbs the server serves.
const (
	VerbGet    Verb = "get"
	VerbList   Verb = "list"
	VerbWatch  Verb = "watch"
	VerbCreate Verb = "create"
	VerbUpdate Verb = "update"
	VerbPatch  Verb = "patch"
	VerbDelete Verb = "delete"
)

// PatchType is the Content-Type of a patch request: which patch format its body is in.
type PatchType string

// The patch types kube-apiserver accepts for built-in kinds (apimachinery pkg/types
// patch.go), as `kubectl patch --type json|merge|strategic` sends them.
const (
	JSONPatchType           PatchType = "application/json-patch+json"
	MergePatchType          PatchType = "application/merge-patch+json"
	StrategicMergePatchType PatchType = "application/strategic-merge-patch+json"
)

// PatchTypeNamed maps kubectl's --type names (json, merge, strategic) to patch types.
func PatchTypeNamed(name string) (PatchType, bool) {
	switch name {
	case "json":
		return JSONPatchType, true
	case "merge":
		return MergePatchType, true
	case "strategic":
		return StrategicMergePatchType, true
	}
	return "", false
}

// DefaultRetryAfterSeconds is the Retry-After the max-in-flight filter sends with a 429
// ([apiserver@HEAD] pkg/server/filters/maxinflight.go: retryAfter = "1"); injected api-errors
// use it too unless the scenario says otherwise.
const DefaultRetryAfterSeconds = 1
