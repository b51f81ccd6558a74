# host-lib.sh — what the host sides of the guest tests with a disk set of their own share
# (safety-host.sh, faults-host.sh): their options and their scratch directory.
# Usage, in bash:   . "$HERE/host-lib.sh"; host_args NAME "$@"
# sets BIN (-b, else $DRIVESCOPE_BIN; required), CT (-S: vm-run.sh's CTest mode), T (-t, the VM's
# limit in seconds, default 300) and work (a new directory under $TMPDIR, removed at exit).
host_args() {
  local name=$1 o; shift
  BIN=${DRIVESCOPE_BIN:-} CT=() T=300
  OPTIND=1
  while getopts 'b:St:' o; do
    case $o in b) BIN=$OPTARG ;; S) CT=(-S) ;; t) T=$OPTARG ;; *) exit 2 ;; esac
  done
  [ -n "$BIN" ] || { echo "$name: -b path/to/drivescope is required" >&2; exit 2; }
  work=$(mktemp -d "${TMPDIR:-/tmp}/ds-$name.XXXXXX")
  trap 'rm -rf "$work"' EXIT
}
