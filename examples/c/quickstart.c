/* The README's C example, whole: 64 robots' depth cameras over the bundled parkour terrain, one
   render call. README.md shows this file from its first #include on (a test compares them), and
   the tests build and run it (examples/c/CMakeLists.txt); docs/linking.md builds it against an
   installed libwr. Run it from the repository root, where assets/ is. */
#include <stdio.h>

#include <wr/wr.h>

int main(void) {
  enum { num_envs = 64 };
  static float body_poses[num_envs][7];  /* per env: x y z (m), then w x y z (unit quaternion) */
  static float depth[num_envs][60][106]; /* plane depth in metres, +inf where nothing is hit */
  for (int e = 0; e < num_envs; ++e) {   /* in a simulator: the bodies' poses of this step */
    const float pose[7] = {2.0f + 0.5f * (float)e, 2.0f, 0.6f, 1.0f, 0.0f, 0.0f, 0.0f};
    for (int i = 0; i < 7; ++i) body_poses[e][i] = pose[i];
  }
  wr_context ctx;
  wr_scene scene;
  wr_sensor sensor;
  wr_camera_desc desc;
  if (wr_context_create(WR_DEVICE_CPU, 0, &ctx) != WR_SUCCESS || /* WR_DEVICE_CUDA, 0 on a GPU */
      wr_scene_load_obj(ctx, "assets/parkour_terrain.obj", &scene) != WR_SUCCESS) {
    fprintf(stderr, "%s\n", wr_last_error()); /* names the culprit: file:line, argument, env */
    return 1;
  }
  wr_camera_desc_pinhole(&desc, 106, 60, 87.0f);             /* width, height, horizontal FOV in degrees */
  desc.mount_position[0] = 0.27f;                            /* camera 0.27 m ahead of the base */
  wr_camera_desc_set_mount_angles(&desc, 15.0f, 0.0f, 0.0f); /* pitched 15 degrees down */
  /* once: allocates everything render will need; then every simulation step, one render call */
  if (wr_sensor_create(scene, &desc, num_envs, &sensor) != WR_SUCCESS ||
      wr_sensor_render(sensor, &body_poses[0][0], &depth[0][0][0], NULL /* cudaStream_t */) != WR_SUCCESS) {
    fprintf(stderr, "%s\n", wr_last_error());
    return 1;
  }
  printf("%d depth images of 106 x 60; env 0's centre pixel: %.2f m\n", num_envs, (double)depth[0][30][53]);
  wr_sensor_release(sensor); /* any order: a sensor keeps its scene, a scene its context alive */
  wr_scene_release(scene);
  wr_context_release(ctx);
  return 0;
}
