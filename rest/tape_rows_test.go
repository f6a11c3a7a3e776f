package rest

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// TestValidRowsMendsOldRows: a row an older binary stored with a body's
// invalid bytes is served as UTF-8 JSON; a valid row is served as stored.
func TestValidRowsMendsOldRows(t *testing.T) {
	good := []byte(`{"seq":1,"request":{"body":{"t":"ünï"}}}`)
	rows := [][]byte{[]byte("{\"seq\":2,\"request\":{\"body\":{\"t\":\"\xff\xc3\"}}}"), good}
	validRows(rows)
	for i, row := range rows {
		if !utf8.Valid(row) || !json.Valid(row) {
			t.Errorf("row %d: %q", i, row)
		}
	}
	if &rows[1][0] != &good[0] {
		t.Errorf("a valid row was copied")
	}
}
