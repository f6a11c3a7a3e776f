package rest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/pomehq/pome/session"
)

// followPoll is how often a followed tape looks for new rows.
const followPoll = 100 * time.Millisecond

// serveTape writes a twin's tape: JSON (default), JSON Lines
// (?format=jsonl) or a server-sent event stream of new rows (?follow=1).
// Reading a tape never adds a row to it.
func (s *Server) serveTape(w http.ResponseWriter, r *http.Request, sb *session.Sandbox, twin string) {
	q := r.URL.Query()
	var after int64
	if a := q.Get("after"); a != "" {
		n, err := strconv.ParseInt(a, 10, 64)
		if err != nil || n < 0 {
			writeJSON(w, http.StatusBadRequest, map[string]any{"message": "after must be a non-negative integer"})
			return
		}
		after = n
	}
	if f := q.Get("follow"); f == "1" || f == "true" {
		s.followTape(w, r, sb, twin, after)
		return
	}
	rows, err := s.Manager.Store.Tape(r.Context(), sb, twin, after, 0)
	if err != nil {
		if errors.Is(err, session.ErrNotFound) {
			opaque404(w)
			return
		}
		// The store failed: retryable, not the sandbox's fault.
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"message": "tape unavailable"})
		return
	}
	stored, total, err := s.Manager.Store.TapeLen(r.Context(), sb, twin)
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]any{"message": "tape unavailable"})
		return
	}
	dropped := max(total-stored, 0)
	if dropped > 0 {
		// The explicit truncation marker: every format says how many
		// calls the capped tape does not hold.
		w.Header().Set("Pome-Tape-Dropped", strconv.FormatInt(dropped, 10))
	}
	if q.Get("format") == "jsonl" {
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.WriteHeader(http.StatusOK)
		enc := json.NewEncoder(w)
		for i := range rows {
			enc.Encode(&rows[i])
		}
		return
	}
	body := map[string]any{"session_id": sb.ID, "twin": twin, "rows": rows, "count": len(rows)}
	if dropped > 0 {
		body["truncated"] = true
		body["dropped"] = dropped
	}
	writeJSON(w, http.StatusOK, body)
}

func (s *Server) followTape(w http.ResponseWriter, r *http.Request, sb *session.Sandbox, twin string, after int64) {
	fl, ok := w.(http.Flusher)
	if !ok {
		writeJSON(w, http.StatusInternalServerError, map[string]any{"message": "streaming unsupported"})
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, ": following tape\n\n")
	fl.Flush()
	tick := time.NewTicker(followPoll)
	defer tick.Stop()
	keepAlive := time.Now()
	for {
		rows, err := s.Manager.Store.Tape(r.Context(), sb, twin, after, 500)
		if err != nil {
			fmt.Fprint(w, "event: end\ndata: {\"reason\":\"sandbox gone\"}\n\n")
			fl.Flush()
			return
		}
		for i := range rows {
			b, _ := json.Marshal(&rows[i])
			fmt.Fprintf(w, "id: %d\nevent: row\ndata: %s\n\n", rows[i].Seq, b)
			after = rows[i].Seq
		}
		if len(rows) > 0 {
			fl.Flush()
			keepAlive = time.Now()
			continue
		} else if time.Since(keepAlive) > 15*time.Second {
			fmt.Fprint(w, ": keep-alive\n\n")
			fl.Flush()
			keepAlive = time.Now()
		}
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
		}
	}
}
