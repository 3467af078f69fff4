// How wr_mujoco names what it refuses: a model's objects by index and name, numbers to 9
// digits, and the Error every public function throws ("wr_mujoco::<function>: <culprit>").
// Internal to the integration (wr_mujoco.cpp, geom_shapes.cpp).
#pragma once

#include <cstdio>
#include <string>

#include "wr_mujoco.h"

namespace wr_mujoco {
namespace internal {

inline std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

inline std::string named(const mjModel* m, int type, int id, const char* kind) {
  const char* n = mj_id2name(m, type, id);
  std::string s = std::string(kind) + " " + std::to_string(id);
  if (n && *n) s += " '" + std::string(n) + "'";
  return s;
}
inline std::string geom_label(const mjModel* m, int g) { return named(m, mjOBJ_GEOM, g, "geom"); }
inline std::string body_label(const mjModel* m, int b) { return named(m, mjOBJ_BODY, b, "body"); }
inline std::string camera_label(const mjModel* m, int c) { return named(m, mjOBJ_CAMERA, c, "camera"); }

[[noreturn]] inline void fail(const std::string& where, const std::string& what) {
  throw Error("wr_mujoco::" + where + ": " + what);
}

inline void check(wr_status s, const std::string& where, const std::string& call) {
  if (s != WR_SUCCESS) fail(where, call + " failed: " + wr_last_error());
}

inline void check_model(const mjModel* m, const char* where) {
  if (!m) fail(where, "m is NULL");
}

inline void check_geom(const mjModel* m, int g, const char* where) {
  if (g < 0 || g >= m->ngeom)
    fail(where, "geom " + std::to_string(g) + " is out of range: the model has " + std::to_string(m->ngeom) + " geoms");
}

}  // namespace internal
}  // namespace wr_mujoco
