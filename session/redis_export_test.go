package session

// WorldCacheStats reports how many worlds the store caches and the bytes
// charged for them against its bound.
func (s *RedisStore) WorldCacheStats() (entries int, bytes int64) { return s.worlds.stats() }

// CacheWorld puts a twin's world into the store's cache at version ver,
// as a reader that fetched it would.
func (s *RedisStore) CacheWorld(sb *Sandbox, twin string, ver int64, doc []byte, world any) {
	s.worlds.put(sb.ID, twin, sb.CreatedAt.UnixNano(), ver, doc, world)
}
