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
# process with the repository's configuration; Debian's service, where one starts, is not used).
ensure_nginx() {
  if [ ! -x /usr/sbin/nginx ]; then
    echo "==> apt-get install nginx"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nginx >/dev/null
  fi
}
