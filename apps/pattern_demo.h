// wr-demo --height-scan / --lidar (apps/wr_demo.cpp): one pattern sensor over the demo's robots.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <wr/wr.hpp>

namespace wr_demo {

struct PatternDemo {
  std::string obj;  // the terrain's file, for the report
  uint32_t envs, repeats;
  std::string out;   // the output directory (exists)
  bool height_scan;  // IsaacLab's height scan; else the LiDAR
};

// Renders the pattern sensor for the robots at `poses` (envs x 7, w x y z), times it, writes its
// values as .npy [envs, rays] and its picture (pattern_pictures.h) into opt.out and prints a
// report. Throws std::runtime_error (the demo's exit code 2) when no ray hits the terrain.
int run_pattern_demo(const PatternDemo& opt, const wr::Context& ctx, const wr::Scene& scene,
                     const std::vector<float>& poses, double load_ms);

}  // namespace wr_demo
