#!/usr/bin/env bash
# Runs Warden for development: installs what is missing (setup.sh), then serves the app.
# `scripts/dev.sh` builds once in release mode and serves; `scripts/dev.sh watch` rebuilds on change.
# Configure the model with OPENAI_BASE_URL, OPENAI_API_KEY and WARDEN_MODEL; data goes to WARDEN_DATA_DIR (./data).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
. scripts/build-env.sh
if [ "${1:-}" = "watch" ]; then
  exec cargo leptos watch "${LEPTOS_ARGS[@]}"
else
  exec cargo leptos serve --release "${LEPTOS_ARGS[@]}"
fi
