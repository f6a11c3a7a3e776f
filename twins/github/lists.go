package github

import (
	"context"
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
	l := &List[T]{Items: page, TotalCount: len(items), Page: max(p.Page, 1), PerPage: p.PerPage, link: info.link}
	if l.PerPage <= 0 {
		l.PerPage = defaultPerPage
	}
	l.PerPage = min(l.PerPage, maxPerPage)
	l.HasNext = l.Page*l.PerPage < len(items)
	return l
}
