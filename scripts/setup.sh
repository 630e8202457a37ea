#!/usr/bin/env bash
# Installs everything Warden needs that is missing, and nothing that is already there:
# the Rust toolchain with the wasm32 target (rustup first, Debian's Rust + std source as a fallback),
# cmake and libclang for llama.cpp. `scripts/setup.sh test` also installs what only the
# tests need: the npm packages of the browser tests, cargo-machete, Debian's chromium and dash, the published MCP servers the tests drive, the built-in model's file in target/models, the pinned Claude Code CLI. The site is built by
# the workspace's own `cargo xtask` (wasm-bindgen as a library), so neither cargo-leptos nor wasm-bindgen-cli
# is installed.
set -euo pipefail
cd "$(dirname "$0")/.."

CARGO_MACHETE_VERSION=0.9.2
export PATH="$HOME/.cargo/bin:$PATH"

log() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
apt_install() {
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "apt-get install ${missing[*]}"
  as_root apt-get update -qq || true
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${missing[@]}"
}

# 1. Toolchain with the wasm32 target.
toolchain_ok() { rustc --version >/dev/null 2>&1 && rustc --print sysroot >/dev/null 2>&1 && [ -d "$(rustc --print sysroot)/lib/rustlib/wasm32-unknown-unknown" ]; }
# WARDEN_STD_FROM_SOURCE=1 takes the fallback on purpose (to test it on a machine where rustup works).
if [ "${WARDEN_STD_FROM_SOURCE:-0}" = 1 ] && [ ! -f .warden-std-from-source ]; then
  log "WARDEN_STD_FROM_SOURCE=1: using Debian's rustc-web with the std source"
  apt_install rustc-web cargo-web rust-web-src lld-22
  touch .warden-std-from-source
fi
if [ -f .warden-std-from-source ]; then
  log "using Debian's Rust with std built from source for wasm32 (fallback)"
elif command -v rustup >/dev/null 2>&1 && rustup toolchain install --no-self-update 2>/dev/null && toolchain_ok; then
  log "toolchain: $(rustc --version) with wasm32 (rustup)"
else
  log "rustup could not provide the wasm32 target: falling back to Debian's rustc-web with the std source"
  apt_install rustc-web cargo-web rust-web-src lld-22
  touch .warden-std-from-source
fi
if [ -f .warden-std-from-source ]; then
  # Point the toolchain at /usr and build std for wasm32 from source (see shared TOOLCHAIN notes).
  export RUSTUP_TOOLCHAIN=/usr RUSTC_BOOTSTRAP=1
fi

# 2. What the built-in model's llama.cpp is built with: cmake, a C++ compiler, libclang (for bindgen);
# OpenSSL's headers for the passkeys' webauthn-rs.
apt_install cmake g++ libclang-dev libssl-dev pkg-config

if [ "${1:-}" = test ]; then
  # 3. npm packages for the browser tests (Playwright, axe). Running the app needs none: the site is
  # built by `cargo xtask`, without wasm-opt.
  if [ ! -x end2end/node_modules/.bin/playwright ] || [ end2end/package-lock.json -nt end2end/node_modules/.package-lock.json ]; then
    log "npm ci in end2end/"
    (cd end2end && npm ci --no-audit --no-fund)
  fi
  # 4. cargo-machete: the test command checks that no crate declares a dependency it does not use.
  if ! cargo machete --version 2>/dev/null | grep -q "$CARGO_MACHETE_VERSION"; then
    log "installing cargo-machete $CARGO_MACHETE_VERSION"
    cargo install cargo-machete --version "$CARGO_MACHETE_VERSION" --locked
  fi
  # 5. The browser for the end-to-end tests, and dash: the shell the parser of approval rules is proven
  # against (engine/tests/shell_grammar_vs_dash.rs).
  command -v chromium >/dev/null 2>&1 || apt_install chromium
  command -v dash >/dev/null 2>&1 || apt_install dash
  # 6. Published MCP servers the tests drive (PyPI mcp-server-time in a venv under target/).
  mcp/tests/install-published-servers.sh
  # 7. The built-in model, which the tests load for real (engine/tests/local_model.rs, local_model.spec.ts).
  scripts/fetch-model.sh "${CARGO_TARGET_DIR:-target}/models"
  # 8. The real Claude Code CLI, pinned in tools/claude-code, which server/tests/outside_claude_code.rs
  # runs offline against the fixture model with Warden as its permission prompt tool. Its postinstall
  # puts the native binary in place of a stub, so the check runs it.
  if ! tools/claude-code/node_modules/.bin/claude --version >/dev/null 2>&1 \
    || [ tools/claude-code/package-lock.json -nt tools/claude-code/node_modules/.package-lock.json ]; then
    log "npm ci in tools/claude-code/"
    (cd tools/claude-code && npm ci --no-audit --no-fund)
    tools/claude-code/node_modules/.bin/claude --version >/dev/null \
      || { log "Claude Code did not install (were npm install scripts disabled?)"; exit 1; }
  fi
fi
log "ready"
