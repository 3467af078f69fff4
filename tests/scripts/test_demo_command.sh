#!/usr/bin/env bash
# The README's first command as a newcomer runs it: scripts/run-demo.sh with no arguments builds
# the demo (into WORK_DIR, not the user's build/) and draws every sensor kind: the cameras' contact
# sheet, the height scans and the LiDARs, each PNG written with its .npy.
#   usage: test_demo_command.sh REPO_ROOT WORK_DIR
set -euo pipefail
repo=$1 work=$2
rm -rf "$work"
out=$(cd "$repo" && WR_DEMO_BUILD="$work" bash scripts/run-demo.sh 2>&1) || { echo "$out" | tail -n 40; echo "FAILED: scripts/run-demo.sh"; exit 1; }
echo "$out" | grep "wrote"
missing=0
for f in depth_contact_sheet.png depth.npy height_scan.png heights.npy lidar_range_image.png distances.npy; do
  [ -s "$work/demo_out/$f" ] || { echo "FAILED: scripts/run-demo.sh wrote no $f"; missing=1; }
done
[ $missing -eq 0 ] && echo "scripts/run-demo.sh drew every sensor kind"
exit $missing
