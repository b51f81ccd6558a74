# served-lib.sh — what the host sides of the timing tests through a guest share (serve-bench-host.sh,
# twin-host.sh): a preset served in real time to the guest as its disk, and the checks around it.
# Usage, in bash:   NAME=twin-host; . "$here/served-lib.sh"
# NAME prefixes every message; $ds and $ctest_mode are the scripts' own options (-b, -S).

# A prerequisite missing: skipped (exit 77) in ctest mode unless DRIVESCOPE_REQUIRE_VM is set.
unavailable() {
  if [ -n "$ctest_mode" ] && [ -z "${DRIVESCOPE_REQUIRE_VM:-}" ]; then echo "$NAME: SKIPPED: $*"; exit 77; fi
  echo "$NAME: FAIL: $*"; exit 1
}

# nbdkit with drivescope's plugin, and real-time priority: at normal priority a TCG guest on a loaded
# host is held off the CPU for tens of milliseconds and the timing is the scheduler's (docs/serve.md).
served_prerequisites() {
  command -v nbdkit >/dev/null && [ -f "$(dirname "$ds")/nbdkit-drivescope-plugin.so" ] ||
    unavailable "nbdkit or the plugin is missing (scripts/setup.sh installs nbdkit)"
  chrt -f 1 true 2>/dev/null ||
    unavailable "real-time priority (SCHED_FIFO) is refused here: through a TCG guest at normal priority the host's scheduling decides the timing (docs/serve.md)"
}

# served_start TARGET SOCKET DIR [ARGS...]: `drivescope serve TARGET` in real time on SOCKET, its
# output in DIR/serve.out and DIR/serve.err; sets $server. Returns once the socket is there.
server=
served_start() {
  local target=$1 sock=$2 dir=$3; shift 3
  rm -f "$sock"
  "$ds" serve "$target" --realtime --socket "$sock" "$@" > "$dir/serve.out" 2> "$dir/serve.err" &
  server=$!
  for _ in $(seq 200); do [ -S "$sock" ] && break; sleep 0.05; done
}

# served_stop DIR RC: stops the server (SIGTERM, which it must answer with status 0), shows its
# messages, and returns RC, or 1 where RC was 0 and the server failed or ran without real-time
# priority.
served_stop() {
  local dir=$1 rc=$2 src_rc
  kill -TERM "$server"; wait "$server"
  src_rc=$?
  server=
  grep -h "drivescope: " "$dir/serve.err" | sed "s/^/$NAME: server: /"
  [ "$src_rc" -eq 0 ] || { echo "$NAME: FAIL: the server exited $src_rc on SIGTERM"; [ "$rc" -ne 0 ] || rc=1; }
  grep -q "refused" "$dir/serve.err" && { echo "$NAME: FAIL: the server's real-time priority was refused"; [ "$rc" -ne 0 ] || rc=1; }
  return "$rc"
}

# Removes the scratch directory $tmp and stops a server still running.
served_cleanup() { [ -z "$server" ] || { kill -TERM "$server" 2>/dev/null; wait "$server" 2>/dev/null; }; rm -rf "$tmp"; }
