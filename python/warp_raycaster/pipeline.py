"""The RL depth pipeline inside the render (``wr_sensor_options`` in ``include/wr/wr.h``):
crop, resampling, invalid pixels, clip, normalisation, clamp, dtype, noise and history, each
off until set, so that a sensor renders what the policy reads in one call, with nothing per env
but the history it asks for.

    pipe = wr.Pipeline(crop=(4, 0, 98, 58), out_size=(87, 58), resample="bicubic",
                       clip=(0.0, 2.0), normalize=(0.0, 2.0, -0.5), history=2)
    sensor = wr.Sensor(scene, camera, num_envs=64, pipeline=pipe)
    obs = sensor.render(poses, frame=step, inputs=wr.RenderInputs(latency=lat))  # (64, 58, 87) float32

What one pixel goes through, in order: its ray (the body pose x the mount, the camera's or the
env's own intrinsics), the trace, the noise models of :class:`Noise` (keyed by seed, env, frame
and pixel: the same bits on every backend), the crop, the invalid pixels (the camera's miss
value, or REP 117's -inf too close / +inf no return / NaN invalid), the clip, the resampling
(area or bicubic, as torch's ``interpolate(mode=..., align_corners=False)``), the normalisation
``(d - a) / (b - a) + c``, the clamp, the dtype; then the env's history ring, whose frame
``latency[e]`` renders ago is what the output holds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Tuple

from ._errors import _invalid
from ._wr import BadPoseMode, Dtype, InvalidMode, Resample, SensorOptions

_RESAMPLE = {"none": Resample.NONE, "area": Resample.AREA, "bicubic": Resample.BICUBIC}
_INVALID = {"miss_value": InvalidMode.MISS_VALUE, "rep117": InvalidMode.REP117}
_DTYPE = {"float32": Dtype.FLOAT32, "float16": Dtype.FLOAT16, "uint16": Dtype.UINT16_MM}


@dataclass
class Noise:
    """Noise models (``wr_noise_desc``), each off at 0, applied in this order to a pixel with a
    return: too close (below `min_range` it is invalid), edge dropout (a pixel whose clean depth
    differs from a 4-neighbour's by more than `edge_threshold` is invalid with
    `edge_probability`), dropout, range-dependent Gaussian ``sigma(d) = a + b d + c d^2``
    (`range_sigma`), disparity quantisation (``f B / d`` rounded to multiples of
    `disparity_step` pixels, `disparity_focal_baseline` = f (pixels) x B (metres)), and a per-env
    per-frame offset uniform in ``[-env_offset, env_offset]`` (extreme-parkour's dis_noise)."""

    seed: int = 0
    min_range: float = 0.0
    edge_threshold: float = 0.0
    edge_probability: float = 0.0
    dropout_probability: float = 0.0
    range_sigma: Tuple[float, float, float] = (0.0, 0.0, 0.0)
    disparity_focal_baseline: float = 0.0
    disparity_step: float = 0.0
    env_offset: float = 0.0


@dataclass
class Pipeline:
    """What a sensor makes of its camera images (``wr_sensor_options``).

    crop: (x, y, width, height) of the camera image, or None for all of it. out_size: (width,
    height) of the output, or None for the crop's; resample: 'none', 'area' or 'bicubic'.
    invalid: 'miss_value' (every pixel without a valid depth holds the camera's miss value) or
    'rep117'. clip: (min, max) for finite depths, or None. normalize: (a, b, c) for
    ``(d - a) / (b - a) + c``, or None. clamp: (min, max) after normalisation, or None. dtype:
    'float32', 'float16' or 'uint16' (millimetres, 0 = invalid). history: frames kept per env
    (a render's ``latency`` must be below it). isolate_bad_poses: a bad pose makes only its env's
    output invalid (reported in ``bad_env_mask``) instead of failing the call."""

    crop: Optional[Tuple[int, int, int, int]] = None
    out_size: Optional[Tuple[int, int]] = None
    resample: str = "none"
    invalid: str = "miss_value"
    clip: Optional[Tuple[float, float]] = None
    normalize: Optional[Tuple[float, float, float]] = None
    clamp: Optional[Tuple[float, float]] = None
    dtype: str = "float32"
    history: int = 1
    isolate_bad_poses: bool = False
    noise: Noise = field(default_factory=Noise)

    def _options(self) -> SensorOptions:
        o = SensorOptions()
        if self.crop is not None:
            if len(self.crop) != 4:
                raise _invalid("Pipeline", f"crop = {self.crop!r}: expected (x, y, width, height)")
            o.crop_x, o.crop_y, o.crop_width, o.crop_height = (int(v) for v in self.crop)
        if self.out_size is not None:
            if len(self.out_size) != 2:
                raise _invalid("Pipeline", f"out_size = {self.out_size!r}: expected (width, height)")
            o.out_width, o.out_height = (int(v) for v in self.out_size)
        for name, table, value in (("resample", _RESAMPLE, self.resample), ("invalid", _INVALID, self.invalid),
                                   ("dtype", _DTYPE, self.dtype)):
            if value not in table:
                raise _invalid("Pipeline", f"{name} = {value!r}: must be one of {', '.join(repr(k) for k in table)}")
        o.resample = _RESAMPLE[self.resample]
        o.invalid_mode = _INVALID[self.invalid]
        o.dtype = _DTYPE[self.dtype]
        if self.clip is not None:
            o.clip, (o.clip_min, o.clip_max) = 1, (float(v) for v in self.clip)
        if self.normalize is not None:
            o.normalize, (o.norm_a, o.norm_b, o.norm_c) = 1, (float(v) for v in self.normalize)
        if self.clamp is not None:
            o.clamp, (o.clamp_min, o.clamp_max) = 1, (float(v) for v in self.clamp)
        o.history_length = int(self.history)
        o.bad_pose_mode = BadPoseMode.ISOLATE if self.isolate_bad_poses else BadPoseMode.FAIL
        n = self.noise
        o.noise.seed = int(n.seed)
        o.noise.min_range = float(n.min_range)
        o.noise.edge_threshold = float(n.edge_threshold)
        o.noise.edge_probability = float(n.edge_probability)
        o.noise.dropout_probability = float(n.dropout_probability)
        o.noise.range_sigma = tuple(float(v) for v in n.range_sigma)
        o.noise.disparity_focal_baseline = float(n.disparity_focal_baseline)
        o.noise.disparity_step = float(n.disparity_step)
        o.noise.env_offset = float(n.env_offset)
        return o
