package session

// WorldCacheStats reports how many worlds the store caches and the bytes
// charged for them against its bound.
func (s *RedisStore) WorldCacheStats() (entries int, bytes int64) { return s.worlds.stats() }
