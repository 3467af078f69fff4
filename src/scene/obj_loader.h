// Wavefront OBJ loading: one strict pass over the file, which reads what a depth sensor needs
// (vertex positions and faces) and refuses, by file and line, what lenient readers take
// silently ("v nan 0 0" or "1.5abc" read as numbers, an out-of-range face index as a warning).
#pragma once

#include <string>

#include "scene/mesh.h"

namespace wr {

// Loads every shape of an OBJ file into one mesh: vertex positions (`v`) and faces (`f`),
// polygons triangulated (n corners -> n - 2 triangles); normals, texture coordinates,
// lines, points and materials are ignored (a missing .mtl is not an error).
//
// Throws wr::StatusError; every message starts with "wr_scene_load_obj: ":
//   WR_ERROR_IO     the file cannot be opened or read (a directory included): names the
//                   path and the OS reason.
//   WR_ERROR_PARSE  malformed content: names "<path>:<line>" and what is wrong (a bad or
//                   non-finite coordinate, fewer than 3 coordinates or face corners, a
//                   zero, non-integer or out-of-range vertex reference), or
//                   "<path>: no triangles" for a file without faces.
// Vertex references must point at vertices defined earlier in the file (1-based; a
// negative reference counts back from the last vertex defined, as the OBJ format says).
Mesh load_obj(const std::string& path);

}  // namespace wr
