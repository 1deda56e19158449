"""Lowering of ``tile.gemm`` with a Hopper warpgroup MMA atom (``SM90_64xNxK_..._SS``/``_RS``).

The operands are CuTe's: A ``(V,M,K)`` and B ``(V,N,K)`` in shared memory (``partition_A``/
``partition_B`` of the atom's ``ABLayout``: every thread sees the whole 64xK / NxK tile in
``V``; or one K-step of them, ``(V,M)`` and ``(V,N)``, CuTe's ``(V,M)x(V,N)=>(V,M,N)`` form,
which appends a K mode of 1), C ``(V,M,N)`` the thread's accumulator fragment. The V layout
of A and B must be a canonical GMMA layout: :func:`layoutc.ir.dialects.tile.gmma.infer_canonical` proves it (K- or
MN-major, which swizzle, LBO and SBO) or the gemm gets an error naming the condition that
fails. Then, K outermost, then M and N (CuTe's order), each step is one ``tile.wgmma`` on the
descriptors of the A and B tiles (``tile.wgmma_desc``: the proven bits and the tile's start
address) and the C values of (m, n), whose results are stored back to C. With a register-A
(``_RS``) atom, A is the thread's fragment ``(A_V, M, K)`` and each step is a
``tile.wgmma_rs`` on the A values of (m, k), B's descriptor and the C values.

The start address of a tile is its element offset *before* the swizzle (the hardware applies
the swizzle to the absolute address), so the allocation must be aligned to the swizzle
pattern (1024 bytes for 128B swizzles): checked from the tensor's proven alignment.
"""

from __future__ import annotations

from typing import Any

from layoutc.ir.algebra import (
    ComposedLayout,
    Layout,
    LayoutError,
    Swizzle,
    append,
    get,
    intops,
    rank,
    size,
)
from layoutc.ir.core.attributes import IntegerAttr
from layoutc.ir.core.types import i64
from layoutc.ir.dialects import arith
from layoutc.ir.dialects import tile as TD
from layoutc.ir.dialects.tile.gmma import infer_canonical
from layoutc.ir.dialects.tile.spaces import element_bits
from layoutc.ir.dialects.tile.types import PtrType

from .loops import LoweringError
from .lowering import Lowering

__all__ = ["lower_wgmma_gemm"]


def _split(layout: Any) -> tuple[Swizzle | None, Any, Layout]:
    if isinstance(layout, Layout):
        return None, 0, layout
    if (
        isinstance(layout, ComposedLayout)
        and isinstance(layout.outer, Swizzle)
        and isinstance(layout.inner, Layout)
    ):
        return layout.outer, layout.offset, layout.inner
    raise LoweringError(f"a warpgroup MMA operand needs a (swizzled) layout, got {layout}")


def _static(x: Any, what: str) -> int:
    if type(x) is not int:
        raise LoweringError(f"a warpgroup MMA needs a static {what}, got {x}")
    return x


class _Operand:
    """One shared-memory operand: the proof for its V layout and where its tiles start."""

    def __init__(self, low: Lowering, value: Any, which: str, mn: int, k: int, atom: Any):
        info = low.analysis.tensor_of(value)
        self.info = info
        elem = info.element.text if info.element is not None else "?"
        bits = element_bits(elem)
        layout = info.layout
        if rank(layout) == 2:  # (V, M) / (V, N): one K-step (CuTe appends K = 1)
            layout = append(layout)
        if rank(layout) != 3:
            raise LoweringError(
                f"warpgroup MMA atom '{atom.name}' takes {which} as ({which}_V, "
                f"{'M' if which == 'A' else 'N'}, K) (partition_{which} of the tiled MMA), got "
                f"a tensor of rank {rank(layout)}"
            )
        sw, offset, inner = _split(layout)
        self.inner = inner
        self.offset = offset
        v_layout = get(inner, 0)
        what = f"the {which} operand of '{atom.name}'"
        majors = ("K", "MN") if atom.wgmma.transpose else ("K",)
        tile = v_layout if sw is None else ComposedLayout(sw, 0, v_layout)
        try:
            self.canonical = infer_canonical(tile, bits, mn, k, what, majors)
        except LayoutError as e:
            raise LoweringError(str(e)) from None
        need = self.canonical.alignment
        if info.alignment < need:
            raise LoweringError(
                f"{what}: its {self.canonical.mode} swizzle repeats every {need} bytes, so the "
                f"shared-memory tensor must be aligned to {need} bytes, but only "
                f"{info.alignment}-byte alignment is proven (allocate it with align={need})"
            )
        # The swizzle of the layout is relative to the tensor's pointer, the hardware's to the
        # absolute address: they agree when the pointer is a whole number of swizzle periods
        # past the aligned base (an offset inside the layout is swizzled like the hardware).
        period = need * 8 // bits
        if need > 16 and not intops.divides(period, info.offset):
            raise LoweringError(
                f"{what}: the tensor's pointer is {info.offset} elements past its "
                f"{info.alignment}-byte aligned base, not provably a multiple of the "
                f"{self.canonical.mode} swizzle's period ({period} elements): the swizzle would "
                "not match the hardware's (lc.assume the offset's divisibility)"
            )
        self.extent = _static(size(inner, 1), f"{which} mode-1 extent")
        self.k_blocks = _static(size(inner, 2), f"{which} K extent")
        self.bits = bits
        self.what = what
        self.ptr: Any = None
        # tile i -> (the descriptor of its first K-step, that K-step's element offset)
        self.firsts: dict[int, tuple[Any, Any]] = {}

    def pointer(self, low: Lowering) -> Any:
        if self.ptr is None:
            base = self.info.base
            if isinstance(base.type, PtrType):
                self.ptr = base
            else:
                self.ptr = low.create(TD.GetPtrOp, base).results[0]
        return self.ptr

    def descriptor(self, low: Lowering, i: int, kb: int) -> Any:
        start = self.info.offset + self.offset + self.inner((0, i, kb))
        t = 128 // self.bits
        if not intops.divides(t, start):
            raise LoweringError(
                f"{self.what}: the tile at ({i}, {kb}) starts at element offset {start}, which "
                f"is not provably a multiple of {t} (16 bytes)"
            )
        # A later K-step of a tile the same op already described: K-step 0's descriptor plus
        # the static byte distance >> 4 (CuTe's descriptor iterator), for a distance forward.
        # The start-address field cannot carry out: shared-window addresses are below 2^18
        # (228 KB), so field + step stays below 2^14 (on the CPU runtime, whose field holds a
        # host address's bits 4-17, a carry lands in the reserved bits 14-15, and the start is
        # decoded modulo 2^18 anyway; a step back could borrow from LBO there: not taken).
        inner = self.inner((0, i, kb))
        first = self.firsts.get(i)
        if first is not None:
            step = inner - first[1]
            if isinstance(step, int) and step >= 0 and (step * self.bits) % 128 == 0:
                c = low.create(arith.ConstantOp, IntegerAttr(step * self.bits // 128, i64))
                return low.create(arith.AddIOp, first[0], c.results[0]).results[0]
        off = low.emitter.emit(start)
        op = low.create(TD.WgmmaDescOp, self.pointer(low), off, self.canonical.static_bits())
        if first is None:
            self.firsts[i] = (op.results[0], inner)
        return op.results[0]


class _RegisterA:
    """A from registers (the ``_RS`` atoms): the thread's fragment ``(A_V, M, K)``
    (``partition_fragment_A``), A_V the values of the atom's A layout (``GMMA::ALayout_64x16``
    ...) in order; a step's "descriptor" is the list of its A values."""

    def __init__(self, low: Lowering, value: Any, atom: Any):
        info = low.analysis.tensor_of(value)
        # (A_V, M): one K-step's slice ``tCrA[_, _, k]`` (CuTe appends K = 1), as for smem
        self.one_step = rank(info.layout) == 2
        if rank(info.layout) not in (2, 3):
            raise LoweringError(
                f"warpgroup MMA atom '{atom.name}' takes A as (A_V, M, K) (partition_fragment_A "
                f"of the tiled MMA) or one K-step's (A_V, M), got a tensor of rank "
                f"{rank(info.layout)}"
            )
        self.value = value
        self.n_values = size(atom.layout_a, 1)
        if size(info.layout, 0) != self.n_values:
            raise LoweringError(
                f"A has {size(info.layout, 0)} values per (m, k), the atom '{atom.name}' takes "
                f"{self.n_values} from each thread's registers"
            )
        self.extent = _static(size(info.layout, 1), "A mode-1 extent")
        self.k_blocks = 1 if self.one_step else _static(size(info.layout, 2), "A K extent")

    def descriptor(self, low: Lowering, i: int, kb: int) -> list[Any]:
        return [
            low.create(TD.LoadOp, self.value, (v, i) if self.one_step else (v, i, kb)).results[0]
            for v in range(self.n_values)
        ]


def lower_wgmma_gemm(low: Lowering, op: Any) -> None:
    atom = op.atom.op
    spec = atom.wgmma
    m_, n_, k_ = atom.shape_mnk
    a = (
        _RegisterA(low, op.a, atom)
        if spec.a_from_registers
        else _Operand(low, op.a, "A", m_, k_, atom)
    )
    b = _Operand(low, op.b, "B", n_, k_, atom)
    c_info = low.analysis.tensor_of(op.c)
    if rank(c_info.layout) != 3:
        raise LoweringError(
            f"warpgroup MMA atom '{atom.name}' takes C as (C_V, M, N) (partition_C or "
            f"partition_fragment_C of the tiled MMA), got a tensor of rank {rank(c_info.layout)}"
        )
    n_values = size(atom.layout_c, 1)
    if size(c_info.layout, 0) != n_values:
        raise LoweringError(
            f"C has {size(c_info.layout, 0)} values per (m, n), the atom '{atom.name}' "
            f"accumulates {n_values}"
        )
    if a.k_blocks != b.k_blocks:
        raise LoweringError(f"A has {a.k_blocks} K blocks but B has {b.k_blocks}")
    m_blocks = _static(size(c_info.layout, 1), "C M extent")
    n_blocks = _static(size(c_info.layout, 2), "C N extent")
    if m_blocks != a.extent or n_blocks != b.extent:
        raise LoweringError(
            f"C has {m_blocks}x{n_blocks} atom tiles but A has {a.extent} and B {b.extent}"
        )
    tb = 0 if b.canonical.major == "K" else 1
    # scale_d = 0 (lc.gemm(..., accumulate=False)): the first K-step ignores C's values
    zero = op.scale_d is not None and op.scale_d.value == 0
    for kb in range(a.k_blocks):
        sd = 0 if zero and kb == 0 else 1
        descs_b = [b.descriptor(low, j, kb) for j in range(n_blocks)]
        for i in range(m_blocks):
            da = a.descriptor(low, i, kb)
            for j in range(n_blocks):
                cs = [low.create(TD.LoadOp, op.c, (v, i, j)).results[0] for v in range(n_values)]
                if spec.a_from_registers:
                    d = low.create(
                        TD.WgmmaRSOp, op.atom, da, descs_b[j], cs, tb, scale_d=sd
                    ).results
                else:
                    ta = 0 if a.canonical.major == "K" else 1
                    d = low.create(
                        TD.WgmmaOp, op.atom, da, descs_b[j], cs, ta, tb, scale_d=sd
                    ).results
                for v in range(n_values):
                    low.create(TD.StoreOp, d[v], op.c, (v, i, j))
