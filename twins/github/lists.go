package github

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/url"
)

// RepoRef names a repository; every repository-scoped input embeds it.
type RepoRef struct {
	Owner string `json:"owner" jsonschema:"Repository owner (username or organization name)"`
	Repo  string `json:"repo" jsonschema:"Repository name"`
}

// List is a page of a list endpoint. Over MCP it is this object; over REST
// the binding's Shape sends Items as the bare JSON array GitHub returns and
// the Link header carries the paging.
type List[T any] struct {
	Items      []T  `json:"items"`
	TotalCount int  `json:"total_count"`
	Page       int  `json:"page"`
	PerPage    int  `json:"per_page"`
	HasNext    bool `json:"has_next_page"`
	// PageInfo is GraphQL's cursor paging, for tools whose github-mcp-server
	// counterpart pages with after/endCursor (list_issues).
	PageInfo *PageInfo `json:"pageInfo,omitempty"`

	link string
}

func (l *List[T]) linkHeader() string { return l.link }

// restBody is the REST shape of the list: the bare array.
func (l *List[T]) restBody() any { return l.Items }

// restBodier is implemented by outputs whose REST body differs from the MCP
// result.
type restBodier interface{ restBody() any }

// restShape is the Shape of bindings whose output knows its REST body.
func restShape(_, out any) any {
	if b, ok := out.(restBodier); ok {
		return b.restBody()
	}
	return out
}

// newList pages items and fills in the paging facts for both transports.
func newList[T any](ctx context.Context, items []T, p Paging, path string, query url.Values) *List[T] {
	page, info := paginate(ctx, items, p, path, query)
	return pagedList(page, len(items), info, p)
}

// newListOf is newList for items rendered from found ones, rendering only
// the page's: a list of every comment of a repository renders the page it
// answers, not all of them.
func newListOf[F, T any](ctx context.Context, found []F, render func(F) T, p Paging, path string, query url.Values) *List[T] {
	page, info := paginate(ctx, found, p, path, query)
	items := make([]T, len(page))
	for i, f := range page {
		items[i] = render(f)
	}
	return pagedList(items, len(found), info, p)
}

// pagedList is the list of page, one page of total items.
func pagedList[T any](page []T, total int, info pageInfo, p Paging) *List[T] {
	l := &List[T]{Items: page, TotalCount: total, Page: max(p.Page, 1), PerPage: p.PerPage, link: info.link}
	if l.PerPage <= 0 {
		l.PerPage = defaultPerPage
	}
	l.PerPage = min(l.PerPage, maxPerPage)
	l.HasNext = l.Page*l.PerPage < total
	return l
}

// PageInfo is the cursor half of a list page.
type PageInfo struct {
	HasNextPage bool   `json:"hasNextPage"`
	EndCursor   string `json:"endCursor,omitempty"`
}

// pageCursor encodes a page number as an opaque cursor, and pageOfCursor
// decodes it (0 for a cursor the twin did not hand out).
func pageCursor(page int) string {
	return base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("page:%d", page)))
}

func pageOfCursor(c string) int {
	b, err := base64.StdEncoding.DecodeString(c)
	if err != nil {
		return 0
	}
	var n int
	if _, err := fmt.Sscanf(string(b), "page:%d", &n); err != nil || n < 1 {
		return 0
	}
	return n
}

// withCursor fills in PageInfo: the cursor after this page leads to the next.
func (l *List[T]) withCursor() *List[T] {
	l.PageInfo = &PageInfo{HasNextPage: l.HasNext}
	if l.HasNext {
		l.PageInfo.EndCursor = pageCursor(l.Page + 1)
	}
	return l
}

// listState applies the state filter of the pull request and milestone
// lists: open when not given, else open, closed or all. resource names the
// 422's resource.
func listState(resource, state string) (string, error) {
	switch state {
	case "":
		return "open", nil
	case "open", "closed", "all":
		return state, nil
	}
	return "", invalid(resource, "state", "invalid", "state must be open, closed or all, got %q", state)
}
