# Sourced by the scripts that build (run-tests.sh, run-sanitizers.sh, run-fuzz.sh):
# `choose_generator DIR` sets the array `generator` to the arguments that pick CMake's generator
# for the build folder DIR: Ninja (scripts/setup.sh installs it) for a new folder, since it
# schedules every compile of the build at once where Make's generator waits for a library's
# whole target before compiling the objects of the programs that link it; nothing for a folder
# configured already, whose generator CMake would refuse to change.
choose_generator() {
  generator=()
  if [ ! -f "$1/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then
    generator=(-G Ninja)
  fi
}
