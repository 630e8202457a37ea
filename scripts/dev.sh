#!/usr/bin/env bash
# Runs Warden for development: installs what is missing (setup.sh), then builds the site in release mode (the
# small wasm the browser downloads) and the server in the dev profile, as `cargo test` builds it, with the
# workspace's own tool (`cargo xtask serve --release-site`, see xtask/), and serves. A release server builds
# in about 1.5x the CPU time (a cold dev.sh took 14.1 min with it, 7.1-8.9 without, on 2 cores):
# `cargo xtask serve --release`.
# `scripts/dev.sh watch` rebuilds on change with cargo-leptos, for those who have it installed.
# Configure the model with OPENAI_BASE_URL, OPENAI_API_KEY and WARDEN_MODEL; data goes to WARDEN_DATA_DIR (./data).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
. scripts/build-env.sh
if [ "${1:-}" = "watch" ]; then
  if ! cargo leptos --version >/dev/null 2>&1; then
    echo "dev.sh watch needs cargo-leptos 0.3.11 and wasm-bindgen-cli 0.2.130 (docs/BUILDING.md);" \
      "without them, scripts/dev.sh builds and serves" >&2
    exit 1
  fi
  # --split: the lazy pages (app/src/lazy_pages.rs) need their wasm split, as `cargo xtask site` does.
  exec cargo leptos watch --split "${LEPTOS_ARGS[@]}"
fi
# The built-in model (answers when no provider is configured), once, into the data dir. Without the network
# the app still starts and says what to configure.
if [ -z "${WARDEN_LOCAL_MODEL:-}" ]; then
  scripts/fetch-model.sh "${WARDEN_DATA_DIR:-data}/models" || echo "dev.sh: the built-in model could not be fetched" >&2
fi
exec cargo xtask serve --release-site
