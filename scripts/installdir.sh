# Sourced, not run, by the install-*.sh scripts (DynamoDB Local, MinIO, the
# detector, stripe-mock): the install directory they share the handling of.
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
