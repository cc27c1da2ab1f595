package detlint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Finding is one reported construct.
type Finding struct {
	Pos     token.Position
	Message string
}

func (f Finding) String() string { return fmt.Sprintf("%s: %s", f.Pos, f.Message) }

type listedPackage struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Export     string
	Standard   bool
	DepOnly    bool
}

var wallClock = map[string]bool{
	"Now": true, "Since": true, "Until": true, "Sleep": true, "After": true, "Tick": true,
	"NewTimer": true, "NewTicker": true, "AfterFunc": true,
}

// allowedRandV2 are the math/rand/v2 package-level names that do not touch the global source.
var allowedRandV2 = map[string]bool{"New": true, "NewPCG": true, "NewChaCha8": true, "NewZipf": true}

// SimulationPath are the patterns (go list syntax, from the module root) of the packages on
// the simulation path, the lint's scope: everything a run executes between its first event
// and its Result. That is the kernel and every component (sim/...), the API types (model/...),
// virtual time (vtime), the components' flag tables (internal/flagtab) and range checks
// (internal/bounds, which their Validate use), the one "did you mean" (internal/suggest, which
// decoding uses), the shared wording helpers (internal/words), internal/atomicfile, internal/boundedfile and
// internal/plotstyle (dependencies of report, whose Result sim/cluster builds; scenarios reads
// files with internal/boundedfile), and scenarios, whose defaults, component settings and timeline
// targeting (NodeTarget.Select draws from the run's stream) are read while the world is built
// and played. report and internal/tracefold are not on it (OffThePath); sweep, explore and
// internal/cli start runs but do not run inside one.
var SimulationPath = []string{"./sim/...", "./model/...", "./vtime", "./internal/flagtab", "./internal/bounds", "./internal/suggest", "./internal/words", "./internal/atomicfile", "./internal/boundedfile", "./internal/plotstyle", "./scenarios"}

// OffThePath are the module's packages a run depends on that are not on the simulation path,
// because nothing they do flows back into the run: report renders what a run recorded (its
// TraceWriter encodes the trace's written bytes on a goroutine as the run goes), and
// internal/tracefold folds the trace's finished lines into its hash on a goroutine.
var OffThePath = []string{"report", "internal/tracefold"}

// goList runs "go" with args (a go list command line) in dir and returns its standard output;
// a failure's error carries what go wrote to standard error.
func goList(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v: %s", err, stderr.String())
	}
	return out, nil
}

// Check lints the packages matching patterns (go list syntax, run in dir).
func Check(dir string, patterns ...string) ([]Finding, error) {
	args := append([]string{"list", "-e", "-export", "-deps", "-json=ImportPath,Dir,GoFiles,Export,Standard,DepOnly"}, patterns...)
	out, err := goList(dir, args...)
	if err != nil {
		return nil, err
	}
	exports := map[string]string{}
	var targets []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("decoding go list output: %v", err)
		}
		if p.Export != "" {
			exports[p.ImportPath] = p.Export
		}
		if !p.DepOnly && !p.Standard {
			targets = append(targets, p)
		}
	}
	if len(targets) == 0 {
		return nil, fmt.Errorf("no packages match %v", patterns)
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	var findings []Finding
	for _, p := range targets {
		fs, err := checkPackage(fset, imp, p)
		if err != nil {
			return nil, err
		}
		findings = append(findings, fs...)
	}
	sort.Slice(findings, func(i, j int) bool {
		a, b := findings[i].Pos, findings[j].Pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		return a.Line < b.Line
	})
	return findings, nil
}

func checkPackage(fset *token.FileSet, imp types.Importer, p listedPackage) ([]Finding, error) {
	var files []*ast.File
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: imp}
	if _, err := conf.Check(p.ImportPath, fset, files, info); err != nil {
		return nil, fmt.Errorf("type-checking %s: %v", p.ImportPath, err)
	}
	var out []Finding
	report := func(n ast.Node, format string, args ...any) {
		out = append(out, Finding{Pos: fset.Position(n.Pos()), Message: fmt.Sprintf(format, args...)})
	}
	for _, f := range files {
		ordered := orderedLines(fset, f)
		for _, is := range f.Imports {
			path := strings.Trim(is.Path.Value, `"`)
			if path == "math/rand" || path == "crypto/rand" {
				report(is, "import of %s: use a seeded stream from Kernel.Rand", path)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				report(n, "go statement: simulation code runs on the kernel, in processes (Kernel.Spawn)")
			case *ast.SelectorExpr:
				obj, ok := info.Uses[n.Sel]
				if !ok || obj.Pkg() == nil {
					return true
				}
				if _, isFunc := obj.(*types.Func); !isFunc || obj.Parent() != obj.Pkg().Scope() {
					return true
				}
				switch obj.Pkg().Path() {
				case "time":
					if wallClock[obj.Name()] {
						report(n, "time.%s reads or waits on the wall clock: use virtual time (Kernel.Now, Proc.Sleep, Kernel.NewTimer)", obj.Name())
					}
				case "math/rand/v2":
					if !allowedRandV2[obj.Name()] {
						report(n, "rand.%s uses the global random source: use a seeded stream from Kernel.Rand", obj.Name())
					}
				}
			case *ast.RangeStmt:
				tv, ok := info.Types[n.X]
				if !ok {
					return true
				}
				if _, isMap := tv.Type.Underlying().(*types.Map); isMap {
					line := fset.Position(n.Pos()).Line
					if !ordered[line] && !ordered[line-1] {
						report(n, "range over a map: iteration order is random; sort the keys, or mark with //detlint:ordered <why order cannot matter>")
					}
				}
			}
			return true
		})
	}
	return out, nil
}

// orderedLines returns the lines that carry a //detlint:ordered annotation with a reason.
func orderedLines(fset *token.FileSet, f *ast.File) map[int]bool {
	lines := map[int]bool{}
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			text := strings.TrimSpace(strings.TrimPrefix(c.Text, "//"))
			if reason, ok := strings.CutPrefix(text, "detlint:ordered"); ok && strings.TrimSpace(reason) != "" {
				lines[fset.Position(c.Pos()).Line] = true
			}
		}
	}
	return lines
}
