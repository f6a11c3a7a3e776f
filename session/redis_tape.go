package session

import (
	"context"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"
)

// TapeRaw returns the rows with seq > after, encoded (limit <= 0: all),
// without decoding them: a tape read sends them on as they are. Rows are
// read by list index: seq N is at index N-1. A row is stored without its
// seq, as the JSON after `{"seq":N,` (luaAppendRow), and gets it back
// here; a row stored whole, by an earlier version, is sent as it is; a
// row holding its response body by reference (redis_bodies.go) gets the
// body back in its place, read in one more round trip for the page.
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
	// Rows that hold their body by reference, and the bodies they name,
	// once each (a page may hold thousands).
	type refRow struct {
		i    int
		hash string
		cut  int
		rest string
	}
	var byRef []refRow
	var names []string
	named := map[string]bool{}
	for i, raw := range rows.Val() {
		switch {
		case strings.HasPrefix(raw, "{"):
			out[i] = []byte(raw)
		case strings.HasPrefix(raw, "#"):
			hash, cut, rest, err := decodeBodyRef(raw)
			if err != nil {
				return nil, fmt.Errorf("tape %s row %d: %w", twin, after+int64(i)+1, err)
			}
			byRef = append(byRef, refRow{i, hash, cut, rest})
			if !named[hash] {
				named[hash] = true
				names = append(names, hash)
			}
		default:
			out[i] = withSeq(after+int64(i)+1, raw)
		}
	}
	if len(byRef) == 0 {
		return out, nil
	}
	got, err := s.rdb.HMGet(ctx, tapeBodiesKey(sb.ID, twin), names...).Result()
	if err != nil {
		return nil, err
	}
	bodies := make(map[string]string, len(names))
	for i, v := range got {
		if b, ok := v.(string); ok {
			bodies[names[i]] = b
		}
	}
	for _, r := range byRef {
		seq := after + int64(r.i) + 1
		body, ok := bodies[r.hash]
		if !ok {
			if s.rdb.Exists(ctx, stateKey(sb.ID, twin)).Val() == 0 {
				return nil, ErrNotFound // discarded or expired since the rows were read
			}
			return nil, fmt.Errorf("tape %s row %d: response body %s is not stored", twin, seq, r.hash)
		}
		out[r.i] = withSeq(seq, r.rest[:r.cut], body, r.rest[r.cut:])
	}
	return out, nil
}
