package model

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzDecodeManifestsDump: cluster dumps (kubectl get -o yaml) decode without panicking in
// every mode; errors and warnings have positions; what the API server set never reaches a
// decoded object; with Strict nothing is skipped or ignored silently (no skip or
// not-modelled warning), and a skip or ignored field is never an error without Strict.
// Seeds: a small List, model/testdata/*.yaml and the 61-object dump in
// scenarios/testdata/import.
func FuzzDecodeManifestsDump(f *testing.F) {
	f.Add([]byte(dumpSeed), uint8(0))
	f.Add([]byte(dumpSeed), uint8(1))
	f.Add([]byte(dumpSeed), uint8(2))
	files, _ := filepath.Glob("testdata/*.yaml")
	files = append(files, "../scenarios/testdata/import/kubectl-dump.yaml")
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data, uint8(0))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		opts := ManifestOptions{Strict: mode&1 != 0, KeepNodes: mode&2 != 0, ExistingNamespaces: map[string]bool{"default": true, "kube-system": true}}
		objs, warnings, err := DecodeManifestsWith("dump.yaml", data, opts)
		if err != nil {
			if objs != nil {
				t.Fatal("objects returned with an error")
			}
			var list DecodeErrors
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error is not a non-empty DecodeErrors: %T %v", err, err)
			}
			for _, e := range list {
				checkPositioned(t, "dump.yaml", e)
				if !opts.Strict && strings.Contains(e.Error(), "--strict") {
					t.Fatalf("a strict-only error without Strict: %v", e)
				}
			}
		}
		for _, w := range warnings {
			if w.Pos.Line < 1 || w.Pos.Column < 1 {
				t.Fatalf("warning without position: %+v", w)
			}
			if opts.Strict && (strings.Contains(w.Msg, "skipped") || strings.Contains(w.Msg, "not modelled (ignored)")) {
				t.Fatalf("Strict, but a skip or an ignored field is only a warning: %v", w)
			}
		}
		for _, o := range objs {
			m := o.Meta()
			if m.UID != "" || m.ResourceVersion != 0 || m.Generation != 0 || m.CreationTimestamp != 0 || m.DeletionTimestamp != nil {
				t.Fatalf("server-set metadata reached %s: %+v", Ref(o), m)
			}
			SetDefaults(o)
			_ = Validate(o)
		}
	})
}

const dumpSeed = `apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web, namespace: shop, uid: u1, resourceVersion: "7", generation: 2, creationTimestamp: "2026-01-01T00:00:00Z", managedFields: [{manager: kubectl}]}
  spec:
    replicas: 2
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}, creationTimestamp: null}
      spec:
        containers: [{name: web, image: nginx, imagePullPolicy: Always, readinessProbe: {httpGet: {port: 80}}}]
        topologySpreadConstraints: [{maxSkew: 1}]
  status: {replicas: 2, conditions: [{type: Available, lastTransitionTime: "2026-01-01T00:00:00Z"}]}
- apiVersion: apps/v1
  kind: ReplicaSet
  metadata: {name: web-1, namespace: shop, uid: u2, ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: u1, controller: true}]}
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: c, namespace: shop, uid: u3}
- apiVersion: example.com/v1
  kind: Widget
  metadata: {name: w, uid: u4}
- apiVersion: v1
  kind: Node
  metadata: {name: n1, uid: u5}
  spec: {taints: [{key: a, effect: NoSchedule, timeAdded: "2026-01-01T00:00:00Z"}]}
  status: {capacity: {cpu: "4", memory: 8Gi}, conditions: [{type: Ready, status: "True"}]}
- apiVersion: v1
  kind: Namespace
  metadata: {name: kube-system, uid: u6}
metadata: {resourceVersion: ""}
`
