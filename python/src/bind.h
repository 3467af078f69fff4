// The module's parts, one per kind of object, each adding its classes and functions to the
// module (module.cpp calls them in this order: later parts take the earlier parts' types), and
// the small helpers more than one part uses.
#pragma once

#include <cstdint>
#include <tuple>

#include <nanobind/nanobind.h>

#include <wr/wr.hpp>

namespace wrpy {

namespace nb = nanobind;

void register_enums(nb::module_& m);   // bind_enums.cpp: the C API's enums and its string functions
void register_descs(nb::module_& m);   // bind_descs.cpp: CameraDesc, Pattern, RaySensorDesc, NoiseDesc, SensorOptions
void register_scene(nb::module_& m);   // bind_scene.cpp: Context and Scene
void register_sensor(nb::module_& m);  // bind_sensor.cpp: Sensor and its render

inline std::tuple<float, float, float> tuple3(const float (&v)[3]) { return {v[0], v[1], v[2]}; }
inline std::tuple<float, float, float, float> tuple4(const float (&v)[4]) { return {v[0], v[1], v[2], v[3]}; }

// The ledger as a dict: the four totals of wr_memory_stats and, under "tags", each tag's host
// and device bytes (wr_memory_tag_string names).
template <class QueryTag>
nb::dict memory_dict(const wr_memory_stats& m, QueryTag&& query_tag) {
  nb::dict d;
  d["host_bytes"] = m.host_bytes;
  d["device_bytes"] = m.device_bytes;
  d["shared_bytes"] = m.shared_bytes;
  d["per_env_bytes"] = m.per_env_bytes;
  nb::dict tags;
  for (int t = 0; t < WR_MEMORY_TAG_COUNT; ++t) {
    uint64_t host = 0, device = 0;
    wr::detail::check(query_tag(static_cast<wr_memory_tag>(t), &host, &device));
    nb::dict entry;
    entry["host_bytes"] = host;
    entry["device_bytes"] = device;
    tags[wr_memory_tag_string(static_cast<wr_memory_tag>(t))] = entry;
  }
  d["tags"] = tags;
  return d;
}

}  // namespace wrpy
