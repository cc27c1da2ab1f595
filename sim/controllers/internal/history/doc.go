// Package history is the one home of what the DaemonSet and StatefulSet controllers share
// about ControllerRevisions, the snapshots of a pod template that their rollouts and rollbacks
// are computed from, as upstream keeps it once in kubernetes/pkg/controller/history
// (controller_history.go, release 1.33) and pkg/controller/daemon/update.go getPatch:
//
//   - TemplatePatch: the bytes a revision records for a template, which revisions are hashed
//     and compared by;
//   - HashControllerRevision and ControllerRevisionName: the name of a revision;
//   - NewControllerRevision: a revision of a parent's template, labelled and owned;
//   - EqualRevision, FindEqualRevisions and SortControllerRevisions.
//
// What the two controllers do differently stays in their packages, as upstream has it: the
// DaemonSet controller names its revisions with controller.ComputeHash over the template
// (controllerutil.ComputeHash), copies the DaemonSet's annotations and sorts old revisions by
// number only; the StatefulSet controller hashes the revision's data, probes names on a
// collision and sorts by number, creation time and name.
//
// Contract: every function is pure and deterministic (no clock, no randomness, no map order
// in any result); nothing here talks to the API server, traces or counts. Revisions passed in
// are not modified, except by SortControllerRevisions, which sorts its slice in place.
package history
