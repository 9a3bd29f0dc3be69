#!/usr/bin/env bash
# The unit and integration suites on Node 26, the current release line (`npm run test:node26`):
# package.json asks for Node 24 or newer, and the quick-start commands run on 24. Node 26 comes
# from the npm registry as Node 24 does (scripts/lib.sh). node_modules are Node 24's install: their
# native parts are N-API builds, which both run.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
ensure_node
ensure_node_modules
NODE_MAJOR=26 ensure_node
npx vitest run --project unit
npx vitest run --project integration
