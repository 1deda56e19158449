"""layoutc kernels as torch custom operators: schema, fake tensors, opcheck, torch.compile
without graph breaks (CPU here; the same on the GPU in a marked test). Skipped without torch."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import layoutc as lc  # noqa: E402
import layoutc.torch as lct  # noqa: E402

TILE, THREADS = 256, 64
TV = lc.make_layout((THREADS, 4), (4, 1))


@lc.kernel
def scaled_copy(
    src: lc.Tensor[lc.f32, "(N):(1)"],  # noqa: F722
    dst: lc.Tensor[lc.f32, "(N):(1)"],  # noqa: F722
    alpha: lc.f32,
):
    bid, tid = lc.block_idx.x, lc.thread_idx.x
    tS = lc.partition_tv(lc.local_tile(src, (TILE,), (bid,)), TV, tid)
    tD = lc.partition_tv(lc.local_tile(dst, (TILE,), (bid,)), TV, tid)
    r = lc.make_fragment_like(tS)
    lc.copy(tS, r)
    lc.axpby(alpha, r, 0.0, r)
    lc.copy(r, tD)


def _grid(src, dst, alpha):
    return src.numel() // TILE


@pytest.fixture(scope="module")
def op():
    return lct.custom_op(
        scaled_copy, "layoutc_test::scaled_copy", mutates_args=("dst",), grid=_grid, block=THREADS
    )


def test_schema_comes_from_the_annotations():
    assert lct.schema_of(scaled_copy, ("dst",)) == "(Tensor src, Tensor(a!) dst, float alpha) -> ()"


def test_the_operator_runs_the_kernel(op):
    src = torch.randn(4 * TILE)
    dst = torch.zeros_like(src)
    op(src, dst, 2.5)
    torch.testing.assert_close(dst, src * 2.5)
    dst2 = torch.zeros_like(src)
    torch.ops.layoutc_test.scaled_copy(src, dst2, -1.0)
    torch.testing.assert_close(dst2, -src)


def test_fake_implementation_checks_the_abi(op):
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        src = torch.empty(TILE)
        op(src, torch.empty(TILE), 1.0)  # fine
        with pytest.raises(TypeError, match=r"'dst' must be a torch\.float32 tensor"):
            op(src, torch.empty(TILE, dtype=torch.float64), 1.0)
        with pytest.raises(TypeError, match="'src' must have rank 1, got 2"):
            op(torch.empty(2, TILE), torch.empty(TILE), 1.0)


def test_opcheck_accepts_the_operator(op):
    src = torch.randn(2 * TILE)
    torch.library.opcheck(op, (src, torch.zeros_like(src), 3.0))


def test_torch_compile_traces_it_without_a_graph_break(op):
    def f(x):
        y = torch.empty_like(x)
        op(x.sin(), y, 2.0)
        return y + 1.0

    explanation = torch._dynamo.explain(f)(torch.randn(TILE))
    assert explanation.graph_break_count == 0 and explanation.graph_count == 1
    compiled = torch.compile(f, backend="aot_eager", fullgraph=True)
    x = torch.randn(3 * TILE)
    torch.testing.assert_close(compiled(x), x.sin() * 2.0 + 1.0)


def test_unknown_and_scalar_mutations_are_refused():
    with pytest.raises(TypeError, match=r"has no parameter\(s\) \['out'\]"):
        lct.custom_op(scaled_copy, mutates_args=("out",), grid=1)
    with pytest.raises(TypeError, match="'alpha' is a scalar; only tensors can be mutated"):
        lct.custom_op(scaled_copy, mutates_args=("alpha",), grid=1)


@pytest.mark.gpu
def test_torch_compile_on_the_gpu(op):
    def f(x):
        y = torch.empty_like(x)
        op(x * 3.0, y, 0.5)
        return y - x

    x = torch.randn(64 * TILE, device="cuda")
    explanation = torch._dynamo.explain(f)(x)
    assert explanation.graph_break_count == 0
    compiled = torch.compile(f, fullgraph=True)
    torch.testing.assert_close(compiled(x), x * 0.5)
