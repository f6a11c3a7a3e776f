package session

// shards is how many parts the Redis store splits each of its in-process
// tables into (decoded records, cached worlds, writers' local locks), so
// that calls to different sandboxes seldom take the same mutex.
const shards = 16

// shardOf picks the shard of a key (FNV-1a).
func shardOf(key string) int {
	h := uint32(2166136261)
	for i := 0; i < len(key); i++ {
		h ^= uint32(key[i])
		h *= 16777619
	}
	return int(h % shards)
}
