#!/usr/bin/env bash
# Quick start, command 1: install what is missing, build, and serve Enclave at
# http://127.0.0.1:5000 on the embedded database in ./data (DATA_DIR, DATABASE_URL, PORT, HOST apply).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
ensure_node
ensure_node_modules
echo "==> build"
npm run --silent build
exec npm run --silent start
