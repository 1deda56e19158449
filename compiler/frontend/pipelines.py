"""A TMA pipeline in the DSL itself: CUTLASS's ``PipelineTmaAsync`` (full/empty mbarriers per
stage; producer acquire, consumer wait/release) and ``PipelineState``.

Written with ``lc.mbarrier_*`` only, so it means on the CPU runtime exactly what it means on
the GPU. The state is a function of the iteration count (``index = k % stages``, ``phase =
(k // stages) % 2``), so it needs no loop-carried object: pass the count ``k`` of the stage
use (0, 1, 2, ... over the whole kernel, e.g. a persistent kernel's running tile count).
"""

from __future__ import annotations

from typing import Any

from . import control_flow, hopper, state
from .gpu import syncthreads, thread_idx
from .layouts import make_layout
from .tensor import smem_tensor


class PipelineState:
    """Stage ``index`` and mbarrier ``phase`` of use number ``count`` of a ``stages`` ring."""

    def __init__(self, stages: int, count: Any):
        self.stages = stages
        self.count = count

    @property
    def index(self) -> Any:
        return self.count % self.stages

    @property
    def phase(self) -> Any:
        return (self.count // self.stages) % 2


class PipelineTmaAsync:
    """``stages`` buffers filled by TMA and drained by consumers.

    The producer (one thread) calls ``producer_acquire(k)``: it waits until the consumers have
    released stage ``k % stages`` (parity starts at 1: the first round finds every stage
    empty) and arms the full barrier with ``tx_bytes``; its TMA loads (``mbar=
    pipe.producer_mbar(k)``) complete it. Consumers call ``consumer_wait(k)`` and, when done
    with the buffer, ``consumer_release(k)`` (``consumer_arrivals`` arrivals release a stage).
    Construct it in the kernel body where every thread runs (it initialises the barriers with
    one thread, fences and synchronises the block).

    ``barriers`` (optional) is an ``i64`` shared-memory tensor of at least ``2 * stages``
    mbarriers to use instead of static shared memory: a kernel whose buffers are all in
    dynamic shared memory keeps no static shared memory, so its dynamic buffers start at the
    window's (1024-byte aligned) base, as a 128B-swizzled TMA or wgmma buffer needs.
    """

    def __init__(self, stages: int, tx_bytes: int, consumer_arrivals: int, barriers: Any = None):
        what = "lc.PipelineTmaAsync"
        for name, v in (("stages", stages), ("consumer_arrivals", consumer_arrivals)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise state.error(f"{what}: {name} must be a positive static int, got {v!r}")
        self.stages = stages
        self.tx_bytes = tx_bytes
        if barriers is None:
            self.full = smem_tensor_i64(stages)
            self.empty = smem_tensor_i64(stages)
        else:
            from .tensor import Tensor, make_tensor

            ok = isinstance(barriers, Tensor) and barriers.memspace == "smem"
            if not ok or barriers.type.element_bits != 64:
                raise state.error(f"{what}: barriers must be an i64 smem tensor, got {barriers!r}")
            self.full = barriers
            self.empty = make_tensor(barriers.iterator + stages, make_layout(stages))

        def init() -> tuple:
            for s in range(stages):
                hopper.mbarrier_init(self.full.iterator + s, 1)
                hopper.mbarrier_init(self.empty.iterator + s, consumer_arrivals)
            hopper.mbarrier_init_fence()
            return ()

        control_flow.if_(thread_idx.x == 0, init, lambda: (), (), (), ())
        syncthreads()

    def state(self, count: Any) -> PipelineState:
        return PipelineState(self.stages, count)

    def producer_mbar(self, count: Any) -> Any:
        return self.full.iterator + self.state(count).index

    def producer_acquire(self, count: Any) -> None:
        st = self.state(count)
        hopper.mbarrier_wait(self.empty.iterator + st.index, 1 - st.phase)
        hopper.mbarrier_arrive_and_expect_tx(self.full.iterator + st.index, self.tx_bytes)

    def consumer_wait(self, count: Any) -> None:
        st = self.state(count)
        hopper.mbarrier_wait(self.full.iterator + st.index, st.phase)

    def consumer_release(self, count: Any) -> None:
        hopper.mbarrier_arrive(self.empty.iterator + self.state(count).index)


def smem_tensor_i64(n: int) -> Any:
    """``n`` mbarriers in shared memory."""
    from .dtypes import i64

    return smem_tensor(i64, make_layout(n), align=8)
