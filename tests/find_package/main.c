/* A simulator's C program: renders one depth value, a floor 2 m below a camera looking straight
   down, after checking that the libwr it loaded is the version of the wr.h it was built with;
   prints that version (the tests compare it with the project's and pkg-config's). Built against the installed libwr
   through find_package(warp_raycaster) and through pkg-config (tests/find_package), and against the source tree through
   add_subdirectory (tests/add_subdirectory). */
#ifdef WR_BUILDING_LIBRARY
#error "WR_BUILDING_LIBRARY reached a consumer: it is for compiling libwr itself"
#endif
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <wr/wr.h>

int main(void) {
  const float v[] = {-10, -10, 0, 10, -10, 0, 10, 10, 0, -10, 10, 0};
  const uint32_t idx[] = {0, 1, 2, 0, 2, 3};
  const float pose[7] = {0, 0, 2, 0.70710678f, 0, 0.70710678f, 0}; /* pitched down 90 degrees */
  wr_context ctx = NULL;
  wr_scene scene = NULL;
  wr_sensor sensor = NULL;
  wr_camera_desc desc;
  float depth = 0;
  if (wr_version() != WR_VERSION || strcmp(wr_version_string(), WR_VERSION_STRING) != 0) {
    fprintf(stderr, "libwr is %s (%u), its header %s (%u)\n", wr_version_string(), (unsigned)wr_version(),
            WR_VERSION_STRING, (unsigned)WR_VERSION);
    return 1;
  }
  if (WR_VERSION != WR_MAKE_VERSION(WR_VERSION_MAJOR, WR_VERSION_MINOR, WR_VERSION_PATCH)) return 1;
  wr_camera_desc_pinhole(&desc, 1, 1, 60.0f);
  if (wr_context_create(WR_DEVICE_CPU, 0, &ctx) || wr_scene_create(ctx, v, 4, idx, 2, &scene) ||
      wr_sensor_create(scene, &desc, 1, &sensor) || wr_sensor_render(sensor, pose, &depth, NULL)) {
    fprintf(stderr, "%s\n", wr_last_error());
    return 1;
  }
  wr_sensor_release(sensor);
  wr_scene_release(scene);
  wr_context_release(ctx);
  if (fabsf(depth - 2.0f) > 1e-5f) {
    fprintf(stderr, "depth %g, expected 2\n", depth);
    return 1;
  }
  printf("%s\n", wr_version_string());
  return 0;
}
