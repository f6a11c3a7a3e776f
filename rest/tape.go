package rest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/tape"
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
	// Rows are sent on as the store keeps them, encoded: decoding every
	// row and encoding it again cost most of a long tape's read.
	rows, err := s.Manager.Store.TapeRaw(r.Context(), sb, twin, after, 0)
	validRows(rows)
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
		bw := bufio.NewWriterSize(w, 32<<10)
		for _, row := range rows {
			bw.Write(row)
			bw.WriteByte('\n')
		}
		bw.Flush()
		return
	}
	writeTapeJSON(w, sb.ID, twin, rows, dropped)
}

// validRows replaces invalid UTF-8 in rows (a slice the store made for this
// read) with U+FFFD. Rows encoded today are valid already; one kept by an
// older binary may hold a body's invalid bytes inside a JSON string, the
// only place a row can hold them, so the row stays JSON.
func validRows(rows [][]byte) {
	for i, row := range rows {
		rows[i] = tape.ValidUTF8(row)
	}
}

// writeTapeJSON writes the JSON tape answer with its keys in the order
// json.Marshal gives a map (count, dropped, rows, session_id, truncated,
// twin), streaming the rows rather than building the body in memory.
func writeTapeJSON(w http.ResponseWriter, sid, twin string, rows [][]byte, dropped int64) {
	size := 0
	for _, row := range rows {
		size += len(row) + 1
	}
	head := strconv.AppendInt([]byte(`{"count":`), int64(len(rows)), 10)
	if dropped > 0 {
		head = strconv.AppendInt(append(head, `,"dropped":`...), dropped, 10)
	}
	head = append(head, `,"rows":[`...)
	tail, _ := json.Marshal(sid)
	tail = append([]byte(`],"session_id":`), tail...)
	if dropped > 0 {
		tail = append(tail, `,"truncated":true`...)
	}
	name, _ := json.Marshal(twin)
	tail = append(append(append(tail, `,"twin":`...), name...), "}\n"...)
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(head)+max(size-1, 0)+len(tail)))
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(w, 32<<10)
	bw.Write(head)
	for i, row := range rows {
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.Write(row)
	}
	bw.Write(tail)
	bw.Flush()
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
		rows, err := s.Manager.Store.TapeRaw(r.Context(), sb, twin, after, 500)
		validRows(rows)
		if err != nil {
			fmt.Fprint(w, "event: end\ndata: {\"reason\":\"sandbox gone\"}\n\n")
			fl.Flush()
			return
		}
		if len(rows) > 0 {
			s.extendWrite(w)
		}
		for _, row := range rows {
			// Rows are paged by position: seq N is the Nth row.
			after++
			fmt.Fprintf(w, "id: %d\nevent: row\ndata: %s\n\n", after, row)
		}
		if len(rows) > 0 {
			fl.Flush()
			keepAlive = time.Now()
			continue
		} else if time.Since(keepAlive) > 15*time.Second {
			s.extendWrite(w)
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
