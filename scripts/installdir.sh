# Sourced, not run, by the install-*.sh scripts (DynamoDB Local, MinIO, the
# detector, the inspector CLI, stripe-mock): the install directory they
# share the handling of, and the npm install of a committed lockfile.
# The sourcing script defines log, die and installed (true when $install_dir
# holds a complete install of the pinned version) before calling these
# functions.

# resolve_install_dir VAR CACHE sets install_dir to $VAR, else to
# <repo>/.cache/CACHE, without a trailing slash; it dies for the root
# directory.
resolve_install_dir() {
  local var="$1" cache="$2" script_dir repo
  script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
  repo="$(git -C "$script_dir" rev-parse --show-toplevel 2>/dev/null || true)"
  if [[ -z "$repo" ]]; then
    repo="$(cd "$script_dir/.." && pwd)"
  fi
  install_dir="${!var:-$repo/.cache/$cache}"
  install_dir="${install_dir%/}"
  [[ -n "$install_dir" ]] || die "$var must not be the root directory"
}

# begin_install WAIT RESULT takes the lock beside $install_dir (waiting up
# to WAIT seconds, else dying), prints RESULT and exits 0 when another
# process finished the install meanwhile, removes what killed installers
# left, and sets parent, base and tmp: a new temporary directory beside the
# install directory, removed when the script exits. The lock is held until
# the script exits.
begin_install() {
  local wait="$1" result="$2" lock
  parent="$(dirname "$install_dir")"
  base="$(basename "$install_dir")"
  mkdir -p "$parent"

  lock="$parent/.$base.lock"
  exec 9>"$lock"
  if ! flock -w "$wait" 9; then
    die "timed out after $wait s waiting for the lock $lock held by another installer"
  fi

  # Another process may have finished the install while we waited.
  if installed; then
    printf '%s\n' "$result"
    exit 0
  fi

  # Leftovers of installers that were killed; safe to remove while we hold the lock.
  rm -rf "$parent/.$base.tmp."* "$parent/.$base.old."*

  tmp="$(mktemp -d "$parent/.$base.tmp.XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
}

# finish_install moves $tmp/ready to $install_dir, renaming the old install
# (another version, or a broken one) aside first, so the target path only
# ever holds a complete install; it dies when the result is not installed.
finish_install() {
  local old
  if [[ -e "$install_dir" ]]; then
    old="$(mktemp -d "$parent/.$base.old.XXXXXX")"
    mv "$install_dir" "$old/"
    mv "$tmp/ready" "$install_dir"
    rm -rf "$old"
  else
    mv "$tmp/ready" "$install_dir"
  fi
  installed || die "install into $install_dir did not complete"
}

# install_go_binary MODULE_PATH VERSION NAME WAIT WHY_GO BUILDING installs
# the binary NAME of the Go module MODULE_PATH at VERSION into
# $install_dir/NAME (resolve_install_dir first) with `go install`, through
# the Go module proxy, and prints the binary's path: the only line on
# stdout. It defines installed (the binary is there under a marker,
# $install_dir/.installed, that names MODULE_PATH@VERSION) and, when that
# holds, prints the path at once, with no lock and no go; otherwise it needs
# go, flock and timeout (dying with "go not found on PATH; WHY_GO" without
# go), takes the lock for up to WAIT seconds (see begin_install), fetches
# the module and its dependencies (3 attempts of at most 300 s each: a proxy
# connection that stalls would otherwise hang go for good, and modules
# already fetched stay in the module cache), builds it into a temporary
# directory and moves it into place (see finish_install). BUILDING follows
# "building MODULE with go install" in the log. PACKAGE, optional, is the
# main package's directory inside the module when it is not the root.
install_go_binary() {
  local module_path="$1" version="$2" name="$3" wait="$4" why_go="$5" building="$6" pkg="${7:-.}"
  local module="$module_path@$version" marker=".installed" attempts=3 timeout_s=300 attempt
  local target="$module"
  [[ "$pkg" == . ]] || target="$module_path/$pkg@$version"
  binary="$install_dir/$name"
  go_module="$module"
  installed() {
    [[ -f "$binary" && -x "$binary" ]] &&
      [[ "$(cat "$install_dir/.installed" 2>/dev/null || true)" == "$go_module" ]]
  }

  # Fast path: no lock, no go.
  if installed; then
    printf '%s\n' "$binary"
    exit 0
  fi

  command -v go >/dev/null 2>&1 || die "go not found on PATH; $why_go"
  for tool in flock timeout; do
    command -v "$tool" >/dev/null 2>&1 ||
      die "$tool not found on PATH (flock comes with util-linux, timeout with coreutils)"
  done

  begin_install "$wait" "$binary"

  # Everything runs outside any module so that this repository's go.mod
  # plays no part; the caller's GOFLAGS could (e.g. -mod=vendor), so it is
  # replaced.
  export GO111MODULE=on GOFLAGS=-mod=readonly GOWORK=off
  # One attempt downloads the module, then the modules of every package its
  # main package imports (what go install would fetch), each step bounded.
  log "fetching $module and its dependencies through the Go module proxy"
  for ((attempt = 1; ; attempt++)); do
    { (cd "$tmp" && timeout "$timeout_s" go mod download "$module") >&2 &&
      (cd "$(go env GOMODCACHE)/$module" &&
        timeout "$timeout_s" go list -deps "./$pkg" >/dev/null) >&2; } && break
    ((attempt < attempts)) || die "fetching $module failed $attempts times"
    log "fetch failed or timed out after ${timeout_s}s; retrying ($((attempt + 1))/$attempts)"
  done

  log "building $module with go install$building"
  mkdir "$tmp/ready"
  (cd "$tmp" && GOBIN="$tmp/ready" GOFLAGS=-buildvcs=false go install "$target") >&2 ||
    die "go install $module failed"
  [[ -x "$tmp/ready/$name" ]] || die "go install $module produced no $name binary"
  printf '%s\n' "$module" >"$tmp/ready/$marker"

  finish_install
  log "installed $module into $install_dir"
  printf '%s\n' "$binary"
}

# require_node MIN WHAT dies unless node MIN or newer is on PATH; WHAT
# names what needs it in the message.
require_node() {
  local min="$1" what="$2" major
  command -v node >/dev/null 2>&1 ||
    die "node not found on PATH; $what needs Node.js $min+ (apt-get install -y nodejs npm)"
  major="$(node -p 'process.versions.node.split(".")[0]')"
  ((major >= min)) || die "node $(node --version) is too old; $what needs Node.js $min+"
}

# require_npm_tools dies unless npm, flock and timeout are on PATH.
require_npm_tools() {
  local tool
  for tool in npm flock timeout; do
    command -v "$tool" >/dev/null 2>&1 ||
      die "$tool not found on PATH (npm comes with Node.js: apt-get install -y nodejs npm; flock with util-linux, timeout with coreutils)"
  done
}

# npm_ci_into SRC ATTEMPTS TIMEOUT copies SRC's package.json and
# package-lock.json into $tmp/ready (begin_install's temporary directory)
# and runs `npm ci --ignore-scripts` there: every package pinned with its
# integrity by the lockfile, none running code as it installs. Up to
# ATTEMPTS tries of at most TIMEOUT seconds each: a registry connection
# that stalls would otherwise hang npm for good, and what it fetched stays
# in npm's cache for the retry (--prefer-offline: cached tarballs are not
# fetched again; the lockfile's integrity still checks them).
npm_ci_into() {
  local src="$1" attempts="$2" timeout_s="$3" attempt
  mkdir "$tmp/ready"
  cp "$src/package.json" "$src/package-lock.json" "$tmp/ready/"
  for ((attempt = 1; ; attempt++)); do
    (cd "$tmp/ready" && timeout "$timeout_s" npm ci --ignore-scripts --omit=dev --prefer-offline \
      --no-audit --no-fund --update-notifier=false --loglevel=error) >&2 && break
    ((attempt < attempts)) || die "npm ci failed $attempts times"
    log "npm ci failed or timed out after ${timeout_s}s; retrying ($((attempt + 1))/$attempts)"
    rm -rf "$tmp/ready/node_modules"
  done
}
