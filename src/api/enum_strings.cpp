// The names of wr.h's enums that have one (wr_status's is in last_error.cpp, beside its use):
// wr_cpu_path_string, wr_memory_tag_string and wr_terrain_kind_string. Compiled into wr_core too (src/CMakeLists.txt):
// the CPU backend names its paths with the first.
#include <cstring>

#include <wr/wr.h>

extern "C" {

const char* wr_cpu_path_string(wr_cpu_path path) {
  int value;
  std::memcpy(&value, &path, sizeof value);
  switch (value) {
    case WR_CPU_PATH_AUTO: return "auto";
    case WR_CPU_PATH_SCALAR: return "scalar";
    case WR_CPU_PATH_AVX2: return "avx2";
    case WR_CPU_PATH_AVX512: return "avx512";
  }
  return "unknown";
}

const char* wr_memory_tag_string(wr_memory_tag tag) {
  int value;
  std::memcpy(&value, &tag, sizeof value);
  switch (value) {
    case WR_MEMORY_OBJECTS: return "objects";
    case WR_MEMORY_BVH_NODES: return "bvh_nodes";
    case WR_MEMORY_BVH_TRIANGLES: return "bvh_triangles";
    case WR_MEMORY_BVH_PARENTS: return "bvh_parents";
    case WR_MEMORY_RAY_TEMPLATE: return "ray_template";
    case WR_MEMORY_COUNTERS: return "counters";
    case WR_MEMORY_BUILD_SCRATCH: return "build_scratch";
    case WR_MEMORY_HISTORY: return "history";
    case WR_MEMORY_CAMERA_IMAGES: return "camera_images";
    case WR_MEMORY_RENDER_SCRATCH: return "render_scratch";
    case WR_MEMORY_INSTANCE_TABLE: return "instance_table";
    case WR_MEMORY_GRID_SAMPLES: return "grid_samples";
    case WR_MEMORY_GRID_PYRAMID: return "grid_pyramid";
  }
  return "unknown";
}

const char* wr_terrain_kind_string(wr_terrain_kind kind) {
  int value;
  std::memcpy(&value, &kind, sizeof value);
  switch (value) {
    case WR_TERRAIN_AUTO: return "auto";
    case WR_TERRAIN_BVH: return "bvh";
    case WR_TERRAIN_GRID: return "grid";
  }
  return "unknown";
}

}  // extern "C"
