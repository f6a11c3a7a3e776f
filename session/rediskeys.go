package session

// Every Redis key Pome uses is built here, so that the layout can be read
// (and pinned by a test) in one place.
//
// Keys of one sandbox carry its id as the hash tag, so they live in one
// Redis Cluster slot: the scripts that create, stop and write a sandbox touch
// several of them atomically. Team keys carry the team as their hash tag for
// the same reason (the quota script reads and writes all of them). Nothing
// ever touches a sandbox key and a team key in one command or script: a
// Redis Cluster refuses keys of two slots (CROSSSLOT), which the
// conformance suite on a cluster (TestRedisClusterStore) would show.

// keyPrefix starts every key, so a shared Redis can tell Pome's keys apart.
const keyPrefix = "pome:"

// sandboxTag is the hash-tagged prefix shared by every key of a sandbox.
func sandboxTag(id string) string { return keyPrefix + "{" + id + "}:" }

// metaKey holds the sandbox record (Sandbox as JSON).
func metaKey(id string) string { return sandboxTag(id) + "meta" }

// stateKey holds a twin's current world: a hash of the JSON document and the
// version that a save must match, so a writer whose lease ran out can never
// overwrite a newer state.
func stateKey(id, twin string) string { return sandboxTag(id) + twin + ":state" }

// seedKey holds a twin's seed world document, which never changes.
func seedKey(id, twin string) string { return sandboxTag(id) + twin + ":seed" }

// tapeKey is the list of a twin's tape rows; seq N is at index N-1.
func tapeKey(id, twin string) string { return sandboxTag(id) + twin + ":tape" }

// tapeSeqKey is the counter that hands out a twin's tape seqs.
func tapeSeqKey(id, twin string) string { return sandboxTag(id) + twin + ":tapeseq" }

// tapeBodiesKey is a hash of the response bodies a twin's tape rows hold
// by reference (redis_bodies.go), each under the first 16 bytes of its
// SHA-256, in hex.
func tapeBodiesKey(id, twin string) string { return sandboxTag(id) + twin + ":tapebodies" }

// lockKey is the short lease a replica holds while it updates a twin's world.
func lockKey(id, twin string) string { return sandboxTag(id) + twin + ":lock" }

// twinKeys are the keys of one twin that live as long as the sandbox (the
// lease is not among them: it expires on its own within seconds).
func twinKeys(id, twin string) []string {
	return []string{stateKey(id, twin), seedKey(id, twin), tapeKey(id, twin), tapeSeqKey(id, twin), tapeBodiesKey(id, twin)}
}

// sandboxKeys lists every key that lives as long as the sandbox, meta first.
func sandboxKeys(id string, twinNames []string) []string {
	keys := []string{metaKey(id)}
	for _, t := range twinNames {
		keys = append(keys, twinKeys(id, t)...)
	}
	return keys
}

// teamTag is the hash-tagged prefix shared by every key of a team.
func teamTag(team string) string { return keyPrefix + "team:{" + team + "}:" }

// teamIndexKey is a hash of sandbox id → Summary JSON: it outlives the
// sandbox's own keys so that listing can still report expired sandboxes.
func teamIndexKey(team string) string { return teamTag(team) + "sandboxes" }

// teamListedKey is a sorted set of the ids in the team index scored by
// created_at (Unix ms): creating a sandbox past MaxListed forgets the
// oldest.
func teamListedKey(team string) string { return teamTag(team) + "listed" }

// teamOpenKey is a sorted set of the team's ready sandboxes scored by
// expires_at (Unix ms): the quota counts its unexpired members.
func teamOpenKey(team string) string { return teamTag(team) + "open" }

// teamUsageKey is a hash of the team's usage counters.
func teamUsageKey(team string) string { return teamTag(team) + "usage" }

// Fields of teamUsageKey.
const (
	usageCreated = "sandboxes_created"
	usageTwins   = "twins_started"
	usageEvals   = "evals"
)

// budgetTag is the hash-tagged prefix of the keys that count what every
// sandbox of a deployment holds against its memory budgets (Budgets,
// redis_budget.go). They span sandboxes and teams, so they live in a slot
// of their own, which only the budget script touches. scope separates the
// counters of deployments that share one Redis database.
func budgetTag(scope string) string { return keyPrefix + "{budget" + scope + "}:" }

// budgetTotalsKey is a hash of bytes held: "w" and "t" for every
// sandbox's worlds and tapes, "w:TEAM" and "t:TEAM" for one team's.
func budgetTotalsKey(scope string) string { return budgetTag(scope) + "totals" }

// budgetHeldKey is a hash of what each sandbox is counted for, by field:
// "ID" its team, "ID|s" its seed documents, "ID|n" its twins (comma
// separated), "ID|w|TWIN" a twin's current world, "ID|t" its tape rows.
func budgetHeldKey(scope string) string { return budgetTag(scope) + "held" }

// budgetRetainKey is a sorted set of the counted sandboxes by the Unix ms
// their keys expire at: what it holds is given back once that has passed.
func budgetRetainKey(scope string) string { return budgetTag(scope) + "retain" }
