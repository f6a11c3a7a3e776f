// Package session keeps sandboxes: their lifecycle and tokens (Manager),
// the stores that hold their records, twin worlds and tapes (MemoryStore,
// RedisStore, one conformance suite in storetest), and the budgets that
// bound them (budget.go).
//
// A data-plane call's consistency lives in one place, Call (call.go):
// every transport (REST, GraphQL, MCP and each request of an MCP batch)
// serves a call through Call.Do, which authorizes it, decides whether its
// record may come from this process's caches (a read) or its write must
// wait to be stored with its tape row (on a store shared by replicas),
// settles each attempt, and keeps its answer or serves it again. The
// store-side halves of that protocol (redis_spec.go, redis_hold.go) are
// reached only through Call.
package session
