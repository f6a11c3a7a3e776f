package linear

import (
	"testing"

	"github.com/pomehq/pome/twins/twinstest"
)

func TestRules(t *testing.T) { twinstest.Rules(t, New()) }

func TestSchemas(t *testing.T) { twinstest.SnapshotSchemas(t, New()) }
