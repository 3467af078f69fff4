// A plain MuJoCo program (it links MuJoCo only, not warp-raycaster), run by test_plugin.cpp in a
// process of its own, where no plugin library has been loaded before:
//   step <plugin.so> <model.xml>        mj_loadPluginLibrary, mj_loadXML, mj_makeData, 100 mj_step;
//                                       prints each plugin sensor's size and how many values are not
//                                       finite; exit 0
//   init-error <plugin.so> <model.xml>  compiles the model, makes its first camera orthographic and
//                                       calls mj_makeData under MuJoCo's default log handler, which
//                                       prints the plugin's warning and MuJoCo's error and exits (1);
//                                       exit 2 if mj_makeData returns
//   not-loaded <model.xml>              mj_loadXML without the plugin library: prints the error;
//                                       exit 0 when the model is refused, 3 when it loads
// The default handler prints to the console only (no MUJOCO_LOG.TXT in the working directory).
#include <cmath>
#include <cstdio>
#include <cstring>

#include <mujoco/mujoco.h>

namespace {

int usage() {
  std::fprintf(stderr, "usage: plugin_child step|init-error <plugin.so> <model.xml> | not-loaded <model.xml>\n");
  return 64;
}

mjModel* load(const char* path) {
  char error[1024] = "";
  mjModel* m = mj_loadXML(path, nullptr, error, sizeof error);
  if (!m) std::printf("mj_loadXML(%s): %s\n", path, error);
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  mjLogConfig cfg = mju_getLogConfig();
  cfg.logto_file = 0;
  mju_setLogConfig(cfg);
  if (argc < 3) return usage();
  const char* mode = argv[1];

  if (std::strcmp(mode, "not-loaded") == 0) {
    mjModel* m = load(argv[2]);
    std::fflush(stdout);
    if (!m) return 0;
    mj_deleteModel(m);
    return 3;
  }
  if (argc < 4) return usage();
  mj_loadPluginLibrary(argv[2]);
  mjModel* m = load(argv[3]);
  if (!m) return 4;

  if (std::strcmp(mode, "step") == 0) {
    mjData* d = mj_makeData(m);
    if (!d) return 5;
    for (int i = 0; i < 100; ++i) mj_step(m, d);
    for (int s = 0; s < m->nsensor; ++s) {
      if (m->sensor_type[s] != mjSENS_PLUGIN) continue;
      int bad = 0;
      for (int k = 0; k < m->sensor_dim[s]; ++k) bad += !std::isfinite(d->sensordata[m->sensor_adr[s] + k]);
      const char* name = mj_id2name(m, mjOBJ_SENSOR, s);
      std::printf("%s: %d values, %d not finite\n", name ? name : "?", m->sensor_dim[s], bad);
    }
    mj_deleteData(d);
    mj_deleteModel(m);
    return 0;
  }
  if (std::strcmp(mode, "init-error") == 0) {
    if (m->ncam < 1) return 6;
    m->cam_projection[0] = mjPROJ_ORTHOGRAPHIC;
    std::fflush(stdout);
    mjData* d = mj_makeData(m);  // the default handler exits
    std::printf("mj_makeData returned %p\n", static_cast<void*>(d));
    mj_deleteData(d);
    mj_deleteModel(m);
    return 2;
  }
  return usage();
}
