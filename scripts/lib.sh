# Shared by the two quick-start commands: install only what is missing.

# Node.js 24 or newer (package.json's engines). On a machine whose Node is older, Node 24 comes
# from the npm registry, the only place this machine may download from: the node-<os>-<arch>
# package holds the official binary. It is kept in .cache/ and put first on PATH for the rest of
# the command (npm, the builds, every test and the servers they start).
NODE_MAJOR=24
ensure_node() {
  local major pkg dir
  major=$(node -p 'process.versions.node.split(".")[0]')
  (( major >= NODE_MAJOR )) && return 0
  pkg="node-$(node -p 'process.platform + "-" + process.arch')"
  dir="$PWD/.cache/node$NODE_MAJOR"
  if [ ! -x "$dir/node_modules/$pkg/bin/node" ]; then
    echo "==> Node $NODE_MAJOR from the npm registry ($pkg; this machine has $(node --version))"
    mkdir -p "$dir"
    npm install --prefix "$dir" --no-save --no-audit --no-fund --ignore-scripts --loglevel=error "$pkg@$NODE_MAJOR"
  fi
  export PATH="$dir/node_modules/$pkg/bin:$PATH"
  echo "==> node $(node --version)"
}

# npm packages, when node_modules is absent or was installed from another lock file. A checkout
# touches package-lock.json without changing it: the hash npm ci left says whether its content is
# the one installed, so an unchanged lock costs no second npm ci (the mtime decides only without one).
ensure_node_modules() {
  local installed=node_modules/.enclave-lock.sha256 lock
  # The Node major counts too: packages may install differently for another one.
  lock="$(sha256sum package-lock.json | cut -d' ' -f1) node$(node -p 'process.versions.node.split(".")[0]')"
  if [ -f node_modules/.package-lock.json ]; then
    if [ -f "$installed" ]; then
      [ "$(cat "$installed")" = "$lock" ] && return 0
    elif [ ! package-lock.json -nt node_modules/.package-lock.json ]; then
      return 0
    fi
  fi
  echo "==> npm ci"
  npm ci --no-audit --no-fund && echo "$lock" >"$installed"
}

# Installs Debian packages (none given: nothing, not even apt-get update).
apt_install() {
  (( $# )) || return 0
  echo "==> apt-get install $*"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
}

# Debian's Chromium for the browser tests (no browser downloads: only Debian's packages), Debian's
# nginx for the e2e test of two instances behind it (e2e/support/nginx.ts runs its own process with
# the repository's configuration; Debian's service, where one starts, is not used), and strace,
# which checks the systemd unit's system-call filter against the server
# (server/faults/production-install.test.ts): those missing, in one apt-get install; the caller
# checks what it needs.
ensure_test_packages() {
  local missing=()
  [ -x /usr/bin/chromium ] || missing+=(chromium)
  [ -x /usr/sbin/nginx ] || missing+=(nginx)
  [ -x /usr/bin/strace ] || missing+=(strace)
  apt_install "${missing[@]}"
}
