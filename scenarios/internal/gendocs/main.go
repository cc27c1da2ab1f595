package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/reconsim/reconsim/scenarios"
	"github.com/reconsim/reconsim/sim/features"
)

func main() {
	docPath, schemaPath := "docs/scenario.md", scenarios.SchemaFile
	if len(os.Args) == 3 {
		docPath, schemaPath = os.Args[1], os.Args[2]
	} else if len(os.Args) != 1 {
		fmt.Fprintln(os.Stderr, "usage: go run ./scenarios/internal/gendocs [DOC.md SCHEMA.json]")
		os.Exit(2)
	}
	doc, err := os.ReadFile(docPath)
	if err != nil {
		fail(err)
	}
	updated, err := scenarios.ReplaceFlagsSection(string(doc))
	if err != nil {
		fail(fmt.Errorf("%s: %w", docPath, err))
	}
	if updated, err = scenarios.ReplaceReferenceSection(updated); err != nil {
		fail(fmt.Errorf("%s: %w", docPath, err))
	}
	if updated, err = scenarios.ReplaceAnnotationsSection(updated); err != nil {
		fail(fmt.Errorf("%s: %w", docPath, err))
	}
	write(docPath, doc, []byte(updated))
	const upstreamPath = "docs/upstream.md"
	if len(os.Args) == 1 {
		up, err := os.ReadFile(upstreamPath)
		if err != nil {
			fail(err)
		}
		updatedUp, err := features.ReplaceMarkdownSection(string(up))
		if err != nil {
			fail(fmt.Errorf("%s: %w", upstreamPath, err))
		}
		write(upstreamPath, up, []byte(updatedUp))
	}
	old, err := os.ReadFile(schemaPath)
	if err != nil && !os.IsNotExist(err) {
		fail(err)
	}
	write(schemaPath, old, scenarios.Schema())
}

// write replaces path's content old with updated when they differ.
func write(path string, old, updated []byte) {
	if bytes.Equal(old, updated) {
		return
	}
	if err := os.WriteFile(path, updated, 0o644); err != nil {
		fail(err)
	}
	fmt.Println("gendocs: updated", path)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gendocs:", err)
	os.Exit(1)
}
