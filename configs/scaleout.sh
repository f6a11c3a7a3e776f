#!/usr/bin/env bash
# Scale-out by hand: three `pome serve` replicas on one Redis behind a tiny
# round-robin proxy, the layout TestScaleOutThreeReplicas checks
# (cmd/pome-bench/scaleout_test.go). Run from the repository root:
#
#   configs/scaleout.sh                      # Redis at redis://127.0.0.1:6379/0
#   POME_REDIS_URL=redis://host:6379/3 configs/scaleout.sh
#
# It prints the team key, then serves on http://127.0.0.1:7070 (the proxy)
# until Ctrl-C. Every request goes to the next replica in turn, so one
# sandbox's consecutive calls land on different processes. Try it with
#
#   POME_API_KEY=… pome sandbox create --twins github,slack --server http://127.0.0.1:7070
#   pome-bench --server http://127.0.0.1:7070 --api-key … -d 5s
set -euo pipefail
cd "$(dirname "$0")/.."

redis_url=${POME_REDIS_URL:-redis://127.0.0.1:6379/0}
front=127.0.0.1:7070
bin=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$bin"' EXIT

go build -o "$bin/pome" ./cmd/pome
go build -o "$bin/pome-bench" ./cmd/pome-bench

# Every replica must know the same team key: generate one and share it.
key=pme_$(head -c 64 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 32)
export POME_API_KEYS="scaleout:$key"
echo "team key: $key"

replicas=()
for port in 7071 7072 7073; do
  # public_url is the proxy: replicas put it, never their own address, into
  # the URLs they return.
  "$bin/pome" serve --addr 127.0.0.1:$port --public-url http://$front --redis-url "$redis_url" &
  replicas+=("http://127.0.0.1:$port")
done
for r in "${replicas[@]}"; do
  for _ in $(seq 1 100); do curl -fs "$r/readyz" >/dev/null && break; sleep 0.1; done
done
"$bin/pome-bench" --proxy "$front" --to "$(IFS=,; echo "${replicas[*]}")"
