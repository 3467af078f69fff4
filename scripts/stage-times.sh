# Sourced by the scripts that CI runs (.ci/run, run-tests.sh, run-sanitizers.sh, run-fuzz.sh):
# `stage NAME COMMAND...` runs COMMAND, prints "== NAME: S s", and, where WR_STAGE_LOG names a
# file (.ci/run sets it), appends "NAME<TAB>SECONDS<TAB>passed|FAILED" to it, so that .ci/run can
# print one table of every stage's wall time at the end, failed or not. The command's exit status
# is returned unchanged.
#   stage_table FILE [SECONDS]   prints that table (Markdown): each stage, their sum, and SECONDS
#                                as the whole run's wall time (configuring the sanitizer builds and
#                                the set-up checks between stages are in it, in no stage).
stage() {
  local name=$1 start=$SECONDS rc=0
  shift
  "$@" || rc=$?
  local took=$((SECONDS - start)) verdict=passed
  [ $rc -eq 0 ] || verdict="FAILED (exit $rc)"
  echo "== $name: ${took} s, $verdict"
  [ -z "${WR_STAGE_LOG:-}" ] || printf '%s\t%s\t%s\n' "$name" "$took" "$verdict" >>"$WR_STAGE_LOG"
  return $rc
}

stage_table() {
  [ -s "$1" ] || { echo "(no stage was timed)"; return 0; }
  awk -F'\t' -v wall="${2:-}" '
    function t(s) { return sprintf("%d min %02d s", s / 60, s % 60) }
    BEGIN { print "| stage | wall time | result |"; print "|---|---:|---|" }
    { printf "| %s | %s | %s |\n", $1, t($2), $3; total += $2 }
    END {
      printf "| sum of the stages | %s | |\n", t(total)
      if (wall != "") printf "| **the whole run** | **%s** | |\n", t(wall)
    }' "$1"
}
