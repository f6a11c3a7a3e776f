package session

import (
	"context"
	"time"

	"github.com/pomehq/pome/tape"
)

// tapeReserver is a store that can give a call its tape position before
// the call's response is sent, and take the row after.
type tapeReserver interface {
	reserveTape(sb *Sandbox, twin string) (fill func(*tape.Row), err error)
}

// TapeSlot is a call's place on its twin's tape, taken before its response
// is sent: its seq orders it after every call answered before it, and tape
// reads wait until its row is written (Fill).
type TapeSlot struct {
	sb     *Sandbox
	twin   string
	fill   func(*tape.Row)
	filled bool
}

// ReserveTape lets a caller send a call's response before writing its tape
// row, which then no longer delays the answer. It reports false when the
// store cannot promise that (one shared by replicas, whose readers cannot
// see this process's reservations); the caller then records the row before
// responding, with Record. On true the caller must call Fill exactly once.
func (m *Manager) ReserveTape(sb *Sandbox, twin string) (*TapeSlot, bool) {
	r, can := m.Store.(tapeReserver)
	if !can {
		return nil, false
	}
	fill, err := r.reserveTape(sb, twin)
	if err != nil {
		return nil, false
	}
	return &TapeSlot{sb: sb, twin: twin, fill: fill}, true
}

// Fill writes the call's row at its reserved place (setting its seq).
// Only the first Fill of a slot counts. As with Store.Append, the row's
// response body may be kept as it is: it must not change afterwards.
func (s *TapeSlot) Fill(row *tape.Row) {
	if s.filled {
		return
	}
	s.filled = true
	row.SessionID = s.sb.ID
	s.fill(row)
}

// Abandon fills a slot that was never filled (the call panicked after
// reserving it) with a bare row saying so, so that the seq is not lost
// and tape reads, which wait for every reserved place, do not wait
// forever. Callers defer it right after ReserveTape.
func (s *TapeSlot) Abandon() {
	if s == nil || s.filled {
		return
	}
	s.Fill(&tape.Row{At: s.sb.Now(time.Now()), Twin: s.twin, Status: 500})
}

// RecordIn writes row at slot when the call reserved one, and otherwise
// appends it (Record), so callers have one path for both.
func (m *Manager) RecordIn(ctx context.Context, slot *TapeSlot, sb *Sandbox, row *tape.Row) error {
	if slot != nil {
		slot.Fill(row)
		return nil
	}
	return m.Record(ctx, sb, row)
}
