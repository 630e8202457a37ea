#!/usr/bin/env bash
# What a newcomer waits for, timed on a fresh clone of this checkout's HEAD with an empty target dir:
#   bench/cold-start.sh dev     scripts/dev.sh to the health check, the first page, and the first token the
#                               built-in model streams (then it runs dev.sh again: the warm start)
#   bench/cold-start.sh tests   scripts/test.sh to its end
# Tools this machine already has (the Rust toolchain, apt and npm packages) are used as they are and crates
# come from cargo's download cache, so this times the builds, not the downloads. The clone goes to a new
# temporary dir (or $WARDEN_BENCH_CLONE_DIR) and is removed at the end unless WARDEN_BENCH_KEEP is set.
set -euo pipefail
what="${1:-dev}"
repo="$(cd "$(dirname "$0")/.." && pwd)"
parent="${WARDEN_BENCH_CLONE_DIR:-$(mktemp -d)}"
dir="$parent/warden"
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  if [ -z "${WARDEN_BENCH_KEEP:-}" ]; then
    rm -rf "$dir"
    # The temporary dir this made, not one given.
    if [ -z "${WARDEN_BENCH_CLONE_DIR:-}" ]; then rmdir "$parent"; fi
  fi
}
trap cleanup EXIT
git clone -q --no-hardlinks "file://$repo" "$dir"
cd "$dir"
unset CARGO_TARGET_DIR
elapsed() { python3 -c "import sys,time; print(f'{time.time()-float(sys.argv[1]):.1f} s')" "$1"; }

if [ "$what" = tests ]; then
  started=$(date +%s.%N)
  scripts/test.sh > test.log 2>&1 || { tail -30 test.log; echo "cold-start: scripts/test.sh failed" >&2; exit 1; }
  echo "cold-start tests: scripts/test.sh passed in $(elapsed "$started") (log: $dir/test.log)"
  exit 0
fi
[ "$what" = dev ] || { echo "usage: bench/cold-start.sh [dev|tests]" >&2; exit 2; }

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
export LEPTOS_SITE_ADDR="127.0.0.1:$port" WARDEN_DATA_DIR="$dir/data" \
  WARDEN_TOKEN="cold-start-$(python3 -c 'import secrets; print(secrets.token_hex(16))')"
unset OPENAI_BASE_URL OPENAI_API_KEY ANTHROPIC_API_KEY GEMINI_API_KEY WARDEN_MODEL WARDEN_LOCAL_MODEL
auth="Authorization: Bearer $WARDEN_TOKEN"

# Starts dev.sh (it becomes the server) and waits for its health check.
start() {
  scripts/dev.sh > "$1" 2>&1 &
  server=$!
  until curl -sf -o /dev/null "$base/api/health"; do
    kill -0 "$server" 2>/dev/null || { tail -30 "$1"; echo "cold-start: dev.sh ended before it served" >&2; exit 1; }
    sleep 0.2
  done
}

started=$(date +%s.%N)
start dev.log
health=$(elapsed "$started")
curl -sf -o /dev/null -H "$auth" "$base/"
page=$(elapsed "$started")
thread=$(curl -sf -H "$auth" -H 'content-type: application/json' -d '{}' "$base/api/threads" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
# The run's events stream until the first text_delta; then curl is cut off (hence its `|| true`).
{ curl -sN --max-time 300 -H "$auth" -H 'content-type: application/json' \
  -d '{"content":"Say hello in one short sentence."}' "$base/api/threads/$thread/messages" || true; } |
  grep -m1 -q '^event: text_delta' || { echo "cold-start: no answer from the built-in model" >&2; exit 1; }
answer=$(elapsed "$started")
echo "cold-start dev: health check after $health, first page $page, first token of the built-in model $answer"

kill "$server"; wait "$server" 2>/dev/null || true; server=""
started=$(date +%s.%N)
start dev-warm.log
echo "cold-start dev: run again with nothing changed, health check after $(elapsed "$started")"
