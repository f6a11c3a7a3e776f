package rest_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/pomehq/pome/rest"
)

// BenchmarkMCPToolsList measures one GitHub tools/list, the answer an
// agent asks for at every connect.
func BenchmarkMCPToolsList(b *testing.B) {
	s := startReal(b, rest.Config{}, nil)
	c := s.create(b, s.KeyA, "github")
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req, _ := http.NewRequest("POST", c.PerTwin["github"].MCPURL, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+c.AgentToken)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("status %d", resp.StatusCode)
		}
		b.SetBytes(n)
	}
}
