#!/usr/bin/env bash
# Runs every test: formatting, clippy, unused dependencies, the docs' paths and the dependencies' declarations
# (xtask), the Rust tests of the workspace, then the browser tests (Playwright against the server `cargo test`
# built, the debug site, a fresh data dir and the scripted fixture model; see end2end/playwright.config.ts).
# Everything is built once, in the dev profile.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test
. scripts/build-env.sh
# Absolute, so Playwright (started in end2end/) finds the same target dir as cargo.
if [ -n "${CARGO_TARGET_DIR:-}" ]; then export CARGO_TARGET_DIR="$(realpath -m "$CARGO_TARGET_DIR")"; fi
target_dir="${CARGO_TARGET_DIR:-$PWD/target}"
# The built-in model setup.sh fetched, for engine/tests/local_model.rs.
export WARDEN_TEST_LOCAL_MODEL="$target_dir/models/SmolLM2-135M-Instruct.Q4_1.gguf"

# Style first: it fails in seconds where the tests take minutes.
# (rustup installs rustfmt and clippy with the toolchain; Debian's fallback toolchain may lack them.)
if cargo fmt --version >/dev/null 2>&1; then cargo fmt --all --check; else echo "test.sh: no rustfmt here, formatting not checked" >&2; fi
cargo machete

# Lints as the code is built, not in a build of their own: clippy's driver compiles the workspace's crates
# (native: every target `cargo test` builds, the xtask, the server; wasm: the site's crates, which
# `cargo xtask site` builds in this environment) with clippy's lints as errors, as `cargo clippy -- -D warnings`
# would. A separate `cargo clippy` compiled every dependency twice more (a check build native and one for
# wasm). Dependencies are built by plain rustc either way.
if clippy-driver --version >/dev/null 2>&1; then
  export RUSTC_WORKSPACE_WRAPPER="$(command -v clippy-driver)" CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
else
  echo "test.sh: no clippy here, lints not checked" >&2
fi
# The repository's own checks, in seconds: no import circle between the files of the UI crate (its features
# import ui/, wording, context, never each other), every path the docs name exists, every dependency is
# declared once in the workspace, the crate graph in docs/ARCHITECTURE.md is the one the manifests make
# (xtask/src/{import_cycles,doc_paths,deps_check,crate_graph}.rs). After the lints' wrapper is set, so the
# xtask is built once, as `cargo xtask site` below builds it.
cargo xtask import-cycles
cargo xtask doc-paths
cargo xtask deps-check
cargo xtask crate-graph --check

# The build tool is left out of the workspace's test build and tested on its own, as `cargo xtask` builds it:
# in the workspace build its dependencies would get other features (serde's, log's) and compile a second time.
cargo test --workspace --exclude xtask
cargo test -p xtask

# The browser tests run what `cargo test` just built (dev profile, same packages, same features), so this only
# links the binaries the tests start: the server, the fixture model and executor, and the MCP test server.
cargo build --workspace --exclude xtask --tests --bin warden-server --bin fixture-model --bin fixture-executor --bin fixture-notify --bin warden-mcp-fixture
cargo xtask site
(cd end2end && WARDEN_E2E_PROFILE=debug WARDEN_MCP_FIXTURE="$target_dir/debug/warden-mcp-fixture" npx playwright test)
