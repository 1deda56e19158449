"""The GMMA matrix descriptor and the canonical-layout proof (ir/dialects/tile/gmma.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from layoutc.ir.algebra import ComposedLayout, Layout, Swizzle, composition, tile_to_shape
from layoutc.ir.dialects.tile.gmma import (
    GmmaDescriptor,
    GmmaLayoutError,
    hardware_offset,
    infer_canonical,
    layout_atom,
    prove_canonical,
    swizzle_address,
)


def test_descriptor_bits_by_hand():
    # PTX ISA "Matrix Descriptor Format": [0,14) addr>>4, [16,30) LBO>>4, [32,46) SBO>>4,
    # [49,52) base offset, [62,64) layout type. Start 0x400 (>>4 = 0x40), LBO 16 (1),
    # SBO 1024 (0x40), 128B swizzle (1):
    want = 0x40 | (1 << 16) | (0x40 << 32) | (1 << 62)
    assert want == 0x4000004000010040
    d = GmmaDescriptor(0x400, 16, 1024, 0, 1)
    assert d.encode() == want
    assert GmmaDescriptor.decode(want) == d
    # interleave, LBO 1024 (0x40), SBO 128 (8), start 0x3FFF0 (field 0x3FFF), base offset 5
    d = GmmaDescriptor(0x3FFF0, 1024, 128, 5, 0)
    assert d.encode() == 0x3FFF | (0x40 << 16) | (8 << 32) | (5 << 49)


@pytest.mark.parametrize("bad", [GmmaDescriptor(8, 16, 16), GmmaDescriptor(0, 1 << 18, 16)])
def test_descriptor_refuses_unencodable_fields(bad):
    with pytest.raises(GmmaLayoutError):
        bad.encode()


# (major, mode) -> (LBO, SBO) of tile_to_shape(atom, (64, 64)) for 16-bit elements, worked out
# from the canonical forms: K-major rows of 16*W bytes, 8-row groups 8*16*W bytes apart...
EXPECTED_64x64 = {
    ("K", "INTER"): (1024, 128),  # second 16-byte K chunk: 8 rows x 8 groups x 16 bytes later
    ("K", "SW32"): (16, 256),
    ("K", "SW64"): (16, 512),
    ("K", "SW128"): (16, 1024),
    ("MN", "INTER"): (1024, 128),
    ("MN", "SW32"): (256, 1024),  # next 16-element MN block after 8 K rows of 32 bytes
    ("MN", "SW64"): (512, 1024),
    ("MN", "SW128"): (0, 1024),  # one 64-element MN block: LBO unused
}


@pytest.mark.parametrize("major,mode", sorted(EXPECTED_64x64))
def test_tile_to_shape_of_each_atom_is_canonical(major, mode):
    tile = tile_to_shape(layout_atom(major, mode, 16), (64, 64))
    a_tile = composition(tile, (Layout(64), Layout(16)))  # the first K block of A
    c = prove_canonical(a_tile, major, 16, 64, 16)
    assert (c.lbo, c.sbo) == EXPECTED_64x64[(major, mode)]
    assert c.layout_type == {"INTER": 0, "SW128": 1, "SW64": 2, "SW32": 3}[mode]
    assert infer_canonical(a_tile, 16, 64, 16).major == major or mode == "INTER"


def test_atoms_are_cutes():
    assert str(layout_atom("K", "SW128", 16)) == "Sw<3,3,3> o 0 o (8,64):(64,1)"
    assert str(layout_atom("MN", "SW64", 16)) == "Sw<2,3,3> o 0 o (32,8):(1,32)"
    assert str(layout_atom("K", "SW32", 32)) == "Sw<1,2,3> o 0 o (8,8):(8,1)"
    assert str(layout_atom("K", "INTER", 16)) == "(8,8):(8,1)"


@settings(max_examples=40, deadline=None)
@given(
    major=st.sampled_from(["K", "MN"]),
    mode=st.sampled_from(["INTER", "SW32", "SW64", "SW128"]),
    mn_blocks=st.integers(1, 4),
    k_blocks=st.integers(1, 2),
)
def test_canonical_layouts_agree_with_the_hardware_address(major, mode, mn_blocks, k_blocks):
    """Every element of a proven tile is where the hardware reads it: the layout's swizzled
    offset equals swizzle(start + hardware_offset(LBO, SBO)) for each (mn, k)."""
    atom = layout_atom(major, mode, 16)
    mn_atom, k_atom = atom.shape
    mn = 64 * mn_blocks if major == "MN" else 8 * mn_blocks * 8
    full = tile_to_shape(atom, (max(mn, mn_atom), max(16 * k_blocks, k_atom)))
    tile = composition(full, (Layout(mn), Layout(16)))
    c = prove_canonical(tile, major, 16, mn, 16)
    for k in range(16):
        for m in range(mn):
            addr = swizzle_address(hardware_offset(major, mode, 16, c.lbo, c.sbo, m, k), mode)
            assert tile(m + mn * k) * 2 == addr


def test_refusals_name_the_condition():
    row_major = Layout((64, 16), (16, 1))  # K-major, but rows 32 bytes apart, no swizzle
    with pytest.raises(GmmaLayoutError, match="rows of a core matrix must be 16 bytes apart"):
        prove_canonical(row_major, "K", 16, 64, 16)
    bad_swizzle = ComposedLayout(Swizzle(3, 4, 3), 0, Layout((64, 16), (64, 1)))
    with pytest.raises(GmmaLayoutError, match="not a GMMA swizzle for 16-bit elements"):
        infer_canonical(bad_swizzle, 16, 64, 16)
    # a 128B swizzle on MN-major needs MN a multiple of 64 halves
    narrow = composition(
        tile_to_shape(layout_atom("MN", "SW128", 16), (64, 16)), (Layout(8), Layout(16))
    )
    with pytest.raises(GmmaLayoutError, match="not a multiple of 64 elements"):
        prove_canonical(narrow, "MN", 16, 8, 16)
    with pytest.raises(GmmaLayoutError, match="MN-major operands need 16-bit elements"):
        prove_canonical(Layout((64, 8)), "MN", 32, 64, 8)
    with pytest.raises(GmmaLayoutError, match="K extent must be 16"):
        prove_canonical(Layout((64, 8)), "K", 16, 64, 8)
