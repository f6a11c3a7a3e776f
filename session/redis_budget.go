package session

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Server and team budgets on Redis.
//
// Replicas that share one Redis serve one deployment, so the server
// budgets of Budgets (ServerWorldBytes, ServerTapeBytes and each team's
// share of them) bound what every sandbox of the deployment holds
// together, counted in Redis (rediskeys.go: the budget keys). A sandbox is
// counted from its create, which the budget script admits or refuses
// against the totals in the same step that counts it, to the moment its
// keys expire (or its discard): nothing runs when keys expire, so the
// script gives back what a sandbox held once its retain-until has passed,
// a few at a time, whenever it runs.
//
// What a sandbox holds changes with its writes and its tape rows, on every
// call. Sending each change to the budget keys would add a round trip to
// every call (they live in a slot of their own, which no sandbox script
// may touch on a Redis Cluster). Each replica instead adds up its own
// changes and sends them together every budgetFlushEvery; a world counts
// as the size the replica last measured it at (Manager.Invoke measures a
// write's world now and then, and on every write once the budget is
// near), a tape as the sum of its rows' encodings. Each flush answers the
// totals, which the replica then checks its writes and rows against, with
// its own changes not yet sent added. So on one replica a budget holds as
// on the memory store; with N replicas, the deployment may pass it by what
// the others added in one flush interval, and a world by what its writes
// added since it was last measured.
//
// Creates are admitted the same way: far from every budget by the
// replica itself, and counted with its next flush; near one, by the
// script, against the totals (redisBudget.admit).
//
// Past a world budget, writes that would grow a world are refused, as on
// the memory store, and creates with it. Past a tape budget, the tapes of
// the team (or of everyone) keep no further row: the append script cuts
// the tape at its current length, for good, so that a tape is always a
// complete prefix of its calls (the same "dropped" count as the row cap).

// budgetFlushEvery is how often a replica sends what its calls added.
const budgetFlushEvery = 100 * time.Millisecond

// budgetOpsPerScript bounds the arguments of one budget script.
const budgetOpsPerScript = 4096

// budgetScript applies budget operations to the totals, after giving back
// what sandboxes past their retention held. Operations, in ARGV from 6:
//
//	a ID TEAM RETAIN SEED N (TWIN SIZE)×N  admit a sandbox (refused past a budget)
//	A ID TEAM RETAIN SEED N (TWIN SIZE)×N  count a sandbox a replica admitted
//	w ID TWIN SIZE                          a twin's world is now SIZE bytes
//	t ID BYTES                              tape rows of BYTES more
//	r ID RETAIN                             the sandbox's keys expire at RETAIN
//	d ID                                    the sandbox is gone
//
// Only an admitted sandbox is counted: changes to one not (or no longer)
// held are ignored, so a late flush never counts a sandbox again after its
// release. An admit sent twice counts once. Returns {"ok", world, tape,
// then TEAM, world, tape for each team it touched} or, for a refused
// admit, {"no", budget, limit, used, size}.
// KEYS: totals, held, retain. ARGV: now ms, then the limits (0: none):
// server world, team world, server tape, team tape.
var budgetScript = redis.NewScript(`
local tot, held, ret = KEYS[1], KEYS[2], KEYS[3]
local order, seen = {}, {}
local function touch(team)
  if not seen[team] then seen[team] = true; order[#order + 1] = team end
end
local function num(v) return tonumber(v) or 0 end
local function add(team, kind, n)
  if n ~= 0 then
    redis.call('HINCRBY', tot, kind, n)
    redis.call('HINCRBY', tot, kind .. ':' .. team, n)
  end
end
local function release(id)
  redis.call('ZREM', ret, id)
  local f = redis.call('HMGET', held, id, id .. '|s', id .. '|t', id .. '|n')
  if not f[1] then return end
  local w = num(f[2])
  local gone = {id, id .. '|s', id .. '|t', id .. '|n'}
  for twin in string.gmatch(f[4] or '', '[^,]+') do
    local k = id .. '|w|' .. twin
    w = w + num(redis.call('HGET', held, k))
    gone[#gone + 1] = k
  end
  add(f[1], 'w', -w)
  add(f[1], 't', -num(f[3]))
  redis.call('HDEL', held, unpack(gone))
  touch(f[1])
end
for _, id in ipairs(redis.call('ZRANGEBYSCORE', ret, '-inf', ARGV[1], 'LIMIT', 0, 100)) do release(id) end
local i = 6
while i <= #ARGV do
  local op, id = ARGV[i], ARGV[i + 1]
  if op == 'a' or op == 'A' then
    local team, retain, seed, n = ARGV[i + 2], ARGV[i + 3], tonumber(ARGV[i + 4]), tonumber(ARGV[i + 5])
    local first = i + 6
    i = first + 2 * n
    touch(team)
    if not redis.call('HGET', held, id) then
      local w = seed
      for j = 0, n - 1 do w = w + tonumber(ARGV[first + 2 * j + 1]) end
      if op == 'a' then
        local cur = redis.call('HMGET', tot, 'w', 't', 'w:' .. team, 't:' .. team)
        local lim = tonumber(ARGV[5])
        if lim > 0 and num(cur[4]) >= lim then return {'no', 'team_tape', lim, num(cur[4]), num(cur[4])} end
        lim = tonumber(ARGV[4])
        if lim > 0 and num(cur[2]) >= lim then return {'no', 'server_tape', lim, num(cur[2]), num(cur[2])} end
        lim = tonumber(ARGV[3])
        if lim > 0 and num(cur[3]) + w > lim then return {'no', 'team_world', lim, num(cur[3]), num(cur[3]) + w} end
        lim = tonumber(ARGV[2])
        if lim > 0 and num(cur[1]) + w > lim then return {'no', 'server_world', lim, num(cur[1]), num(cur[1]) + w} end
      end
      local names, set = {}, {id, team, id .. '|s', seed, id .. '|t', 0}
      for j = 0, n - 1 do
        local twin = ARGV[first + 2 * j]
        names[#names + 1] = twin
        set[#set + 1] = id .. '|w|' .. twin
        set[#set + 1] = ARGV[first + 2 * j + 1]
      end
      set[#set + 1] = id .. '|n'
      set[#set + 1] = table.concat(names, ',')
      redis.call('HSET', held, unpack(set))
      redis.call('ZADD', ret, retain, id)
      add(team, 'w', w)
    end
  elseif op == 'w' then
    local team = redis.call('HGET', held, id)
    if team then
      local k = id .. '|w|' .. ARGV[i + 2]
      local old = redis.call('HGET', held, k)
      if old then
        redis.call('HSET', held, k, ARGV[i + 3])
        add(team, 'w', tonumber(ARGV[i + 3]) - tonumber(old))
      end
      touch(team)
    end
    i = i + 4
  elseif op == 't' then
    local team = redis.call('HGET', held, id)
    if team then
      redis.call('HINCRBY', held, id .. '|t', ARGV[i + 2])
      add(team, 't', tonumber(ARGV[i + 2]))
      touch(team)
    end
    i = i + 3
  elseif op == 'r' then
    if redis.call('HGET', held, id) then redis.call('ZADD', ret, ARGV[i + 2], id) end
    i = i + 3
  elseif op == 'd' then
    release(id)
    i = i + 2
  else
    return redis.error_reply('unknown budget operation ' .. tostring(op))
  end
end
local cur = redis.call('HMGET', tot, 'w', 't')
local out = {'ok', num(cur[1]), num(cur[2])}
for _, team in ipairs(order) do
  local c = redis.call('HMGET', tot, 'w:' .. team, 't:' .. team)
  out[#out + 1] = team
  out[#out + 1] = num(c[1])
  out[#out + 1] = num(c[2])
end
return out
`)

// redisBudget counts a Redis store's sandboxes against the server budgets
// (see the top of this file). Its zero value counts nothing.
type redisBudget struct {
	rdb  redis.UniversalClient
	now  func() time.Time
	bp   atomic.Pointer[Budgets]
	keys []string

	// The totals the last flush answered, with what this process added
	// since (pending) on top.
	world, tape atomic.Int64
	teams       sync.Map // team → *budgetTeam
	// pendingWorld and pendingTape are what this process added and has
	// not sent yet, over every team; answered is when (Unix ns) the
	// totals were last answered.
	pendingWorld, pendingTape atomic.Int64
	answered                  atomic.Int64
	// runs counts the budget scripts sent, for tests.
	runs atomic.Int64

	mu      sync.Mutex
	pending map[string]*budgetPending // sandbox id → its changes not yet sent

	stop, done chan struct{}
	stopOnce   sync.Once
	// flushMu makes flushes one at a time.
	flushMu sync.Mutex
}

// budgetTeam is one team's totals as last answered, and what this process
// added since.
type budgetTeam struct {
	world, tape               atomic.Int64
	pendingWorld, pendingTape atomic.Int64
}

// budgetPending is what one sandbox's calls changed here since the last
// flush.
type budgetPending struct {
	team string
	// admit is the operation counting a sandbox this process admitted on
	// its own (see admit), not sent yet.
	admit  []any
	tape   int64
	worlds map[string]int64 // twin → its size as last measured
	grew   int64            // what the measures added, counted as pending
}

// on reports whether any server budget is set.
func (rb *redisBudget) on() bool {
	b := rb.budgets()
	return b.ServerWorldBytes > 0 || b.ServerTapeBytes > 0
}

// budgets are the budgets set (SetBudgets may run while calls are served).
func (rb *redisBudget) budgets() Budgets {
	if b := rb.bp.Load(); b != nil {
		return *b
	}
	return Budgets{}
}

func (rb *redisBudget) team(name string) *budgetTeam {
	if v, ok := rb.teams.Load(name); ok {
		return v.(*budgetTeam)
	}
	v, _ := rb.teams.LoadOrStore(name, &budgetTeam{})
	return v.(*budgetTeam)
}

// limits are the script's limit arguments.
func (rb *redisBudget) limits() []any {
	b := rb.budgets()
	return []any{b.ServerWorldBytes, b.teamLimit(b.ServerWorldBytes), b.ServerTapeBytes, b.teamLimit(b.ServerTapeBytes)}
}

// run sends ops to the budget script and takes in the totals it answers.
func (rb *redisBudget) run(ctx context.Context, ops []any) (*BudgetError, error) {
	args := append([]any{rb.now().UnixMilli()}, rb.limits()...)
	rb.runs.Add(1)
	res, err := budgetScript.Run(ctx, rb.rdb, rb.keys, append(args, ops...)...).Slice()
	if err != nil {
		return nil, fmt.Errorf("redis budget: %w", err)
	}
	if len(res) == 5 && res[0] == "no" {
		name, _ := res[1].(string)
		return &BudgetError{Budget: name, Limit: toInt64(res[2]), Used: toInt64(res[3]), Size: toInt64(res[4])}, nil
	}
	if len(res) < 3 || res[0] != "ok" || (len(res)-3)%3 != 0 {
		return nil, fmt.Errorf("redis budget: unexpected answer %v", res)
	}
	rb.world.Store(toInt64(res[1]))
	rb.tape.Store(toInt64(res[2]))
	rb.answered.Store(time.Now().UnixNano())
	for i := 3; i < len(res); i += 3 {
		name, _ := res[i].(string)
		t := rb.team(name)
		t.world.Store(toInt64(res[i+1]))
		t.tape.Store(toInt64(res[i+2]))
	}
	return nil, nil
}

func toInt64(v any) int64 {
	switch v := v.(type) {
	case int64:
		return v
	case string:
		n, _ := strconv.ParseInt(v, 10, 64)
		return n
	}
	return 0
}

// admit counts a new sandbox's worlds (its seed documents, and each twin's
// state as created), or refuses it past a budget.
//
// Far from every budget (see roomyFor), the sandbox is admitted here, and
// counted with this process's next flush: a create then costs no round
// trip more. Nearer, it is admitted by the budget script against the
// totals, with what this process has not sent yet going first in the same
// script, so that they count too.
func (rb *redisBudget) admit(ctx context.Context, sb *Sandbox, seeds int64, states map[string]int64) error {
	if rb.admitHere(sb, seeds, states) {
		return nil
	}
	return rb.admitThere(ctx, sb, seeds, states)
}

// admitOp is the operation admitting sb, and the bytes it counts.
func admitOp(op string, sb *Sandbox, seeds int64, states map[string]int64) ([]any, int64) {
	ops := []any{op, sb.ID, sb.Team, sb.RetainUntil.UnixMilli(), seeds, len(states)}
	w := seeds
	for _, name := range sortedKeys(states) {
		ops = append(ops, name, states[name])
		w += states[name]
	}
	return ops, w
}

// admitHere admits sb in process when that is safe (roomyFor), or, with
// no server budget, has nothing to do; false: the script must.
func (rb *redisBudget) admitHere(sb *Sandbox, seeds int64, states map[string]int64) bool {
	b := rb.budgets()
	if b.ServerWorldBytes <= 0 && b.ServerTapeBytes <= 0 {
		return true
	}
	ops, w := admitOp("A", sb, seeds, states)
	if !rb.roomyFor(sb.Team, w, b) {
		return false
	}
	rb.pend(sb, w, func(p *budgetPending) { p.admit = ops })
	return true
}

// pend records a change of sb that adds grew bytes of world, made by
// change on its pending entry, and starts the flusher.
func (rb *redisBudget) pend(sb *Sandbox, grew int64, change func(*budgetPending)) {
	rb.mu.Lock()
	p := rb.entry(sb)
	change(p)
	p.grew += grew
	rb.team(sb.Team).pendingWorld.Add(grew)
	rb.pendingWorld.Add(grew)
	rb.mu.Unlock()
	rb.start()
}

// admitThere admits sb by the budget script.
func (rb *redisBudget) admitThere(ctx context.Context, sb *Sandbox, seeds int64, states map[string]int64) error {
	ops, _ := admitOp("a", sb, seeds, states)
	rb.flushMu.Lock()
	defer rb.flushMu.Unlock()
	be, err := rb.send(ctx, rb.take(), ops)
	if err != nil {
		return err
	}
	if be != nil {
		be.Team = sb.Team
		return be
	}
	return nil
}

// budgetFresh is how recent the totals a replica knows must be for it to
// admit a sandbox on its own.
const budgetFresh = time.Second

// roomyFor reports whether a sandbox of w bytes of worlds leaves its team
// and the server at no more than half of each world budget, and their
// tapes under half of each tape budget, by totals answered within
// budgetFresh: then no replica's admission can take them past a budget
// before the next flushes but by what the others admit meanwhile.
func (rb *redisBudget) roomyFor(team string, w int64, b Budgets) bool {
	if time.Since(time.Unix(0, rb.answered.Load())) > budgetFresh {
		return false
	}
	t := rb.team(team)
	within := func(limit, held int64) bool { return limit <= 0 || held*roomyShare <= limit }
	return within(b.ServerWorldBytes, rb.world.Load()+rb.pendingWorld.Load()+w) &&
		within(b.teamLimit(b.ServerWorldBytes), t.world.Load()+t.pendingWorld.Load()+w) &&
		within(b.ServerTapeBytes, rb.tape.Load()+rb.pendingTape.Load()) &&
		within(b.teamLimit(b.ServerTapeBytes), t.tape.Load()+t.pendingTape.Load())
}

func sortedKeys(m map[string]int64) []string {
	return slices.Sorted(maps.Keys(m))
}

// retain moves when what the sandbox holds is given back; release gives
// it back now. Both are best effort: a sandbox they miss is given back at
// its old retain-until.
func (rb *redisBudget) retain(ctx context.Context, id string, until time.Time) {
	if !rb.on() {
		return
	}
	rb.mu.Lock()
	if p := rb.pending[id]; p != nil && p.admit != nil {
		// Not counted yet: it will be, with this retention.
		p.admit[3] = until.UnixMilli()
		rb.mu.Unlock()
		return
	}
	rb.mu.Unlock()
	// After any flush in flight, which may count the sandbox.
	rb.flushMu.Lock()
	defer rb.flushMu.Unlock()
	rb.run(ctx, []any{"r", id, until.UnixMilli()})
}

func (rb *redisBudget) release(ctx context.Context, id string) {
	if !rb.on() {
		return
	}
	rb.mu.Lock()
	p := rb.pending[id]
	if p != nil {
		rb.unpend(p)
		delete(rb.pending, id)
	}
	rb.mu.Unlock()
	if p != nil && p.admit != nil {
		// Never counted.
		return
	}
	rb.flushMu.Lock()
	defer rb.flushMu.Unlock()
	rb.run(ctx, []any{"d", id})
}

// unpend takes p's changes off the pending totals (under rb.mu).
func (rb *redisBudget) unpend(p *budgetPending) {
	t := rb.team(p.team)
	t.pendingTape.Add(-p.tape)
	t.pendingWorld.Add(-p.grew)
	rb.pendingTape.Add(-p.tape)
	rb.pendingWorld.Add(-p.grew)
}

func (rb *redisBudget) entry(sb *Sandbox) *budgetPending {
	p := rb.pending[sb.ID]
	if p == nil {
		if rb.pending == nil {
			rb.pending = map[string]*budgetPending{}
		}
		p = &budgetPending{team: sb.Team}
		rb.pending[sb.ID] = p
	}
	return p
}

// worldHeld returns what the server and the team hold in worlds, to this
// process's knowledge.
func (rb *redisBudget) worldHeld(team string) (server, teamHeld int64) {
	t := rb.team(team)
	return rb.world.Load() + rb.pendingWorld.Load(), t.world.Load() + t.pendingWorld.Load()
}

// tight reports whether the team or the server is near its world budget,
// so that every write must be measured.
func (rb *redisBudget) tight(team string) bool {
	b := rb.budgets()
	if b.ServerWorldBytes <= 0 {
		return false
	}
	server, held := rb.worldHeld(team)
	if lim := b.teamLimit(b.ServerWorldBytes); lim > 0 && held*roomyShare > lim {
		return true
	}
	return server*roomyShare > b.ServerWorldBytes
}

// world counts a twin's world as now size bytes, last measured here at
// prev (prev < 0: not measured here before), or refuses the write that
// made it so when that growth would take the team or the server past
// its world budget.
func (rb *redisBudget) worldMeasured(sb *Sandbox, twin string, prev, size int64) error {
	b := rb.budgets()
	if b.ServerWorldBytes <= 0 && b.ServerTapeBytes <= 0 {
		return nil
	}
	grew := int64(0)
	if prev >= 0 {
		grew = size - prev
	}
	if grew > 0 && b.ServerWorldBytes > 0 {
		server, held := rb.worldHeld(sb.Team)
		if lim := b.teamLimit(b.ServerWorldBytes); lim > 0 && held+grew > lim {
			return &BudgetError{Budget: BudgetTeamWorld, Twin: twin, Team: sb.Team, Limit: lim, Used: held, Size: held + grew}
		}
		if lim := b.ServerWorldBytes; server+grew > lim {
			return &BudgetError{Budget: BudgetServerWorld, Twin: twin, Team: sb.Team, Limit: lim, Used: server, Size: server + grew}
		}
	}
	rb.pend(sb, grew, func(p *budgetPending) {
		if p.worlds == nil {
			p.worlds = map[string]int64{}
		}
		p.worlds[twin] = size
	})
	return nil
}

// tapeSpent reports whether the team's or the server's tape budget has no
// room left: the team's tapes keep no further row.
func (rb *redisBudget) tapeSpent(team string) bool {
	b := rb.budgets()
	if b.ServerTapeBytes <= 0 {
		return false
	}
	t := rb.team(team)
	if lim := b.teamLimit(b.ServerTapeBytes); lim > 0 && t.tape.Load()+t.pendingTape.Load() >= lim {
		return true
	}
	return rb.tape.Load()+rb.pendingTape.Load() >= b.ServerTapeBytes
}

// row counts a kept tape row of n bytes.
func (rb *redisBudget) row(sb *Sandbox, n int64) {
	if !rb.on() {
		return
	}
	rb.mu.Lock()
	rb.entry(sb).tape += n
	rb.team(sb.Team).pendingTape.Add(n)
	rb.pendingTape.Add(n)
	rb.mu.Unlock()
	rb.start()
}

// start runs the flusher, once.
func (rb *redisBudget) start() {
	rb.stopOnce.Do(func() {
		rb.stop, rb.done = make(chan struct{}), make(chan struct{})
		go rb.loop()
	})
}

func (rb *redisBudget) loop() {
	defer close(rb.done)
	tick := time.NewTicker(budgetFlushEvery)
	defer tick.Stop()
	for {
		select {
		case <-rb.stop:
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			rb.flush(ctx)
			cancel()
			return
		case <-tick.C:
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			rb.flush(ctx)
			cancel()
		}
	}
}

// close stops the flusher after a last flush.
func (rb *redisBudget) close() {
	if rb == nil {
		return
	}
	rb.stopOnce.Do(func() {}) // a flusher never started stays so
	if rb.stop != nil {
		select {
		case <-rb.stop:
		default:
			close(rb.stop)
		}
		<-rb.done
	}
}

// flush sends what this process's calls changed. Changes a failed flush
// could not send are kept for the next (a world's newer size wins).
func (rb *redisBudget) flush(ctx context.Context) {
	rb.flushMu.Lock()
	defer rb.flushMu.Unlock()
	rb.send(ctx, rb.take(), nil)
}

// take hands over what this process's calls changed since the last send.
func (rb *redisBudget) take() map[string]*budgetPending {
	rb.mu.Lock()
	defer rb.mu.Unlock()
	batch := rb.pending
	rb.pending = nil
	return batch
}

// send sends batch, with the operations tail after it in the last script,
// and answers what that script refused. What a failed script could not
// send is pending again.
func (rb *redisBudget) send(ctx context.Context, batch map[string]*budgetPending, tail []any) (*BudgetError, error) {
	ids := slices.Sorted(maps.Keys(batch))
	for {
		var ops []any
		n := 0
		for n < len(ids) && len(ops) < budgetOpsPerScript {
			p := batch[ids[n]]
			ops = append(ops, p.admit...)
			for twin, size := range p.worlds {
				ops = append(ops, "w", ids[n], twin, size)
			}
			if p.tape > 0 {
				ops = append(ops, "t", ids[n], p.tape)
			}
			n++
		}
		last := n == len(ids)
		if last {
			ops = append(ops, tail...)
		}
		if len(ops) == 0 {
			return nil, nil
		}
		be, err := rb.run(ctx, ops)
		if err != nil {
			// Not sent, this script's nor the rest: pending again.
			rb.repend(batch, ids)
			return nil, err
		}
		rb.mu.Lock()
		for _, id := range ids[:n] {
			// Sent: the totals answered count it now (a refused admit at
			// the end changes nothing before it).
			rb.unpend(batch[id])
		}
		rb.mu.Unlock()
		if last {
			return be, nil
		}
		ids = ids[n:]
	}
}

// repend makes the changes of batch for ids pending again, under newer
// ones made meanwhile (a world's newer size wins; tape bytes add up).
func (rb *redisBudget) repend(batch map[string]*budgetPending, ids []string) {
	rb.mu.Lock()
	defer rb.mu.Unlock()
	if rb.pending == nil {
		rb.pending = map[string]*budgetPending{}
	}
	for _, id := range ids {
		p := batch[id]
		if q := rb.pending[id]; q != nil {
			if q.admit != nil {
				p.admit = q.admit
			}
			for twin, size := range q.worlds {
				if p.worlds == nil {
					p.worlds = map[string]int64{}
				}
				p.worlds[twin] = size
			}
			p.tape += q.tape
			p.grew += q.grew
		}
		rb.pending[id] = p
	}
}
