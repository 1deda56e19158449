"""Code generation back end: NVVM module finishing, PTX (libNVVM or LLVM NVPTX), cubin.

Modules here import llvmlite and the CUDA compiler libraries lazily, inside the functions that
need them. ``translate*.py`` (LLVM dialect -> ``llvmlite.ir``) targets the interfaces below:

- ``target.Target``: the GPU target (arch, PTX ISA, ``a`` features).
- ``nvvm_module.prepare_nvvm_module``: triple, data layout, kernel annotations, launch bounds.
- ``toolchain.compile_gpu``: module -> PTX -> cubin, with the driver-compatibility decision.
"""
