package mcpserver

import (
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Origins decides which browser origins may call the MCP endpoints. The
// MCP transport asks servers to check Origin against DNS rebinding: a page
// on a name that resolves to this machine would otherwise be able to reach
// a server on loopback. Clients that are not browsers send no Origin and
// are not affected; the Host header is not checked, since the server may
// be reached through any name a proxy or a cluster gives it.
type Origins struct {
	hosts map[string]bool
}

// NewOrigins allows pages served from publicURL's host, from loopback
// (any port: local tools such as MCP inspectors), and from each of extra
// (an origin such as https://app.example.com, or "*" for any).
func NewOrigins(publicURL string, extra []string) *Origins {
	o := &Origins{hosts: map[string]bool{}}
	for _, s := range append([]string{publicURL}, extra...) {
		s = strings.TrimSpace(s)
		if s == "*" {
			o.hosts["*"] = true
			continue
		}
		if u, err := url.Parse(s); err == nil && u.Host != "" {
			o.hosts[strings.ToLower(u.Host)] = true
		}
	}
	return o
}

// Allowed reports whether a request with this Origin header may be served.
func (o *Origins) Allowed(origin string) bool {
	if origin == "" || o == nil || o.hosts["*"] {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	if o.hosts[strings.ToLower(u.Host)] {
		return true
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkOrigin refuses a request from a browser origin that is not allowed,
// with 403 and a JSON-RPC error, and reports whether it did.
func (f *fastPath) checkOrigin(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if f.origins.Allowed(origin) {
		return false
	}
	f.refuse(w, r, nil, false, http.StatusForbidden, codeInvalidRequest, "Origin not allowed: "+origin+" (allowed_origins in the server's settings)")
	return true
}
