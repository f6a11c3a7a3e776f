package session

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// TestSandboxClone: a clone is the same record and shares nothing a caller
// could change, so the decoded record the Redis store keeps cannot be
// changed through one handed out.
func TestSandboxClone(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	stopped, clock := at.Add(time.Hour), at.Add(-time.Hour)
	sb := &Sandbox{
		ID: "ses_x", Team: "t", Twins: []string{"github", "slack"}, State: StateStopped,
		CreatedAt: at, ExpiresAt: at.Add(time.Hour), StoppedAt: &stopped, RetainUntil: at.Add(2 * time.Hour),
		ClockStart: &clock, TaskSource: "task", AuthHash: "a", AgentHash: "b",
		ProviderHashes: map[string]string{"github": "c"}, SeedHashes: map[string][]string{"stripe": {"d"}},
		UserHashes: map[string]string{"slack": "e"},
	}
	want, _ := json.Marshal(sb)
	c := sb.clone()
	if got, _ := json.Marshal(c); string(got) != string(want) {
		t.Fatalf("clone = %s\nwant %s", got, want)
	}
	c.Twins[0] = "x"
	c.ProviderHashes["github"] = "x"
	c.SeedHashes["stripe"][0] = "x"
	c.UserHashes["slack"] = "x"
	*c.StoppedAt = at
	*c.ClockStart = at
	c.State = StateReady
	if got, _ := json.Marshal(sb); string(got) != string(want) {
		t.Errorf("changing the clone changed the original: %s", got)
	}
	// A reference field added to Sandbox must be copied by clone too (view
	// spec and hold belong to one call and are dropped).
	known := map[string]bool{"Twins": true, "ProviderHashes": true, "SeedHashes": true, "UserHashes": true, "StoppedAt": true, "ClockStart": true, "view": true, "spec": true, "hold": true}
	rt := reflect.TypeOf(Sandbox{})
	for i := range rt.NumField() {
		f := rt.Field(i)
		switch f.Type.Kind() {
		case reflect.Map, reflect.Slice, reflect.Pointer, reflect.Interface, reflect.Chan, reflect.Func:
			if !known[f.Name] {
				t.Errorf("Sandbox.%s is a %s: make clone copy it and list it here", f.Name, f.Type.Kind())
			}
		}
	}
}

// TestMetaCacheBound: the decoded records kept stay within their bound,
// and a record read with other bytes is decoded afresh.
func TestMetaCacheBound(t *testing.T) {
	var c metaCache
	for i := range metaCacheEntries + 100 {
		id := "ses_" + time.Duration(i).String()
		if _, err := c.decode(id, `{"id":"`+id+`","state":"ready"}`); err != nil {
			t.Fatal(err)
		}
	}
	if n := c.len(); n > metaCacheEntries {
		t.Errorf("%d records kept, bound %d", n, metaCacheEntries)
	}
	a, _ := c.decode("ses_a", `{"id":"ses_a","state":"ready"}`)
	a.State = StateExpired
	b, _ := c.decode("ses_a", `{"id":"ses_a","state":"ready"}`)
	s, _ := c.decode("ses_a", `{"id":"ses_a","state":"stopped"}`)
	if b.State != StateReady || s.State != StateStopped {
		t.Errorf("states %q, %q, want ready (unchanged by a caller) then stopped", b.State, s.State)
	}
}
