#!/usr/bin/env bash
# Fails, naming the files, where a C, C++ or CUDA source of the repository is not as .clang-format
# (clang-format 14, Debian's: scripts/setup.sh) would write it. The tests run it (CTest
# source_is_clang_formatted); `clang-format-14 -i $(git ls-files '*.c' '*.cpp' '*.h' '*.hpp' '*.cu')`
# fixes what it names.
#   usage: scripts/check-format.sh
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.c' '*.cpp' '*.h' '*.hpp' '*.cu')
if ! clang-format-14 --dry-run --Werror "${files[@]}" 2>/tmp/wr-format.$$; then
  grep -o '^[^:]*\.\(c\|cpp\|h\|hpp\|cu\):' /tmp/wr-format.$$ | sort -u | sed 's/:$//; s/^/not clang-formatted: /' >&2
  rm -f /tmp/wr-format.$$
  exit 1
fi
rm -f /tmp/wr-format.$$
echo "check-format: ${#files[@]} files as .clang-format writes them"
