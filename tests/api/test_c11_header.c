/* The public header compiled as C11 (not C++), with -Wall -Wextra -pedantic: a CPU context, a
   scene of one big quad, a sensor looking at it, one depth value checked, and error paths.
   Prints nothing on success; returns non-zero (with a line on stderr) on failure. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <wr/wr.h>

static int failures = 0;

#define EXPECT(cond)                                                                                              \
  do {                                                                                                            \
    if (!(cond)) {                                                                                                \
      fprintf(stderr, "%s:%d: failed: %s (wr_last_error: \"%s\")\n", __FILE__, __LINE__, #cond, wr_last_error()); \
      ++failures;                                                                                                 \
    }                                                                                                             \
  } while (0)

int main(void) {
  /* A 20 m x 20 m wall at x = 5, facing the origin: (4 x 3) vertices, (2 x 3) indices. */
  const float vertices[12] = {5, -10, -10, 5, 10, -10, 5, 10, 10, 5, -10, 10};
  const uint32_t indices[6] = {0, 1, 2, 0, 2, 3};
  /* Camera at the origin, identity orientation: its optical axis is world +X. (1 x 7) w,x,y,z. */
  const float pose[7] = {0, 0, 0, 1, 0, 0, 0};
  float depth[9 * 9];
  wr_context context = NULL;
  wr_scene scene = NULL;
  wr_sensor sensor = NULL;
  wr_camera_desc desc;
  size_t i;

  EXPECT(wr_context_create_cpu(1, &context) == WR_SUCCESS);
  EXPECT(wr_scene_create(context, vertices, 4, indices, 2, &scene) == WR_SUCCESS);
  /* 9 x 9 pixels: pixel (4, 4)'s ray is the optical axis and hits the wall at 5 m. */
  wr_camera_desc_pinhole(&desc, 9, 9, 60.0f);
  EXPECT(wr_sensor_create(scene, &desc, 1, &sensor) == WR_SUCCESS);
  for (i = 0; i < 81; ++i) depth[i] = -1.0f;
  EXPECT(wr_sensor_render(sensor, pose, depth, NULL) == WR_SUCCESS);
  EXPECT(fabsf(depth[4 * 9 + 4] - 5.0f) < 1e-5f);
  /* Plane depth of a wall parallel to the image is 5 m at every pixel. */
  EXPECT(fabsf(depth[0] - 5.0f) < 1e-5f);

  /* Error paths: the status, and a message naming the function and the culprit. */
  desc.width = 0;
  {
    wr_sensor bad = NULL;
    EXPECT(wr_sensor_create(scene, &desc, 1, &bad) == WR_ERROR_INVALID_ARGUMENT);
    EXPECT(strncmp(wr_last_error(), "wr_sensor_create:", 17) == 0);
    EXPECT(strstr(wr_last_error(), "desc->width") != NULL);
  }
  {
    wr_context bad = NULL;
    EXPECT(wr_context_create((wr_device)7, 0, &bad) == WR_ERROR_INVALID_ARGUMENT);
    EXPECT(strstr(wr_last_error(), "device") != NULL);
  }
  for (i = 0; i < 81; ++i) depth[i] = -1.0f;
  EXPECT(wr_sensor_render(sensor, NULL, depth, NULL) == WR_ERROR_INVALID_ARGUMENT);
  EXPECT(strstr(wr_last_error(), "body_poses") != NULL);
  EXPECT(depth[0] == -1.0f && depth[4 * 9 + 4] == -1.0f); /* a failed render writes nothing */
  EXPECT(strcmp(wr_status_string(WR_ERROR_PARSE), "WR_ERROR_PARSE") == 0);
  EXPECT(strcmp(wr_status_string((wr_status)42), "WR_STATUS_UNKNOWN") == 0);

  wr_sensor_release(sensor);
  wr_scene_release(scene);
  wr_context_release(context);
  wr_context_release(NULL);
  return failures == 0 ? 0 : 1;
}
