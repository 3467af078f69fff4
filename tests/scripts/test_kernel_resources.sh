#!/usr/bin/env bash
# tools/kernel-resources.sh on a ptxas report as nvcc 13 writes it: a kernel in an anonymous
# namespace (whose mangled name holds "15_cuda_kernels_cu_<hash>" before the kernel's own name,
# which the table once showed instead), one in a named namespace, instantiations of a kernel
# template over a render's feature set (a grid terrain's and a pattern sensor's among them), and the intersect kernel
# templated on the terrain kind. Each row must name its kernel (and instantiation).
#   usage: test_kernel_resources.sh REPO_ROOT
set -euo pipefail
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cat >"$log" <<'LOG'
ptxas info    : Compiling entry function '_ZN2wr4cuda48_GLOBAL__N__81be62e9_15_cuda_kernels_cu_0215d96722pipeline_output_kernelENS_7BvhViewEPKNS_11TemplateRayE' for 'sm_90'
ptxas info    : Function properties for _ZN2wr4cuda48_GLOBAL__N__81be62e9_15_cuda_kernels_cu_0215d96722pipeline_output_kernelENS_7BvhViewEPKNS_11TemplateRayE
    832 bytes stack frame, 100 bytes spill stores, 120 bytes spill loads
ptxas info    : Used 56 registers, used 0 barriers, 832 bytes cumulative stack size
ptxas info    : Compiling entry function '_ZN2wr4cuda12depth_kernelENS_7BvhViewE' for 'sm_80'
ptxas info    : Function properties for _ZN2wr4cuda12depth_kernelENS_7BvhViewE
    768 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 55 registers, used 0 barriers, 768 bytes cumulative stack size
ptxas info    : Compiling entry function '_ZN2wr4cuda48_GLOBAL__N__81be62e9_15_cuda_kernels_cu_3f2fd6f913output_kernelINS_14RenderFeaturesILb0ELb0ENS_18CameraTemplateRaysENS_10BvhTerrainEEELb0EEEvNS_7BvhViewE' for 'sm_90'
ptxas info    : Function properties for _ZN2wr4cuda48_GLOBAL__N__81be62e9_15_cuda_kernels_cu_3f2fd6f913output_kernelINS_14RenderFeaturesILb0ELb0ENS_18CameraTemplateRaysENS_10BvhTerrainEEELb0EEEvNS_7BvhViewE
    768 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 56 registers, used 0 barriers, 768 bytes cumulative stack size
ptxas info    : Compiling entry function '_ZN2wr4cuda48_GLOBAL__N__81be62e9_15_cuda_kernels_cu_3f2fd6f913camera_kernelINS_14RenderFeaturesILb1ELb1ENS_18CameraTemplateRaysENS_10BvhTerrainEEELb1EEEvNS_7BvhViewE' for 'sm_90'
ptxas info    : Function properties for _ZN2wr4cuda48_GLOBAL__N__81be62e9_15_cuda_kernels_cu_3f2fd6f913camera_kernelINS_14RenderFeaturesILb1ELb1ENS_18CameraTemplateRaysENS_10BvhTerrainEEELb1EEEvNS_7BvhViewE
    816 bytes stack frame, 74 bytes spill stores, 108 bytes spill loads
ptxas info    : Used 72 registers, used 1 barriers, 816 bytes cumulative stack size
ptxas info    : Compiling entry function '_ZN2wr4cuda48_GLOBAL__N__81be62e9_15_cuda_kernels_cu_8e59122f13output_kernelINS_14RenderFeaturesILb0ELb0ENS_18CameraTemplateRaysENS_11GridTerrainEEELb0EEEvNT_7Terrain4ViewEPKNS_11TemplateRayENS_14PipelineParamsENS_12PipelineCallENS0_9WarpTilesENS_13PipelineStateEPy' for 'sm_90'
ptxas info    : Function properties for _ZN2wr4cuda48_GLOBAL__N__81be62e9_15_cuda_kernels_cu_8e59122f13output_kernelINS_14RenderFeaturesILb0ELb0ENS_18CameraTemplateRaysENS_11GridTerrainEEELb0EEEvNT_7Terrain4ViewEPKNS_11TemplateRayENS_14PipelineParamsENS_12PipelineCallENS0_9WarpTilesENS_13PipelineStateEPy
    880 bytes stack frame, 44 bytes spill stores, 100 bytes spill loads
ptxas info    : Used 64 registers, used 0 barriers, 880 bytes cumulative stack size
ptxas info    : Compiling entry function '_ZN2wr4cuda48_GLOBAL__N__81be62e9_15_cuda_kernels_cu_8e59122f13output_kernelINS_14RenderFeaturesILb1ELb1ENS_11PatternRaysENS_11GridTerrainEEELb0EEEvNT_7Terrain4ViewEPKNS_11TemplateRayENS_14PipelineParamsENS_12PipelineCallENS0_9WarpTilesENS_13PipelineStateEPy' for 'sm_90'
ptxas info    : Function properties for _ZN2wr4cuda48_GLOBAL__N__81be62e9_15_cuda_kernels_cu_8e59122f13output_kernelINS_14RenderFeaturesILb1ELb1ENS_11PatternRaysENS_11GridTerrainEEELb0EEEvNT_7Terrain4ViewEPKNS_11TemplateRayENS_14PipelineParamsENS_12PipelineCallENS0_9WarpTilesENS_13PipelineStateEPy
    1200 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 80 registers, used 0 barriers, 1200 bytes cumulative stack size
ptxas info    : Compiling entry function '_ZN2wr4cuda48_GLOBAL__N__81be62e9_15_cuda_kernels_cu_8e59122f16intersect_kernelINS_11GridTerrainEEEvNT_4ViewENS_12ExplicitRaysE' for 'sm_90'
ptxas info    : Function properties for _ZN2wr4cuda48_GLOBAL__N__81be62e9_15_cuda_kernels_cu_8e59122f16intersect_kernelINS_11GridTerrainEEEvNT_4ViewENS_12ExplicitRaysE
    1744 bytes stack frame, 104 bytes spill stores, 152 bytes spill loads
ptxas info    : Used 72 registers, used 0 barriers, 1744 bytes cumulative stack size
LOG
table=$(bash "$1/tools/kernel-resources.sh" "$log")
expected='| kernel | arch | registers/thread | stack frame (bytes) | spill stores (bytes) | spill loads (bytes) |
|---|---|---|---|---|---|
| pipeline_output_kernel | sm_90 | 56 | 832 | 100 | 120 |
| depth_kernel | sm_80 | 55 | 768 | 0 | 0 |
| output_kernel<plain> | sm_90 | 56 | 768 | 0 | 0 |
| camera_kernel<pipeline,instances,shared> | sm_90 | 72 | 816 | 74 | 108 |
| output_kernel<plain,grid> | sm_90 | 64 | 880 | 44 | 100 |
| output_kernel<pipeline,instances,grid,pattern> | sm_90 | 80 | 1200 | 0 | 0 |
| intersect_kernel<grid> | sm_90 | 72 | 1744 | 104 | 152 |'
if [ "$table" != "$expected" ]; then
  echo "kernel-resources.sh wrote:"; echo "$table"; echo "expected:"; echo "$expected"
  exit 1
fi
echo "kernel-resources.sh: every kernel and instantiation named, figures in place"
