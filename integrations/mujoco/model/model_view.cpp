// ModelView's names and its check (model_view.h).
#include "model_view.h"

#include <cstring>

namespace wr_mujoco {
namespace {

const int* name_adr(const ModelView& m, ObjectKind kind) {
  switch (kind) {
    case ObjectKind::kGeom: return m.name_geomadr;
    case ObjectKind::kBody: return m.name_bodyadr;
    case ObjectKind::kCamera: return m.name_camadr;
    case ObjectKind::kSite: return m.name_siteadr;
    case ObjectKind::kMesh: return m.name_meshadr;
    case ObjectKind::kHfield: return m.name_hfieldadr;
  }
  return nullptr;
}

}  // namespace

int object_count(const ModelView& m, ObjectKind kind) {
  switch (kind) {
    case ObjectKind::kGeom: return m.ngeom;
    case ObjectKind::kBody: return m.nbody;
    case ObjectKind::kCamera: return m.ncam;
    case ObjectKind::kSite: return m.nsite;
    case ObjectKind::kMesh: return m.nmesh;
    case ObjectKind::kHfield: return m.nhfield;
  }
  return 0;
}

std::string object_name(const ModelView& m, ObjectKind kind, int id) {
  const int* adr = name_adr(m, kind);
  if (!m.names || !adr || id < 0 || id >= object_count(m, kind)) return "";
  const int a = adr[id];
  if (a < 0 || a >= m.nnames) return "";
  // MuJoCo ends every name with a NUL; a buffer cut short ends the name at its end.
  const char* s = m.names + a;
  const void* end = std::memchr(s, '\0', static_cast<size_t>(m.nnames - a));
  return std::string(s, end ? static_cast<const char*>(end) - s : static_cast<size_t>(m.nnames - a));
}

int object_id(const ModelView& m, ObjectKind kind, const std::string& name) {
  if (name.empty()) return -1;  // MuJoCo's unnamed objects are not found by ""
  const int n = object_count(m, kind);
  for (int i = 0; i < n; ++i)
    if (object_name(m, kind, i) == name) return i;
  return -1;
}

std::string view_problem(const ModelView& m) {
  struct Count {
    const char* name;
    int64_t value;
  };
  for (const Count& c :
       {Count{"ngeom", m.ngeom}, Count{"nbody", m.nbody}, Count{"ncam", m.ncam}, Count{"nsite", m.nsite},
        Count{"nmesh", m.nmesh}, Count{"nhfield", m.nhfield}, Count{"nmat", m.nmat}, Count{"nmeshvert", m.nmeshvert},
        Count{"nmeshface", m.nmeshface}, Count{"nhfielddata", m.nhfielddata}, Count{"nnames", m.nnames}})
    if (c.value < 0) return std::string(c.name) + " = " + std::to_string(c.value) + " is negative";
  if (m.nbody < 1) return "nbody = 0: a MuJoCo model has at least the world body";
  struct Field {
    const char* name;
    const void* data;
    int64_t count;
  };
  for (const Field& f :
       {Field{"geom_type", m.geom_type, m.ngeom},          Field{"geom_size", m.geom_size, m.ngeom},
        Field{"geom_dataid", m.geom_dataid, m.ngeom},      Field{"geom_bodyid", m.geom_bodyid, m.ngeom},
        Field{"geom_group", m.geom_group, m.ngeom},        Field{"geom_matid", m.geom_matid, m.ngeom},
        Field{"geom_rgba", m.geom_rgba, m.ngeom},          Field{"mat_rgba", m.mat_rgba, m.nmat},
        Field{"body_weldid", m.body_weldid, m.nbody},      Field{"mesh_vert", m.mesh_vert, m.nmeshvert},
        Field{"mesh_face", m.mesh_face, m.nmeshface},      Field{"mesh_vertadr", m.mesh_vertadr, m.nmesh},
        Field{"mesh_vertnum", m.mesh_vertnum, m.nmesh},    Field{"mesh_faceadr", m.mesh_faceadr, m.nmesh},
        Field{"mesh_facenum", m.mesh_facenum, m.nmesh},    Field{"hfield_size", m.hfield_size, m.nhfield},
        Field{"hfield_nrow", m.hfield_nrow, m.nhfield},    Field{"hfield_ncol", m.hfield_ncol, m.nhfield},
        Field{"hfield_adr", m.hfield_adr, m.nhfield},      Field{"hfield_data", m.hfield_data, m.nhfielddata},
        Field{"cam_bodyid", m.cam_bodyid, m.ncam},         Field{"cam_projection", m.cam_projection, m.ncam},
        Field{"cam_resolution", m.cam_resolution, m.ncam}, Field{"cam_fovy", m.cam_fovy, m.ncam},
        Field{"cam_intrinsic", m.cam_intrinsic, m.ncam},   Field{"cam_sensorsize", m.cam_sensorsize, m.ncam},
        Field{"site_bodyid", m.site_bodyid, m.nsite}})
    if (f.count > 0 && !f.data) return std::string(f.name) + " is missing (NULL)";
  // Indices into other arrays, so that nothing reads past one.
  const auto body_ok = [&](int b) { return b >= 0 && b < m.nbody; };
  for (int b = 0; b < m.nbody; ++b)
    if (!body_ok(m.body_weldid[b])) return "body_weldid[" + std::to_string(b) + "] names no body";
  for (int g = 0; g < m.ngeom; ++g) {
    if (!body_ok(m.geom_bodyid[g])) return "geom_bodyid[" + std::to_string(g) + "] names no body";
    if (m.geom_matid[g] >= m.nmat) return "geom_matid[" + std::to_string(g) + "] names no material";
  }
  for (int c = 0; c < m.ncam; ++c)
    if (!body_ok(m.cam_bodyid[c])) return "cam_bodyid[" + std::to_string(c) + "] names no body";
  for (int s = 0; s < m.nsite; ++s)
    if (!body_ok(m.site_bodyid[s])) return "site_bodyid[" + std::to_string(s) + "] names no body";
  for (int i = 0; i < m.nmesh; ++i) {
    const int64_t va = m.mesh_vertadr[i], vn = m.mesh_vertnum[i], fa = m.mesh_faceadr[i], fn = m.mesh_facenum[i];
    if (va < 0 || vn < 0 || va + vn > m.nmeshvert)
      return "mesh " + std::to_string(i) + ": its vertices lie outside mesh_vert";
    if (fa < 0 || fn < 0 || fa + fn > m.nmeshface)
      return "mesh " + std::to_string(i) + ": its faces lie outside mesh_face";
  }
  for (int i = 0; i < m.nhfield; ++i) {
    const int64_t adr = m.hfield_adr[i], n = int64_t(m.hfield_nrow[i]) * m.hfield_ncol[i];
    if (adr < 0 || m.hfield_nrow[i] < 0 || m.hfield_ncol[i] < 0 || adr + n > m.nhfielddata)
      return "hfield " + std::to_string(i) + ": its samples lie outside hfield_data";
  }
  return "";
}

}  // namespace wr_mujoco
