// libwr_mujoco_plugin.so registers its sensors when it is loaded (mj_loadPluginLibrary,
// mj_loadAllPluginLibraries, or linked in): mjplugin.h's mjPLUGIN_LIB_INIT, as MuJoCo's own plugins
// do. warp_raycaster.depth: a camera's depth image (depth_sensor.cpp); warp_raycaster.rays: a ray
// pattern from a site or a body (ray_sensor.cpp).
#include <mujoco/mjplugin.h>

#include "plugin_support.h"

namespace warp_raycaster_mujoco_plugin {

mjPLUGIN_LIB_INIT(warp_raycaster_sensors) {
  register_depth_plugin();
  register_rays_plugin();
}

}  // namespace warp_raycaster_mujoco_plugin
