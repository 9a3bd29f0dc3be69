# Shared by the two quick-start commands: install only what is missing.

# npm packages, when node_modules is absent or older than the lock file.
ensure_node_modules() {
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    echo "==> npm ci"
    npm ci --no-audit --no-fund
  fi
}

# Debian's Chromium for the browser tests (no browser downloads: only Debian's packages).
ensure_chromium() {
  if [ ! -x /usr/bin/chromium ]; then
    echo "==> apt-get install chromium"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
  fi
}

# Debian's nginx for the e2e test of two instances behind it (e2e/support/nginx.ts runs its own
# process with the repository's configuration; Debian's service, where one starts, is not used),
# and strace, which checks the systemd unit's system-call filter against the server
# (server/faults/production-install.test.ts).
ensure_test_tools() {
  local missing=()
  [ -x /usr/sbin/nginx ] || missing+=(nginx)
  [ -x /usr/bin/strace ] || missing+=(strace)
  if (( ${#missing[@]} )); then
    echo "==> apt-get install ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}
