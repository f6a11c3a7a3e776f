// Package storetest is the conformance suite every session.Store backend
// passes, so that the embedded default and the Redis backend cannot drift.
//
// Expiry is real time in Redis, so the suite runs on the wall clock and
// gives sandboxes lifetimes of a few hundred milliseconds, waiting for them
// to go with a deadline rather than advancing a fake clock.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/tape"
	"github.com/pomehq/pome/twins"
)

// World is the fake twins' world: small enough to reason about, with a
// counter for lost-update checks and a list for ordering checks.
type World struct {
	Counter int      `json:"counter"`
	Items   []string `json:"items"`
}

// FakeTwin returns a twin with a World and no actions: the store only needs
// its name and world codec.
func FakeTwin(name string) *twins.Twin {
	newWorld, decode := twins.WorldCodec(func(ctx context.Context, seed json.RawMessage) (*World, error) {
		w := &World{Items: []string{}}
		if len(seed) > 0 {
			if err := json.Unmarshal(seed, w); err != nil {
				return nil, err
			}
		}
		return w, nil
	})
	return &twins.Twin{Name: name, NewWorld: newWorld, DecodeWorld: decode}
}

// The fake twins sandboxes in the suite run.
var (
	Alpha = FakeTwin("alpha")
	Beta  = FakeTwin("beta")
)

// seedDoc is every fake twin's seed, so Seed can be told apart from a
// default world.
const seedDoc = `{"counter":0,"items":["seed"]}`

// SeedWorlds builds the seed worlds of the named fake twins, as the control
// plane would from a seed document.
func SeedWorlds(tb testing.TB, twinNames ...string) map[string]session.SeedWorld {
	tb.Helper()
	out := map[string]session.SeedWorld{}
	for _, name := range twinNames {
		w, err := FakeTwin(name).NewWorld(context.Background(), json.RawMessage(seedDoc))
		if err != nil {
			tb.Fatal(err)
		}
		doc, err := json.Marshal(w)
		if err != nil {
			tb.Fatal(err)
		}
		out[name] = session.SeedWorld{World: w, Doc: doc}
	}
	return out
}

// NewSandbox returns a ready sandbox record of team, created at created and
// expiring ttl later, running the named twins.
func NewSandbox(team string, created time.Time, ttl time.Duration, twinNames ...string) *session.Sandbox {
	created = created.UTC()
	return &session.Sandbox{
		ID:             session.NewSandboxID(),
		Team:           team,
		Twins:          twinNames,
		State:          session.StateReady,
		CreatedAt:      created,
		ExpiresAt:      created.Add(ttl),
		RetainUntil:    created.Add(ttl),
		AuthHash:       session.HashToken("auth"),
		AgentHash:      session.HashToken("agent"),
		ProviderHashes: map[string]string{},
	}
}

// NewTeam returns a team name no other run shares, so that runs against
// one Redis never see each other's sandboxes or counters.
func NewTeam() string { return "team_" + rand.Text() }

// Increment is an UpdateFunc that adds one to the counter.
func Increment(world any) (bool, error) {
	world.(*World).Counter++
	return true, nil
}

// NewRow returns a tape row of the sandbox's twin, its seq left to Append.
func NewRow(sb *session.Sandbox, twin, path string) *tape.Row {
	tool := "do_thing"
	return &tape.Row{
		At:            time.Date(2026, 12, 2, 15, 1, 2, 123456000, time.UTC),
		SessionID:     sb.ID,
		Twin:          twin,
		Transport:     tape.TransportREST,
		Method:        "POST",
		Path:          path,
		Tool:          &tool,
		Status:        201,
		StateMutation: true,
		Request: tape.Request{
			Query:   map[string]string{"page": "2"},
			Body:    json.RawMessage(`{"title":"x","n":1}`),
			Headers: map[string]string{"authorization": tape.Redacted},
		},
		Response:  tape.Response{Body: json.RawMessage(`{"id":7}`)},
		LatencyUS: 412,
	}
}

// Option adapts the suite to a backend.
type Option func(*config)

type config struct {
	liveWorld bool
}

// LiveWorld declares that the store runs UpdateFunc on the very world it
// keeps (the memory store) instead of on a private decoded copy. Such a
// store cannot undo a change made by an fn that then reports no mutation
// (failing or not) or runs as a read, so those cases are left to the
// caller's side of the contract (twins.Handler validates before it mutates)
// and skipped.
func LiveWorld() Option { return func(c *config) { c.liveWorld = true } }

// Short lifetimes for the cases that wait for expiry: long enough to act on
// the sandbox first under -race on a busy machine, short enough to keep the
// suite quick.
const (
	shortTTL = 800 * time.Millisecond
	longTTL  = time.Hour
	goneWait = 10 * time.Second
)

// Run checks newStore's backend against the Store contract. newStore
// returns a fresh store on the given clock (the suite passes the wall clock)
// and registers its cleanup on t.
func Run(t *testing.T, newStore func(t *testing.T, now func() time.Time) session.Store, opts ...Option) {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	cases := []struct {
		name string
		fn   func(*testing.T, *fixture)
	}{
		{"CreateGetList", testCreateGetList},
		{"TeamIsolation", testTeamIsolation},
		{"DuplicateID", testDuplicateID},
		{"Quota", testQuota},
		{"QuotaConcurrent", testQuotaConcurrent},
		{"QuotaFreedByExpiry", testQuotaFreedByExpiry},
		{"Stop", testStop},
		{"StopKeepsUntilRetention", testStopKeepsUntilRetention},
		{"Discard", testDiscard},
		{"ListBounded", testListBounded},
		{"Expiry", testExpiry},
		{"NotFound", testNotFound},
		{"UpdateWrite", testUpdateWrite},
		{"UpdateNoPersist", testUpdateNoPersist},
		{"ConcurrentUpdates", testConcurrentUpdates},
		{"ConcurrentAppends", testConcurrentAppends},
		{"TapePaging", testTapePaging},
		{"TapeCap", testTapeCap},
		{"TapeRows", testTapeRows},
		{"Usage", testUsage},
		{"SeedAndState", testSeedAndState},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// Most cases wait on real time; running them side by side keeps
			// the suite as long as its slowest case.
			t.Parallel()
			now := func() time.Time { return time.Now() }
			c.fn(t, &fixture{s: newStore(t, now), now: now, cfg: cfg, ctx: context.Background()})
		})
	}
}

type fixture struct {
	s   session.Store
	now func() time.Time
	cfg config
	ctx context.Context
}

// create stores a new sandbox of team running the twins, without quota.
func (f *fixture) create(t *testing.T, team string, ttl time.Duration, twinNames ...string) *session.Sandbox {
	t.Helper()
	sb := NewSandbox(team, f.now(), ttl, twinNames...)
	if err := f.s.Create(f.ctx, sb, SeedWorlds(t, twinNames...), 0); err != nil {
		t.Fatalf("Create: %v", err)
	}
	return sb
}

func (f *fixture) counter(t *testing.T, sb *session.Sandbox, twin string) World {
	t.Helper()
	doc, err := f.s.State(f.ctx, sb, twin)
	if err != nil {
		t.Fatalf("State(%s): %v", twin, err)
	}
	var w World
	if err := json.Unmarshal(doc, &w); err != nil {
		t.Fatalf("State(%s) = %s: %v", twin, doc, err)
	}
	return w
}

func (f *fixture) listIDs(t *testing.T, team string) []string {
	t.Helper()
	list, err := f.s.List(f.ctx, team)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	ids := make([]string, len(list))
	for i, sb := range list {
		ids[i] = sb.ID
	}
	return ids
}

func (f *fixture) listed(t *testing.T, team, id string) *session.Sandbox {
	t.Helper()
	list, err := f.s.List(f.ctx, team)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	for _, sb := range list {
		if sb.ID == id {
			return sb
		}
	}
	return nil
}

// waitGone waits until every read of the sandbox answers ErrNotFound, as
// it must once its retention passed.
func (f *fixture) waitGone(t *testing.T, sb *session.Sandbox, twin string) {
	t.Helper()
	var last error
	deadline := time.Now().Add(goneWait)
	for time.Now().Before(deadline) {
		_, err1 := f.s.Get(f.ctx, sb.ID)
		_, err2 := f.s.State(f.ctx, sb, twin)
		_, err3 := f.s.Tape(f.ctx, sb, twin, 0, 0)
		_, err4 := f.s.Seed(f.ctx, sb, twin)
		if errors.Is(err1, session.ErrNotFound) && errors.Is(err2, session.ErrNotFound) &&
			errors.Is(err3, session.ErrNotFound) && errors.Is(err4, session.ErrNotFound) {
			return
		}
		last = errors.Join(err1, err2, err3, err4)
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("sandbox %s still readable %v after its retention (%v): errors %v", sb.ID, goneWait, sb.RetainUntil, last)
}

func mustNotFound(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, session.ErrNotFound) {
		t.Errorf("%s: err = %v, want ErrNotFound", what, err)
	}
}

func jsonEqual(t *testing.T, what string, got, want []byte) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %s: %v", what, got, err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("%s: want %s: %v", what, want, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s = %s, want %s", what, got, want)
	}
}

func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func testCreateGetList(t *testing.T, f *fixture) {
	team := NewTeam()
	base := f.now().UTC()
	var ids []string
	for i := range 3 {
		// Distinct creation times make "newest first" unambiguous.
		sb := NewSandbox(team, base.Add(time.Duration(i)*time.Millisecond), longTTL, "alpha", "beta")
		sb.TaskSource = fmt.Sprintf("task %d", i)
		if err := f.s.Create(f.ctx, sb, SeedWorlds(t, "alpha", "beta"), 0); err != nil {
			t.Fatalf("Create: %v", err)
		}
		got, err := f.s.Get(f.ctx, sb.ID)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		if a, b := asJSON(t, got), asJSON(t, sb); a != b {
			t.Errorf("Get = %s\nwant %s", a, b)
		}
		ids = append([]string{sb.ID}, ids...)
	}
	if got := f.listIDs(t, team); !slices.Equal(got, ids) {
		t.Errorf("List = %v, want newest first %v", got, ids)
	}
	list, _ := f.s.List(f.ctx, team)
	for _, sb := range list {
		if sb.State != session.StateReady || sb.Team != team || len(sb.Twins) != 2 {
			t.Errorf("listed %+v, want a ready sandbox of %s with two twins", sb, team)
		}
	}
	if got := f.listIDs(t, NewTeam()); len(got) != 0 {
		t.Errorf("List(new team) = %v, want empty", got)
	}
}

func testTeamIsolation(t *testing.T, f *fixture) {
	a, b := NewTeam(), NewTeam()
	sa := f.create(t, a, longTTL, "alpha")
	sbB := f.create(t, b, longTTL, "alpha")
	if got := f.listIDs(t, a); !slices.Equal(got, []string{sa.ID}) {
		t.Errorf("List(A) = %v, want only %s", got, sa.ID)
	}
	if got := f.listIDs(t, b); !slices.Equal(got, []string{sbB.ID}) {
		t.Errorf("List(B) = %v, want only %s", got, sbB.ID)
	}
	if _, err := f.s.Stop(f.ctx, sbB.ID, f.now(), f.now().Add(longTTL)); err != nil {
		t.Fatal(err)
	}
	if err := f.s.CountEval(f.ctx, b); err != nil {
		t.Fatal(err)
	}
	u, err := f.s.Usage(f.ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if u.Team != a || u.SandboxesCreated != 1 || u.SandboxesOpen != 1 || u.TwinsStarted != 1 || u.Evals != 0 {
		t.Errorf("Usage(A) = %+v, want only A's one sandbox", u)
	}
}

func testDuplicateID(t *testing.T, f *fixture) {
	team := NewTeam()
	sb := f.create(t, team, longTTL, "alpha")
	if err := f.s.Update(f.ctx, sb, Alpha, true, Increment); err != nil {
		t.Fatal(err)
	}
	dup := NewSandbox(team, f.now(), longTTL, "alpha", "beta")
	dup.ID = sb.ID
	if err := f.s.Create(f.ctx, dup, SeedWorlds(t, "alpha", "beta"), 0); !errors.Is(err, session.ErrExists) {
		t.Fatalf("Create(duplicate id) = %v, want ErrExists", err)
	}
	// The refused create must not have touched the original.
	got, err := f.s.Get(f.ctx, sb.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Twins, []string{"alpha"}) {
		t.Errorf("twins = %v after a refused duplicate, want [alpha]", got.Twins)
	}
	if w := f.counter(t, sb, "alpha"); w.Counter != 1 {
		t.Errorf("counter = %d after a refused duplicate, want 1", w.Counter)
	}
	if got := f.listIDs(t, team); len(got) != 1 {
		t.Errorf("List = %v, want the original only", got)
	}
	u, _ := f.s.Usage(f.ctx, team)
	if u.SandboxesCreated != 1 || u.TwinsStarted != 1 {
		t.Errorf("Usage = %+v, a refused create must not count", u)
	}
}

func testQuota(t *testing.T, f *fixture) {
	team := NewTeam()
	create := func() (*session.Sandbox, error) {
		sb := NewSandbox(team, f.now(), longTTL, "alpha")
		return sb, f.s.Create(f.ctx, sb, SeedWorlds(t, "alpha"), 2)
	}
	s1, err := create()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := create(); err != nil {
		t.Fatal(err)
	}
	refused, err := create()
	if !errors.Is(err, session.ErrQuota) {
		t.Fatalf("third Create with quota 2 = %v, want ErrQuota", err)
	}
	// Nothing of a refused sandbox may remain.
	if _, err := f.s.Get(f.ctx, refused.ID); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Get(refused) = %v, want ErrNotFound", err)
	}
	if got := f.listIDs(t, team); len(got) != 2 || slices.Contains(got, refused.ID) {
		t.Errorf("List = %v, want the two admitted sandboxes", got)
	}
	if u, _ := f.s.Usage(f.ctx, team); u.SandboxesCreated != 2 {
		t.Errorf("created = %d, a refused create must not count", u.SandboxesCreated)
	}

	// Another team's quota is its own.
	other := NewSandbox(NewTeam(), f.now(), longTTL, "alpha")
	if err := f.s.Create(f.ctx, other, SeedWorlds(t, "alpha"), 2); err != nil {
		t.Errorf("other team's Create = %v", err)
	}

	// A stopped sandbox is not open: it frees its slot.
	if _, err := f.s.Stop(f.ctx, s1.ID, f.now(), f.now().Add(longTTL)); err != nil {
		t.Fatal(err)
	}
	s3, err := create()
	if err != nil {
		t.Fatalf("Create after a stop = %v, want a free slot", err)
	}
	if _, err := create(); !errors.Is(err, session.ErrQuota) {
		t.Fatalf("Create at the limit again = %v, want ErrQuota", err)
	}
	// So does a discarded one.
	if err := f.s.Discard(f.ctx, s3.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := create(); err != nil {
		t.Fatalf("Create after a discard = %v, want a free slot", err)
	}
	// quota <= 0 is no limit.
	for range 3 {
		sb := NewSandbox(team, f.now(), longTTL, "alpha")
		if err := f.s.Create(f.ctx, sb, SeedWorlds(t, "alpha"), 0); err != nil {
			t.Fatalf("Create without quota = %v", err)
		}
	}
}

func testQuotaConcurrent(t *testing.T, f *fixture) {
	team := NewTeam()
	const tries, quota = 30, 5
	var admitted sync.WaitGroup
	var mu sync.Mutex
	counts := map[string]int{}
	for range tries {
		admitted.Add(1)
		go func() {
			defer admitted.Done()
			sb := NewSandbox(team, f.now(), longTTL, "alpha")
			err := f.s.Create(f.ctx, sb, SeedWorlds(t, "alpha"), quota)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				counts["ok"]++
			case errors.Is(err, session.ErrQuota):
				counts["quota"]++
			default:
				counts[err.Error()]++
			}
		}()
	}
	admitted.Wait()
	if counts["ok"] != quota || counts["quota"] != tries-quota {
		t.Errorf("%d concurrent creates with quota %d: %v, want exactly %d admitted", tries, quota, counts, quota)
	}
	if u, _ := f.s.Usage(f.ctx, team); u.SandboxesOpen != quota || u.SandboxesCreated != quota {
		t.Errorf("Usage = %+v, want %d open and created", u, quota)
	}
}

func testQuotaFreedByExpiry(t *testing.T, f *fixture) {
	team := NewTeam()
	short := NewSandbox(team, f.now(), shortTTL, "alpha")
	if err := f.s.Create(f.ctx, short, SeedWorlds(t, "alpha"), 2); err != nil {
		t.Fatal(err)
	}
	long := NewSandbox(team, f.now(), longTTL, "alpha")
	if err := f.s.Create(f.ctx, long, SeedWorlds(t, "alpha"), 2); err != nil {
		t.Fatal(err)
	}
	next := NewSandbox(team, f.now(), longTTL, "alpha")
	if err := f.s.Create(f.ctx, next, SeedWorlds(t, "alpha"), 2); !errors.Is(err, session.ErrQuota) {
		t.Fatalf("Create at the limit = %v, want ErrQuota", err)
	}
	f.waitGone(t, short, "alpha")
	next = NewSandbox(team, f.now(), longTTL, "alpha")
	if err := f.s.Create(f.ctx, next, SeedWorlds(t, "alpha"), 2); err != nil {
		t.Fatalf("Create after a sandbox expired = %v, want its slot free", err)
	}
}

func testStop(t *testing.T, f *fixture) {
	team := NewTeam()
	sb := f.create(t, team, longTTL, "alpha")
	if err := f.s.Update(f.ctx, sb, Alpha, true, Increment); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.Append(f.ctx, sb, NewRow(sb, "alpha", "/a")); err != nil {
		t.Fatal(err)
	}
	at := f.now().UTC()
	retain := at.Add(24 * time.Hour)
	got, err := f.s.Stop(f.ctx, sb.ID, at, retain)
	if err != nil {
		t.Fatalf("Stop: %v", err)
	}
	check := func(what string, got *session.Sandbox) {
		t.Helper()
		if got.State != session.StateStopped || got.StoppedAt == nil || !got.StoppedAt.Equal(at) || !got.RetainUntil.Equal(retain) {
			t.Errorf("%s = state %s stopped_at %v retain %v, want stopped at %v until %v", what, got.State, got.StoppedAt, got.RetainUntil, at, retain)
		}
		if !got.ExpiresAt.Equal(sb.ExpiresAt) || !got.CreatedAt.Equal(sb.CreatedAt) {
			t.Errorf("%s changed created/expires: %+v", what, got)
		}
	}
	check("Stop", got)
	stored, err := f.s.Get(f.ctx, sb.ID)
	if err != nil {
		t.Fatal(err)
	}
	check("Get after Stop", stored)
	if l := f.listed(t, team, sb.ID); l == nil || l.State != session.StateStopped {
		t.Errorf("List after Stop = %+v, want it stopped", l)
	}

	// Stopping again changes nothing.
	again, err := f.s.Stop(f.ctx, sb.ID, at.Add(time.Minute), retain.Add(time.Hour))
	if err != nil {
		t.Fatalf("second Stop: %v", err)
	}
	check("second Stop", again)
	stored, _ = f.s.Get(f.ctx, sb.ID)
	check("Get after second Stop", stored)

	// State and tape stay readable.
	if w := f.counter(t, sb, "alpha"); w.Counter != 1 {
		t.Errorf("counter after Stop = %d, want 1", w.Counter)
	}
	if rows, err := f.s.Tape(f.ctx, sb, "alpha", 0, 0); err != nil || len(rows) != 1 {
		t.Errorf("Tape after Stop = %d rows, %v; want 1", len(rows), err)
	}
	if u, _ := f.s.Usage(f.ctx, team); u.SandboxesOpen != 0 || u.SandboxesCreated != 1 {
		t.Errorf("Usage after Stop = %+v, want 0 open, 1 created", u)
	}
}

func testStopKeepsUntilRetention(t *testing.T, f *fixture) {
	team := NewTeam()
	sb := f.create(t, team, shortTTL, "alpha", "beta")
	if err := f.s.Update(f.ctx, sb, Alpha, true, Increment); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.Append(f.ctx, sb, NewRow(sb, "beta", "/b")); err != nil {
		t.Fatal(err)
	}
	// Retention reaches past the sandbox's original expiry: every key of it
	// must move, not just the record.
	retain := sb.ExpiresAt.Add(2 * shortTTL)
	if _, err := f.s.Stop(f.ctx, sb.ID, f.now(), retain); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Until(sb.ExpiresAt.Add(shortTTL / 2)))
	if time.Now().After(retain.Add(-shortTTL / 4)) {
		t.Skip("machine too slow to observe the retention window")
	}
	if _, err := f.s.Get(f.ctx, sb.ID); err != nil {
		t.Errorf("Get past expiry, within retention: %v", err)
	}
	if w := f.counter(t, sb, "alpha"); w.Counter != 1 {
		t.Errorf("counter within retention = %d, want 1", w.Counter)
	}
	if _, err := f.s.Seed(f.ctx, sb, "beta"); err != nil {
		t.Errorf("Seed within retention: %v", err)
	}
	if rows, err := f.s.Tape(f.ctx, sb, "beta", 0, 0); err != nil || len(rows) != 1 {
		t.Errorf("Tape within retention = %d rows, %v; want 1", len(rows), err)
	}
	// A write within retention keeps the retention.
	if _, err := f.s.Append(f.ctx, sb, NewRow(sb, "beta", "/b2")); err != nil {
		t.Errorf("Append within retention: %v", err)
	}
	f.waitGone(t, sb, "alpha")
	f.waitGone(t, sb, "beta")
	if time.Now().Before(retain) {
		t.Errorf("gone at %v, before its retention %v", time.Now(), retain)
	}
	// Listing may still mention it, but never as ready.
	if l := f.listed(t, team, sb.ID); l != nil && l.State != session.StateStopped {
		t.Errorf("listed as %s after retention, want stopped or absent", l.State)
	}
}

func testDiscard(t *testing.T, f *fixture) {
	team := NewTeam()
	keep := f.create(t, team, longTTL, "alpha")
	sb := f.create(t, team, longTTL, "alpha", "beta")
	if err := f.s.Update(f.ctx, sb, Alpha, true, Increment); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.Append(f.ctx, sb, NewRow(sb, "alpha", "/a")); err != nil {
		t.Fatal(err)
	}
	if err := f.s.Discard(f.ctx, sb.ID); err != nil {
		t.Fatalf("Discard: %v", err)
	}
	_, err := f.s.Get(f.ctx, sb.ID)
	mustNotFound(t, "Get", err)
	for _, twin := range []string{"alpha", "beta"} {
		_, err = f.s.State(f.ctx, sb, twin)
		mustNotFound(t, "State "+twin, err)
		_, err = f.s.Seed(f.ctx, sb, twin)
		mustNotFound(t, "Seed "+twin, err)
		_, err = f.s.Tape(f.ctx, sb, twin, 0, 0)
		mustNotFound(t, "Tape "+twin, err)
	}
	mustNotFound(t, "Update", f.s.Update(f.ctx, sb, Alpha, true, Increment))
	_, err = f.s.Append(f.ctx, sb, NewRow(sb, "alpha", "/a"))
	mustNotFound(t, "Append", err)
	_, err = f.s.Stop(f.ctx, sb.ID, f.now(), f.now().Add(time.Hour))
	mustNotFound(t, "Stop", err)
	mustNotFound(t, "second Discard", f.s.Discard(f.ctx, sb.ID))
	if got := f.listIDs(t, team); !slices.Equal(got, []string{keep.ID}) {
		t.Errorf("List after Discard = %v, want only %s", got, keep.ID)
	}
	if u, _ := f.s.Usage(f.ctx, team); u.SandboxesOpen != 1 || u.SandboxesCreated != 2 {
		t.Errorf("Usage after Discard = %+v, want 1 open of 2 created", u)
	}
	// The sibling is untouched.
	if _, err := f.s.Get(f.ctx, keep.ID); err != nil {
		t.Errorf("Get(sibling): %v", err)
	}
}

// testListBounded: past its bound a team's list forgets its oldest entries
// as sandboxes are created; what it forgot stays forgotten (a stop does not
// bring it back) and the sandbox itself keeps working.
func testListBounded(t *testing.T, f *fixture) {
	b, ok := f.s.(interface{ SetMaxListed(int) })
	if !ok {
		t.Skip("the store has no list bound to lower")
	}
	b.SetMaxListed(3)
	team, other := NewTeam(), NewTeam()
	base := f.now().UTC()
	var ids []string
	for i := range 5 {
		sb := NewSandbox(team, base.Add(time.Duration(i)*time.Millisecond), longTTL, "alpha")
		if err := f.s.Create(f.ctx, sb, SeedWorlds(t, "alpha"), 0); err != nil {
			t.Fatalf("Create: %v", err)
		}
		ids = append(ids, sb.ID)
	}
	keep := f.create(t, other, longTTL, "alpha")
	if got, want := f.listIDs(t, team), []string{ids[4], ids[3], ids[2]}; !slices.Equal(got, want) {
		t.Errorf("List of 5 created under a bound of 3 = %v, want the newest %v", got, want)
	}
	if _, err := f.s.Stop(f.ctx, ids[0], f.now(), f.now().Add(time.Hour)); err != nil {
		t.Fatalf("Stop of a sandbox the list forgot: %v", err)
	}
	if _, err := f.s.Get(f.ctx, ids[0]); err != nil {
		t.Errorf("Get of a sandbox the list forgot: %v", err)
	}
	if err := f.s.Discard(f.ctx, ids[4]); err != nil {
		t.Fatal(err)
	}
	if got, want := f.listIDs(t, team), []string{ids[3], ids[2]}; !slices.Equal(got, want) {
		t.Errorf("List after a stop of a forgotten sandbox and a discard = %v, want %v", got, want)
	}
	sb := NewSandbox(team, base.Add(5*time.Millisecond), longTTL, "alpha")
	if err := f.s.Create(f.ctx, sb, SeedWorlds(t, "alpha"), 0); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if got, want := f.listIDs(t, team), []string{sb.ID, ids[3], ids[2]}; !slices.Equal(got, want) {
		t.Errorf("List after one more create = %v, want %v", got, want)
	}
	if got := f.listIDs(t, other); !slices.Equal(got, []string{keep.ID}) {
		t.Errorf("List of another team = %v, want %s", got, keep.ID)
	}
}

func testExpiry(t *testing.T, f *fixture) {
	team := NewTeam()
	sb := f.create(t, team, shortTTL, "alpha")
	if err := f.s.Update(f.ctx, sb, Alpha, true, Increment); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.Append(f.ctx, sb, NewRow(sb, "alpha", "/a")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.Get(f.ctx, sb.ID); err != nil {
		t.Fatalf("Get before expiry: %v", err)
	}
	f.waitGone(t, sb, "alpha")
	if time.Now().Before(sb.ExpiresAt) {
		t.Errorf("gone at %v, before it expires at %v", time.Now(), sb.ExpiresAt)
	}
	mustNotFound(t, "Update", f.s.Update(f.ctx, sb, Alpha, true, Increment))
	mustNotFound(t, "read Update", f.s.Update(f.ctx, sb, Alpha, false, func(any) (bool, error) { return false, nil }))
	_, err := f.s.Append(f.ctx, sb, NewRow(sb, "alpha", "/a"))
	mustNotFound(t, "Append", err)
	_, err = f.s.Stop(f.ctx, sb.ID, f.now(), f.now().Add(time.Hour))
	mustNotFound(t, "Stop", err)

	l := f.listed(t, team, sb.ID)
	if l == nil {
		t.Fatalf("expired sandbox not listed")
	}
	if l.State != session.StateExpired || !l.ExpiresAt.Equal(sb.ExpiresAt) || !l.CreatedAt.Equal(sb.CreatedAt) ||
		!slices.Equal(l.Twins, sb.Twins) || l.Team != team {
		t.Errorf("listed %+v, want expired with the original times and twins", l)
	}
	if u, _ := f.s.Usage(f.ctx, team); u.SandboxesOpen != 0 || u.SandboxesCreated != 1 {
		t.Errorf("Usage after expiry = %+v, want 0 open of 1 created", u)
	}
}

func testNotFound(t *testing.T, f *fixture) {
	ghost := NewSandbox(NewTeam(), f.now(), longTTL, "alpha")
	_, err := f.s.Get(f.ctx, ghost.ID)
	mustNotFound(t, "Get(unknown)", err)
	_, err = f.s.Stop(f.ctx, ghost.ID, f.now(), f.now().Add(time.Hour))
	mustNotFound(t, "Stop(unknown)", err)
	mustNotFound(t, "Discard(unknown)", f.s.Discard(f.ctx, ghost.ID))
	_, err = f.s.State(f.ctx, ghost, "alpha")
	mustNotFound(t, "State(unknown)", err)

	// A twin the sandbox does not run is as unknown as a missing sandbox.
	sb := f.create(t, NewTeam(), longTTL, "alpha")
	_, err = f.s.State(f.ctx, sb, "beta")
	mustNotFound(t, "State(other twin)", err)
	_, err = f.s.Seed(f.ctx, sb, "beta")
	mustNotFound(t, "Seed(other twin)", err)
	_, err = f.s.Tape(f.ctx, sb, "beta", 0, 0)
	mustNotFound(t, "Tape(other twin)", err)
	_, err = f.s.TapeRaw(f.ctx, sb, "beta", 0, 0)
	mustNotFound(t, "TapeRaw(other twin)", err)
	_, err = f.s.TapeRaw(f.ctx, ghost, "alpha", 0, 0)
	mustNotFound(t, "TapeRaw(unknown)", err)
	_, err = f.s.Append(f.ctx, sb, NewRow(sb, "beta", "/b"))
	mustNotFound(t, "Append(other twin)", err)
	mustNotFound(t, "Update(other twin)", f.s.Update(f.ctx, sb, Beta, true, Increment))
	// An empty tape of a twin it does run is not an error.
	rows, err := f.s.Tape(f.ctx, sb, "alpha", 0, 0)
	if err != nil || len(rows) != 0 {
		t.Errorf("Tape(fresh twin) = %v, %v; want no rows", rows, err)
	}
	if raw, err := f.s.TapeRaw(f.ctx, sb, "alpha", 0, 0); err != nil || len(raw) != 0 {
		t.Errorf("TapeRaw(fresh twin) = %q, %v; want no rows", raw, err)
	}
}

func testUpdateWrite(t *testing.T, f *fixture) {
	sb := f.create(t, NewTeam(), longTTL, "alpha", "beta")
	err := f.s.Update(f.ctx, sb, Alpha, true, func(world any) (bool, error) {
		w := world.(*World)
		if w.Counter != 0 || !slices.Equal(w.Items, []string{"seed"}) {
			t.Errorf("fn saw %+v, want the seed world", w)
		}
		w.Counter = 5
		w.Items = append(w.Items, "one")
		return true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var seen World
	err = f.s.Update(f.ctx, sb, Alpha, false, func(world any) (bool, error) {
		seen = *world.(*World)
		return false, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen.Counter != 5 || !slices.Equal(seen.Items, []string{"seed", "one"}) {
		t.Errorf("read saw %+v after a write, want counter 5 and items [seed one]", seen)
	}
	// Twins of one sandbox keep separate worlds.
	if w := f.counter(t, sb, "beta"); w.Counter != 0 {
		t.Errorf("beta counter = %d after writing alpha", w.Counter)
	}
	// fn's error comes back as it is.
	boom := errors.New("boom")
	if err := f.s.Update(f.ctx, sb, Alpha, true, func(any) (bool, error) { return false, boom }); !errors.Is(err, boom) {
		t.Errorf("Update with failing fn = %v, want boom", err)
	}
	if err := f.s.Update(f.ctx, sb, Alpha, false, func(any) (bool, error) { return false, boom }); !errors.Is(err, boom) {
		t.Errorf("read Update with failing fn = %v, want boom", err)
	}
	if w := f.counter(t, sb, "alpha"); w.Counter != 5 {
		t.Errorf("counter = %d, want 5", w.Counter)
	}
	// A call can fail and still change state (a declined card records the
	// failed charge): reporting the mutation keeps it, and the error still
	// comes back.
	declined := errors.New("card declined")
	err = f.s.Update(f.ctx, sb, Alpha, true, func(world any) (bool, error) {
		w := world.(*World)
		w.Items = append(w.Items, "declined")
		return true, declined
	})
	if !errors.Is(err, declined) {
		t.Errorf("Update with a failing fn that mutated = %v, want its error", err)
	}
	if w := f.counter(t, sb, "alpha"); w.Counter != 5 || !slices.Equal(w.Items, []string{"seed", "one", "declined"}) {
		t.Errorf("state after a failing fn that mutated = %+v, want its change kept", w)
	}
}

// testUpdateNoPersist checks that only a write whose fn reports a mutation
// is kept, even when fn changed the world it was given.
func testUpdateNoPersist(t *testing.T, f *fixture) {
	if f.cfg.liveWorld {
		t.Skip("store runs fn on its live world")
	}
	sb := f.create(t, NewTeam(), longTTL, "alpha")
	if err := f.s.Update(f.ctx, sb, Alpha, true, Increment); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	cases := []struct {
		name    string
		write   bool
		mutated bool
		err     error
	}{
		{"read", false, true, nil},
		{"write that fails", true, false, boom},
		{"write reporting no mutation", true, false, nil},
	}
	for _, c := range cases {
		err := f.s.Update(f.ctx, sb, Alpha, c.write, func(world any) (bool, error) {
			w := world.(*World)
			w.Counter = 99
			w.Items = append(w.Items, c.name)
			return c.mutated, c.err
		})
		if !errors.Is(err, c.err) {
			t.Errorf("%s: Update = %v, want %v", c.name, err, c.err)
		}
		if w := f.counter(t, sb, "alpha"); w.Counter != 1 || len(w.Items) != 1 {
			t.Errorf("%s persisted: state %+v, want counter 1 and the seed items", c.name, w)
		}
	}
}

func testConcurrentUpdates(t *testing.T, f *fixture) {
	sb := f.create(t, NewTeam(), longTTL, "alpha")
	const n = 200
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- f.s.Update(f.ctx, sb, Alpha, true, func(world any) (bool, error) {
				w := world.(*World)
				w.Counter++
				w.Items = append(w.Items, fmt.Sprint(i))
				return true, nil
			})
			// Reads run alongside the writes and must never see a torn world.
			errs <- f.s.Update(f.ctx, sb, Alpha, false, func(world any) (bool, error) {
				w := world.(*World)
				if len(w.Items) != w.Counter+1 {
					return false, fmt.Errorf("read saw counter %d with %d items", w.Counter, len(w.Items))
				}
				return false, nil
			})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	w := f.counter(t, sb, "alpha")
	if w.Counter != n {
		t.Errorf("counter after %d concurrent increments = %d", n, w.Counter)
	}
	items := slices.Clone(w.Items[1:])
	slices.Sort(items)
	if len(slices.Compact(items)) != n {
		t.Errorf("%d distinct items after %d concurrent appends to the world, want %d", len(items), n, n)
	}
}

func testConcurrentAppends(t *testing.T, f *fixture) {
	sb := f.create(t, NewTeam(), longTTL, "alpha", "beta")
	const n, nBeta = 200, 50
	var wg sync.WaitGroup
	var mu sync.Mutex
	seqs := map[string][]int64{}
	errs := make(chan error, n+nBeta)
	appendRow := func(twin string, i int) {
		defer wg.Done()
		row := NewRow(sb, twin, fmt.Sprintf("/%s/%d", twin, i))
		seq, err := f.s.Append(f.ctx, sb, row)
		if err != nil {
			errs <- err
			return
		}
		if row.Seq != seq {
			errs <- fmt.Errorf("row.Seq = %d, Append returned %d", row.Seq, seq)
		}
		mu.Lock()
		seqs[twin] = append(seqs[twin], seq)
		mu.Unlock()
	}
	for i := range n {
		wg.Add(1)
		go appendRow("alpha", i)
	}
	for i := range nBeta {
		wg.Add(1)
		go appendRow("beta", i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for twin, want := range map[string]int{"alpha": n, "beta": nBeta} {
		got := seqs[twin]
		slices.Sort(got)
		for i, seq := range got {
			if seq != int64(i+1) {
				t.Fatalf("%s seqs %v: want exactly 1..%d, no gaps or duplicates", twin, got, want)
			}
		}
		if len(got) != want {
			t.Fatalf("%s: %d seqs, want %d", twin, len(got), want)
		}
		rows, err := f.s.Tape(f.ctx, sb, twin, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != want {
			t.Fatalf("%s tape has %d rows, want %d", twin, len(rows), want)
		}
		paths := map[string]bool{}
		for i, r := range rows {
			if r.Seq != int64(i+1) || r.Twin != twin {
				t.Fatalf("%s tape row %d = seq %d twin %s, want seq %d in order", twin, i, r.Seq, r.Twin, i+1)
			}
			paths[r.Path] = true
		}
		if len(paths) != want {
			t.Errorf("%s tape holds %d distinct rows, want %d", twin, len(paths), want)
		}
	}
}

// testTapeCap: past the cap every call still gets its seq, but only the
// first rows are kept, and TapeLen says how many were dropped.
func testTapeCap(t *testing.T, f *fixture) {
	capper, ok := f.s.(interface{ SetMaxTapeRows(int64) })
	if !ok {
		t.Fatalf("%T cannot cap its tapes", f.s)
	}
	capper.SetMaxTapeRows(5)
	sb := f.create(t, NewTeam(), longTTL, "alpha", "beta")
	if stored, total, err := f.s.TapeLen(f.ctx, sb, "alpha"); err != nil || stored != 0 || total != 0 {
		t.Fatalf("empty tape: %d %d %v", stored, total, err)
	}
	for i := range 8 {
		seq, err := f.s.Append(f.ctx, sb, NewRow(sb, "alpha", fmt.Sprintf("/%d", i+1)))
		if err != nil || seq != int64(i+1) {
			t.Fatalf("append %d: seq %d, %v", i+1, seq, err)
		}
	}
	rows, err := f.s.Tape(f.ctx, sb, "alpha", 0, 0)
	if err != nil || len(rows) != 5 || rows[4].Seq != 5 {
		t.Fatalf("capped tape: %d rows, %v", len(rows), err)
	}
	if stored, total, err := f.s.TapeLen(f.ctx, sb, "alpha"); err != nil || stored != 5 || total != 8 {
		t.Fatalf("TapeLen: stored %d total %d, %v", stored, total, err)
	}
	// Another twin's tape has its own cap and count.
	if stored, total, err := f.s.TapeLen(f.ctx, sb, "beta"); err != nil || stored != 0 || total != 0 {
		t.Fatalf("beta: %d %d %v", stored, total, err)
	}
	if _, _, err := f.s.TapeLen(f.ctx, sb, "gamma"); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("unknown twin: %v", err)
	}
}

func testTapePaging(t *testing.T, f *fixture) {
	sb := f.create(t, NewTeam(), longTTL, "alpha")
	for i := range 10 {
		if _, err := f.s.Append(f.ctx, sb, NewRow(sb, "alpha", fmt.Sprintf("/%d", i+1))); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		after int64
		limit int
		want  []int64
	}{
		{0, 0, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		{0, 3, []int64{1, 2, 3}},
		{3, 4, []int64{4, 5, 6, 7}},
		{8, 5, []int64{9, 10}},
		{9, 0, []int64{10}},
		{10, 0, nil},
		{12, 3, nil},
		{-5, 2, []int64{1, 2}},
	}
	for _, c := range cases {
		rows, err := f.s.Tape(f.ctx, sb, "alpha", c.after, c.limit)
		if err != nil {
			t.Fatalf("Tape(%d, %d): %v", c.after, c.limit, err)
		}
		var got []int64
		for _, r := range rows {
			got = append(got, r.Seq)
			if r.Path != fmt.Sprintf("/%d", r.Seq) {
				t.Errorf("row seq %d has path %s", r.Seq, r.Path)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("Tape(after %d, limit %d) = %v, want %v", c.after, c.limit, got, c.want)
		}
		// TapeRaw pages alike and holds each row as json.Marshal encodes it.
		raw, err := f.s.TapeRaw(f.ctx, sb, "alpha", c.after, c.limit)
		if err != nil {
			t.Fatalf("TapeRaw(%d, %d): %v", c.after, c.limit, err)
		}
		if len(raw) != len(rows) {
			t.Fatalf("TapeRaw(after %d, limit %d) has %d rows, Tape %d", c.after, c.limit, len(raw), len(rows))
		}
		for i := range raw {
			if want := asJSON(t, rows[i]); string(raw[i]) != want {
				t.Errorf("TapeRaw row %d = %s\nwant %s", rows[i].Seq, raw[i], want)
			}
		}
	}
}

func testTapeRows(t *testing.T, f *fixture) {
	sb := f.create(t, NewTeam(), longTTL, "alpha")
	full := NewRow(sb, "alpha", "/full")
	bare := NewRow(sb, "alpha", "/bare")
	// A call no action served is taped with tool null and no bodies.
	bare.Tool, bare.Request.Body, bare.Response.Body, bare.StateMutation, bare.Status = nil, nil, nil, false, 501
	// A stale seq on the way in is replaced, never trusted.
	full.Seq = 42
	want := []*tape.Row{full, bare}
	for i, row := range want {
		seq, err := f.s.Append(f.ctx, sb, row)
		if err != nil {
			t.Fatal(err)
		}
		if seq != int64(i+1) {
			t.Errorf("Append #%d = seq %d", i+1, seq)
		}
	}
	rows, err := f.s.Tape(f.ctx, sb, "alpha", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("tape has %d rows, want 2", len(rows))
	}
	raw, err := f.s.TapeRaw(f.ctx, sb, "alpha", 0, 0)
	if err != nil || len(raw) != 2 {
		t.Fatalf("TapeRaw = %d rows, %v; want 2", len(raw), err)
	}
	for i := range rows {
		if got, exp := asJSON(t, rows[i]), asJSON(t, want[i]); got != exp {
			t.Errorf("row %d = %s\nwant %s", i+1, got, exp)
		}
		if exp := asJSON(t, want[i]); string(raw[i]) != exp {
			t.Errorf("raw row %d = %s\nwant %s", i+1, raw[i], exp)
		}
	}
}

func testUsage(t *testing.T, f *fixture) {
	team := NewTeam()
	u, err := f.s.Usage(f.ctx, team)
	if err != nil {
		t.Fatal(err)
	}
	if u.Team != team || u.SandboxesOpen != 0 || u.SandboxesCreated != 0 || u.TwinsStarted != 0 || u.Evals != 0 {
		t.Errorf("Usage(new team) = %+v, want zeros", u)
	}
	s1 := f.create(t, team, longTTL, "alpha", "beta")
	s2 := f.create(t, team, longTTL, "alpha")
	short := f.create(t, team, shortTTL, "beta")
	for range 3 {
		if err := f.s.CountEval(f.ctx, team); err != nil {
			t.Fatal(err)
		}
	}
	want := func(what string, open, created, twinsStarted, evals int) {
		t.Helper()
		u, err := f.s.Usage(f.ctx, team)
		if err != nil {
			t.Fatal(err)
		}
		if u.Team != team || u.SandboxesOpen != open || u.SandboxesCreated != created || u.TwinsStarted != twinsStarted || u.Evals != evals {
			t.Errorf("Usage %s = %+v, want open %d created %d twins %d evals %d", what, u, open, created, twinsStarted, evals)
		}
	}
	want("after creates", 3, 3, 4, 3)
	if _, err := f.s.Stop(f.ctx, s1.ID, f.now(), f.now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	want("after a stop", 2, 3, 4, 3)
	if err := f.s.Discard(f.ctx, s2.ID); err != nil {
		t.Fatal(err)
	}
	want("after a discard", 1, 3, 4, 3)
	f.waitGone(t, short, "beta")
	want("after an expiry", 0, 3, 4, 3)
}

func testSeedAndState(t *testing.T, f *fixture) {
	sb := f.create(t, NewTeam(), longTTL, "alpha")
	seed, err := f.s.Seed(f.ctx, sb, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, "Seed", seed, []byte(seedDoc))
	state, err := f.s.State(f.ctx, sb, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, "State before writes", state, []byte(seedDoc))
	for i := range 3 {
		err := f.s.Update(f.ctx, sb, Alpha, true, func(world any) (bool, error) {
			w := world.(*World)
			w.Counter++
			w.Items = append(w.Items, fmt.Sprint(i))
			return true, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	state, err = f.s.State(f.ctx, sb, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, "State after writes", state, []byte(`{"counter":3,"items":["seed","0","1","2"]}`))
	seed, err = f.s.Seed(f.ctx, sb, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, "Seed after writes", seed, []byte(seedDoc))
}

// benchSandbox creates a sandbox for a benchmark and discards it after.
func benchSandbox(b *testing.B, s session.Store) *session.Sandbox {
	ctx := context.Background()
	sb := NewSandbox(NewTeam(), time.Now(), time.Hour, "alpha")
	if err := s.Create(ctx, sb, SeedWorlds(b, "alpha"), 0); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Discard(ctx, sb.ID) })
	return sb
}

// BenchUpdateWrite measures a write Update of one twin, one caller at a
// time and many at once (which queue on the twin). It fails if any
// increment was lost, so a fast number cannot come from a broken store.
func BenchUpdateWrite(b *testing.B, s session.Store) {
	ctx := context.Background()
	sb := benchSandbox(b, s)
	var done atomic.Int64
	b.Run("serial", func(b *testing.B) {
		for b.Loop() {
			if err := s.Update(ctx, sb, Alpha, true, Increment); err != nil {
				b.Fatal(err)
			}
			done.Add(1)
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := s.Update(ctx, sb, Alpha, true, Increment); err != nil {
					b.Error(err)
					return
				}
				done.Add(1)
			}
		})
	})
	doc, err := s.State(ctx, sb, "alpha")
	if err != nil {
		b.Fatal(err)
	}
	var w World
	if err := json.Unmarshal(doc, &w); err != nil {
		b.Fatal(err)
	}
	if int64(w.Counter) != done.Load() {
		b.Fatalf("counter %d after %d increments", w.Counter, done.Load())
	}
}

// BenchAppend measures appending a typical tape row.
func BenchAppend(b *testing.B, s session.Store) {
	ctx := context.Background()
	sb := benchSandbox(b, s)
	b.Run("serial", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.Append(ctx, sb, NewRow(sb, "alpha", "/x")); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := s.Append(ctx, sb, NewRow(sb, "alpha", "/x")); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// BenchCreate measures creating a two-twin sandbox under a quota. The
// sandboxes live a minute, so a benchmark run leaves nothing behind for
// long.
func BenchCreate(b *testing.B, s session.Store) {
	ctx := context.Background()
	team := NewTeam()
	worlds := SeedWorlds(b, "alpha", "beta")
	for b.Loop() {
		sb := NewSandbox(team, time.Now(), time.Minute, "alpha", "beta")
		if err := s.Create(ctx, sb, worlds, 1<<30); err != nil {
			b.Fatal(err)
		}
	}
}
