// Command gendocs rewrites the generated flag table in docs/scenario.md from the flag
// registry (scenarios.Flags). Run it from the repository root after changing the registry:
//
//	go run ./scenarios/internal/gendocs
//
// The scenarios tests fail while the table is stale.
package main
