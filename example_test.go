package reconsim_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/reconsim/reconsim"
)

// Run a built-in scenario and read its expectations and convergence.
func ExampleRun() {
	res, err := reconsim.Run(context.Background(), reconsim.Builtin("node-failure"), reconsim.WithSeed(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("passed:", res.Passed)
	for _, e := range res.Expectations {
		fmt.Printf("%s %v: %s\n", e.Name, e.Passed, e.Message)
	}
	for _, c := range res.Convergence {
		if c.Seconds == nil {
			fmt.Printf("%s: never converged\n", c.Name)
			continue
		}
		fmt.Printf("%s: converged %.0fs after it\n", c.Name, *c.Seconds)
	}
	// Output:
	// passed: true
	// recovered true: converged 5m56.046s after crash (within 7m0s)
	// eviction-event true: 2 TaintManagerEviction event(s), the first at 415.158s
	// start: converged 0s after it
	// crash: converged 356s after it
}

// Override a component flag, as `sim run --set` does: a shorter grace period marks the node
// NotReady sooner, so the pods are replaced sooner.
func ExampleWithSet() {
	res, err := reconsim.Run(context.Background(), reconsim.Builtin("node-failure"),
		reconsim.WithSet("kube-controller-manager.node-monitor-grace-period", "20s"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range res.Convergence {
		if c.Name == "crash" && c.Seconds != nil {
			fmt.Printf("converged %.0fs after the crash\n", *c.Seconds)
		}
	}
	fmt.Println("overrides:", res.Overrides)
	// Output:
	// converged 326s after the crash
	// overrides: [{kube-controller-manager.node-monitor-grace-period 20s}]
}

// A failed expectation is not an error: the result says what went wrong and why.
func ExampleResult_verdicts() {
	res, err := reconsim.Run(context.Background(), reconsim.Builtin("impossible-spec"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("passed:", res.Passed)
	for _, v := range res.Verdicts {
		fmt.Printf("%s %s/%s: desired %d, ready %d\n", v.Kind, v.Namespace, v.Name, v.Desired, v.Ready)
	}
	// Output:
	// passed: false
	// ReplicaSet default/big: desired 10, ready 3
}

// Bad input is an *InputError whose problems carry file:line:col.
func ExampleInputError() {
	scenario := []byte(`apiVersion: reconsim.dev/v1alpha1
kind: Scenario
name: typo
duration: 20m
cluster:
  nodeGroups:
  - name: worker
    count: 3
    zone: zone-a
    capacity: {cpu: "4", memory: 16Gi}
timeline:
- at: 60s
  action: node-crash
  nodes: {names: [worker-7]}
`)
	_, err := reconsim.Run(context.Background(), reconsim.Bytes("typo.yaml", scenario))
	var in *reconsim.InputError
	if errors.As(err, &in) {
		for _, p := range in.Problems {
			fmt.Printf("%s: %s\n", p.Pos, p.Path)
		}
	}
	// Output:
	// typo.yaml:14:19: timeline[0].nodes.names[0]
}
