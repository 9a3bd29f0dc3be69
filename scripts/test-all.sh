#!/usr/bin/env bash
# Quick start, command 2: install what is missing (Debian's Chromium included) and run every test:
# type-check, lint, unit, integration (PGlite and PostgreSQL), end-to-end in Chromium.
# Needs PostgreSQL at 127.0.0.1:5432 and Redis at 127.0.0.1:6379 for the production-path tests.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
set -e
ensure_node_modules
ensure_chromium
set +e

results=$(mktemp -d)
failed_steps=()
step() {
  local name=$1; shift
  echo "==> $name"
  "$@" || failed_steps+=("$name")
}

step typecheck npm run --silent typecheck
step lint npm run --silent lint
step unit npx vitest run --project unit --reporter=default --reporter=json --outputFile.json="$results/unit.json"
step integration npx vitest run --project integration --reporter=default --reporter=json --outputFile.json="$results/integration.json"
step build npm run --silent build
step e2e env E2E_JSON_REPORT="$results/e2e.json" npm run --silent test:e2e

# One closing line for every suite together.
node scripts/summarize.mjs "$results" "${failed_steps[@]}"
