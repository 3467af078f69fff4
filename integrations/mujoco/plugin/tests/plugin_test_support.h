// What the engine plugin's tests share (test_plugin.cpp: warp_raycaster.depth; test_ray_plugin.cpp:
// warp_raycaster.rays): the plugin library loaded once, MJCF <config> elements, a model compiled
// with it or its compile error, and a sensor's slice of sensordata.
#pragma once

#include <string>

#include <catch2/catch.hpp>

#include "mujoco_test_support.h"

namespace wr_mujoco_test {

// Loads the plugin library (once: loading the same path again only returns the loaded library),
// which registers both sensors. The default log handler of this process prints to the console
// only: no MUJOCO_LOG.TXT in the source tree the tests run in.
inline void load_plugin() {
  static const bool once = [] {
    mjLogConfig cfg = mju_getLogConfig();
    cfg.logto_file = 0;
    mju_setLogConfig(cfg);
    mj_loadPluginLibrary(WR_MUJOCO_PLUGIN_PATH);
    return true;
  }();
  (void)once;
  for (const char* name : {"warp_raycaster.depth", "warp_raycaster.rays"}) {
    INFO("mj_loadPluginLibrary(" << WR_MUJOCO_PLUGIN_PATH << ") registered no " << name);
    REQUIRE(mjp_getPlugin(name, nullptr) != nullptr);
  }
}

inline std::string config(const std::string& key, const std::string& value) {
  return "<config key=\"" + key + "\" value=\"" + value + "\"/>";
}

inline Model load_with_plugin(const std::string& xml) {
  load_plugin();
  return load(xml);
}

// The compile error of an MJCF string; "" when it compiles.
inline std::string compile_error(const std::string& xml) {
  load_plugin();
  char error[1024] = "";
  mjSpec* spec = mj_parseXMLString(xml.c_str(), nullptr, error, sizeof error);
  if (!spec) return std::string("parse error: ") + error;
  mjModel* m = mj_compile(spec, nullptr);
  const std::string out = m ? "" : mjs_getError(spec);
  mj_deleteModel(m);
  mj_deleteSpec(spec);
  return out;
}

struct SensorSlice {
  int id = -1;
  int adr = 0;
  int dim = 0;
};
inline SensorSlice sensor_named(const mjModel* m, const char* name) {
  SensorSlice s;
  s.id = mj_name2id(m, mjOBJ_SENSOR, name);
  INFO("sensor " << name);
  REQUIRE(s.id >= 0);
  REQUIRE(m->sensor_type[s.id] == mjSENS_PLUGIN);
  s.adr = m->sensor_adr[s.id];
  s.dim = m->sensor_dim[s.id];
  return s;
}

}  // namespace wr_mujoco_test
