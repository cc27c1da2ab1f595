package detlint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Package is one node of an import graph: a package, whether it is in the standard library,
// and the packages its non-test files import (go list's Imports).
type Package struct {
	ImportPath string
	Standard   bool
	Imports    []string
	// DepOnly is true for a package listed only as a dependency of the patterns.
	DepOnly bool
}

// ImportRule is one rule of docs/architecture.md#layers: packages matching From must not
// import a package Forbidden reports. Paths are relative to the module ("sim/apiserver"); a
// package outside the module is given with its full path.
type ImportRule struct {
	// Rule states the rule as the docs do.
	Rule string
	// From reports whether the rule applies to a package of the module.
	From func(pkg string) bool
	// Forbidden reports whether importing imp breaks the rule (standard is true for a
	// standard-library package).
	Forbidden func(imp string, standard bool) bool
}

// under reports whether rel is pkg or inside it.
func under(rel, pkg string) bool { return rel == pkg || strings.HasPrefix(rel, pkg+"/") }

// isTestWorld reports whether rel is a controller test harness (a testworld package): test
// support that builds a whole world, API server included, for controllers' tests.
func isTestWorld(rel string) bool {
	for _, seg := range strings.Split(rel, "/") {
		if seg == "testworld" {
			return true
		}
	}
	return false
}

// ImportRules are the layering rules docs/architecture.md states, checked by
// TestImportRules. Each rule's reason is in that document.
var ImportRules = []ImportRule{
	{
		Rule: "the kernel (sim) imports only the standard library and vtime",
		From: func(p string) bool { return p == "sim" },
		Forbidden: func(imp string, standard bool) bool {
			return !standard && imp != "vtime"
		},
	},
	{
		Rule:      "model imports no simulation package (sim or sim/...)",
		From:      func(p string) bool { return under(p, "model") },
		Forbidden: func(imp string, _ bool) bool { return under(imp, "sim") },
	},
	{
		Rule: "controllers (sim/controllers/..., test worlds aside) never import sim/apiserver",
		From: func(p string) bool { return under(p, "sim/controllers") && !isTestWorld(p) },
		Forbidden: func(imp string, _ bool) bool {
			return under(imp, "sim/apiserver")
		},
	},
	{
		Rule:      "report never imports a controller (sim/controllers/...)",
		From:      func(p string) bool { return under(p, "report") },
		Forbidden: func(imp string, _ bool) bool { return under(imp, "sim/controllers") },
	},
	{
		Rule:      "scenarios never imports sim/apiserver",
		From:      func(p string) bool { return under(p, "scenarios") },
		Forbidden: func(imp string, _ bool) bool { return under(imp, "sim/apiserver") },
	},
}

// CheckImports returns every import in pkgs that breaks one of rules, as "pkg imports imp:
// rule", sorted. module is the module path; packages outside it are not checked, and their
// imports are not checked either. An import of a package absent from pkgs counts as not
// standard.
func CheckImports(module string, pkgs []Package, rules []ImportRule) []string {
	standard := make(map[string]bool, len(pkgs))
	for _, p := range pkgs {
		standard[p.ImportPath] = p.Standard
	}
	rel := func(path string) (string, bool) {
		if path == module {
			return ".", true
		}
		if r, ok := strings.CutPrefix(path, module+"/"); ok {
			return r, true
		}
		return path, false
	}
	var out []string
	for _, p := range pkgs {
		from, ok := rel(p.ImportPath)
		if !ok {
			continue
		}
		for _, r := range rules {
			if !r.From(from) {
				continue
			}
			for _, imp := range p.Imports {
				to, _ := rel(imp)
				if r.Forbidden(to, standard[imp]) {
					out = append(out, fmt.Sprintf("%s imports %s: %s", from, to, r.Rule))
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// ImportGraph lists the packages matching patterns (go list syntax, run in dir) and all they
// depend on, with the module's path.
func ImportGraph(dir string, patterns ...string) (module string, pkgs []Package, err error) {
	m, err := goList(dir, "list", "-m")
	if err != nil {
		return "", nil, err
	}
	args := append([]string{"list", "-deps", "-json=ImportPath,Standard,Imports,DepOnly"}, patterns...)
	out, err := goList(dir, args...)
	if err != nil {
		return "", nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p Package
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return "", nil, fmt.Errorf("decoding go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return strings.TrimSpace(string(m)), pkgs, nil
}
