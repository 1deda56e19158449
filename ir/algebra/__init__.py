"""The CuTe layout algebra, with symbolic extents (see docs/algebra.md)."""
