#!/usr/bin/env bash
# Installs the published MCP servers that warden-mcp's tests drive through McpHub:
# PyPI `mcp-server-time` in its own virtualenv under target/published-mcp/ (idempotent, pinned).
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dir="${WARDEN_PUBLISHED_MCP_DIR:-$repo_root/target/published-mcp}"
version="2026.10.19"
venv="$dir/time-venv"
stamp="$venv/.installed-mcp-server-time-$version"

if [[ -f "$stamp" ]] && "$venv/bin/python" -c 'import mcp_server_time' 2>/dev/null; then
  echo "mcp-server-time $version already installed in $venv"
  exit 0
fi

mkdir -p "$dir"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "mcp-server-time==$version"
"$venv/bin/python" -c 'import mcp_server_time'
touch "$stamp"
echo "installed mcp-server-time $version in $venv"
