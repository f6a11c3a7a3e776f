package slack

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
)

// blockIDAlphabet is what Slack's generated block ids are drawn from.
const blockIDAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="

// assignBlockIDs gives every block that has no block_id one, as Slack does
// when it stores a message (history shows block_id on every block), and
// refuses a block_id used twice in the message, as Slack does. Generated
// ids are four characters derived from the block and its place, so a
// sandbox's ids are the same on every run.
func assignBlockIDs(raw json.RawMessage) (json.RawMessage, error) {
	if raw == nil {
		return nil, nil
	}
	var list []map[string]any
	if json.Unmarshal(raw, &list) != nil {
		return raw, nil
	}
	used := map[string]bool{}
	for i, b := range list {
		if id, ok := b["block_id"].(string); ok && id != "" {
			if used[id] {
				return nil, fmt.Errorf("block_id %q is used by two blocks (block %d)", id, i)
			}
			used[id] = true
		}
	}
	for i, b := range list {
		if id, ok := b["block_id"].(string); ok && id != "" {
			continue
		}
		body, _ := json.Marshal(b)
		for salt := 0; ; salt++ {
			id := blockID(fmt.Sprintf("%d/%d/%s", i, salt, body))
			if !used[id] {
				used[id] = true
				b["block_id"] = id
				break
			}
		}
	}
	out, err := json.Marshal(list)
	if err != nil {
		return raw, nil
	}
	return out, nil
}

func blockID(seed string) string {
	h := fnv.New32a()
	h.Write([]byte(seed))
	v := h.Sum32()
	out := make([]byte, 4)
	for i := range out {
		out[i] = blockIDAlphabet[v%uint32(len(blockIDAlphabet))]
		v /= uint32(len(blockIDAlphabet))
	}
	return string(out)
}
