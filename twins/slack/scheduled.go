package slack

import (
	"context"
	"sort"

	"github.com/pomehq/pome/twins"
)

// Scheduled messages are delivered by the sandbox clock, not by a timer:
// nothing runs between calls. Once the clock passes a message's post_at,
// every call sees the workspace as Slack would show it then — the message
// in its channel with its scheduled ts, gone from
// chat.scheduledMessages.list. Reads compute that view without touching
// the stored world (the memory store runs them under a read lock on the live
// world, and the Redis store discards what a read changes); writes store
// the view before they change anything, so what they do builds on it. The
// two agree because the view is a function of the stored world and the
// clock alone.

// deliveringAction runs an action on the workspace as of the sandbox clock.
// Every action of the twin is wrapped once, in New, so no handler can forget.
type deliveringAction struct{ twins.Action }

// Unwrap returns the wrapped action (see twins.HasQuickValidation).
func (a deliveringAction) Unwrap() twins.Action { return a.Action }

// delivering wraps each action so that it sees due scheduled messages
// delivered.
func delivering(as []twins.Action) []twins.Action {
	out := make([]twins.Action, len(as))
	for i, a := range as {
		out[i] = deliveringAction{a}
	}
	return out
}

// Run runs the handler on the effective world. A read leaves the stored
// world alone; a successful write stores the effective world (deliveries
// included) with its own changes. A refused write stores nothing, so it
// leaves the world exactly as it was.
func (a deliveringAction) Run(ctx context.Context, world any, in any) (any, error) {
	w, ok := world.(*World)
	if !ok || len(w.Scheduled) == 0 {
		// Nothing scheduled: the clock changes nothing (and a read that
		// does not read it may be answered again, rest/answers.go).
		return a.Action.Run(ctx, world, in)
	}
	eff, _ := w.deliver(now(ctx))
	if eff == w {
		return a.Action.Run(ctx, w, in)
	}
	out, err := a.Action.Run(ctx, eff, in)
	if err == nil && a.Spec().Effect != twins.Read {
		*w = *eff
	}
	return out, err
}

// effective returns w as a reader sees it at nowUnix (Unix seconds).
func (w *World) effective(nowUnix int64) *World {
	eff, _ := w.deliver(nowUnix)
	return eff
}

// deliver returns the world with every scheduled message due at nowUnix
// moved into its channel, and which message came from which entry of
// w.Scheduled. When nothing is due it returns w itself. Otherwise it
// returns a copy that shares everything it does not change with w, and
// changes nothing reachable from w: channels that receive a message, their
// message lists and the thread parents whose reply fields move are copies.
//
// A message whose channel was archived, or whose author left it, before
// its time fails to post, as in Slack: it leaves the schedule without
// appearing anywhere.
func (w *World) deliver(nowUnix int64) (*World, map[*Message]int) {
	var due []int
	for i, s := range w.Scheduled {
		if s.PostAt <= nowUnix {
			due = append(due, i)
		}
	}
	if len(due) == 0 {
		return w, nil
	}
	// Deliver in post_at order, ties by their scheduled ts, so a thread
	// reply scheduled after its parent lands after it.
	sort.SliceStable(due, func(i, j int) bool {
		a, b := w.Scheduled[due[i]], w.Scheduled[due[j]]
		if a.PostAt != b.PostAt {
			return a.PostAt < b.PostAt
		}
		ta, _ := parseTS(a.scheduledTS())
		tb, _ := parseTS(b.scheduledTS())
		return ta < tb
	})
	eff := *w
	eff.Channels = append([]*Channel(nil), w.Channels...)
	isDue := map[int]bool{}
	for _, i := range due {
		isDue[i] = true
	}
	eff.Scheduled = make([]*ScheduledMessage, 0, len(w.Scheduled)-len(due))
	for i, s := range w.Scheduled {
		if !isDue[i] {
			eff.Scheduled = append(eff.Scheduled, s)
		}
	}
	copied := map[string]*Channel{}
	delivered := map[*Message]int{}
	for _, i := range due {
		s := w.Scheduled[i]
		ci := eff.channelIndex(s.ChannelID)
		if ci < 0 {
			continue
		}
		if orig := eff.Channels[ci]; orig.IsArchived || !orig.isMember(s.User) {
			continue
		}
		c := copied[s.ChannelID]
		if c == nil {
			cc := *eff.Channels[ci]
			cc.Messages = append([]*Message(nil), cc.Messages...)
			c = &cc
			eff.Channels[ci] = c
			copied[s.ChannelID] = c
		}
		m := w.scheduledMessage(s)
		// The scheduled ts is unique among scheduled messages; a message
		// posted in the same microsecond since then moves it on by one.
		us, _ := parseTS(m.TS)
		for c.message(formatTS(us)) != nil {
			us++
		}
		m.TS = formatTS(us)
		var parent *Message
		if s.ThreadTS != "" {
			if p := c.message(s.ThreadTS); p != nil {
				pc := *p
				for j, x := range c.Messages {
					if x == p {
						c.Messages[j] = &pc
					}
				}
				parent = &pc
				m.ThreadTS, m.ParentUserID = pc.TS, pc.User
				if s.ReplyBroadcast {
					m.Subtype = "thread_broadcast"
				}
			}
		}
		c.insert(m) // c is this call's own copy
		if parent != nil {
			c.refreshParent(parent.TS)
		}
		delivered[m] = i
	}
	return &eff, delivered
}

// scheduledTS is the ts the message will carry: its post_at with the
// suffix it was given when scheduled (worlds from before suffixes existed
// get none).
func (s *ScheduledMessage) scheduledTS() string {
	if s.TS != "" {
		return s.TS
	}
	return formatTS(s.PostAt * 1e6)
}

// scheduledMessage is the channel message s becomes.
func (w *World) scheduledMessage(s *ScheduledMessage) *Message {
	m := &Message{
		Type: "message", TS: s.scheduledTS(), User: s.User, Text: s.Text, Team: w.Team.ID,
		Blocks: s.Blocks, Attachments: s.Attachments,
	}
	w.signAsBot(m, s.User)
	return m
}
