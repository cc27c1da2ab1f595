package scenarios

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"
)

// manyObjects returns a valid scenario with n objects: half Namespaces, half Services, each
// Service in one of the Namespaces (so every namespace lookup runs against n/2 namespaces).
func manyObjects(n int) []byte { return manyObjectsWith(n, "") }

// manyObjectsWith is manyObjects with a problem in every Service: "missing namespace" puts
// each in a namespace that does not exist (a did-you-mean hint for each), "duplicate" gives
// every pair of Services the same namespace and name.
func manyObjectsWith(n int, problem string) []byte {
	var b bytes.Buffer
	b.Grow(110 * n) // once: the benchmark's memory is the loader's, not the fixture's
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
		ns := fmt.Sprintf("ns-%d", i%(n/2))
		switch problem {
		case "missing namespace":
			ns = fmt.Sprintf("nx-%d", i)
		case "duplicate":
			ns = fmt.Sprintf("ns-%d", i/2)
		}
		fmt.Fprintf(&b, "- manifest: {apiVersion: v1, kind: Service, metadata: {name: svc, namespace: %s}, spec: {selector: {app: web}, ports: [{port: 80}]}}\n", ns)
	}
	return b.Bytes()
}

// BenchmarkLoad100k parses and validates a scenario of 100,000 objects (MaxObjects).
func BenchmarkLoad100k(b *testing.B) {
	data := manyObjects(MaxObjects)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	collectBetweenLoads(b)
	for b.Loop() {
		if _, _, err := Parse("many.yaml", data, ""); err != nil {
			b.Fatal(err)
		}
		collectBetweenLoads(b)
	}
}

// collectBetweenLoads collects the garbage of one load (or fixture) before the next load,
// untimed, so that each load starts from the heap a `sim validate` process starts from: the
// process's peak resident memory is then that of one load, not of one load and the
// uncollected result of the last.
func collectBetweenLoads(b *testing.B) {
	b.StopTimer()
	runtime.GC()
	b.StartTimer()
}

// BenchmarkLoad100kInvalid parses scenarios of 100,000 objects of which half are invalid:
// reporting 50,000 problems (with their positions and hints) must cost no more than
// loading the objects does.
func BenchmarkLoad100kInvalid(b *testing.B) {
	for _, problem := range []string{"missing namespace", "duplicate"} {
		b.Run(problem, func(b *testing.B) {
			data := manyObjectsWith(MaxObjects, problem)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			collectBetweenLoads(b) // the fixture of the last sub-benchmark
			for b.Loop() {
				if _, _, err := Parse("many.yaml", data, ""); err == nil {
					b.Fatal("no error")
				}
				collectBetweenLoads(b)
			}
		})
	}
}
