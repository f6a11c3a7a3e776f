package session

import "context"

// SetCompaction makes the store compact a twin's deltas once there are
// after of them (0: the default rule), in the call that saved the last
// one when inCall is set.
func (s *RedisStore) SetCompaction(after int, inCall bool) {
	s.compactAfter, s.compactSync = after, inCall
}

// SetWholeSaves makes every save store the whole document, as before
// deltas (for benchmarks that compare the two).
func (s *RedisStore) SetWholeSaves(on bool) { s.wholeSaves = on }

// DeltaState reports a twin's stored layout: the version of its base
// document, its version, and how many delta fields the hash holds.
func (s *RedisStore) DeltaState(ctx context.Context, id, twin string) (base, ver int64, deltas int, err error) {
	return s.deltaState(ctx, id, twin)
}

// CompactNow stores the world this process caches for a twin as its base,
// at once; false when nothing is cached.
func (s *RedisStore) CompactNow(sb *Sandbox, twin string) bool {
	created := sb.CreatedAt.UnixNano()
	e := s.worlds.get(sb.ID, twin, created)
	if e == nil {
		return false
	}
	inCall := s.compactSync
	s.compactSync = true
	s.compact(sb.ID, twin, created, e)
	s.compactSync = inCall
	return true
}

// WaitCompactions waits for background compactions to finish.
func (s *RedisStore) WaitCompactions() { s.compactWG.Wait() }
