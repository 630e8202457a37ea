#!/usr/bin/env bash
# Runs every test: the Rust tests of the workspace, then the browser tests (Playwright against the
# release build, a fresh data dir and the scripted fixture model; see end2end/playwright.config.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
. scripts/build-env.sh

cargo test --workspace

# The fixture model, built before Playwright starts it so its start-up wait stays short.
cargo build --release -p warden-testkit --bin fixture-model
cargo build -p warden-mcp-fixture   # the MCP test server end2end/tests/mcp.spec.ts adds in settings
# cargo-leptos also starts its own server on 127.0.0.1:3000; keep that one's data out of the repo.
WARDEN_DATA_DIR="$(mktemp -d)" cargo leptos end-to-end --release "${LEPTOS_ARGS[@]}"
