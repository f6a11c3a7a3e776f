package session

import (
	"context"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// Internals the external tests (which must live in session_test to import
// storetest) pin or inspect.
var (
	MetaKey       = metaKey
	StateKey      = stateKey
	SeedKey       = seedKey
	TapeKey       = tapeKey
	TapeSeqKey    = tapeSeqKey
	TapeBodiesKey = tapeBodiesKey
	LockKey       = lockKey
	SandboxKeys   = sandboxKeys
	TeamIndexKey  = teamIndexKey
	TeamOpenKey   = teamOpenKey
	TeamUsageKey  = teamUsageKey
)

// BudgetKeys are the keys of the server budgets' counters in scope.
func BudgetKeys(scope string) []string {
	return []string{budgetTotalsKey(scope), budgetHeldKey(scope), budgetRetainKey(scope)}
}

// FlushBudget sends what the store's calls added to the budget counters.
func (s *RedisStore) FlushBudget(ctx context.Context) { s.budget.flush(ctx) }

// BudgetScripts counts the budget scripts the store sent.
func (s *RedisStore) BudgetScripts() int64 { return s.budget.runs.Load() }

// LocalLocks reports how many per-twin local locks the store holds.
func (s *RedisStore) LocalLocks() int { return s.locks.size() }

// PipelineStats reports the batches the store's batcher sent and the
// commands in them.
func (s *RedisStore) PipelineStats() (batches, cmds int64) {
	return s.batch.batches.Load(), s.batch.cmds.Load()
}

// PipelineQueued reports the requests waiting for a batch sender.
func (s *RedisStore) PipelineQueued() int {
	s.batch.mu.Lock()
	defer s.batch.mu.Unlock()
	return len(s.batch.queue)
}

// PipelineSenders reports the batch senders running.
func (s *RedisStore) PipelineSenders() int {
	s.batch.mu.Lock()
	defer s.batch.mu.Unlock()
	return s.batch.running
}

// Pipe runs cmds through the store's batcher (or directly when batching
// is off), as the hot path does.
func (s *RedisStore) Pipe(ctx context.Context, cmds ...redis.Cmder) error {
	return s.pipe(ctx, 0, cmds...)
}

// LoadWriteScripts loads the save and append scripts into Redis, so that
// their next calls go out as EVALSHA.
func (s *RedisStore) LoadWriteScripts(ctx context.Context) error {
	for _, sc := range []*redis.Script{createScript, quotaScript, stopScript, lockReadScript, saveScript, appendScript, appendCheckedScript, saveAppendScript} {
		if err := sc.Load(ctx, s.rdb).Err(); err != nil {
			return err
		}
	}
	return nil
}

// Script hashes, for tests that pick a script's call off the wire.
var (
	CreateScriptHash        = createScript.Hash
	QuotaScriptHash         = quotaScript.Hash
	StopScriptHash          = stopScript.Hash
	LockReadScriptHash      = lockReadScript.Hash
	SaveScriptHash          = saveScript.Hash
	AppendScriptHash        = appendScript.Hash
	AppendCheckedScriptHash = appendCheckedScript.Hash
	SaveAppendScriptHash    = saveAppendScript.Hash
)

// DropCachedWorld forgets the world this process holds for a twin.
func (s *RedisStore) DropCachedWorld(id, twin string) { s.worlds.drop(id, twin) }

// The steps of a call's protocol (call.go), for tests that take them one
// at a time rather than through Call.Do.
func (m *Manager) HoldWrites(sb *Sandbox, afterConflict bool) { m.holdWrites(sb, afterConflict) }
func (m *Manager) Settle(ctx context.Context, sb *Sandbox)    { m.settle(ctx, sb) }
func (m *Manager) Abandon(sb *Sandbox)                        { m.abandon(sb) }
func (m *Manager) HoldsWrites() bool                          { return m.holdsWrites() }
func (m *Manager) AuthorizeRead(ctx context.Context, id, twin, token string) (*Sandbox, Role, error) {
	return m.authorizeRead(ctx, id, twin, token)
}
func (sb *Sandbox) Holding() bool     { return sb.holding() }
func (sb *Sandbox) StoreFailed() bool { return sb.storeFailed() }

// HoldingStore is a Store that says it holds writes for their rows (as a
// store shared by replicas does) without storing anything differently:
// settling an attempt marks it refused as stale while Conflict is set,
// and failed while Fail is set. It lets tests drive Call through outcomes
// a real store gives only under races or faults.
type HoldingStore struct {
	Store
	Conflict, Fail     atomic.Bool
	Settled, Abandoned atomic.Int32
	HeldLeased         atomic.Int32
}

func (s *HoldingStore) holdWrites(sb *Sandbox, afterConflict bool) {
	sb.hold = &heldWrite{leased: afterConflict}
	if afterConflict {
		s.HeldLeased.Add(1)
	}
}

func (s *HoldingStore) settle(ctx context.Context, sb *Sandbox) {
	s.Settled.Add(1)
	if s.Conflict.Load() {
		sb.hold.stale.Store(true)
	}
	if s.Fail.Load() {
		sb.hold.failed.Store(true)
	}
}

func (s *HoldingStore) abandon(sb *Sandbox) {
	s.Abandoned.Add(1)
	sb.hold.failed.Store(true)
}

// MaxWriteConflicts bounds how often Call serves a held write again.
const MaxWriteConflicts = maxWriteConflicts

// ListedBacklog reports the length of the team's creation-order list of
// ids, forgotten ones included.
func (s *MemoryStore) ListedBacklog(team string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.teams[team]; t != nil {
		return len(t.listed) - t.listedHead
	}
	return 0
}

// WithCallID gives ctx the call id Manager.Record gives every try of one
// append.
func WithCallID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, callIDKey{}, id)
}
