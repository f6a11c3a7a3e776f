#!/usr/bin/env bash
# Takes the figures of docs/PERFORMANCE.md: builds Pome and pome-bench, starts
# a fresh `pome serve` on loopback for each step (memory store, or Redis when
# the step says so) and runs the step's pome-bench mode against it, printing
# every command it runs. Outputs, the commit and the machine's load go to $OUT.
#
#   scripts/bench-figures.sh [step…]
#
# Steps (default: all, in this order):
#   peers         Pome, the same-bytes handler, emulate and stripe-mock, wrk -t2 -c64
#   rate-memory   10,000 req/s for 30 s, memory store, each call followed by the
#                 same load against a bare handler answering its bytes (--ceiling)
#   create        sandbox create p50 with 1 and 16 clients, memory and Redis, after
#                 5,000 creates and discards; and a fresh memory server's, with none
#   idle          RSS of 10,000 idle sandboxes
#   scale-memory  write cost against world size, tape length and open sandboxes
#   rate-redis    10,000 req/s for 30 s on Redis, with the same ceiling
#   scale-redis   write cost against world size and tape length on Redis
#   stores        each call's throughput on Redis over that on the memory store,
#                 wrk -t2 -c64, rounds alternating the two stores
#   rate-sweep    memory store, 30 s at each of several rates (SWEEP, default
#                 comments at 2,000, 4,000, 6,000 and 10,000 a second, get issue at
#                 6,000, 8,000 and 10,000), a fresh server for each: where the
#                 p99 target stops holding, and how busy the machine was (not in
#                 the default steps)
#
# Environment: OUT (output directory; PREBUILT=1 takes the binaries already in
# $OUT/bin), DURATION (wrk -d, default 10s), ROUNDS
# (default 3), RATE_DURATION (default 30s), PORT (Pome, default 7611), REDIS_PORT (a redis-server this
# script starts, default 7620). Everything listens on 127.0.0.1 and is
# stopped on exit. Run it on a quiet machine: load average under 2.
set -euo pipefail

cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/pome-figures-$(date -u +%Y%m%dT%H%M%S)}
DURATION=${DURATION:-10s}
ROUNDS=${ROUNDS:-3}
RATE_DURATION=${RATE_DURATION:-30s}
PORT=${PORT:-7611}
REDIS_PORT=${REDIS_PORT:-7620}
BIN="$OUT/bin"
mkdir -p "$BIN"
STEPS=("$@")
[ ${#STEPS[@]} -gt 0 ] || STEPS=(peers rate-memory create idle scale-memory rate-redis scale-redis stores)

KEY="pme_$(head -c 24 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 32)"
export POME_API_KEYS="bench:$KEY"
SERVER="http://127.0.0.1:$PORT"
POME_PID=""
REDIS_PID=""

stop_pome() {
	if [ -n "$POME_PID" ]; then kill "$POME_PID" 2>/dev/null || true; wait "$POME_PID" 2>/dev/null || true; POME_PID=""; fi
}
cleanup() {
	stop_pome
	if [ -n "$REDIS_PID" ]; then kill "$REDIS_PID" 2>/dev/null || true; wait "$REDIS_PID" 2>/dev/null || true; fi
}
trap cleanup EXIT

run() { echo "+ $*" | sed "s/$KEY/\$POME_API_KEY/g" | tee -a "$OUT/commands.txt" >&2; "$@"; }

start_redis() {
	[ -n "$REDIS_PID" ] && return
	redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --save '' --appendonly no >"$OUT/redis.log" 2>&1 &
	REDIS_PID=$!
	for _ in $(seq 50); do redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && return; sleep 0.1; done
	echo "redis-server did not start" >&2; exit 1
}

# start_pome memory|redis: a fresh server, its pid in POME_PID.
start_pome() {
	stop_pome
	local store=()
	if [ "$1" = redis ]; then
		start_redis
		redis-cli -p "$REDIS_PORT" flushall >/dev/null
		store=(--redis-url "redis://127.0.0.1:$REDIS_PORT/0")
	fi
	# A server left on the port would answer the health check for the
	# new one, which could not listen, and every step would run against
	# it (with another key).
	if curl -fs "$SERVER/healthz" >/dev/null 2>&1; then
		echo "something already answers on $SERVER: stop it, or set PORT" >&2; exit 1
	fi
	"$BIN/pome" serve --addr "127.0.0.1:$PORT" --pprof --sandbox-quota 30000 --max-tape-rows 200000 --max-twins 3 "${store[@]}" >>"$OUT/pome.log" 2>&1 &
	POME_PID=$!
	for _ in $(seq 100); do
		if curl -fs "$SERVER/healthz" >/dev/null 2>&1; then
			kill -0 "$POME_PID" 2>/dev/null && return
			break
		fi
		sleep 0.1
	done
	echo "pome did not start (see $OUT/pome.log)" >&2; exit 1
}

bench() { run "$BIN/pome-bench" "$@" --server "$SERVER" --api-key "$KEY"; }

{
	echo "commit $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (with uncommitted changes)')"
	echo "started $(date -u '+%Y-%m-%d %H:%M:%S') UTC"
	echo "uptime $(uptime)"
	echo "nproc $(nproc), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
	echo "wrk $(command -v wrk || echo 'not installed: pome-bench falls back to its Go client')"
} | tee "$OUT/meta.txt"

# The binaries can be built beforehand (same commit) so that the build's load
# does not precede the first step: PREBUILT=1 uses $OUT/bin as it is.
if [ "${PREBUILT:-0}" != 1 ]; then
	run go build -o "$BIN/pome" ./cmd/pome
	run go build -o "$BIN/pome-bench" ./cmd/pome-bench
fi

for step in "${STEPS[@]}"; do
	echo "== $step at $(date -u '+%H:%M:%S') UTC, $(uptime | sed 's/.*load/load/')" | tee -a "$OUT/meta.txt"
	case $step in
	peers)
		start_pome memory
		bench peers --server-pid "$POME_PID" -d "$DURATION" --rounds "$ROUNDS" --json-out "$OUT/peers.json" | tee "$OUT/peers.txt" ;;
	rate-memory)
		start_pome memory
		bench rate --ceiling --rate 10000 --duration "$RATE_DURATION" --store memory --server-pid "$POME_PID" --json-out "$OUT/rate-memory.json" | tee "$OUT/rate-memory.txt" ;;
	rate-redis)
		start_pome redis
		bench rate --ceiling --rate 10000 --duration "$RATE_DURATION" --store redis --server-pid "$POME_PID" --store-pid "$REDIS_PID" --json-out "$OUT/rate-redis.json" | tee "$OUT/rate-redis.txt" ;;
	scale-memory)
		start_pome memory
		bench scale --rounds 3 --writes 8000 --server-pid "$POME_PID" --json-out "$OUT/scale-memory.json" | tee "$OUT/scale-memory.txt" ;;
	scale-redis)
		start_pome redis
		bench scale --rounds 3 --dims world,tape --tape-sizes 1000,10000 --writes 1000 --server-pid "$POME_PID" --store-pid "$REDIS_PID" --json-out "$OUT/scale-redis.json" | tee "$OUT/scale-redis.txt" ;;
	create)
		# After a warm-up of 5,000 creates and discards (pome-bench's
		# default): a server that has been running. The last run is a
		# server fresh from its start, with none.
		for store in memory redis; do
			for c in 1 16; do
				start_pome "$store"
				bench --scenarios sandbox_create --baseline=false -c "$c" -d 5s --create-count 2000 --server-pid "$POME_PID" | tee "$OUT/create-$store-c$c.txt"
			done
		done
		start_pome memory
		bench --scenarios sandbox_create --baseline=false -c 1 -d 5s --create-count 2000 --create-warmup 0 --server-pid "$POME_PID" | tee "$OUT/create-memory-c1-cold.txt" ;;
	stores)
		for r in $(seq "$ROUNDS"); do
			for store in memory redis; do
				start_pome "$store"
				bench ceiling --rounds 1 -d "$DURATION" --server-pid "$POME_PID" -q --json-out "$OUT/stores-$store-r$r.json" >"$OUT/stores-$store-r$r.txt"
			done
		done
		# Per call: Redis req/s over memory req/s in each round, and the median.
		jq -rs '
			(length / 2) as $n
			| [range(0; $n) as $r | {m: .[2*$r], x: .[2*$r+1]}] as $rounds
			| .[0].calls | map(.call) | .[] as $call
			| [$rounds[] | ((.x.calls[] | select(.call == $call) | .pome_req_per_sec) / (.m.calls[] | select(.call == $call) | .pome_req_per_sec))]
			| sort as $q
			| "\($call)\tredis/memory \($q[($q | length) / 2 | floor] * 100 | round / 100) (rounds: \($q | map(. * 100 | round / 100) | join(", ")))"
		' $(for r in $(seq "$ROUNDS"); do echo "$OUT/stores-memory-r$r.json" "$OUT/stores-redis-r$r.json"; done) | tee "$OUT/stores.txt" ;;
	rate-sweep)
		for cr in ${SWEEP:-github_post_comment:2000 github_post_comment:4000 github_post_comment:6000 github_post_comment:10000 github_get_issue:6000 github_get_issue:8000 github_get_issue:10000}; do
			start_pome memory
			bench rate --calls "${cr%%:*}" --rate "${cr##*:}" --duration "$RATE_DURATION" --store memory --server-pid "$POME_PID" -q \
				--json-out "$OUT/rate-sweep-${cr%%:*}-${cr##*:}.json" | tee "$OUT/rate-sweep-${cr%%:*}-${cr##*:}.txt"
		done ;;
	idle)
		start_pome memory
		bench --sandboxes 10000 --scenarios github_get_issue --baseline=false -d 3s --server-pid "$POME_PID" --server-heap | tee "$OUT/idle-memory.txt" ;;
	*)
		echo "unknown step $step" >&2; exit 2 ;;
	esac
done
stop_pome
echo "finished $(date -u '+%Y-%m-%d %H:%M:%S') UTC, $(uptime | sed 's/.*load/load/')" | tee -a "$OUT/meta.txt"
echo "outputs in $OUT" >&2
