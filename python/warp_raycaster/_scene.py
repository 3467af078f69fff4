"""warp_raycaster.Scene: the shared terrain (a BVH or a height field's grid) and, for an instanced
scene, its prototypes and instance table; explicit rays through it."""

from __future__ import annotations

import operator
from typing import Any, Dict, Optional, Sequence, Tuple, Union

from . import _frameworks, _wr
from ._args import _ORDER, _group_mask, _index_list, _leading_extent
from ._context import Context
from ._errors import _invalid


class Scene:
    """An immutable triangle mesh (a BVH, or a grid), shared by every sensor and env (``wr_scene``).

    ``Scene(ctx, vertices, indices)``: vertices (num_vertices, 3) float32 (x, y, z in metres,
    all finite) and indices (num_triangles, 3) int32 or uint32 (each < num_vertices; winding
    does not matter: both faces are hit), C-contiguous. The library copies both; it reads them
    from host memory, so arrays on a GPU are first copied to the host (scene creation is a
    one-time cost). ``Scene.from_obj(ctx, path)`` loads a Wavefront OBJ file,
    ``Scene.from_heightfield(ctx, heights, spacing)`` takes a height field (as a BVH, or traced
    through its grid), ``Scene.from_grid_mesh(ctx, vertices, indices)`` legged_gym's grid meshes
    through theirs. A scene keeps
    its context alive. ``Scene.instanced(ctx, terrain, prototypes, slot_prototypes, ...)`` adds
    moving geometry (robot links, obstacles) posed at every render.
    """

    terrain: Optional["Scene"] = None
    prototypes: Tuple["Scene", ...] = ()

    def __init__(self, context: Context, vertices: Any, indices: Any) -> None:
        self.context = context
        self._h = _wr.Scene(context._h, _frameworks.to_host(vertices), _frameworks.to_host(indices))

    @classmethod
    def from_obj(cls, context: Context, path: Any) -> "Scene":
        """Loads a Wavefront OBJ file: every shape merged into one mesh, polygons triangulated.
        :class:`Error` with ``Status.ERROR_IO`` names a missing file, ``ERROR_PARSE`` the file and
        line of malformed content."""
        scene = cls.__new__(cls)
        scene.context = context
        scene._h = _wr.Scene.load_obj(context._h, str(path))
        return scene

    @classmethod
    def from_heightfield(cls, context: Context, heights: Any, spacing: Union[float, Tuple[float, float]] = 1.0, *,
                         z_scale: float = 1.0, origin: Tuple[float, float, float] = (0.0, 0.0, 0.0),
                         base_depth: float = 0.0, x_fastest: bool = True, terrain: str = "auto") -> "Scene":
        """A scene from a height field, triangulated as MuJoCo triangulates its hfield (so depth
        matches ``mj_ray``); ``wr_scene_create_heightfield`` in wr.h says it exactly.

        heights: 2-D float32 (copied; on a GPU first copied to the host). With ``x_fastest``,
        ``heights[iy, ix]`` (num_y, num_x): MuJoCo's ``hfield_data`` as (nrow, ncol). Without,
        ``heights[ix, iy]`` (num_x, num_y): IsaacGym / legged_gym's ``height_field_raw``
        (``astype(np.float32)``, ``spacing=horizontal_scale``, ``z_scale=vertical_scale``).
        Sample (ix, iy) is at ``origin + (ix spacing_x, iy spacing_y, z_scale height)``; spacing
        is one float for both axes or ``(spacing_x, spacing_y)``. ``base_depth > 0`` closes the
        surface into a solid down to ``origin[2] - base_depth`` (MuJoCo's ``size[3]``).

        terrain: how the scene holds and traces the triangles (``wr_terrain_kind``): ``"grid"``
        traces the grid itself (a tenth of the BVH's memory, height scans several times faster,
        camera rays on the CPU about as fast as the BVH's SIMD packets and on a GPU several
        times slower, LiDAR rows slower; the same hits bit for bit), ``"bvh"`` a BVH over the
        triangles, ``"auto"`` the BVH today. :attr:`terrain_kind` says which it is.
        """
        sx, sy = (spacing, spacing) if isinstance(spacing, (int, float)) else spacing
        kinds = {"auto": 0, "bvh": 1, "grid": 2}
        if terrain not in kinds:
            raise _invalid("Scene.from_heightfield", f"terrain = {terrain!r}: must be 'auto', 'bvh' or 'grid'")
        scene = cls.__new__(cls)
        scene.context = context
        scene._h = _wr.Scene.create_heightfield(context._h, _frameworks.to_host(heights), bool(x_fastest), float(sx),
                                                float(sy), float(z_scale), tuple(float(v) for v in origin),
                                                float(base_depth), kinds[terrain])
        return scene

    @classmethod
    def from_grid_mesh(cls, context: Context, vertices: Any, indices: Any) -> "Scene":
        """A scene from a grid-topology mesh, traced through its grid (``wr_scene_create_grid_mesh``):
        the ``vertices, triangles`` legged_gym's and IsaacLab's ``convert_heightfield_to_trimesh``
        return, unchanged (vertices moved by a slope threshold included). Hits, triangle ids and
        bounds are those of ``Scene(ctx, vertices, indices)``, bit for bit, in about an eighth of
        its memory where few vertices are moved (legged_gym's terrains). :class:`Error` names the
        first triangle out of that layout."""
        scene = cls.__new__(cls)
        scene.context = context
        scene._h = _wr.Scene.create_grid_mesh(context._h, _frameworks.to_host(vertices),
                                              _frameworks.to_host(indices))
        return scene

    @classmethod
    def instanced(cls, context: Context, terrain: "Scene", prototypes: Sequence["Scene"], slot_prototypes: Any,
                  slot_groups: Any = None, global_prototypes: Any = None, global_groups: Any = None) -> "Scene":
        """A scene with moving geometry ("instances") over a static terrain
        (``wr_scene_create_instanced``; wr.h's "Moving geometry" section says it all).

        terrain: a mesh :class:`Scene` (static). prototypes: mesh scenes, each in its own frame with
        its BVH built once (a robot's link, an obstacle). Every env has ``len(slot_prototypes)``
        instances ("slots"): slot i of every env is a copy of prototype ``slot_prototypes[i]``,
        posed per env at every render (``instance_poses`` (num_envs, num_slots, 7) of
        :meth:`Sensor.render` and :meth:`intersect`); every env also sees the global instances,
        ``global_prototypes[j]`` each, posed once per render (``global_poses`` (num_globals, 7)).
        Env e sees the terrain, its own slots and the globals, never another env's slots. Each
        instance has a group 0-31 (``slot_groups`` / ``global_groups``, one per instance, or None:
        all 0) that a sensor or a ray query may exclude (``exclude_groups``). Instance ids: the
        slots 0 .. num_slots - 1, then the globals num_slots ... (-1 for the terrain or a miss).

        Tables are sequences of integers (lists, NumPy arrays, tensors), copied. Every scene must be
        a mesh scene of `context`; the new scene keeps the terrain and the prototypes alive
        (``scene.terrain``, ``scene.prototypes``), so the caller may drop its references.
        :class:`Error` names the entry at fault (``desc->slot_prototypes[3] ...``).
        """
        where = "Scene.instanced"
        if not isinstance(terrain, Scene):
            raise _invalid(where, f"terrain is a {type(terrain).__name__}, not a warp_raycaster.Scene")
        if isinstance(prototypes, Scene) or not hasattr(prototypes, "__iter__"):
            raise _invalid(where, "prototypes must be a sequence of warp_raycaster.Scene")
        prototypes = tuple(prototypes)
        for i, p in enumerate(prototypes):
            if not isinstance(p, Scene):
                raise _invalid(where, f"prototypes[{i}] is a {type(p).__name__}, not a warp_raycaster.Scene")
        if global_groups is not None and global_prototypes is None:
            raise _invalid(where, "global_groups is given without global_prototypes")
        scene = cls.__new__(cls)
        scene.context = context
        scene._h = _wr.Scene.create_instanced(
            context._h, terrain._h, [p._h for p in prototypes],
            _index_list(slot_prototypes, "slot_prototypes", where),
            None if slot_groups is None else _index_list(slot_groups, "slot_groups", where),
            _index_list(global_prototypes, "global_prototypes", where),
            None if global_groups is None else _index_list(global_groups, "global_groups", where))
        scene.terrain = terrain
        scene.prototypes = prototypes
        return scene

    @property
    def instance_counts(self) -> Tuple[int, int]:
        """(num_slots, num_globals): instances per env and global instances; (0, 0) for a mesh scene."""
        return self._h.instance_counts

    @property
    def num_triangles(self) -> int:
        """Triangles as given, degenerate ones included."""
        return self._h.num_triangles

    @property
    def build_seconds(self) -> float:
        """Seconds the BVH or grid build took (validation and file parsing excluded)."""
        return self._h.build_seconds

    @property
    def terrain_kind(self) -> str:
        """``"bvh"`` or ``"grid"``: how the scene's terrain is held and traced (an instanced
        scene's: its terrain's)."""
        return self._h.terrain_kind

    @property
    def bounds(self) -> Tuple[Tuple[float, float, float], Tuple[float, float, float]]:
        """((min x, y, z), (max x, y, z)) of the triangles' corners, metres."""
        return self._h.bounds

    def memory(self) -> Dict[str, Any]:
        """Bytes the scene holds (BVH, triangles), from the library's ledger: ``host_bytes``,
        ``device_bytes``, ``shared_bytes``, ``per_env_bytes`` and ``tags``, a dict from tag name
        ('bvh_nodes', ...) to its ``host_bytes`` and ``device_bytes``."""
        return self._h.memory()

    def intersect(self, origins: Any, directions: Any, tmax: Any = None, *, out_t: Any = None,
                  out_triangle: Any = None, triangles: bool = True, stream: Any = None,
                  num_envs: Optional[int] = None, instance_poses: Any = None, global_poses: Any = None,
                  quat_order: Optional[str] = None, exclude_groups: Optional[Iterable[int]] = None,
                  out_instance: Any = None, instances: bool = False) -> Tuple[Any, ...]:
        """Nearest hit of each of `count` explicit rays (height scanners, LiDAR patterns, probes).

        origins, directions: (count, 3) float32. Directions need not be unit: t is in units of
        |direction|. tmax: (count,) float32, a float for every ray, or None (+inf).
        Returns ``(t, triangle)``: t (count,) float32, +inf where nothing is hit within tmax;
        triangle (count,) int32, the index of the input triangle, -1 where nothing is hit (None
        when ``triangles=False``). ``out_t`` / ``out_triangle`` (int32, or uint32 to get the C
        API's 0xFFFFFFFF misses) are written instead of new arrays. On a CPU context a
        non-finite origin or direction, a zero direction or a negative tmax raises
        :class:`Error` naming the ray; on a CUDA context that ray gets t = NaN.

        Instanced scenes (:meth:`instanced`; ``wr_scene_intersect_ex``): the rays are `num_envs`
        consecutive blocks of count / num_envs rays, or origins and directions are (num_envs,
        rays_per_env, 3) (IsaacLab's ``ray_starts_w`` layout; then t and the ids are (num_envs,
        rays_per_env)). Block e sees the terrain, env e's slots, posed by ``instance_poses``
        (num_envs, num_slots, 7) float32, and the global instances, ``global_poses`` (num_globals,
        7) float32 (each needed when the scene has such instances; position, then a quaternion in
        `quat_order`, 'wxyz' by default, or 'xyzw'), less the groups in `exclude_groups` (a
        sequence of group numbers). triangle is then the triangle within the mesh hit (the
        terrain's or the instance's prototype's). With ``instances=True`` (or `out_instance`
        given, int32 or uint32) the result is ``(t, triangle, instance)``: the instance id each ray
        hit, -1 for the terrain or a miss. A bad instance pose raises :class:`Error` naming its
        env and slot on a CPU context; on a CUDA context that env's rays get t = NaN.
        """
        where = "Scene.intersect"
        device = self.context.device
        shape = tuple(getattr(origins, "shape", ()))
        blocks = len(shape) == 3
        lead = shape[:2] if blocks else (_leading_extent(origins),)
        extended = (blocks or num_envs is not None or instance_poses is not None or global_poses is not None or
                    quat_order is not None or exclude_groups is not None or out_instance is not None or instances
                    or self.instance_counts != (0, 0))
        if tmax is not None and isinstance(tmax, (int, float)):
            tmax = _frameworks.full_like(origins, lead, float(tmax), device, where)
        finish_t = finish_tri = finish_inst = _frameworks._same
        if out_t is None:
            out_t, finish_t = _frameworks.empty_like(origins, lead, "float32", device, where)
        if out_triangle is None and triangles:
            out_triangle, finish_tri = _frameworks.empty_like(origins, lead, "int32", device, where)
        if out_instance is None and instances:
            out_instance, finish_inst = _frameworks.empty_like(origins, lead, "int32", device, where)
        stream_ptr = self._stream(origins, stream, where)
        if not extended:
            self._h.intersect(origins, directions, tmax, out_t, out_triangle, stream_ptr)
            return finish_t(out_t), (finish_tri(out_triangle) if out_triangle is not None else None)
        order = "wxyz" if quat_order is None else quat_order
        if order not in _ORDER:
            raise _invalid(where, f"quat_order = {quat_order!r}: must be 'wxyz' or 'xyzw'")
        envs = 0
        if num_envs is not None:
            try:
                envs = operator.index(num_envs)
            except TypeError:
                envs = -1
            if isinstance(num_envs, bool) or not 1 <= envs <= 0xFFFFFFFF:
                raise _invalid(where, f"num_envs = {num_envs!r}: must be a positive integer")
        self._h.intersect_ex(origins, directions, tmax, envs, instance_poses, global_poses,
                             _ORDER[order], _group_mask(exclude_groups, where), out_t, out_triangle, out_instance,
                             stream_ptr)
        t = finish_t(out_t)
        tri = finish_tri(out_triangle) if out_triangle is not None else None
        if out_instance is None:
            return t, tri
        return t, tri, finish_inst(out_instance)

    def _stream(self, ref: Any, stream: Any, where: str) -> int:
        if not self.context.is_cuda:
            return 0
        if stream is None:
            return _frameworks.default_stream(ref, self.context.device)
        return _frameworks.stream_handle(stream, where)

    def __repr__(self) -> str:
        slots, globals_ = self.instance_counts
        extra = f", {slots} slots per env, {globals_} global instances" if slots or globals_ else ""
        return f"warp_raycaster.Scene({self.num_triangles} triangles{extra}, {self.context.device!r})"
