package session

// tapeHolder is a store that can take a call's tape row after the call's
// response has been sent without a reader ever missing it: while a call
// holds its twin's tape, that twin's tape reads wait for it.
type tapeHolder interface {
	holdTape(sb *Sandbox, twin string) (release func(), ok bool)
}

// HoldTape lets a caller send a call's response before appending its tape
// row. It reports false when the store cannot promise that a tape read
// started after the response will include the row (a store shared by
// replicas, whose readers cannot see this process's calls in flight); the
// caller then appends the row before responding. On true the caller must
// append the row, then call release.
func (m *Manager) HoldTape(sb *Sandbox, twin string) (release func(), ok bool) {
	h, can := m.Store.(tapeHolder)
	if !can {
		return nil, false
	}
	return h.holdTape(sb, twin)
}
