package load

import (
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
)

// RoundRobin is the smallest load balancer: each request goes to the next
// replica in turn, so one sandbox's consecutive calls land on different
// processes and nothing can lean on a replica remembering anything. The
// scale-out test and `pome-bench --proxy` use it.
type RoundRobin struct {
	next    atomic.Uint64
	targets []*url.URL
	served  []atomic.Int64
	proxy   *httputil.ReverseProxy
}

// NewRoundRobin balances over the replicas' base URLs.
func NewRoundRobin(targets []string) (*RoundRobin, error) {
	if len(targets) == 0 {
		return nil, fmt.Errorf("no replicas to balance over")
	}
	rr := &RoundRobin{served: make([]atomic.Int64, len(targets))}
	for _, t := range targets {
		u, err := url.Parse(t)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("replica %q: want an http(s)://host:port URL", t)
		}
		rr.targets = append(rr.targets, u)
	}
	rr.proxy = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			i := int(rr.next.Add(1) % uint64(len(rr.targets)))
			rr.served[i].Add(1)
			pr.SetURL(rr.targets[i])
			// Replicas build URLs from their configured public URL, never
			// from Host; keeping the client's Host is what a balancer does.
			pr.Out.Host = pr.In.Host
		},
		// A tape followed with SSE must reach the client as it is written.
		FlushInterval: -1,
	}
	return rr, nil
}

func (rr *RoundRobin) ServeHTTP(w http.ResponseWriter, r *http.Request) { rr.proxy.ServeHTTP(w, r) }

// Served reports how many requests went to each replica, in order.
func (rr *RoundRobin) Served() []int64 {
	out := make([]int64, len(rr.served))
	for i := range rr.served {
		out[i] = rr.served[i].Load()
	}
	return out
}
