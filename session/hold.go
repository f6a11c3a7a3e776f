package session

import (
	"context"

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
	sb   *Sandbox
	fill func(*tape.Row)
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
	return &TapeSlot{sb: sb, fill: fill}, true
}

// Fill writes the call's row at its reserved place (setting its seq).
func (s *TapeSlot) Fill(row *tape.Row) {
	row.SessionID = s.sb.ID
	s.fill(row)
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
