// Command gendocs rewrites what is generated from the scenarios package: the flag table, the
// key reference and the pod annotation table in docs/scenario.md (from the flag registry,
// scenarios.Keys and model.AnnotationDocs), and the
// JSON Schema in scenarios/schema.json (scenarios.Schema). Run it from the repository root
// after changing the scenario types, their documentation, the flag registry or the model
// types:
//
//	go run ./scenarios/internal/gendocs
//
// The scenarios tests fail while any of them is stale.
package main
