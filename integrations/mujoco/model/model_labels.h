// How wr_mujoco names what it refuses: a model's objects by index and name, numbers to 9
// digits, and the Error every public function throws ("wr_mujoco::<function>: <culprit>").
// Internal to the integration (model_scene.cpp, geom_shapes.cpp, wr_mujoco.cpp).
#pragma once

#include <cstdio>
#include <string>

#include "model_scene.h"

namespace wr_mujoco {
namespace internal {

inline std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

inline std::string named(const ModelView& m, ObjectKind kind, int id, const char* what) {
  const std::string n = object_name(m, kind, id);
  std::string s = std::string(what) + " " + std::to_string(id);
  if (!n.empty()) s += " '" + n + "'";
  return s;
}
inline std::string geom_label(const ModelView& m, int g) { return named(m, ObjectKind::kGeom, g, "geom"); }
inline std::string body_label(const ModelView& m, int b) { return named(m, ObjectKind::kBody, b, "body"); }
inline std::string camera_label(const ModelView& m, int c) { return named(m, ObjectKind::kCamera, c, "camera"); }

[[noreturn]] inline void fail(const std::string& where, const std::string& what) {
  throw Error("wr_mujoco::" + where + ": " + what);
}

inline void check(wr_status s, const std::string& where, const std::string& call) {
  if (s != WR_SUCCESS) fail(where, call + " failed: " + wr_last_error());
}

// A view that cannot be read is refused before anything indexes it (model_view.h, view_problem).
inline void check_view(const ModelView& m, const char* where) {
  const std::string problem = view_problem(m);
  if (!problem.empty()) fail(where, "the model: " + problem);
}

inline void check_geom(const ModelView& m, int g, const char* where) {
  if (g < 0 || g >= m.ngeom)
    fail(where, "geom " + std::to_string(g) + " is out of range: the model has " + std::to_string(m.ngeom) + " geoms");
}

}  // namespace internal
}  // namespace wr_mujoco
