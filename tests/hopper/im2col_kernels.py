"""TMA im2col kernels for tests/hopper: one load per block, read back logically and physically."""

import layoutc as lc


def make_im2col_loader(pixels: int, channels: int, dtype, swizzle_bits: int, swizzle_base: int,
                       lower: tuple, upper: tuple, traversal_stride=1, dilation=1):  # fmt: skip
    """Block b issues one im2col load from the first pixel ``at[b, :rank]`` (tensor mode order)
    with the filter tap ``at[b, rank:]`` (spatial mode order; the copy scales it by
    ``dilation``), then writes the smem matrix out through its (swizzled) layout
    (``logical``) and raw (``physical``)."""
    inner = lc.make_layout((pixels, channels), (channels, 1))
    sl = lc.composition(lc.Swizzle(swizzle_bits, swizzle_base, 3), inner) if swizzle_bits else inner
    n = pixels * channels
    spatial = len(lower)
    rank = spatial + 2

    @lc.kernel
    def im2col_loader(act: lc.Tensor, at: lc.Tensor, logical: lc.Tensor, physical: lc.Tensor):
        tid = lc.thread_idx.x
        blk = lc.block_idx.x
        tma = lc.make_im2col_tma_copy(
            "SM90_TMA_LOAD_IM2COL", act, sl, lower, upper, traversal_stride=traversal_stride,
            dilation=dilation,
        )  # fmt: skip
        sA = lc.smem_tensor(dtype, sl, align=1024)
        raw = lc.make_tensor(sA.iterator, lc.make_layout(n))
        bar = lc.smem_tensor(lc.i64, lc.make_layout(1), align=8)
        if tid == 0:
            lc.mbarrier_init(bar, 1)
            lc.mbarrier_init_fence()
        lc.syncthreads()
        if tid == 0:
            first = tuple(at[blk, i] for i in range(rank))
            taps = tuple(at[blk, rank + i] for i in range(spatial))
            lc.mbarrier_arrive_and_expect_tx(bar, tma.tx_bytes)
            lc.tma_copy(tma, first, sA, mbar=bar, offsets=taps)
        lc.mbarrier_wait(bar, 0)
        for i in range(n // 32):
            e = i * 32 + tid
            logical[blk, e] = sA[e // channels, e % channels]
            physical[blk, e] = raw[e]

    return im2col_loader


def make_im2col_multicast(pixels: int, channels: int, lower: tuple, upper: tuple):
    """Clusters of two: rank r issues the im2col load of row ``2 * cluster + r`` of ``at``
    (first pixel, then taps, as above) with ``.multicast::cluster`` into both blocks (at half
    r of their buffers, each completing its own mbarrier); every block writes both halves."""
    sl = lc.make_layout((pixels, channels), (channels, 1))
    n = pixels * channels
    spatial = len(lower)
    rank_ = spatial + 2

    @lc.kernel
    def im2col_multicast(act: lc.Tensor, at: lc.Tensor, out: lc.Tensor):
        tid = lc.thread_idx.x
        rank = lc.block_rank_in_cluster()
        tma = lc.make_im2col_tma_copy(
            "SM90_TMA_LOAD_IM2COL_MULTICAST", act, sl, lower, upper, multicast=2
        )
        buf = lc.smem_tensor(lc.f32, lc.make_layout(2 * n), align=128)
        bar = lc.smem_tensor(lc.i64, lc.make_layout(1), align=8)
        if tid == 0:
            lc.mbarrier_init(bar, 1)
            lc.mbarrier_init_fence()
        lc.cluster_sync()
        if tid == 0:
            row = (lc.block_idx.x // 2) * 2 + rank
            first = tuple(at[row, i] for i in range(rank_))
            taps = tuple(at[row, rank_ + i] for i in range(spatial))
            lc.mbarrier_arrive_and_expect_tx(bar, 2 * tma.tx_bytes)
            half = lc.make_tensor(buf.iterator + lc.assume(rank * n, divisible_by=n), sl)
            lc.tma_copy(tma, first, half, mbar=bar, mcast_mask=3, offsets=taps)
        lc.mbarrier_wait(bar, 0)
        for i in range(2 * n // 32):
            e = i * 32 + tid
            out[lc.block_idx.x, e] = buf[e]
        lc.cluster_sync()  # no block leaves while its peer may still multicast into it

    return im2col_multicast


def _row_major(dims) -> str:
    strides, acc = [], 1
    for d in reversed(dims[1:]):
        strides.insert(0, acc)
        acc *= d
    return f"({','.join(['N', *map(str, dims[1:])])}):({','.join(map(str, [acc, *strides]))})"


def make_im2col_conv(act_shape, k_out, filter_shape, stride, dilation, padding, pixels: int = 32):
    """A direct convolution fprop through im2col TMA loads (no tensor cores): block ``b``
    computes output positions ``b * pixels ..`` (W fastest, as TMA walks them), one thread
    each. Per filter tap one load brings those positions' pixels (``copy.first_pixel``, the
    tap scaled by the dilation, zeros in the padding and past the last image) and each thread
    adds ``sum_c A[pixel, c] * filter[k, tap, c]`` into ``out[m, k]`` (zeroed by the caller).
    ``act`` is N-spatial-C, ``flt`` (K, taps * C) with the taps in row-major (t, r, s) order,
    ``out`` (M, K) with M the output positions in NZPQ order. N and M are dynamic."""
    import itertools

    taps = list(itertools.product(*(range(f) for f in filter_shape)))
    channels = act_shape[-1]
    act_t = lc.Tensor(lc.f32, _row_major(act_shape))
    flt_t = lc.Tensor(lc.f32, f"({k_out},{len(taps) * channels}):({len(taps) * channels},1)")
    out_t = lc.Tensor(lc.f32, f"(M,{k_out}):({k_out},1)")

    @lc.kernel
    def im2col_conv(act: act_t, flt: flt_t, out: out_t):
        tid = lc.thread_idx.x
        sl = lc.make_layout((pixels, channels), (channels, 1))
        tma = lc.make_im2col_tma_copy(
            "SM90_TMA_LOAD_IM2COL", act, sl, traversal_stride=stride, dilation=dilation,
            filter_shape=filter_shape, padding=padding,
        )  # fmt: skip
        outs = tma.output_shape  # (N, spatial...)
        sA = lc.smem_tensor(lc.f32, sl, align=128)
        bar = lc.smem_tensor(lc.i64, lc.make_layout(1), align=8)
        if tid == 0:
            lc.mbarrier_init(bar, 1)
            lc.mbarrier_init_fence()
        lc.syncthreads()
        m0 = lc.block_idx.x * pixels
        rest, position = m0, []
        for e in reversed(outs[1:]):  # the output position of m0, innermost mode first
            position.append(rest % e)
            rest = rest // e
        first = tma.first_pixel((rest, *reversed(position)))
        m = m0 + tid
        for i, tap in enumerate(taps):
            if tid == 0:
                lc.mbarrier_arrive_and_expect_tx(bar, tma.tx_bytes)
                lc.tma_copy(tma, first, sA, mbar=bar, offsets=tap)
            lc.mbarrier_wait(bar, i % 2)
            if m < out.shape[0]:
                for k in range(k_out):
                    acc = out[m, k]
                    for c in range(channels):
                        acc = acc + sA[tid, c] * flt[k, i * channels + c]
                    out[m, k] = acc
            lc.syncthreads()  # everyone has read the tile before the next load overwrites it

    return im2col_conv
