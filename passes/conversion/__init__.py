"""Conversion passes: structured control flow to blocks, gpu to nvvm, and everything to the
LLVM level (docs/codegen.md)."""
