package github

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// uncheckedRepoUse names the declarations that may read World.Repos or call
// repoIndex, which see every repository whoever may see it. Everything
// else, every action handler above all, goes through repo and
// visibleRepos, so that a new handler cannot forget who may see what.
// The seed and the checks read the whole world by design.
var uncheckedRepoUse = map[string]string{
	"repoIndex":        "the unchecked lookup itself",
	"repo":             "the checked lookup",
	"visibleRepos":     "the checked list",
	"indexIssues":      "rebuilds indexes of every repository",
	"repository":       "counts forks, each checked with visible",
	"fullUser":         "counts public repositories only",
	"createRepository": "a new name must be free among all repositories",
	"forkRepository":   "a fork's name must be free among all repositories (into an owner the user may write to)",
}

func TestHandlersLookUpRepositoriesThroughTheCheckedAccessor(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var bad []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == "seed.go" || f == "checks.go" {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			names := declNames(d)
			ast.Inspect(d, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok || (sel.Sel.Name != "Repos" && sel.Sel.Name != "repoIndex") {
					return true
				}
				for _, name := range names {
					if _, ok := uncheckedRepoUse[name]; ok {
						return true
					}
				}
				bad = append(bad, fset.Position(sel.Pos()).String()+" ("+strings.Join(names, ",")+")")
				return true
			})
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Errorf("%s reads repositories without the visibility check; use w.repo or w.visibleRepos", b)
	}
}

func declNames(d ast.Decl) []string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		return []string{d.Name.Name}
	case *ast.GenDecl:
		var out []string
		for _, s := range d.Specs {
			if v, ok := s.(*ast.ValueSpec); ok {
				for _, n := range v.Names {
					out = append(out, n.Name)
				}
			}
		}
		return out
	}
	return nil
}
