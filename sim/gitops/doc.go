// Package gitops is a GitOps agent: it holds a declared state (the source, a git repository
// at some revision) and reconciles the cluster against it through the API like any client,
// with its own rate-limited client and informers. Two modes:
//
// Argo CD (the application controller, argoproj/argo-cd controller/appcontroller.go, v3.x):
//
//   - Refresh: an Application is compared with the cluster when a managed object changes
//     (its watch-based cluster cache; docs/operator-manual/reconcile.md), and every
//     Resync plus up to ResyncJitter (timeout.reconciliation, 120s + 60s since v3.0, 180s
//     before). Only the periodic refresh resolves the source's latest revision (git is
//     polled; no webhook), so a commit is picked up at the next periodic refresh.
//   - Compare: a declared object missing from the cluster, or a field the manifest sets
//     that differs live, makes the Application OutOfSync; fields the manifest does not set
//     (server defaults, status, controller-set metadata) are not compared, as in Argo CD's
//     default diff; spec.replicas of an HPA's target is ignored with IgnoreHPAReplicas
//     (ignoreDifferences). A managed object no longer declared needs pruning (OutOfSync).
//   - Automated sync (autoSync): only when OutOfSync and Automated; a revision not synced yet
//     is synced at once; a revision already synced is synced again only with SelfHeal, after
//     selfHealRemainingBackoff: attempt n waits Backoff.Delay(n) (0, 2s, 6s, 18s, ... capped
//     at 300s) after the previous operation finished; an attempt syncs only the resources
//     that are not Synced. Prune-only changes are skipped unless Prune.
//   - Sync: a missing object is created, a drifted one patched with its manifest (a JSON
//     merge patch of spec, labels and annotations), a pruned one deleted.
//
// Flux (kustomize-controller, fluxcd/kustomize-controller docs/spec/v1/kustomizations.md):
// every Interval (jittered by JitterPercent either way) the source is fetched and applied
// as a whole, which reverts any drift and creates what is missing; Prune deletes what the
// source no longer has. Nothing happens between intervals.
//
// The agent reports its status through OnStatus (Synced or not, and how many resources are
// out of sync) and its events through OnEvent (Argo CD's OperationStarted,
// OperationCompleted and ResourceUpdated; Flux's Progressing and ReconciliationSucceeded),
// and traces every refresh, diff and sync as component "gitops-agent".
//
// Options are the agent's flags (gitops-agent in a scenario), with their table Flags
// (internal/flagtab); DefaultOptionsFor gives the defaults of an Argo CD release, and
// Options.Config turns them into a Config.
package gitops
