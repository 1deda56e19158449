"""Dialects and the Context that loads them.

A :class:`Dialect` groups op classes, dialect types and dialect attributes under a name and
may provide a constant materialiser. A :class:`Context` knows which dialects are *available*
(a registry of names to loader functions, by default every dialect in ``layoutc.ir.dialects``,
then installed plugins' dialects, whose entry points are read only when a name is not a shipped
dialect) and loads them on first use, like MLIR's DialectRegistry. It also owns the DiagnosticEngine.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from .diagnostics import DiagnosticEngine

if TYPE_CHECKING:
    from .attributes import Attribute, DialectAttribute
    from .builder import Builder
    from .location import Location
    from .operation import Operation
    from .types import DialectType, Type

Materializer = Callable[["Builder", "Attribute", "Type", "Location"], "Operation | None"]
AttributeVerifier = Callable[["Operation", str, "Attribute"], None]


class Dialect:
    """A named set of ops, types and attributes."""

    def __init__(
        self,
        name: str,
        ops: Iterable[type[Operation]] = (),
        types: Iterable[type[DialectType]] = (),
        attributes: Iterable[type[DialectAttribute]] = (),
        materialize_constant: Materializer | None = None,
        verify_operation_attribute: AttributeVerifier | None = None,
    ):
        self.name = name
        # MLIR's Dialect::verifyOperationAttribute: called by the verifier for every
        # discardable attribute named "<this dialect>.xxx" on any op (raise VerifyError).
        self.verify_operation_attribute = verify_operation_attribute
        self.ops: dict[str, type[Operation]] = {}
        self.types: dict[str, type[DialectType]] = {}
        self.attributes: dict[str, type[DialectAttribute]] = {}
        self._materialize = materialize_constant
        for op in ops:
            self.add_op(op)
        for t in types:
            self.types[self._mnemonic(t.name, "type")] = t
        for a in attributes:
            self.attributes[self._mnemonic(a.name, "attribute")] = a

    def add_op(self, op: type[Operation]) -> None:
        if not op.name.startswith(self.name + "."):
            raise ValueError(f"op '{op.name}' does not belong to dialect '{self.name}'")
        op.dialect = self
        self.ops[op.name] = op

    def _mnemonic(self, full: str, what: str) -> str:
        if not full.startswith(self.name + "."):
            raise ValueError(f"{what} '{full}' does not belong to dialect '{self.name}'")
        return full[len(self.name) + 1 :]

    def materialize_constant(
        self, builder: Builder, value: Attribute, type: Type, loc: Location
    ) -> Operation | None:
        """Create an op producing the constant ``value`` of ``type`` (None if unsupported)."""
        if self._materialize is None:
            return None
        return self._materialize(builder, value, type, loc)

    def __repr__(self) -> str:
        return f"<Dialect {self.name}: {len(self.ops)} ops>"


DialectLoader = Callable[[], Dialect]


class Context:
    """Loaded dialects, available dialects, diagnostics and parsing options."""

    def __init__(
        self,
        *,
        allow_unregistered: bool = False,
        registry: dict[str, DialectLoader] | None = None,
        diagnostics: DiagnosticEngine | None = None,
    ):
        self.allow_unregistered = allow_unregistered
        self.diagnostics = diagnostics if diagnostics is not None else DiagnosticEngine()
        # With the default registry, installed plugins' dialects are looked up on the first
        # name layoutc does not ship (reading entry points is slow; most inputs need none).
        self._plugins = registry is None
        if registry is None:
            from ..dialects import shipped_registry

            registry = shipped_registry()
        self.registry: dict[str, DialectLoader] = dict(registry)
        self.dialects: dict[str, Dialect] = {}
        self._op_cache: dict[str, Any] = {}
        self.get_dialect("builtin")

    def register(self, name: str, loader: DialectLoader) -> None:
        """Make a dialect available (loaded on first use)."""
        self.registry[name] = loader

    def load_dialect(self, dialect: Dialect) -> Dialect:
        """Load a dialect object now (replaces a loaded dialect of the same name)."""
        self.dialects[dialect.name] = dialect
        self._op_cache.clear()
        return dialect

    def get_dialect(self, name: str) -> Dialect | None:
        """The loaded dialect ``name``, loading it from the registry if available."""
        d = self.dialects.get(name)
        if d is None:
            loader = self.registry.get(name)
            if loader is None:
                loader = self._plugin_loader(name)
            if loader is None:
                return None
            d = self.load_dialect(loader())
        return d

    def _plugin_loader(self, name: str) -> DialectLoader | None:
        """An installed plugin's loader for dialect ``name`` (default registry only)."""
        if not self._plugins:
            return None
        from ..dialects import plugin_dialects

        loader = plugin_dialects().get(name)
        if loader is not None:
            self.registry[name] = loader
        return loader

    def lookup_op(self, name: str) -> type[Operation] | None:
        """The op class registered for ``name`` (None if unknown)."""
        cached = self._op_cache.get(name, False)
        if cached is not False:
            return cached
        dot = name.find(".")
        cls = None
        if dot > 0:
            d = self.get_dialect(name[:dot])
            if d is not None:
                cls = d.ops.get(name)
        self._op_cache[name] = cls
        return cls

    def loaded_dialect_names(self) -> list[str]:
        return sorted(self.dialects)

    def load_all_available(self) -> None:
        if self._plugins:
            from ..dialects import plugin_dialects

            for name, loader in plugin_dialects().items():
                self.registry.setdefault(name, loader)
        for name in list(self.registry):
            self.get_dialect(name)
