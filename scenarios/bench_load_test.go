package scenarios

import (
	"fmt"
	"strings"
	"testing"
)

// manyObjects returns a valid scenario with n objects: half Namespaces, half Services, each
// Service in one of the Namespaces (so every namespace lookup runs against n/2 namespaces).
func manyObjects(n int) []byte {
	var b strings.Builder
	b.Grow(160 * n) // once: the benchmark's memory is the loader's, not the fixture's
	b.WriteString(`apiVersion: reconsim.dev/v1alpha1
kind: Scenario
name: many-objects
duration: 1m
cluster:
  nodeGroups:
  - {name: worker, count: 3, capacity: {cpu: "4", memory: 16Gi}}
objects:
`)
	for i := 0; i < n/2; i++ {
		fmt.Fprintf(&b, "- manifest: {apiVersion: v1, kind: Namespace, metadata: {name: ns-%d}}\n", i)
	}
	for i := 0; i < n-n/2; i++ {
		fmt.Fprintf(&b, "- manifest: {apiVersion: v1, kind: Service, metadata: {name: svc, namespace: ns-%d}, spec: {selector: {app: web}, ports: [{port: 80}]}}\n", i%(n/2))
	}
	return []byte(b.String())
}

// BenchmarkLoad100k parses and validates a scenario of 100,000 objects (MaxObjects).
func BenchmarkLoad100k(b *testing.B) {
	data := manyObjects(MaxObjects)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Parse("many.yaml", data, ""); err != nil {
			b.Fatal(err)
		}
	}
}
