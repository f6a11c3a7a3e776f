package twins

import (
	"context"
	"testing"
)

type mcpFormWorld struct{ calls int }

type mcpFormIn struct {
	N int `json:"n"`
}

type mcpFormOut struct {
	N    int    `json:"n"`
	Full string `json:"full"`
}

// TestMCPFormAppliesOverMCPOnly: an action's MCP renderer shapes the
// answer of calls that arrive over MCP and of no other, sees the world and
// input the handler saw, and a renderer's error is the call's error.
func TestMCPFormAppliesOverMCPOnly(t *testing.T) {
	a := New(Spec{Name: "t", Effect: Read, MCP: func(_ context.Context, world, in, out any) (any, error) {
		if world.(*mcpFormWorld).calls != 1 || in.(mcpFormIn).N != 2 {
			t.Errorf("renderer saw world %+v, input %+v", world, in)
		}
		return map[string]int{"n": out.(mcpFormOut).N}, nil
	}}, func(_ context.Context, w *mcpFormWorld, in mcpFormIn) (mcpFormOut, error) {
		w.calls++
		return mcpFormOut{N: in.N, Full: "everything"}, nil
	})
	for _, tr := range []string{TransportREST, "", TransportMCP} {
		w := &mcpFormWorld{}
		out, err := a.Run(WithTransport(context.Background(), tr), w, mcpFormIn{N: 2})
		if err != nil {
			t.Fatal(err)
		}
		_, trimmed := out.(map[string]int)
		if trimmed != (tr == TransportMCP) {
			t.Errorf("transport %q: answered %#v", tr, out)
		}
	}
	failing := New(Spec{Name: "f", Effect: Read, MCP: func(context.Context, any, any, any) (any, error) {
		return nil, Errorf(Internal, "", "cannot render")
	}}, func(_ context.Context, w *mcpFormWorld, in mcpFormIn) (mcpFormOut, error) { return mcpFormOut{}, nil })
	if _, err := failing.Run(WithTransport(context.Background(), TransportMCP), &mcpFormWorld{}, mcpFormIn{}); err == nil {
		t.Error("a renderer's error was dropped")
	}
}
