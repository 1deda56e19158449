"""AOT artifacts: the ``manifest.json`` format, its writer, and the loader.

The format is defined in docs/runtime.md ("AOT artifacts"). The runtime owns it because the
production loader must read it with nothing but ``cuda-bindings`` installed: this module and
what it imports are plain Python until a kernel is actually loaded onto a GPU.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .abi import KernelSpec
from .compat import (
    _CUDA_TO_PTX_ISA,
    PtxIsa,
    cubin_runs_on,
    format_isa,
    parse_arch,
    parse_isa,
    ptx_runs_on,
)
from .errors import ArtifactError, IncompatibleDriverError
from .fileio import UntrustedFileError, atomic_write, inside, read_regular_file
from .manifest_schema import KERNEL_NAME, validate

FORMAT = "layoutc-artifact"
#: Version 2 added the facts every parameter was compiled under (align, divisible_by, min,
#: max, symbol) and the kernel's ``equal`` carrier groups; a version-1 reader would ignore them
#: and launch code on arguments it was not compiled for.
VERSION = 2
#: Versions this runtime reads: version-1 manifests state no facts, so nothing beyond the ABI
#: is checked for them.
READABLE_VERSIONS = (1, 2)
MANIFEST = "manifest.json"
#: Upper bounds on what the loader reads: a manifest, and one code file.
MAX_MANIFEST_BYTES = 64 << 20
MAX_CODE_BYTES = 1 << 32


@dataclass(frozen=True)
class Variant:
    """The code of one kernel for one architecture: PTX and/or cubin."""

    arch: str
    ptx: str | None = None
    cubin: bytes | None = None
    ptx_isa: PtxIsa | None = None  # the PTX's .version; read from the text when None

    def __post_init__(self) -> None:
        parse_arch(self.arch)
        if self.ptx is None and self.cubin is None:
            raise ValueError(f"variant for {self.arch} has neither PTX nor cubin")


@dataclass(frozen=True)
class ArtifactKernel:
    """One kernel of an artifact: its ABI and its code for one or more architectures."""

    spec: KernelSpec
    variants: tuple[Variant, ...]


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def manifest_for(kernels: Sequence[ArtifactKernel], producer: str) -> tuple[dict, dict[str, bytes]]:
    """The manifest dict and the files (name -> bytes) of an artifact; pure, deterministic."""
    from .compat import ptx_isa_of

    files: dict[str, bytes] = {}
    entries = []
    seen = set()
    for k in kernels:
        if not KERNEL_NAME.fullmatch(k.spec.name):
            raise ValueError(
                f"kernel name {k.spec.name!r} cannot name files in an artifact (expected "
                f"letters, digits, '_', '$' and '.', not starting with a digit or '.')"
            )
        if k.spec.name in seen:
            raise ValueError(f"kernel {k.spec.name!r} appears twice in one artifact")
        seen.add(k.spec.name)
        variants = []
        for v in k.variants:
            vfiles: dict[str, Any] = {}
            entry: dict[str, Any] = {"arch": v.arch}
            if v.ptx is not None:
                data = v.ptx.encode()
                fname = f"{k.spec.name}.{v.arch}.ptx"
                files[fname] = data
                isa = v.ptx_isa or ptx_isa_of(v.ptx)
                entry["ptx_isa"] = format_isa(isa)
                vfiles["ptx"] = {"path": fname, "sha256": _sha256(data), "bytes": len(data)}
            if v.cubin is not None:
                fname = f"{k.spec.name}.{v.arch}.cubin"
                files[fname] = v.cubin
                vfiles["cubin"] = {"path": fname, "sha256": _sha256(v.cubin), "bytes": len(v.cubin)}
            entry["files"] = vfiles
            variants.append(entry)
        entries.append({**k.spec.to_json(), "variants": variants})
    manifest = {"format": FORMAT, "version": VERSION, "producer": producer, "kernels": entries}
    return manifest, files


def write_artifact(
    directory: str | os.PathLike, kernels: Sequence[ArtifactKernel], producer: str = "layoutc"
) -> Path:
    """Write the kernels' files and ``manifest.json`` (last, atomically) into ``directory``.

    Output is deterministic: the same kernels give byte-identical files.
    """
    out = Path(directory)
    manifest, files = manifest_for(kernels, producer)
    validate(manifest, str(out / MANIFEST))  # what the loader will refuse is never written
    out.mkdir(parents=True, exist_ok=True)
    for fname, data in files.items():
        atomic_write(out / fname, data)
    text = json.dumps(manifest, indent=2) + "\n"
    path = out / MANIFEST
    atomic_write(path, text.encode())
    return path


def read_manifest(directory: str | os.PathLike) -> dict:
    """Read and validate the manifest of an artifact directory (or a manifest path)."""
    path = Path(directory)
    if path.is_dir():
        path = path / MANIFEST
    try:
        text = read_regular_file(path, MAX_MANIFEST_BYTES, follow=True).decode()
        data = json.loads(text)
    except FileNotFoundError:
        raise ArtifactError(
            f"{path}: no such manifest (is this a layoutc artifact directory?)"
        ) from None
    except json.JSONDecodeError as e:
        raise ArtifactError(f"{path}: not valid JSON: {e}") from None
    except UnicodeDecodeError as e:
        raise ArtifactError(f"{path}: not UTF-8 text: {e}") from None
    except (ValueError, RecursionError) as e:  # ints over 4300 digits, nesting past the stack
        raise ArtifactError(f"{path}: not a manifest layoutc reads: {str(e)[:200]}") from None
    except OSError as e:
        raise ArtifactError(f"{path}: cannot read the manifest: {e.strerror or e}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ArtifactError(f"{path}: not a layoutc artifact manifest (format != {FORMAT!r})")
    version = data.get("version")
    if version not in READABLE_VERSIONS:
        readable = " and ".join(map(str, READABLE_VERSIONS))
        raise ArtifactError(
            f"{path}: manifest version {version} is not supported by this runtime (reads "
            f"versions {readable})"
        )
    if not isinstance(data.get("kernels"), list):
        raise ArtifactError(f"{path}: manifest has no 'kernels' list")
    validate(data, str(path))
    return data


def _min_cuda_for_isa(isa: PtxIsa) -> str:
    for cuda, max_isa in sorted(_CUDA_TO_PTX_ISA.items()):
        if max_isa >= isa:
            return f"{cuda[0]}.{cuda[1]}"
    if isa[0] == 9:
        return f"13.{isa[1]}"
    return "a newer CUDA release"


def select_variant(
    kernel: Mapping[str, Any], capability: tuple[int, int], max_isa: PtxIsa
) -> tuple[Mapping[str, Any], str]:
    """Pick the code to load for a device: (variant, ``"cubin"`` or ``"ptx"``).

    Preference: a cubin built for exactly this device, then any compatible cubin (newest arch
    first), then PTX the driver can JIT (newest arch first). Otherwise ``IncompatibleDriverError``
    explaining every variant's requirement.
    """
    name = kernel.get("name", "?")
    variants = kernel.get("variants") or []
    cubins = [
        v
        for v in variants
        if "cubin" in v.get("files", {}) and cubin_runs_on(v["arch"], capability)
    ]
    exact = [v for v in cubins if parse_arch(v["arch"])[:2] == capability]
    if exact:
        # Prefer the arch-specific ('a') build when it is for exactly this device.
        return sorted(exact, key=lambda v: v["arch"].endswith("a"), reverse=True)[0], "cubin"
    if cubins:
        return max(cubins, key=lambda v: parse_arch(v["arch"])[:2]), "cubin"
    ptxs = [
        v
        for v in variants
        if "ptx" in v.get("files", {})
        and ptx_runs_on(v["arch"], capability)
        and parse_isa(v["ptx_isa"]) <= max_isa
    ]
    if ptxs:
        return max(ptxs, key=lambda v: parse_arch(v["arch"])[:2]), "ptx"
    here = f"sm_{capability[0]}{capability[1]}"
    reasons = []
    for v in variants:
        files = v.get("files", {})
        if "cubin" in files:
            reasons.append(f"cubin for {v['arch']} (does not run on {here})")
        if "ptx" in files:
            if not ptx_runs_on(v["arch"], capability):
                reasons.append(f"PTX for {v['arch']} (needs a newer GPU than {here})")
            else:
                isa = parse_isa(v["ptx_isa"])
                reasons.append(
                    f"PTX ISA {v['ptx_isa']} for {v['arch']} (needs a driver for CUDA "
                    f"{_min_cuda_for_isa(isa)} or newer)"
                )
    raise IncompatibleDriverError(
        f"kernel {name!r}: no code in the artifact runs here: device {here}, driver accepts PTX "
        f"ISA up to {format_isa(max_isa)}; the artifact has "
        + ("; ".join(reasons) if reasons else "no code at all")
    )


def read_variant_file(root: Path, kernel: str, entry: Mapping[str, Any]) -> bytes:
    """Read one code file and check its sha256 against the manifest.

    The file must resolve inside ``root`` (no ``..``, absolute paths or symlinks leading out)
    and be a regular file no larger than the manifest says."""
    path = inside(root, entry["path"]) if isinstance(entry.get("path"), str) else None
    if path is None:
        raise ArtifactError(
            f"kernel {kernel!r}: file {entry.get('path')!r} named by the manifest is not inside "
            f"the artifact {root}"
        )
    limit = entry.get("bytes", MAX_CODE_BYTES)
    try:
        size = os.stat(path, follow_symlinks=False).st_size
        if size > limit:
            raise ArtifactError(
                f"kernel {kernel!r}: {path} does not match the manifest ({size} bytes, the "
                f"manifest says {limit})"
            )
        data = read_regular_file(path, limit)
    except FileNotFoundError:
        raise ArtifactError(
            f"kernel {kernel!r}: file {path} named by the manifest is missing"
        ) from None
    except UntrustedFileError as e:
        raise ArtifactError(f"kernel {kernel!r}: {e}") from None
    except OSError as e:
        raise ArtifactError(f"kernel {kernel!r}: cannot read {path}: {e.strerror or e}") from None
    if _sha256(data) != entry.get("sha256"):
        raise ArtifactError(f"kernel {kernel!r}: {path} does not match its sha256 in the manifest")
    return data


def _param_sizes(spec: KernelSpec) -> list[int]:
    return [p.byte_size for p in spec.params]


def check_code_abi(spec: KernelSpec, image: bytes, kind: str, what: str) -> None:
    """Refuse code whose parameter list (count, byte sizes) is not the manifest's."""
    from .code_abi import CodeAbiError, cubin_param_sizes, ptx_param_sizes

    try:
        if kind == "cubin":
            found = cubin_param_sizes(image, spec.name)
        else:
            found = ptx_param_sizes(image.decode("utf-8", "replace"), spec.name)
    except CodeAbiError as e:
        raise ArtifactError(f"{what}: malformed code: {e}") from None
    if found is None:
        raise ArtifactError(f"{what}: the code has no kernel named {spec.name!r}")
    _compare_sizes(spec, found, what, "the code")


def _compare_sizes(spec: KernelSpec, found: list[int], what: str, source: str) -> None:
    expected = _param_sizes(spec)
    if found == expected:
        return
    if len(found) != len(expected):
        raise ArtifactError(
            f"{what}: the manifest states {len(expected)} parameters but {source} takes "
            f"{len(found)}: the manifest does not describe this code"
        )
    i = next(i for i, (a, b) in enumerate(zip(found, expected)) if a != b)
    p = spec.params[i]
    raise ArtifactError(
        f"{what}: parameter {i} ({p.name!r}, {p.kind} {p.dtype} in the manifest) is "
        f"{expected[i]} bytes but {source} reads {found[i]}: the manifest does not describe "
        "this code"
    )


def check_driver_abi(spec: KernelSpec, module: Any, what: str) -> None:
    """Ask the driver for the loaded function's parameters where it can tell
    (``cuFuncGetParamInfo``, CUDA 12.4+)."""
    from . import cuda_driver as cd

    drv = cd.api()
    get_info = getattr(drv, "cuFuncGetParamInfo", None)
    if get_info is None:
        return
    fn = module.function(spec.name)
    sizes = []
    for index in range(len(spec.params) + 1):
        try:
            result = get_info(fn, index)
        except Exception:  # an older binding with another signature: nothing to learn
            return
        if int(result[0]) != 0:
            break
        sizes.append(int(result[2]))
    _compare_sizes(spec, sizes, what, "the driver's cuFuncGetParamInfo")


class KernelLibrary(Mapping[str, Any]):
    """The kernels of a loaded artifact, by name (also as attributes: ``lib.copy(...)``)."""

    def __init__(self, root: Path, manifest: dict, kernels: dict[str, Any]) -> None:
        self.root = root
        self.manifest = manifest
        self._kernels = kernels

    def __getitem__(self, name: str) -> Any:
        try:
            return self._kernels[name]
        except KeyError:
            raise KeyError(
                f"no kernel {name!r} in {self.root}; it has: {', '.join(self._kernels)}"
            ) from None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._kernels[name]
        except KeyError:
            raise AttributeError(f"no kernel {name!r} in {self.root}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._kernels)

    def __len__(self) -> int:
        return len(self._kernels)


def load(directory: str | os.PathLike, device: int | None = None) -> KernelLibrary:
    """Load every kernel of an artifact directory onto a GPU; returns callable kernels.

    Imports only the CUDA driver bindings. Picks, per kernel, the best code for the device
    (``select_variant``) and checks file hashes; errors name the kernel and the reason.
    """
    from . import cuda_driver as cd
    from .compat import max_ptx_isa_for_driver
    from .cuda_kernel import kernel_in
    from .cuda_module import CudaModule

    root = Path(directory)
    if not root.is_dir():
        root = root.parent
    manifest = read_manifest(root)
    dev = cd.get_device(device)
    max_isa = max_ptx_isa_for_driver(cd.driver_version())
    kernels: dict[str, Any] = {}
    for entry in manifest["kernels"]:
        try:
            spec = KernelSpec.from_json(entry)
        except (KeyError, TypeError, ValueError) as e:
            raise ArtifactError(f"{root}: malformed kernel entry: {e}") from None
        variant, kind = select_variant(entry, dev.capability, max_isa)
        image = read_variant_file(root, spec.name, variant["files"][kind])
        what = f"kernel {spec.name!r} ({variant['arch']} {kind})"
        check_code_abi(spec, image, kind, what)
        module = CudaModule(image, kind, dev, what=what)
        kernel = kernel_in(module, spec)
        check_driver_abi(spec, module, what)
        kernels[spec.name] = kernel
    return KernelLibrary(root, manifest, kernels)
