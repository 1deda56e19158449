"""lower-algorithms builds no load of a register fragment's element that an unrolled MMA gemm
before it in the block wrote, nor the stores the next gemm overwrites (lower_gemm.py,
KnownElements): what fragment-scalrep would remove anyway. Checked here: the accesses it
leaves out, where it stops (an op between the gemms that touches the fragment, a fragment
whose tensor escapes), and that fragment-scalrep and the rest of the lowering make exactly the
same IR of both (forward-fragments=false builds every access)."""

from __future__ import annotations

import pytest
from layout_pass_helpers import LOWERING, kernel_func, parse_module, run
from layoutc.ir.dialects import tile as T

ATOM = '{atom = #tile.mma_atom<"SM80_16x8x8_F32TF32TF32F32_TN">}'
A = '!tile.tensor<f32, rmem, "(4,1,2):(1,0,4)", 4>'
B = '!tile.tensor<f32, rmem, "(2,1,2):(1,0,2)", 4>'
C = '!tile.tensor<f32, rmem, "(4,1,1):(1,0,0)", 4>'
G = '!tile.tensor<f32, gmem, "(4,1,1):(1,0,0)", 4>'
PTR = "!tile.ptr<f32, rmem, 4>"
GEMM = f"tile.gemm %a, %b, %c {ATOM} : {A}, {B}, {C}"

# what may stand between the two gemms
CLOBBER = f"tile.copy %c, %out : {C}, {G}"  # reads the fragment
OTHER = "tile.copy %a, %a2 : " + A + ", " + A  # another fragment only
NESTED = f"scf.if %cond {{\n    tile.copy %c, %out : {C}, {G}\n  }}"  # in a region


def _text(between: str = "", loop: bool = False) -> str:
    body = f"  {GEMM}\n  {between}\n  {GEMM}\n"
    if loop:
        body = f"  scf.for %i = %c0 to %n step %c1 {{\n{body}  }}\n"
    return f"""module {{
func.func @k(%out: {G}, %n: index, %cond: i1) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tile.alloc_fragment : {A}
  %a2 = tile.alloc_fragment : {A}
  %b = tile.alloc_fragment : {B}
  %c = tile.alloc_fragment : {C}
  tile.clear %c : {C}
{body}  tile.copy %c, %out : {C}, {G}
  return
}}
}}
"""


def _lowered(text: str, pipeline: str) -> str:
    module = parse_module(text)
    run(module, pipeline)
    return str(module)


def _c_accesses(text: str, forward: bool) -> tuple[int, int]:
    """(loads, stores) of C's elements after lower-algorithms."""
    module = parse_module(text)
    run(module, f"builtin.module(lower-algorithms{{forward-fragments={str(forward).lower()}}})")
    func = kernel_func(module)
    c = next(o for o in func.walk_ops() if type(o) is T.AllocFragmentOp and "(4,1,1)" in str(o))
    loads = stores = 0
    for o in func.walk_ops():
        if type(o) in (T.LoadOp, T.StoreOp) and o.source.defining_op is not None:
            source = o.source.defining_op
            if type(source) is T.GetPtrOp and source.operands[0] is c.results[0]:
                loads += type(o) is T.LoadOp
                stores += type(o) is T.StoreOp
    return loads, stores


def test_the_second_gemm_loads_no_c_and_the_first_stores_none():
    # without: each gemm loads and stores the 4 C values at each of its 2 k-steps; the clear
    # stores 4, the copy out loads 4
    assert _c_accesses(_text(), forward=False) == (4 * 4 + 4, 4 + 4 * 4)
    # with: only the first k-step's loads and the last k-step's stores stay
    assert _c_accesses(_text(), forward=True) == (4 + 4, 4 + 4)
    assert _c_accesses(_text(OTHER), forward=True) == (4 + 4, 4 + 4)


@pytest.mark.parametrize("between", [CLOBBER, NESTED])
def test_an_access_of_the_fragment_between_the_gemms_keeps_their_accesses(between):
    # the values are forwarded within each gemm, not across the copy: each gemm loads C once
    # and stores it once, the copies load it
    loads, stores = _c_accesses(_text(between), forward=True)
    assert (loads, stores) == (4 + 4 + 4 + 4, 4 + 4 + 4)
    assert _c_accesses(_text(between), forward=False)[0] > loads


def _escaping(loop: bool = False) -> str:
    """The fragment's tensor also flows into a loop as an iteration argument, after the gemms:
    fragment-scalrep leaves such a fragment alone, and so does lower-algorithms."""
    carried = (
        f"  %r = scf.for %j = %c0 to %n step %c1 iter_args(%t = %c) -> ({C}) {{\n"
        f"    scf.yield %t : {C}\n  }}\n"
    )
    return _text(loop=loop).replace("  tile.copy %c, %out", carried + "  tile.copy %c, %out")


def test_an_escaping_fragment_is_not_forwarded():
    assert _c_accesses(_escaping(), forward=True) == _c_accesses(_escaping(), forward=False)


@pytest.mark.parametrize("loop", [False, True])
@pytest.mark.parametrize("between", ["", OTHER, CLOBBER, NESTED, "escape"])
@pytest.mark.parametrize(
    "rest",
    ["fragment-scalrep", LOWERING[len("builtin.module(") : -1].split("lower-algorithms, ")[1]],
)
def test_fragment_scalrep_makes_the_same_ir_either_way(loop, between, rest):
    text = _text(between, loop) if between != "escape" else _escaping(loop)
    with_forwarding = _lowered(text, f"builtin.module(lower-algorithms, {rest})")
    without = _lowered(text, f"builtin.module(lower-algorithms{{forward-fragments=false}}, {rest})")
    assert with_forwarding == without
