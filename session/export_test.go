package session

// Internals the external tests (which must live in session_test to import
// storetest) pin or inspect.
var (
	MetaKey      = metaKey
	StateKey     = stateKey
	SeedKey      = seedKey
	TapeKey      = tapeKey
	TapeSeqKey   = tapeSeqKey
	LockKey      = lockKey
	SandboxKeys  = sandboxKeys
	TeamIndexKey = teamIndexKey
	TeamOpenKey  = teamOpenKey
	TeamUsageKey = teamUsageKey
)

// LocalLocks reports how many per-twin local locks the store holds.
func (s *RedisStore) LocalLocks() int { return s.locks.size() }
