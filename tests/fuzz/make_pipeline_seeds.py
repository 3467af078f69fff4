#!/usr/bin/env python3
# Writes the seed corpus of fuzz_pipeline_render (corpus/fuzz_pipeline_render/): inputs laid out
# in the order the harness reads them, so that from the first run every stage of the pipeline is
# reached (random bytes almost always make invalid options). Rerun after changing that order.
#   usage: tests/fuzz/make_pipeline_seeds.py tests/fuzz/corpus/fuzz_pipeline_render
import os
import struct
import sys

out_dir = sys.argv[1]
class B:
    def __init__(s): s.b = bytearray()
    def u8(s, v): s.b += struct.pack('<B', v); return s
    def u32(s, v): s.b += struct.pack('<I', v); return s
    def u64(s, v): s.b += struct.pack('<Q', v); return s
    def f(s, v):  # special_float: raw float
        s.u8(200); s.b += struct.pack('<f', v); return s
    def enum(s, v): s.u8(0); s.u32(v); return s
    def noise(s, v):  # noise_value: 0 or a raw special
        if v == 0: s.u8(0)
        else: s.u8(220); s.f(v)
        return s

def seed(name, w, h, envs, crop=None, out=None, inv_dtype=None, maps=None, hist=None, noise=None, calls=()):
    fields = (1 if crop else 0) | (2 if out else 0) | (4 if inv_dtype else 0) | (8 if maps else 0) | \
             (16 if hist else 0) | (32 if noise else 0)
    b = B().u8(fields).u32(w - 1).u32(h - 1).u8(1).u8(0).u32(envs - 1)
    if crop: b.u32(crop[0]).u32(crop[1]).u32(crop[2]).u32(crop[3]).u8(0)
    if out: b.enum(out[0]).u32(out[1]).u32(out[2])
    if inv_dtype: b.enum(inv_dtype[0]).enum(inv_dtype[1])
    if maps:
        which, vals = maps
        b.u8(which)
        for v in vals: b.f(v)
    if hist: b.u8(0).u32(hist[0]).enum(hist[1])
    if noise:
        b.u64(noise[0])
        for v in noise[1:]: b.noise(v)
    b.u32(len(calls) - 1)
    for c in calls:
        parts = c.get('parts', 0)
        b.u8(parts).u32(c.get('frame', 0))
        if parts & 1: b.u8(0).u32(c['stride'] - 7).u8(0).u32(c['offset'])
        for e in range(envs):
            bad = c.get('bad_pose', -1) == e
            b.u8(2 if bad else 0)
            if bad:
                for _ in range(4): b.f(0.0)
        if parts & 2:
            for e in range(envs): b.u32(e).u32(2 * e).u32(5).u32(4).u8(0)
        if parts & 4:
            for e in range(envs): b.u32(e).u8(0)
        if parts & 8:
            for e in range(envs): b.u8(0).u32(c['latency'][e])
        if parts & 16:
            for e in range(envs): b.u8(1 if c['update'][e] else 0)
        if parts & 32:
            for e in range(envs): b.u8(c['reset'][e])
        b.u8(250 if c.get('short') else 0)
    open(os.path.join(out_dir, name + '.bin'), 'wb').write(bytes(b.b))

# extreme-parkour's chain in miniature: crop, bicubic, clip [0, 2], (d - 0)/(2 - 0) - 0.5, one frame late
seed('parkour_bicubic_clip_normalize_latency', 12, 10, 3, crop=(1, 0, 10, 8), out=(2, 9, 7),
     maps=(3, [0.0, 2.0, 0.0, 2.0, -0.5, -1.0, 1.0]), hist=(2, 0),
     calls=[{'parts': 8, 'latency': [1, 1, 0]}, {'parts': 8, 'frame': 1, 'latency': [1, 0, 1]},
            {'parts': 8 | 32, 'frame': 2, 'latency': [1, 1, 1], 'reset': [0, 1, 0]}])
# area to a larger and a smaller size, float16, an isolated bad env counted and masked
seed('area_float16_isolate_bad_env', 9, 7, 4, out=(1, 13, 3), inv_dtype=(0, 1), hist=(1, 1),
     calls=[{'parts': 64 | 128, 'bad_pose': 2}, {'parts': 64 | 128 | 16, 'update': [1, 0, 1, 1], 'bad_pose': 1}])
# REP 117 sentinels, millimetres, every noise model
seed('rep117_uint16_noise', 10, 8, 2, inv_dtype=(1, 2),
     noise=(12345, 0.5, 0.2, 0.5, 0.25, 0.01, 0.02, 0.003, 40.0, 0.25, 0.05),
     calls=[{'parts': 0}, {'parts': 0, 'frame': 3}])
# per-env intrinsics and mounts, IsaacGym root states (stride 13), an update mask
seed('per_env_cameras_stride_update_mask', 11, 9, 3, crop=(0, 1, 0, 0),
     calls=[{'parts': 1 | 2 | 4 | 16, 'stride': 13, 'offset': 3, 'update': [1, 0, 1]},
            {'parts': 2 | 4, 'frame': 1}])
# a ring of 4 frames: reset, latency 3, update mask
seed('history_ring_reset_latency', 6, 5, 2, hist=(4, 0),
     calls=[{'parts': 8, 'latency': [3, 0]}, {'parts': 8 | 16, 'frame': 1, 'latency': [2, 3], 'update': [0, 1]},
            {'parts': 8 | 32, 'frame': 2, 'latency': [3, 1], 'reset': [1, 0]}, {'parts': 8, 'latency': [1, 2]}])
# refusals in between renders (a latency past the ring, a short output, a bad pose): nothing lost
seed('refusals_between_renders', 7, 6, 2, hist=(3, 0), out=(2, 5, 4),
     calls=[{'parts': 8, 'latency': [1, 2]}, {'parts': 8, 'latency': [3, 0]}, {'parts': 0, 'short': True},
            {'parts': 8, 'latency': [2, 2], 'bad_pose': 1}])
