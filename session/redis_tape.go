package session

import (
	"context"
	"strings"

	"github.com/redis/go-redis/v9"
)

// TapeRaw returns the rows with seq > after, encoded (limit <= 0: all),
// without decoding them: a tape read sends them on as they are. Rows are
// read by list index: seq N is at index N-1. A row is stored without its
// seq, as the JSON after `{"seq":N,` (luaAppendRow), and gets it back
// here; a row stored whole, by an earlier version, is sent as it is.
func (s *RedisStore) TapeRaw(ctx context.Context, sb *Sandbox, twin string, after int64, limit int) ([][]byte, error) {
	after = max(after, 0)
	stop := int64(-1)
	if limit > 0 {
		stop = after + int64(limit) - 1
	}
	var exists *redis.IntCmd
	var rows *redis.StringSliceCmd
	// A twin with no rows yet has no tape key; the state key tells an empty
	// tape from a sandbox or twin that is gone.
	if _, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		exists = p.Exists(ctx, stateKey(sb.ID, twin))
		rows = p.LRange(ctx, tapeKey(sb.ID, twin), after, stop)
		return nil
	}); err != nil {
		return nil, err
	}
	if exists.Val() == 0 {
		return nil, ErrNotFound
	}
	out := make([][]byte, len(rows.Val()))
	for i, raw := range rows.Val() {
		if strings.HasPrefix(raw, "{") {
			out[i] = []byte(raw)
			continue
		}
		out[i] = withSeq(after+int64(i)+1, raw)
	}
	return out, nil
}
