# Sourced by the scripts that CI runs (.ci/run, run-tests.sh, run-sanitizers.sh, run-fuzz.sh):
# `stage NAME COMMAND...` runs COMMAND, prints "== NAME: S s", and, where WR_STAGE_LOG names a
# file (.ci/run sets it), appends "NAME<TAB>SECONDS<TAB>passed|FAILED" to it, so that .ci/run can
# print one table of every stage's wall time at the end, failed or not. The command's exit status
# is returned unchanged.
#   stage_table FILE   prints that table (Markdown) with the total.
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
  awk -F'\t' '
    BEGIN { print "| stage | wall time | result |"; print "|---|---:|---|" }
    { printf "| %s | %d min %02d s | %s |\n", $1, $2 / 60, $2 % 60, $3; total += $2 }
    END { printf "| **total** | **%d min %02d s** | |\n", total / 60, total % 60 }' "$1"
}
