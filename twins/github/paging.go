package github

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/pomehq/pome/twins"
)

// GitHub's page sizes.
const (
	defaultPerPage = 30
	maxPerPage     = 100
)

// Paging is embedded (as fields) in list inputs: GitHub's REST spells them
// page and per_page, github-mcp-server spells them page and perPage; REST
// bindings rename per_page to perPage.
type Paging struct {
	Page    int `json:"page,omitempty" jsonschema:"Page number for pagination (min 1)"`
	PerPage int `json:"perPage,omitempty" jsonschema:"Results per page for pagination (min 1, max 100)"`
}

var perPageRename = map[string]string{"per_page": "perPage"}

// pageInfo is what a handler learned while slicing a list; it becomes the
// Link header.
type pageInfo struct {
	link string
}

// linker is implemented by list outputs that carry a Link header.
type linker interface{ linkHeader() string }

// linkHeaders is the Headers func of every paginated binding.
func linkHeaders(_, out any) [][2]string {
	if l, ok := out.(linker); ok {
		if h := l.linkHeader(); h != "" {
			return [][2]string{{"Link", h}}
		}
	}
	return nil
}

// paginate slices items for the requested page and builds GitHub's Link
// header for the list at path (below the API root) with the given query.
func paginate[T any](ctx context.Context, items []T, p Paging, path string, query url.Values) ([]T, pageInfo) {
	per := p.PerPage
	if per <= 0 {
		per = defaultPerPage
	}
	if per > maxPerPage {
		per = maxPerPage
	}
	page := p.Page
	if page <= 0 {
		page = 1
	}
	total := len(items)
	last := (total + per - 1) / per
	if last == 0 {
		last = 1
	}
	start := (page - 1) * per
	var out []T
	if start < total {
		end := min(start+per, total)
		out = items[start:end]
	}
	if out == nil {
		out = []T{}
	}
	info := pageInfo{link: linkHeader(apiRoot(ctx)+path, query, page, per, last, p.PerPage > 0)}
	return out, info
}

// linkHeader formats Link exactly as GitHub does: prev, next, last, first,
// each present only when it leads somewhere.
func linkHeader(base string, query url.Values, page, per, last int, perPageGiven bool) string {
	if last <= 1 {
		return ""
	}
	mk := func(n int, rel string) string {
		q := url.Values{}
		for k, vs := range query {
			q[k] = vs
		}
		if perPageGiven {
			q.Set("per_page", fmt.Sprint(per))
		}
		q.Set("page", fmt.Sprint(n))
		return fmt.Sprintf("<%s?%s>; rel=%q", base, q.Encode(), rel)
	}
	var parts []string
	if page > 1 {
		parts = append(parts, mk(min(page-1, last), "prev"))
	}
	if page < last {
		parts = append(parts, mk(page+1, "next"), mk(last, "last"))
	}
	if page > 1 {
		parts = append(parts, mk(1, "first"))
	}
	return strings.Join(parts, ", ")
}

func apiRoot(ctx context.Context) string {
	if u := twins.EnvFrom(ctx).APIURL; u != "" {
		return u
	}
	return "https://api.github.com"
}

func pathEscape(s string) string { return url.PathEscape(s) }
