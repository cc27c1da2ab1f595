package main

import (
	"fmt"
	"os"

	"github.com/reconsim/reconsim/scenarios"
)

func main() {
	path := "docs/scenario.md"
	if len(os.Args) > 1 {
		path = os.Args[1]
	}
	doc, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
	updated, err := scenarios.ReplaceFlagsSection(string(doc))
	if err != nil {
		fmt.Fprintf(os.Stderr, "gendocs: %s: %v\n", path, err)
		os.Exit(1)
	}
	if updated == string(doc) {
		return
	}
	if err := os.WriteFile(path, []byte(updated), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
	fmt.Println("gendocs: updated", path)
}
