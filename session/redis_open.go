package session

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/redis/go-redis/v9"
)

// Cluster URL schemes: the node list after the scheme names seed nodes of
// one Redis Cluster, from which the client learns the rest.
const (
	clusterScheme    = "redis+cluster://"
	clusterTLSScheme = "rediss+cluster://"
)

// OpenRedis connects to the Redis named by rawURL. It does not dial: the
// first command does.
//
//   - redis://[user:pass@]host:port[/db][?opts], or rediss:// for TLS: one
//     server (or a proxy in front of several).
//   - redis+cluster://[user:pass@]host:port[,host:port…][?opts], or
//     rediss+cluster:// for TLS: a Redis Cluster, reached through any of
//     the seed nodes listed. A cluster has only database 0, so the URL
//     names none (a path of "/" or "/0" is accepted).
//
// opts are go-redis's URL options (dial_timeout=200ms, max_retries=1, …);
// a cluster also takes its own (max_redirects, …).
func OpenRedis(rawURL string) (redis.UniversalClient, error) {
	if rest, ok := cutScheme(rawURL, clusterScheme); ok {
		return openCluster("redis://", rest)
	}
	if rest, ok := cutScheme(rawURL, clusterTLSScheme); ok {
		return openCluster("rediss://", rest)
	}
	opts, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("redis url: %w", err)
	}
	return redis.NewClient(opts), nil
}

func cutScheme(s, scheme string) (string, bool) {
	if len(s) >= len(scheme) && strings.EqualFold(s[:len(scheme)], scheme) {
		return s[len(scheme):], true
	}
	return "", false
}

// openCluster builds a cluster client from what follows the cluster
// scheme: it rewrites the node list into the single-host URL with addr
// parameters that go-redis's ParseClusterURL reads.
func openCluster(scheme, rest string) (redis.UniversalClient, error) {
	rest, query, _ := strings.Cut(rest, "?")
	if i := strings.IndexByte(query, '#'); i >= 0 {
		query = query[:i]
	}
	hosts, path := rest, ""
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		hosts, path = rest[:i], rest[i:]
	}
	if path != "" && path != "/" && path != "/0" {
		return nil, fmt.Errorf("redis url: a cluster has only database 0, not %q", strings.TrimPrefix(path, "/"))
	}
	userinfo := ""
	if i := strings.LastIndexByte(hosts, '@'); i >= 0 {
		userinfo, hosts = hosts[:i+1], hosts[i+1:]
	}
	var nodes []string
	for _, n := range strings.Split(hosts, ",") {
		h, p, err := net.SplitHostPort(n)
		if err != nil || h == "" || p == "" {
			return nil, fmt.Errorf("redis url: cluster node %q: want host:port", n)
		}
		nodes = append(nodes, n)
	}
	if len(nodes) == 0 {
		return nil, errors.New("redis url: no cluster node")
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return nil, fmt.Errorf("redis url: %w", err)
	}
	if q.Has("addr") {
		return nil, errors.New("redis url: list cluster nodes as host:port,host:port, not addr=")
	}
	for _, n := range nodes[1:] {
		q.Add("addr", n)
	}
	u := scheme + userinfo + nodes[0]
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	opts, err := redis.ParseClusterURL(u)
	if err != nil {
		return nil, fmt.Errorf("redis url: %w", err)
	}
	return redis.NewClusterClient(opts), nil
}
