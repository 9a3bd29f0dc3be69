#!/usr/bin/env bash
# Quick start, command 2: install what is missing (Debian's Chromium, nginx and strace included) and run every test:
# type-check, lint, unit, integration (PGlite and PostgreSQL), faults (real processes), end-to-end
# in Chromium.
# The production-path tests need PostgreSQL (TEST_POSTGRES_URL, default 127.0.0.1:5432) and Redis
# (TEST_REDIS_URL, default 127.0.0.1:6379). When one does not answer, everything else runs and the
# skipped tests are named; with CI=true a missing service fails the run instead.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
ensure_node
set -e
ensure_node_modules
set +e
# Chromium, nginx and strace in one apt-get update and install, and only those missing.
ensure_test_packages
if [ ! -x /usr/bin/chromium ]; then
  echo "error: Debian's Chromium could not be installed (apt-get install chromium)." >&2
  exit 1
fi
# Without nginx or strace the tests that use them are skipped with the reason; CI must run them.
if { [ ! -x /usr/sbin/nginx ] || [ ! -x /usr/bin/strace ]; } && [[ ${CI:-} == true ]]; then
  echo "error: with CI=true every test must run: nginx and strace could not be installed (apt-get install nginx strace)." >&2
  exit 1
fi

postgres_url=${TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}
redis_url=${TEST_REDIS_URL:-redis://127.0.0.1:6379}
missing=()
skipped_notice=""
# A service already left out (TEST_BACKENDS without postgres, TEST_REDIS=0) is not asked for.
if [[ ",${TEST_BACKENDS:-pglite,postgres}," == *,postgres,* ]] && ! why=$(node scripts/probe-service.mjs postgres "$postgres_url"); then
  missing+=("PostgreSQL at $why")
  export TEST_BACKENDS=pglite
  skipped_notice+="skipped, no PostgreSQL at $why:
  the integration suites on PostgreSQL (they ran on PGlite), the PostgreSQL connection tests, the
  two-instance tests (integration, and e2e behind nginx) and the fault tests on PostgreSQL. To run them, start PostgreSQL (trust auth,
  database postgres) at 127.0.0.1:5432 or set TEST_POSTGRES_URL to one, and run npm run test:all
  again.
"
fi
if [[ ${TEST_REDIS:-1} != 0 ]] && ! why=$(node scripts/probe-service.mjs redis "$redis_url"); then
  missing+=("Redis at $why")
  export TEST_REDIS=0
  skipped_notice+="skipped, no Redis at $why:
  the two-instance tests (two servers over one PostgreSQL database and the Redis bus; in e2e,
  behind nginx) and the fault tests on PostgreSQL and Redis. To run them, start Redis at 127.0.0.1:6379 or set TEST_REDIS_URL
  to one, and run npm run test:all again.
"
fi
if (( ${#missing[@]} )); then
  if [[ ${CI:-} == true ]]; then
    for m in "${missing[@]}"; do echo "error: no answer from $m" >&2; done
    echo "error: with CI=true every test must run, none is skipped: start the service or point TEST_POSTGRES_URL / TEST_REDIS_URL at it." >&2
    exit 1
  fi
  printf '%s' "$skipped_notice"
fi

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
# The built server's processes killed, drained, their PostgreSQL and Redis restarted (private ones).
step faults npx vitest run --project faults --reporter=default --reporter=json --outputFile.json="$results/faults.json"
step e2e env E2E_JSON_REPORT="$results/e2e.json" npm run --silent test:e2e

# One closing line for every suite together, and again what did not run.
node scripts/summarize.mjs "$results" "${failed_steps[@]}"
status=$?
printf '%s' "$skipped_notice"
exit $status
