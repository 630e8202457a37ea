#!/usr/bin/env bash
# Runs every test: formatting, clippy and unused dependencies, the Rust tests of the workspace, then the browser tests (Playwright against the
# release build, a fresh data dir and the scripted fixture model; see end2end/playwright.config.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
. scripts/build-env.sh

# Style and lints first: they fail in seconds where the tests take minutes.
# (rustup installs rustfmt and clippy with the toolchain; Debian's fallback toolchain may lack them.)
if cargo fmt --version >/dev/null 2>&1; then cargo fmt --all --check; else echo "test.sh: no rustfmt here, formatting not checked" >&2; fi
if cargo clippy --version >/dev/null 2>&1; then
  cargo clippy --workspace --all-targets -- -D warnings
  cargo clippy -p warden-app -p warden-frontend --features warden-app/hydrate --target wasm32-unknown-unknown -- -D warnings
else
  echo "test.sh: no clippy here, lints not checked" >&2
fi
cargo machete

cargo test --workspace

# The fixture model, built before Playwright starts it so its start-up wait stays short.
cargo build --release -p warden-testkit --bin fixture-model
cargo build -p warden-mcp-fixture   # the MCP test server end2end/tests/mcp.spec.ts adds in settings
# cargo-leptos also starts its own server on 127.0.0.1:3000; keep that one's data out of the repo.
WARDEN_DATA_DIR="$(mktemp -d)" cargo leptos end-to-end --release "${LEPTOS_ARGS[@]}"
