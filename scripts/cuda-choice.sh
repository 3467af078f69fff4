# Sourced by scripts/run-demo.sh and scripts/setup-python.sh: `choose_cuda WHO` sets `cuda` to on
# or off from WR_CUDA (auto, the default: on where nvidia-smi lists a GPU and nvcc is there; on;
# off) and, as WHO, says why it builds for the CPU only where CUDA could be built, or that it
# builds CUDA. The CUDA kernels for four GPU generations take minutes to compile and need a GPU to
# run; without one the library runs on the CPU all the same. (The test command compiles them
# wherever nvcc is, GPU or not: scripts/run-tests.sh.)
choose_cuda() {
  cuda=${WR_CUDA:-auto}
  case "$cuda" in
    auto)
      local gpu=no nvcc=no
      command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU ' && gpu=yes
      { command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; } && nvcc=yes
      cuda=off
      if [ $gpu = yes ] && [ $nvcc = yes ]; then
        cuda=on
      elif [ $gpu = yes ]; then
        echo "$1: a GPU but no nvcc (the CUDA toolkit): building for the CPU only" >&2
      elif [ $nvcc = yes ]; then
        echo "$1: no GPU visible (nvidia-smi): building for the CPU only (WR_CUDA=on builds CUDA too)" >&2
      fi ;;
    on | off) ;;
    *) echo "$1: WR_CUDA is '$cuda': use auto, on or off" >&2; return 2 ;;
  esac
  [ "$cuda" = off ] || echo "$1: building the CUDA backend too: its kernels take minutes to compile (WR_CUDA=off skips it)" >&2
  return 0
}
