"""The kernel ABI: one description shared by code generation, both runtimes and the manifest.

A kernel's parameters follow docs/architecture.md ("Kernel ABI"): one per flattened kernel
argument; a tensor becomes its pointer followed by the parameters carrying its dynamic layout
entries. ``KernelSpec`` states that list plus launch facts; it serialises to the ``kernels[]``
entries of ``manifest.json`` (docs/runtime.md) and is what both runtimes marshal arguments from.

It also states the *facts* the code was compiled under (pointer alignment, divisibility and
bounds of integers, carriers that must agree), so that a launch can refuse arguments that break
them instead of computing a wrong result (packing_facts.py checks them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .dtypes import DTYPES, dtype
from .layout_text import LayoutTextError, count_dynamic

POINTER = "pointer"
SCALAR = "scalar"
TMA = "tma"
#: A ``CUtensorMap``: 128 bytes, 64-byte aligned (the driver copies it as it is).
TMA_DESCRIPTOR_BYTES = 128
TMA_DESCRIPTOR_ALIGN = 64


@dataclass(frozen=True)
class TmaSource:
    """What the runtime encodes a TMA descriptor parameter from (runtime/tma.py).

    ``source`` names the tensor parameter; ``box`` and ``dims`` are the box extents and the
    tensor mode of each TMA dimension (innermost first), ``swizzle`` the shared-memory swizzle
    span in bytes; ``extents`` and ``strides`` (in elements, tensor mode order) are constants
    or the names of the scalar parameters that carry them.

    ``mode="im2col"`` is an im2col descriptor (runtime/tma_im2col.py): ``box`` is one pixel
    (``channels`` then ones), ``pixels`` the pixels per load and ``lower``/``upper`` the
    bounding box's corners, spatial dimensions innermost first; ``traversal`` its traversal
    strides (``elementStrides``, a convolution's stride), innermost first, ``()`` for ones.
    """

    source: str
    box: tuple[int, ...]
    dims: tuple[int, ...]
    swizzle: int
    extents: tuple[int | str, ...]
    strides: tuple[int | str, ...]
    mode: str = "tile"
    pixels: int = 0
    lower: tuple[int, ...] = ()
    upper: tuple[int, ...] = ()
    traversal: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        n = len(self.dims)
        if sorted(self.dims) != list(range(n)) or not 1 <= n <= 5:
            raise ValueError(f"TMA descriptor of {self.source!r}: bad dims {self.dims}")
        if len(self.box) != n or len(self.extents) != n or len(self.strides) != n:
            raise ValueError(
                f"TMA descriptor of {self.source!r}: one box extent, extent and stride per "
                f"dimension (dims {self.dims}, box {self.box})"
            )
        if self.swizzle not in (0, 32, 64, 128):
            raise ValueError(f"TMA descriptor of {self.source!r}: swizzle {self.swizzle}")
        if self.mode not in ("tile", "im2col"):
            raise ValueError(f"TMA descriptor of {self.source!r}: mode {self.mode!r}")
        im2col = self.mode == "im2col"
        corners = n - 2 if im2col else 0
        if len(self.lower) != corners or len(self.upper) != corners or (self.pixels > 0) != im2col:
            raise ValueError(
                f"TMA descriptor of {self.source!r}: an im2col descriptor, and only one, has "
                f"pixels and one lower and upper corner per spatial dimension"
            )
        if self.traversal and (len(self.traversal) != corners or min(self.traversal) < 1):
            raise ValueError(
                f"TMA descriptor of {self.source!r}: im2col traversal strides are positive, one "
                f"per spatial dimension; got {self.traversal}"
            )

    def carriers(self) -> list[str]:
        return [e for e in (*self.extents, *self.strides) if isinstance(e, str)]

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "source": self.source,
            "box": list(self.box),
            "dims": list(self.dims),
            "swizzle": self.swizzle,
            "extents": list(self.extents),
            "strides": list(self.strides),
        }
        if self.mode == "im2col":
            data |= {
                "mode": self.mode,
                "pixels": self.pixels,
                "lower": list(self.lower),
                "upper": list(self.upper),
            }
        if self.traversal:
            data["traversal"] = list(self.traversal)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TmaSource:
        return cls(
            data["source"],
            tuple(data["box"]),
            tuple(data["dims"]),
            int(data["swizzle"]),
            tuple(data["extents"]),
            tuple(data["strides"]),
            data.get("mode", "tile"),
            int(data.get("pixels", 0)),
            tuple(data.get("lower", ())),
            tuple(data.get("upper", ())),
            tuple(data.get("traversal", ())),
        )


@dataclass(frozen=True)
class Param:
    """One kernel parameter.

    ``kind`` is ``pointer`` (a tensor's or raw buffer's base address; ``dtype`` is the element
    type), ``scalar`` (passed by value) or ``tma`` (a 128-byte TMA descriptor passed by value,
    64-byte aligned, that the runtime encodes at launch from ``tma``; ``dtype`` is the source
    tensor's element type; the caller does not pass it). A pointer with ``layout`` is a tensor: ``layout`` is
    its CuTe layout text with ``?`` for dynamic entries and ``dynamic`` names, in the order the
    ``?`` appear (shape entries first, then strides), the scalar parameters that carry them.

    Facts the code may rely on (None/1: nothing assumed): ``align``, the bytes a pointer's
    address is a multiple of; for integer scalars ``divisible_by``, ``lower`` and ``upper``
    (inclusive bounds), and for layout-entry carriers the ``symbol`` they carry (``N``), which
    error messages and fact summaries use.
    """

    name: str
    kind: str
    dtype: str
    layout: str | None = None
    dynamic: tuple[str, ...] = ()
    align: int | None = None
    divisible_by: int = 1
    lower: int | None = None
    upper: int | None = None
    symbol: str | None = None
    writes: bool | None = None
    """Pointers: whether the kernel may store through it (None: unknown, so assumed). A
    read-only array is refused for a parameter the kernel writes."""
    tma: TmaSource | None = None

    @property
    def byte_size(self) -> int:
        """Bytes the parameter takes in the kernel's parameter space (the one rule the
        launcher's packing and the artifact's ABI check both read)."""
        if self.kind == TMA:
            return TMA_DESCRIPTOR_BYTES
        if self.kind == POINTER:
            return 8
        return DTYPES[self.dtype].itemsize

    @property
    def byte_align(self) -> int:
        """The parameter's alignment in the parameter space."""
        return TMA_DESCRIPTOR_ALIGN if self.kind == TMA else self.byte_size

    def __post_init__(self) -> None:
        if self.kind not in (POINTER, SCALAR, TMA):
            raise ValueError(f"parameter {self.name!r}: kind must be 'pointer', 'scalar' or 'tma'")
        if (self.kind == TMA) != (self.tma is not None):
            raise ValueError(f"parameter {self.name!r}: a 'tma' parameter, and only one, has 'tma'")
        if self.kind == TMA and (self.layout is not None or self.dynamic):
            raise ValueError(f"TMA parameter {self.name!r} cannot carry a layout")
        dtype(self.dtype)  # validates the name
        if self.kind == SCALAR and (self.layout is not None or self.dynamic):
            raise ValueError(f"scalar parameter {self.name!r} cannot carry a layout")
        if self.layout is not None:
            try:
                n = count_dynamic(self.layout)
            except LayoutTextError as e:
                raise ValueError(f"parameter {self.name!r}: {e}") from None
            if n != len(self.dynamic):
                raise ValueError(
                    f"parameter {self.name!r}: layout {self.layout!r} has {n} dynamic entries "
                    f"but {len(self.dynamic)} carrier parameters are named"
                )
        elif self.dynamic:
            raise ValueError(f"parameter {self.name!r}: 'dynamic' given without a layout")
        self._check_facts()

    def _check_facts(self) -> None:
        where = f"parameter {self.name!r}"
        if self.align is not None:
            if self.kind != POINTER:
                raise ValueError(f"{where}: 'align' is a fact of pointers, not scalars")
            if not _is_int(self.align) or self.align < 1 or self.align & (self.align - 1):
                raise ValueError(
                    f"{where}: align must be a positive power of two, got {self.align!r}"
                )
        has_int_facts = self.divisible_by != 1 or self.lower is not None or self.upper is not None
        if (has_int_facts or self.symbol is not None) and not self.is_integer:
            raise ValueError(
                f"{where}: divisibility, bounds and symbols are facts of integer scalars, "
                f"not of a {self.dtype} {self.kind}"
            )
        if not _is_int(self.divisible_by) or self.divisible_by < 1:
            raise ValueError(f"{where}: divisible_by must be a positive integer")
        for bound in (self.lower, self.upper):
            if bound is not None and not _is_int(bound):
                raise ValueError(f"{where}: bounds must be integers, got {bound!r}")
        if self.lower is not None and self.upper is not None and self.lower > self.upper:
            raise ValueError(f"{where}: lower bound {self.lower} exceeds upper bound {self.upper}")

    @property
    def is_integer(self) -> bool:
        """An integer scalar (the parameters that divisibility and bounds apply to)."""
        return self.kind == SCALAR and DTYPES[self.dtype].kind in ("int", "uint")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "kind": self.kind, "dtype": self.dtype}
        if self.align is not None:
            out["align"] = self.align
        if self.writes is not None:
            out["writes"] = self.writes
        if self.layout is not None:
            out["layout"] = self.layout
            out["dynamic"] = list(self.dynamic)
        if self.tma is not None:
            out["tma"] = self.tma.to_json()
        if self.is_integer:
            out["divisible_by"] = self.divisible_by
            if self.lower is not None:
                out["min"] = self.lower
            if self.upper is not None:
                out["max"] = self.upper
            if self.symbol is not None:
                out["symbol"] = self.symbol
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Param:
        return cls(
            name=data["name"],
            kind=data["kind"],
            dtype=data["dtype"],
            layout=data.get("layout"),
            dynamic=tuple(data.get("dynamic", ())),
            align=data.get("align"),
            divisible_by=data.get("divisible_by", 1),
            lower=data.get("min"),
            upper=data.get("max"),
            symbol=data.get("symbol"),
            writes=data.get("writes"),
            tma=TmaSource.from_json(data["tma"]) if "tma" in data else None,
        )


def integer_range(dtype_name: str) -> tuple[int, int]:
    """The values an integer ABI type holds (``i32``: -2**31 .. 2**31-1)."""
    bits = DTYPES[dtype_name].bits
    if dtype_name.startswith("u"):
        return 0, (1 << bits) - 1
    return -(1 << (bits - 1)), (1 << (bits - 1)) - 1


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


@dataclass(frozen=True)
class LaunchBounds:
    """``__launch_bounds__``: at most ``max_threads`` per block, ``min_blocks`` per SM.

    ``block`` is an exactly required block shape (``gpu.known_block_size`` / ``reqntid``).
    """

    max_threads: int | None = None
    min_blocks: int | None = None
    block: tuple[int, int, int] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "max_threads": self.max_threads,
            "min_blocks": self.min_blocks,
            "block": list(self.block) if self.block else None,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> LaunchBounds:
        if not data:
            return cls()
        block = data.get("block")
        return cls(data.get("max_threads"), data.get("min_blocks"), tuple(block) if block else None)


BOUNDS_RECORD = "__layoutc_bounds"
"""The name of a bounds-checked kernel's last parameter: the record the check reports through."""


def with_bounds_record(spec: KernelSpec, sites: Sequence[str]) -> KernelSpec:
    """``spec`` of the same kernel compiled with the bounds check (one more parameter)."""
    from dataclasses import replace

    record = Param(BOUNDS_RECORD, POINTER, "i64")
    return replace(spec, params=(*spec.params, record), bounds_sites=tuple(sites))


@dataclass(frozen=True)
class KernelSpec:
    """A kernel's name (its symbol), parameters and launch facts.

    ``equal`` lists groups of carrier parameters that must hold the same value (two tensors
    sharing the layout symbol ``N``: the code reads only the first carrier of a group).
    """

    name: str
    params: tuple[Param, ...]
    launch_bounds: LaunchBounds = field(default_factory=LaunchBounds)
    static_smem: int = 0
    dynamic_smem: int = 0
    equal: tuple[tuple[str, ...], ...] = ()
    index_bits: int = 64
    """Width of the code's element offsets: at 32, a launch whose tensors reach an offset past
    2^31 - 1 is refused (the compiler proves static layouts; the runtime checks the rest)."""
    bounds_sites: tuple[str, ...] | None = None
    """The code checks its memory accesses (docs/runtime.md, "The bounds check"): its last
    parameter is then the bounds record (``BOUNDS_RECORD``, filled by the runtime), and site
    ``i`` describes the access that reports ``i`` (location, kind, object)."""
    #: bytes of dynamic shared memory a launch needs, as a formula over the integer parameters
    #: (runtime/smem_need.py), when the last dynamic shared-memory tensor has a run-time size
    dynamic_smem_formula: Any = None
    cluster: tuple[int, int, int] | None = None
    """The cluster shape the code was compiled for (``@lc.kernel(cluster=...)``, PTX
    ``.reqnctapercluster``): every launch runs in clusters of this shape. ``None``: the kernel
    has no fixed cluster and a launch may choose one (``cluster=`` at launch, sm_90)."""
    explicit_cluster: bool = False
    """Every launch runs in clusters (PTX ``.explicitcluster``): true with a fixed shape, and
    for ``@lc.kernel(cluster="explicit")``, whose launches must give one (manifest:
    ``"explicit_cluster": true``, written only without a fixed shape)."""
    max_cluster_blocks: int | None = None
    """Blocks a launch's cluster may have at most (``@lc.kernel(max_cluster_size=...)``, PTX
    ``.maxclusterrank``; manifest ``max_cluster_blocks``)."""

    def __post_init__(self) -> None:
        if self.cluster is not None:
            dims = tuple(self.cluster)
            if len(dims) != 3 or not all(_is_int(d) and d >= 1 for d in dims):
                raise ValueError(
                    f"kernel {self.name!r}: cluster must be three positive ints, got {dims}"
                )
            object.__setattr__(self, "cluster", dims)
            object.__setattr__(self, "explicit_cluster", True)
        if self.max_cluster_blocks is not None and not (
            _is_int(self.max_cluster_blocks) and self.max_cluster_blocks >= 1
        ):
            raise ValueError(
                f"kernel {self.name!r}: max_cluster_blocks must be a positive int, got "
                f"{self.max_cluster_blocks!r}"
            )
        if self.index_bits not in (32, 64):
            raise ValueError(f"kernel {self.name!r}: index_bits must be 32 or 64")
        has_record = bool(self.params) and self.params[-1].name == BOUNDS_RECORD
        if has_record != (self.bounds_sites is not None) or any(
            p.name == BOUNDS_RECORD for p in self.params[:-1]
        ):
            raise ValueError(
                f"kernel {self.name!r}: a bounds-checked kernel's last parameter, and only "
                f"that one, is {BOUNDS_RECORD!r}"
            )
        names = [p.name for p in self.params]
        if len(set(names)) != len(names):
            raise ValueError(f"kernel {self.name!r}: duplicate parameter names in {names}")
        if self.dynamic_smem_formula is not None:
            from .smem_need import check_formula

            ints = [p.name for p in self.params if p.kind == SCALAR and p.dtype[0] in "iu"]
            try:
                formula = check_formula(self.dynamic_smem_formula, ints)
            except ValueError as e:
                raise ValueError(f"kernel {self.name!r}: {e}") from None
            object.__setattr__(self, "dynamic_smem_formula", formula)
        by_name = {p.name: p for p in self.params}
        carried: set[str] = set()
        for p in self.params:
            for d in p.dynamic:
                q = by_name.get(d)
                if q is None or q.kind != SCALAR:
                    raise ValueError(
                        f"kernel {self.name!r}: parameter {p.name!r} names {d!r} as a layout "
                        "entry carrier, but no scalar parameter has that name"
                    )
                if d in carried:
                    raise ValueError(f"kernel {self.name!r}: {d!r} carries two layout entries")
                carried.add(d)
        for p in self.params:
            if p.tma is None:
                continue
            src = by_name.get(p.tma.source)
            if src is None or src.kind != POINTER:
                raise ValueError(
                    f"kernel {self.name!r}: TMA parameter {p.name!r} names {p.tma.source!r} as "
                    "its tensor, but no pointer parameter has that name"
                )
            for c in p.tma.carriers():
                if c not in by_name or by_name[c].kind != SCALAR:
                    raise ValueError(
                        f"kernel {self.name!r}: TMA parameter {p.name!r} reads {c!r}, which is "
                        "not a scalar parameter"
                    )
        grouped: set[str] = set()
        for group in self.equal:
            if len(group) < 2:
                raise ValueError(f"kernel {self.name!r}: equal group {list(group)} has one name")
            for n in group:
                if n not in carried:
                    raise ValueError(
                        f"kernel {self.name!r}: equal group {list(group)} names {n!r}, which "
                        "carries no layout entry"
                    )
                if n in grouped:
                    raise ValueError(f"kernel {self.name!r}: {n!r} is in two equal groups")
                grouped.add(n)

    @property
    def arguments(self) -> tuple[Param, ...]:
        """Parameters the caller passes (everything but layout-entry carriers, TMA descriptors
        and the bounds record), in order."""
        carried = {d for p in self.params for d in p.dynamic}
        carried.add(BOUNDS_RECORD)
        return tuple(p for p in self.params if p.name not in carried and p.kind != TMA)

    def describe_facts(self) -> list[str]:
        """The facts the code assumes, in ``--spec``/``--assume`` notation, for summaries:
        ``["src align=16", "dst align=16", "N>=0"]``. Facts every value of the parameter's
        type satisfies (an ``i32`` below 2**31) are left out."""
        out = [f"{p.name} align={p.align}" for p in self.params if p.align and p.align > 1]
        seen: set[str] = set()
        for p in self.params:
            if not p.is_integer:
                continue
            label = p.symbol or p.name
            if label in seen:
                continue
            seen.add(label)
            lo, hi = integer_range(p.dtype)
            if p.divisible_by > 1:
                out.append(f"{label}%{p.divisible_by}==0")
            if p.lower is not None and p.lower > lo:
                out.append(f"{label}>={p.lower}")
            if p.upper is not None and p.upper < hi:
                out.append(f"{label}<={p.upper}")
        by_name = {p.name: p for p in self.params}
        for group in self.equal:
            labels = {by_name[n].symbol or n for n in group}
            if len(labels) > 1:  # carriers of one named symbol are equal by their name
                out.append("==".join(group))
        return out

    def to_json(self) -> dict[str, Any]:
        return (
            {
                "name": self.name,
                "params": [p.to_json() for p in self.params],
                "equal": [list(g) for g in self.equal],
                "launch_bounds": self.launch_bounds.to_json(),
                "shared_memory": self._smem_json(),
            }
            | ({} if self.index_bits == 64 else {"index_bits": self.index_bits})
            | ({} if self.bounds_sites is None else {"bounds_sites": list(self.bounds_sites)})
            | ({} if self.cluster is None else {"cluster": list(self.cluster)})
            | ({"explicit_cluster": True} if self.explicit_cluster and not self.cluster else {})
            | (
                {}
                if self.max_cluster_blocks is None
                else {"max_cluster_blocks": self.max_cluster_blocks}
            )
        )

    def _smem_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"static_bytes": self.static_smem, "dynamic_bytes": self.dynamic_smem}
        if self.dynamic_smem_formula is not None:
            out["dynamic_formula"] = self.dynamic_smem_formula
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> KernelSpec:
        smem = data.get("shared_memory", {})
        sites = data.get("bounds_sites")
        return cls(
            name=data["name"],
            params=tuple(Param.from_json(p) for p in data["params"]),
            launch_bounds=LaunchBounds.from_json(data.get("launch_bounds")),
            static_smem=int(smem.get("static_bytes", 0)),
            dynamic_smem=int(smem.get("dynamic_bytes", 0)),
            equal=tuple(tuple(g) for g in data.get("equal", ())),
            index_bits=data.get("index_bits", 64),
            bounds_sites=None if sites is None else tuple(str(x) for x in sites),
            dynamic_smem_formula=smem.get("dynamic_formula"),
            cluster=None if data.get("cluster") is None else tuple(data["cluster"]),
            explicit_cluster=bool(data.get("explicit_cluster", False)),
            max_cluster_blocks=data.get("max_cluster_blocks"),
        )


def simple_spec(name: str, params: Sequence[tuple[str, str, str]], **kw: Any) -> KernelSpec:
    """Shorthand for tests and hand-written kernels: ``[("x", "pointer", "f32"), ...]``."""
    return KernelSpec(name, tuple(Param(n, k, d) for n, k, d in params), **kw)
