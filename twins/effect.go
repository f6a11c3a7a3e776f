package twins

import "fmt"

// Effect says whether an action changes its twin's state. It is required:
// the zero value is invalid, so no action can silently default to "writes"
// or "reads".
type Effect int

const (
	effectUnset Effect = iota
	// Read never changes state.
	Read
	// Write may change state.
	Write
	// Destructive may delete or irreversibly change state.
	Destructive
)

func (e Effect) String() string {
	switch e {
	case Read:
		return "read"
	case Write:
		return "write"
	case Destructive:
		return "destructive"
	}
	return fmt.Sprintf("Effect(%d)", int(e))
}

// Valid reports whether the effect was set.
func (e Effect) Valid() bool { return e == Read || e == Write || e == Destructive }

// MarshalText renders the effect as its name.
func (e Effect) MarshalText() ([]byte, error) { return []byte(e.String()), nil }
