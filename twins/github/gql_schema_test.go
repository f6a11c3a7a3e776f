package github

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	graphql "github.com/graph-gophers/graphql-go"
	"github.com/graph-gophers/graphql-go/ast"
)

// githubSchema names a copy of GitHub's published GraphQL schema (the SDL
// of docs.github.com's public schema, or octokit/graphql-schema's
// schema.graphql). With it, TestGraphQLSchemaIsGitHubs checks every type,
// field, argument, input field and enum value the twin serves against
// GitHub's own, and rewrites testdata/graphql/published.txt.
var githubSchema = flag.String("github-schema", "", "GitHub's published GraphQL schema (SDL) to check gql_schema.graphql against")

// schemaSigs lists what a schema declares, one line per thing, each with
// its type where it has one: "type Issue.title: String!",
// "type Issue.labels(first): Int", "input AddCommentInput.body: String!",
// "enum IssueState.OPEN", "type Issue implements Node", "union
// SearchResultItem = Issue", "scalar DateTime". Only what the twin's
// schema declares is compared, so GitHub's many other fields do not matter.
func schemaSigs(s *ast.Schema) map[string]string {
	out := map[string]string{}
	for name, t := range s.Types {
		if strings.HasPrefix(name, "__") {
			continue
		}
		switch t := t.(type) {
		case *ast.ObjectTypeDefinition:
			for _, f := range t.Fields {
				out["type "+name+"."+f.Name] = f.Type.String()
				for _, a := range f.Arguments {
					out["type "+name+"."+f.Name+"("+a.Name.Name+")"] = a.Type.String()
				}
			}
			for _, i := range t.Interfaces {
				out["type "+name+" implements "+i.Name] = ""
			}
		case *ast.InterfaceTypeDefinition:
			for _, f := range t.Fields {
				out["interface "+name+"."+f.Name] = f.Type.String()
				for _, a := range f.Arguments {
					out["interface "+name+"."+f.Name+"("+a.Name.Name+")"] = a.Type.String()
				}
			}
		case *ast.InputObject:
			for _, f := range t.Values {
				out["input "+name+"."+f.Name.Name] = f.Type.String()
			}
		case *ast.EnumTypeDefinition:
			for _, v := range t.EnumValuesDefinition {
				out["enum "+name+"."+v.EnumValue] = ""
			}
		case *ast.Union:
			for _, m := range t.UnionMemberTypes {
				out["union "+name+" = "+m.Name] = ""
			}
		case *ast.ScalarTypeDefinition:
			if !slices.Contains([]string{"Int", "Float", "String", "Boolean", "ID"}, name) {
				out["scalar "+name] = ""
			}
		}
	}
	return out
}

// deprecated matches @deprecated directives, which graphql-go refuses on
// fields of GitHub's schema whose interface does not deprecate them.
var deprecated = regexp.MustCompile(`@deprecated(\(\s*reason:\s*"(?:[^"\\]|\\.)*"\s*\))?`)

func parseSigs(t *testing.T, sdl string) map[string]string {
	t.Helper()
	s, err := graphql.ParseSchema(deprecated.ReplaceAllString(sdl, ""), nil)
	if err != nil {
		t.Fatalf("parse schema: %v", err)
	}
	return schemaSigs(s.ASTSchema())
}

func sigLine(sig, typ string) string {
	if typ == "" {
		return sig
	}
	return sig + ": " + typ
}

// readSigs reads a reference file: one sigLine per line; "#" starts a
// comment, and "newer.txt" gives each line its source after " # ".
func readSigs(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -github-schema=FILE to build it)", err)
	}
	out := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		l, _, _ = strings.Cut(l, "#")
		if l = strings.TrimSpace(l); l != "" {
			out[l] = ""
		}
	}
	return out
}

// TestGraphQLSchemaIsGitHubs checks that every type, field, argument,
// input field and enum value gql_schema.graphql serves is GitHub's, with
// GitHub's types. testdata/graphql/published.txt holds what was checked
// against GitHub's published schema (with -github-schema); newer.txt what
// GitHub serves but its published schema predates, each line naming the
// github-mcp-server query that sends it. A change to the twin's schema
// fails here until it is checked again, so a made-up field or a wrong
// nullability cannot slip in.
func TestGraphQLSchemaIsGitHubs(t *testing.T) {
	ours := parseSigs(t, gqlSchemaSDL)
	dir := filepath.Join("testdata", "graphql")
	newer := readSigs(t, filepath.Join(dir, "newer.txt"))

	if *githubSchema != "" {
		b, err := os.ReadFile(*githubSchema)
		if err != nil {
			t.Fatal(err)
		}
		gh := parseSigs(t, string(b))
		var published []string
		for sig, typ := range ours {
			ghTyp, ok := gh[sig]
			switch {
			case ok && ghTyp != typ:
				t.Errorf("%s: GitHub's type is %s, the twin's %s", sig, ghTyp, typ)
			case ok:
				published = append(published, sigLine(sig, typ))
			default:
				if _, known := newer[sigLine(sig, typ)]; !known {
					t.Errorf("%s is not in GitHub's published schema: fix it, or add it to %s with the query that sends it", sigLine(sig, typ), filepath.Join(dir, "newer.txt"))
				}
			}
		}
		slices.Sort(published)
		head := fmt.Sprintf("# What the twin's GraphQL schema serves that GitHub's published schema\n# (%s) declares, with the same types. Rebuilt by\n# go test ./twins/github -run TestGraphQLSchemaIsGitHubs -github-schema=FILE\n", filepath.Base(*githubSchema))
		if err := os.WriteFile(filepath.Join(dir, "published.txt"), []byte(head+strings.Join(published, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	published := readSigs(t, filepath.Join(dir, "published.txt"))
	for sig, typ := range ours {
		l := sigLine(sig, typ)
		_, inPublished := published[l]
		_, inNewer := newer[l]
		if !inPublished && !inNewer {
			t.Errorf("%s is served but not checked against GitHub's schema (run with -github-schema=FILE, or add it to newer.txt with its source)", l)
		}
	}
	served := map[string]bool{}
	for sig, typ := range ours {
		served[sigLine(sig, typ)] = true
	}
	for _, ref := range []map[string]string{published, newer} {
		for l := range ref {
			if !served[l] {
				t.Errorf("%s is listed as checked but not served: remove it", l)
			}
		}
	}
}
