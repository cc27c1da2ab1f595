package scenarios

import (
	"errors"
	"os"
	"testing"

	"github.com/reconsim/reconsim/model"
)

// FuzzImport: Import never panics; a failure is model.DecodeErrors whose every problem has a
// position in the dump (a user's mistake, exit 2); and a scenario it writes always loads
// without a problem (it passes `sim validate`). Seeds: the 61-object dump in
// testdata/import, a minimal dump, and testdata/fuzz/FuzzImport.
func FuzzImport(f *testing.F) {
	if data, err := os.ReadFile(dumpFile); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n-1, uid: a, labels: {topology.kubernetes.io/zone: z, pool: p}}
  spec: {taints: [{key: dedicated, value: db, effect: NoSchedule}]}
  status: {capacity: {cpu: "2", memory: 4Gi, pods: "30", example.com/gpu: "1"}, allocatable: {cpu: 1900m}}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web, namespace: shop, uid: b}
  spec:
    replicas: 1
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec: {containers: [{name: web, image: nginx, resources: {requests: {cpu: 100m}}}]}
`))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, _, err := Import("dump.yaml", data)
		if err != nil {
			if out != nil {
				t.Fatal("output with an error")
			}
			var list model.DecodeErrors
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error is not a non-empty model.DecodeErrors: %T %v", err, err)
			}
			for _, e := range list {
				var de *model.DecodeError
				if !errors.As(e, &de) || de.Pos.File != "dump.yaml" || de.Pos.Line < 1 || de.Pos.Column < 1 {
					t.Fatalf("problem without a position in the dump: %v", e)
				}
			}
			return
		}
		if _, _, err := Parse("imported.yaml", out, ""); err != nil {
			t.Fatalf("the imported scenario does not load:\n%v\n--- scenario ---\n%s", err, out)
		}
	})
}
