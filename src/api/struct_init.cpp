// The C API's initialisers of its sized structs (wr.h): each zeroes its struct, sets
// struct_size, and sets the fields whose 0 would not mean "default". Compiled into wr_core
// (src/CMakeLists.txt) with the other C functions the unit tests call without libwr.
#include <cmath>
#include <cstring>

#include <wr/wr.h>

extern "C" {

void wr_heightfield_desc_init(wr_heightfield_desc* desc) {
  if (!desc) return;
  std::memset(desc, 0, sizeof *desc);
  desc->struct_size = sizeof *desc;
  desc->spacing_x = desc->spacing_y = 1.0f;
  desc->z_scale = 1.0f;
}

void wr_instanced_scene_desc_init(wr_instanced_scene_desc* desc) {
  if (!desc) return;
  std::memset(desc, 0, sizeof *desc);
  desc->struct_size = sizeof *desc;
}

void wr_sensor_options_init(wr_sensor_options* options) {
  if (!options) return;
  std::memset(options, 0, sizeof *options);
  options->struct_size = sizeof *options;
}

void wr_render_args_init(wr_render_args* args) {
  if (!args) return;
  std::memset(args, 0, sizeof *args);
  args->struct_size = sizeof *args;
}

void wr_intersect_args_init(wr_intersect_args* args) {
  if (!args) return;
  std::memset(args, 0, sizeof *args);
  args->struct_size = sizeof *args;
}

void wr_pattern_desc_init(wr_pattern_desc* desc) {
  if (!desc) return;
  std::memset(desc, 0, sizeof *desc);
  desc->struct_size = sizeof *desc;
  desc->grid_resolution = 0.1;
  desc->grid_direction[2] = -1.0f;
}

void wr_ray_sensor_desc_init(wr_ray_sensor_desc* desc) {
  if (!desc) return;
  std::memset(desc, 0, sizeof *desc);
  desc->struct_size = sizeof *desc;
  desc->max_distance = INFINITY;
  desc->miss_value = INFINITY;
}

void wr_pose_gather_desc_init(wr_pose_gather_desc* desc) {
  if (!desc) return;
  std::memset(desc, 0, sizeof *desc);
  desc->struct_size = sizeof *desc;
}

}  // extern "C"
