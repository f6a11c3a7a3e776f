package github

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pomehq/pome/twins"
)

// Issue fields: an organization's custom fields (text, number, date or
// single select) and their values on its repositories' issues. The seed
// declares them (orgs[].issue_fields, issues[].field_values); REST writes
// values with issue_write's issue_field_values, as GitHub's issue create
// and edit take them; GraphQL reads them (issueFields, issueFieldValues,
// filterBy.issueFieldValues), which is how github-mcp-server reads them.

// OrgIssueField is one of an organization's issue fields.
type OrgIssueField struct {
	ID          int64  `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// DataType is text, number, date or single_select.
	DataType  string              `json:"data_type"`
	Options   []*IssueFieldOption `json:"options,omitempty"`
	CreatedAt time.Time           `json:"created_at"`
}

// IssueFieldOption is one option of a single select field.
type IssueFieldOption struct {
	ID          int64  `json:"id"`
	Name        string `json:"name"`
	Color       string `json:"color,omitempty"`
	Description string `json:"description,omitempty"`
}

// FieldValue is an issue's value of one field: Value holds text, a date
// (YYYY-MM-DD) or an option's name, Number a number field's value.
type FieldValue struct {
	FieldID int64   `json:"field_id"`
	Value   string  `json:"value,omitempty"`
	Number  float64 `json:"number,omitempty"`
}

var issueFieldTypes = []string{"text", "number", "date", "single_select"}

func (o *Org) issueField(name string) *OrgIssueField {
	for _, f := range o.IssueFields {
		if strings.EqualFold(f.Name, name) {
			return f
		}
	}
	return nil
}

func (o *Org) issueFieldByID(id int64) *OrgIssueField {
	for _, f := range o.IssueFields {
		if f.ID == id {
			return f
		}
	}
	return nil
}

func (f *OrgIssueField) option(name string) *IssueFieldOption {
	for _, o := range f.Options {
		if strings.EqualFold(o.Name, name) {
			return o
		}
	}
	return nil
}

// fieldValue checks a value (decoded JSON) for a field, as GitHub does
// before it stores it.
func fieldValue(f *OrgIssueField, v any) (*FieldValue, error) {
	out := &FieldValue{FieldID: f.ID}
	switch f.DataType {
	case "number":
		switch n := v.(type) {
		case float64:
			out.Number = n
		case string:
			x, err := strconv.ParseFloat(n, 64)
			if err != nil {
				return nil, fmt.Errorf("%s takes a number, got %q", f.Name, n)
			}
			out.Number = x
		default:
			return nil, fmt.Errorf("%s takes a number, got %v", f.Name, v)
		}
		return out, nil
	}
	s, ok := v.(string)
	if !ok || strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("%s takes a non-empty string, got %v", f.Name, v)
	}
	switch f.DataType {
	case "date":
		if _, err := time.Parse("2006-01-02", s); err != nil {
			return nil, fmt.Errorf("%s takes a date (YYYY-MM-DD), got %q", f.Name, s)
		}
	case "single_select":
		o := f.option(s)
		if o == nil {
			return nil, fmt.Errorf("%s has no option %q", f.Name, s)
		}
		s = o.Name
	}
	out.Value = s
	return out, nil
}

// setFieldValue replaces (or adds) the issue's value of one field; it
// reports whether anything changed.
func setFieldValue(is *Issue, v *FieldValue) bool {
	for i, x := range is.FieldValues {
		if x.FieldID == v.FieldID {
			if *x == *v {
				return false
			}
			is.FieldValues[i] = v
			return true
		}
	}
	is.FieldValues = append(is.FieldValues, v)
	return true
}

// IssueFieldValueIn is one value of issue_write's issue_field_values
// (GitHub's REST body): a field's id and its value.
type IssueFieldValueIn struct {
	FieldID int64           `json:"field_id" jsonschema:"The issue field's id (list_issue_fields)"`
	Value   json.RawMessage `json:"value" jsonschema:"The value: text, a number, a date (YYYY-MM-DD) or a single select option's name"`
}

// fieldValuesPatch checks issue_field_values against the repository's
// organization. GitHub sets them as a whole: the issue keeps exactly the
// values listed (a null value is left out), so nil means "leave them" and
// an empty list clears them all.
func fieldValuesPatch(w *World, r *Repo, in []IssueFieldValueIn) (*[]*FieldValue, error) {
	if in == nil {
		return nil, nil
	}
	o := w.org(r.Owner)
	out := []*FieldValue{}
	seen := map[int64]bool{}
	for _, v := range in {
		var f *OrgIssueField
		if o != nil {
			f = o.issueFieldByID(v.FieldID)
		}
		if f == nil {
			return nil, invalid("Issue", "issue_field_values", "invalid", "%d is not an issue field of %s", v.FieldID, r.Owner).With("value", v.FieldID)
		}
		if seen[f.ID] {
			return nil, invalid("Issue", "issue_field_values", "invalid", "issue field %d is given twice", f.ID)
		}
		seen[f.ID] = true
		var val any
		if err := json.Unmarshal(v.Value, &val); err != nil || val == nil {
			continue
		}
		fv, err := fieldValue(f, val)
		if err != nil {
			return nil, invalid("Issue", "issue_field_values", "invalid", "%v", err)
		}
		out = append(out, fv)
	}
	slices.SortFunc(out, func(a, b *FieldValue) int { return cmp.Compare(a.FieldID, b.FieldID) })
	return &out, nil
}

// applyFieldValues replaces the issue's values; it reports whether
// anything changed.
func applyFieldValues(is *Issue, vals *[]*FieldValue) bool {
	if vals == nil {
		return false
	}
	if slices.EqualFunc(is.FieldValues, *vals, func(a, b *FieldValue) bool { return *a == *b }) {
		return false
	}
	is.FieldValues = *vals
	if len(is.FieldValues) == 0 {
		is.FieldValues = nil
	}
	return true
}

// IssueFieldValueDeleteIn is delete_issue_field_value's input.
type IssueFieldValueDeleteIn struct {
	RepoRef
	IssueNumber int   `json:"issue_number" jsonschema:"Issue number"`
	FieldID     int64 `json:"field_id" jsonschema:"The issue field whose value to clear"`
}

// deleteIssueFieldValue is DELETE
// /repos/{owner}/{repo}/issues/{issue_number}/issue-field-values/{field_id},
// which github-mcp-server's issue_write calls to clear the last values of
// an issue (a PATCH cannot send an empty list through go-github).
var deleteIssueFieldValue = twins.New(twins.Spec{
	Name: "delete_issue_field_value", Title: "Clear an issue field value",
	Description: "Clear an issue's value of one of its organization's issue fields.",
	Effect:      twins.Destructive,
	Bindings:    []twins.Binding{{Method: "DELETE", Path: issuePath + "/issue-field-values/{field_id}", Status: 204, Shape: noBody}},
}, func(ctx context.Context, w *World, in IssueFieldValueDeleteIn) (*struct{}, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return nil, err
	}
	is, err := r.issue(in.IssueNumber)
	if err != nil {
		return nil, err
	}
	for i, v := range is.FieldValues {
		if v.FieldID == in.FieldID {
			is.FieldValues = slices.Delete(is.FieldValues, i, i+1)
			if len(is.FieldValues) == 0 {
				is.FieldValues = nil
			}
			is.UpdatedAt = twins.EnvFrom(ctx).Now().UTC()
			return &struct{}{}, nil
		}
	}
	return nil, notFound("issue #%d has no value of issue field %d", is.Number, in.FieldID)
})

// APIIssueFieldValue is GitHub's issue_field_values entry of an issue.
type APIIssueFieldValue struct {
	IssueFieldID       int64                  `json:"issue_field_id"`
	NodeID             string                 `json:"node_id"`
	DataType           string                 `json:"data_type"`
	Value              any                    `json:"value"`
	SingleSelectOption *APIIssueFieldOptionIn `json:"single_select_option,omitempty"`
}

// APIIssueFieldOptionIn is the option a single select value names.
type APIIssueFieldOptionIn struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Color string `json:"color"`
}

// issueFieldValues renders an issue's values (nil when it has none, so the
// key is left out as GitHub leaves it out).
func (v *view) issueFieldValues(r *Repo, is *Issue) []APIIssueFieldValue {
	o := v.w.org(r.Owner)
	if o == nil || len(is.FieldValues) == 0 {
		return nil
	}
	var out []APIIssueFieldValue
	for _, fv := range is.FieldValues {
		f := o.issueFieldByID(fv.FieldID)
		if f == nil {
			continue
		}
		a := APIIssueFieldValue{IssueFieldID: f.ID, NodeID: nodeID("IFV", fv.FieldID*1_000_000+is.ID), DataType: f.DataType, Value: fv.Value}
		switch f.DataType {
		case "number":
			a.Value = fv.Number
		case "single_select":
			if opt := f.option(fv.Value); opt != nil {
				a.SingleSelectOption = &APIIssueFieldOptionIn{ID: opt.ID, Name: opt.Name, Color: opt.Color}
			}
		}
		out = append(out, a)
	}
	return out
}
