package session_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/session/storetest"
)

// newBudgetedRedis returns replicas of one deployment, on a budget scope
// of their own, with budgets b.
func newBudgetedRedis(t *testing.T, b session.Budgets, replicas int) []*session.RedisStore {
	t.Helper()
	scope := session.NewRequestID()
	var out []*session.RedisStore
	for range replicas {
		s := newRedis(t, nil)
		s.SetBudgetScope(scope)
		s.SetBudgets(b)
		out = append(out, s)
	}
	return out
}

// TestRedisServerWorldBudget: on two replicas of one deployment, creates
// stop at a team's share of the server's world budget wherever they are
// made, another team is still served, a discard on either replica gives
// the memory back, and past the server budget everyone is refused.
func TestRedisServerWorldBudget(t *testing.T) {
	redisURL(t)
	per := 2 * int64(len(storetest.SeedWorlds(t, "alpha")["alpha"].Doc))
	rs := newBudgetedRedis(t, session.Budgets{ServerWorldBytes: 10 * per, TeamShare: 0.5}, 2)
	a, b := storetest.NewTeam(), storetest.NewTeam()
	var mine []*session.Sandbox
	for i := 0; i < 5; i++ {
		sb, err := createAlpha(t, rs[i%2], a)
		if err != nil {
			t.Fatalf("create %d within team a's share: %v", i, err)
		}
		mine = append(mine, sb)
	}
	// A replica sends what it admitted on its own (far from the budget)
	// within one flush interval; the test flushes rather than wait.
	flush := func() {
		for _, r := range rs {
			r.FlushBudget(t.Context())
		}
	}
	flush()
	for _, r := range rs {
		_, err := createAlpha(t, r, a)
		if be := budgetOf(t, err); be.Budget != session.BudgetTeamWorld || be.Limit != 5*per || be.Used != 5*per || be.Team != a {
			t.Errorf("create past the share: %+v", be)
		}
	}
	for i := 0; i < 5; i++ {
		if _, err := createAlpha(t, rs[i%2], b); err != nil {
			t.Fatalf("team b's create %d while team a is at its share: %v", i, err)
		}
	}
	if err := rs[1].Discard(t.Context(), mine[0].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := createAlpha(t, rs[0], a); err != nil {
		t.Errorf("create after a discard on the other replica freed the share: %v", err)
	}
	flush()
	for _, r := range rs {
		r.SetBudgets(session.Budgets{ServerWorldBytes: 10 * per})
		_, err := createAlpha(t, r, storetest.NewTeam())
		if be := budgetOf(t, err); be.Budget != session.BudgetServerWorld || be.Limit != 10*per || be.Used != 10*per {
			t.Errorf("create past the server budget: %+v", be)
		}
	}
}

// TestRedisBudgetRetention: what a sandbox holds is given back once its
// retention has passed, with nothing run when its keys expire, and a
// stop moves that moment.
func TestRedisBudgetRetention(t *testing.T) {
	redisURL(t)
	per := 2 * int64(len(storetest.SeedWorlds(t, "alpha")["alpha"].Doc))
	var mu sync.Mutex
	clock := time.Now()
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	r := newRedis(t, now)
	r.SetBudgetScope(session.NewRequestID())
	r.SetBudgets(session.Budgets{ServerWorldBytes: per})
	team := storetest.NewTeam()
	held := storetest.NewSandbox(team, now(), 24*time.Hour, "alpha")
	if err := r.Create(t.Context(), held, storetest.SeedWorlds(t, "alpha"), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := createAlpha(t, r, team); err == nil {
		t.Fatal("a second create within a budget of one sandbox")
	}
	if _, err := r.Stop(t.Context(), held.ID, now(), now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	clock = clock.Add(59 * time.Minute)
	mu.Unlock()
	if _, err := createAlpha(t, r, team); err == nil {
		t.Fatal("a create before the stopped sandbox's retention ended")
	}
	mu.Lock()
	clock = clock.Add(2 * time.Minute)
	mu.Unlock()
	if _, err := createAlpha(t, r, team); err != nil {
		t.Errorf("create once the retention ended: %v", err)
	}
}

// TestRedisServerTapeBudget: past its team's share of the tape budget a
// tape keeps no further row, whichever replica appends and even once room
// is made again, and its kept rows are the first calls; another team's
// tapes keep theirs; the team's creates are refused until it frees some.
func TestRedisServerTapeBudget(t *testing.T) {
	redisURL(t)
	budgets := session.Budgets{ServerTapeBytes: 8 << 10, TeamShare: 0.5}
	rs := newBudgetedRedis(t, budgets, 2)
	a, b := storetest.NewTeam(), storetest.NewTeam()
	sa, err := createAlpha(t, rs[0], a)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := createAlpha(t, rs[1], b)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		r := rs[i%2]
		seq, err := r.Append(t.Context(), sa, storetest.NewRow(sa, "alpha", "/a"))
		if err != nil || seq != int64(i+1) {
			t.Fatalf("append %d: seq %d, %v", i, seq, err)
		}
		if i%10 == 9 {
			r.FlushBudget(t.Context())
		}
	}
	stored, total, _ := rs[0].TapeLen(t.Context(), sa, "alpha")
	if total != 100 || stored == 0 || stored >= 100 {
		t.Fatalf("team a's tape: %d stored of %d; want a prefix under its share", stored, total)
	}
	rows, _ := rs[1].Tape(t.Context(), sa, "alpha", 0, 0)
	if int64(len(rows)) != stored {
		t.Fatalf("%d rows read, %d stored", len(rows), stored)
	}
	for i, r := range rows {
		if r.Seq != int64(i+1) {
			t.Fatalf("row %d has seq %d: kept rows must be the prefix", i, r.Seq)
		}
	}
	if _, err := rs[1].Append(t.Context(), sb, storetest.NewRow(sb, "alpha", "/b")); err != nil {
		t.Fatal(err)
	}
	if stored, total, _ := rs[1].TapeLen(t.Context(), sb, "alpha"); stored != 1 || total != 1 {
		t.Errorf("team b's tape: %d stored of %d, want its row kept", stored, total)
	}
	for _, r := range rs {
		_, err = createAlpha(t, r, a)
		if be := budgetOf(t, err); be.Budget != session.BudgetTeamTape || be.Team != a {
			t.Errorf("team a's create with its tape share spent: %+v", be)
		}
	}
	for _, r := range rs {
		r.SetBudgets(session.Budgets{ServerTapeBytes: 1 << 30})
		r.Append(t.Context(), sa, storetest.NewRow(sa, "alpha", "/a"))
	}
	if again, total, _ := rs[0].TapeLen(t.Context(), sa, "alpha"); again != stored || total != 102 {
		t.Errorf("after the budget grew: %d stored of %d, want still %d: a tape that dropped a row keeps none after it", again, total, stored)
	}
	for _, r := range rs {
		r.SetBudgets(budgets)
	}
	if err := rs[1].Discard(t.Context(), sa.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := createAlpha(t, rs[0], a); err != nil {
		t.Errorf("create after the discard freed the tape share: %v", err)
	}
}

// TestRedisBudgetGivenBack: once every sandbox is discarded, whichever
// replica created it, taped on it or discarded it, the counters hold
// nothing: no world, no tape, no sandbox.
func TestRedisBudgetGivenBack(t *testing.T) {
	redisURL(t)
	scope := session.NewRequestID()
	var rs []*session.RedisStore
	for range 2 {
		r := newRedis(t, nil)
		r.SetBudgetScope(scope)
		r.SetBudgets(session.Budgets{ServerWorldBytes: 1 << 30, ServerTapeBytes: 1 << 30, TeamShare: 0.5})
		rs = append(rs, r)
	}
	teams := []string{storetest.NewTeam(), storetest.NewTeam()}
	var sbs []*session.Sandbox
	for i := 0; i < 6; i++ {
		sb, err := createAlpha(t, rs[i%2], teams[i%2])
		if err != nil {
			t.Fatal(err)
		}
		sbs = append(sbs, sb)
		for j := 0; j < 5; j++ {
			if _, err := rs[j%2].Append(t.Context(), sb, storetest.NewRow(sb, "alpha", "/x")); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, r := range rs {
		r.FlushBudget(t.Context())
	}
	c := newRedisClient(t)
	defer c.Close()
	keys := session.BudgetKeys(scope)
	ctx := context.Background()
	totals, err := c.HGetAll(ctx, keys[0]).Result()
	if err != nil {
		t.Fatal(err)
	}
	if totals["w"] == "" || totals["w"] == "0" || totals["t"] == "" || totals["t"] == "0" || totals["t:"+teams[0]] == "0" {
		t.Fatalf("totals while the sandboxes are held: %v", totals)
	}
	for i, sb := range sbs {
		if err := rs[(i+1)%2].Discard(t.Context(), sb.ID); err != nil {
			t.Fatal(err)
		}
	}
	// An append after the discard counts nothing.
	rs[0].Append(t.Context(), sbs[0], storetest.NewRow(sbs[0], "alpha", "/late"))
	rs[0].FlushBudget(t.Context())
	totals, _ = c.HGetAll(ctx, keys[0]).Result()
	for k, v := range totals {
		if v != "0" {
			t.Errorf("after every discard, total %s = %s, want 0", k, v)
		}
	}
	if n, _ := c.HLen(ctx, keys[1]).Result(); n != 0 {
		t.Errorf("%d fields still held", n)
	}
	if n, _ := c.ZCard(ctx, keys[2]).Result(); n != 0 {
		t.Errorf("%d sandboxes still waiting for their retention", n)
	}
}

// TestRedisBudgetCreatesFarFromIt: a create far from every budget is
// admitted by its replica and counted with its next flush, so creates do
// not each send a budget script; the totals still count every one.
func TestRedisBudgetCreatesFarFromIt(t *testing.T) {
	redisURL(t)
	r := newBudgetedRedis(t, session.Budgets{ServerWorldBytes: 1 << 30, ServerTapeBytes: 1 << 30}, 1)[0]
	team := storetest.NewTeam()
	var sbs []*session.Sandbox
	for i := 0; i < 40; i++ {
		sb, err := createAlpha(t, r, team)
		if err != nil {
			t.Fatal(err)
		}
		sbs = append(sbs, sb)
	}
	// The first create finds no totals answered yet, and the flusher
	// runs every 100 ms: far fewer scripts than creates.
	if n := r.BudgetScripts(); n > 10 {
		t.Errorf("%d budget scripts for 40 creates", n)
	}
	r.FlushBudget(t.Context())
	r.SetBudgets(session.Budgets{ServerWorldBytes: 40 * 2 * int64(len(storetest.SeedWorlds(t, "alpha")["alpha"].Doc))})
	if _, err := createAlpha(t, r, team); err == nil {
		t.Error("a create past a budget the 40 sandboxes fill")
	}
	if err := r.Discard(t.Context(), sbs[0].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := createAlpha(t, r, team); err != nil {
		t.Errorf("create after a discard: %v", err)
	}
}
