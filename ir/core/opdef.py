"""Declarative op definitions: fields declared on an op class and processed once.

An op class lists its operands, results, properties, regions and successors as class
attributes built by the functions below; ``Operation.__init_subclass__`` collects them into an
:class:`OpDef` (kept in ``cls._def``) and replaces each with a fast accessor property. Nothing
is reflected per instance.

Operand groups follow MLIR: any number of single operands plus at most one variadic/optional
group, or several groups sized by the ``operandSegmentSizes`` property (added automatically
when more than one group is variable). Results work the same way with ``resultSegmentSizes``.
"""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING, Any

from .attributes import Attribute, DenseArrayAttr
from .constraints import Constraint, to_constraint
from .errors import VerifyError
from .types import i32

if TYPE_CHECKING:
    from .operation import Operation


class Arity(Enum):
    SINGLE = "single"
    OPTIONAL = "optional"
    VARIADIC = "variadic"


_counter = 0


class FieldSpec:
    """Base of field declarations; remembers declaration order."""

    __slots__ = ("order",)

    def __init__(self) -> None:
        global _counter
        _counter += 1
        self.order = _counter


class ValueGroupSpec(FieldSpec):
    __slots__ = ("arity", "constraint")

    def __init__(self, arity: Arity, constraint: Any):
        super().__init__()
        self.arity = arity
        self.constraint: Constraint | None = to_constraint(constraint)


class OperandSpec(ValueGroupSpec):
    __slots__ = ()


class ResultSpec(ValueGroupSpec):
    __slots__ = ()


class PropSpec(FieldSpec):
    __slots__ = ("constraint", "default", "optional")

    def __init__(self, constraint: Any, default: Attribute | None, optional: bool):
        super().__init__()
        self.constraint: Constraint | None = to_constraint(constraint)
        self.default = default
        self.optional = optional


class RegionSpec(FieldSpec):
    __slots__ = ("variadic",)

    def __init__(self, variadic: bool):
        super().__init__()
        self.variadic = variadic


class SuccessorSpec(FieldSpec):
    __slots__ = ("variadic",)

    def __init__(self, variadic: bool):
        super().__init__()
        self.variadic = variadic


def operand(constraint: Any = None) -> Any:
    """One operand whose type satisfies ``constraint``."""
    return OperandSpec(Arity.SINGLE, constraint)


def opt_operand(constraint: Any = None) -> Any:
    """Zero or one operand (the accessor returns the value or None)."""
    return OperandSpec(Arity.OPTIONAL, constraint)


def var_operand(constraint: Any = None) -> Any:
    """Any number of operands (the accessor returns a tuple)."""
    return OperandSpec(Arity.VARIADIC, constraint)


def result(constraint: Any = None) -> Any:
    return ResultSpec(Arity.SINGLE, constraint)


def opt_result(constraint: Any = None) -> Any:
    return ResultSpec(Arity.OPTIONAL, constraint)


def var_result(constraint: Any = None) -> Any:
    return ResultSpec(Arity.VARIADIC, constraint)


def prop(constraint: Any = None, default: Attribute | None = None) -> Any:
    """A property (inherent attribute, printed in ``<{...}>``); required unless defaulted."""
    return PropSpec(constraint, default, optional=False)


def opt_prop(constraint: Any = None) -> Any:
    """An optional property (absent unless set)."""
    return PropSpec(constraint, None, optional=True)


def region() -> Any:
    return RegionSpec(variadic=False)


def var_region() -> Any:
    """Any number of regions; must be the last region declaration."""
    return RegionSpec(variadic=True)


def successor() -> Any:
    return SuccessorSpec(variadic=False)


def var_successor() -> Any:
    """Any number of successors; must be the last successor declaration."""
    return SuccessorSpec(variadic=True)


class GroupLayout:
    """How a flat operand/result list splits into declared groups."""

    __slots__ = ("arities", "constraints", "names", "num_fixed", "segment_attr", "variable")

    def __init__(self, names: list[str], specs: list[ValueGroupSpec], segment_attr: str):
        self.names = names
        self.arities = [s.arity for s in specs]
        self.constraints = [s.constraint for s in specs]
        self.num_fixed = sum(1 for a in self.arities if a is Arity.SINGLE)
        self.variable = [i for i, a in enumerate(self.arities) if a is not Arity.SINGLE]
        self.segment_attr = segment_attr if len(self.variable) > 1 else None

    def static_index(self, k: int) -> int | None:
        """Flat position of group ``k`` when no variable group precedes it."""
        if any(i < k for i in self.variable):
            return None
        return k

    def sizes(self, op: Operation, total: int) -> list[int]:
        """Size of each group for an op with ``total`` values (may raise VerifyError)."""
        if self.segment_attr is not None:
            attr = op.properties.get(self.segment_attr)
            if not isinstance(attr, DenseArrayAttr) or attr.element_type is not i32:
                raise VerifyError(f"requires dense i32 array property '{self.segment_attr}'")
            sizes = list(attr.values)
            if len(sizes) != len(self.arities):
                raise VerifyError(
                    f"'{self.segment_attr}' property for {self.kind} has {len(sizes)} "
                    f"elements, but expected {len(self.arities)}"
                )
            return sizes
        sizes = [1] * len(self.arities)
        if self.variable:
            sizes[self.variable[0]] = total - self.num_fixed
        return sizes

    @property
    def kind(self) -> str:
        return "operands" if self.segment_attr == "operandSegmentSizes" else "results"

    def ranges(self, op: Operation, total: int) -> list[tuple[int, int]]:
        out = []
        start = 0
        for n in self.sizes(op, total):
            out.append((start, n))
            start += n
        return out

    def verify_counts(self, op: Operation, total: int, what: str) -> list[int]:
        sizes = self.sizes(op, total)
        if self.segment_attr is not None:
            for k, (n, arity) in enumerate(zip(sizes, self.arities)):
                if (
                    n < 0
                    or (arity is Arity.SINGLE and n != 1)
                    or (arity is Arity.OPTIONAL and n > 1)
                ):
                    raise VerifyError(
                        f"'{self.segment_attr}' gives an invalid size {n} for {what} group "
                        f"'{self.names[k]}'"
                    )
            if sum(sizes) != total:
                raise VerifyError(
                    f"'{self.segment_attr}' sums to {sum(sizes)} but the op has {total} {what}s"
                )
            return sizes
        if not self.variable:
            if total != self.num_fixed:
                raise VerifyError(f"expected {self.num_fixed} {what}s, but found {total}")
        else:
            extra = total - self.num_fixed
            optional = self.arities[self.variable[0]] is Arity.OPTIONAL
            if extra < 0 or (optional and extra > 1):
                bound = (
                    f"{self.num_fixed} or {self.num_fixed + 1}"
                    if optional
                    else f"{self.num_fixed} or more"
                )
                raise VerifyError(f"expected {bound} {what}s, but found {total}")
        return sizes


class OpDef:
    """Everything declared on an op class, resolved once at class creation."""

    __slots__ = (
        "fixed_regions",
        "operands",
        "prop_checks",
        "prop_defaults",
        "props",
        "region_names",
        "regions_variadic",
        "results",
        "successor_names",
        "successors_variadic",
    )

    def __init__(self, fields: list[tuple[str, FieldSpec]]):
        operand_fields = [(n, s) for n, s in fields if isinstance(s, OperandSpec)]
        result_fields = [(n, s) for n, s in fields if isinstance(s, ResultSpec)]
        self.operands = GroupLayout(
            [n for n, _ in operand_fields], [s for _, s in operand_fields], "operandSegmentSizes"
        )
        self.results = GroupLayout(
            [n for n, _ in result_fields], [s for _, s in result_fields], "resultSegmentSizes"
        )
        self.props: dict[str, PropSpec] = {n: s for n, s in fields if isinstance(s, PropSpec)}
        self.prop_defaults = {n: s.default for n, s in self.props.items() if s.default is not None}
        regions = [(n, s) for n, s in fields if isinstance(s, RegionSpec)]
        self.region_names = [n for n, _ in regions]
        self.regions_variadic = bool(regions) and regions[-1][1].variadic
        self.fixed_regions = len(self.region_names) - (1 if self.regions_variadic else 0)
        if any(s.variadic for _, s in regions[:-1]):
            raise TypeError("only the last region declaration may be variadic")
        succs = [(n, s) for n, s in fields if isinstance(s, SuccessorSpec)]
        self.successor_names = [n for n, _ in succs]
        self.successors_variadic = bool(succs) and succs[-1][1].variadic
        if any(s.variadic for _, s in succs[:-1]):
            raise TypeError("only the last successor declaration may be variadic")
        if self.operands.segment_attr:
            self.props.setdefault("operandSegmentSizes", PropSpec(DenseArrayAttr, None, False))
        if self.results.segment_attr:
            self.props.setdefault("resultSegmentSizes", PropSpec(DenseArrayAttr, None, False))
        # what verify checks per property, flat (it runs for every op of every verification)
        self.prop_checks = tuple((n, s.optional, s.constraint) for n, s in self.props.items())

    def verify(self, op: Operation) -> None:
        """Counts, declared types, properties, regions and successors (raise VerifyError)."""
        ops = op._operands
        layout = self.operands
        if layout.variable:
            self._verify_groups(layout, op, [u.value.type for u in ops], "operand")
        else:
            if len(ops) != layout.num_fixed:
                raise VerifyError(f"expected {layout.num_fixed} operands, but found {len(ops)}")
            for i, c in enumerate(layout.constraints):
                if c is not None:
                    t = ops[i].value.type
                    ok = c.memo.get(t)
                    if ok is None:
                        ok = c(t)
                    if not ok:
                        raise VerifyError(
                            f"operand #{i} must be {c.description}, but got '{t.text}'"
                        )
        res = op.results
        layout = self.results
        if layout.variable:
            self._verify_groups(layout, op, [r.type for r in res], "result")
        else:
            if len(res) != layout.num_fixed:
                raise VerifyError(f"expected {layout.num_fixed} results, but found {len(res)}")
            for i, c in enumerate(layout.constraints):
                if c is not None:
                    t = res[i].type
                    ok = c.memo.get(t)
                    if ok is None:
                        ok = c(t)
                    if not ok:
                        raise VerifyError(
                            f"result #{i} must be {c.description}, but got '{t.text}'"
                        )
        props = op.properties
        present = 0
        for name, optional, c in self.prop_checks:
            value = props.get(name)
            if value is None:
                if not optional:
                    raise VerifyError(f"requires attribute '{name}'")
                continue
            present += 1
            if c is not None:
                ok = c.memo.get(value)
                if ok is None:
                    ok = c(value)
                if not ok:
                    raise VerifyError(
                        f"attribute '{name}' failed to satisfy constraint: {c.description}"
                    )
        if present != len(props):  # a property that is not declared
            declared = self.props
            for name in props:
                if name not in declared:
                    raise VerifyError(f"has unknown property '{name}'")
        n = len(op.regions)
        if n != len(self.region_names) or self.regions_variadic:
            self._verify_count(n, len(self.region_names), self.regions_variadic, "region")
        n = len(op.successors)
        if n != len(self.successor_names) or self.successors_variadic:
            self._verify_count(n, len(self.successor_names), self.successors_variadic, "successor")

    @staticmethod
    def _verify_groups(layout: GroupLayout, op: Operation, types: list[Any], what: str) -> None:
        sizes = layout.verify_counts(op, len(types), what)
        pos = 0
        for k, n in enumerate(sizes):
            c = layout.constraints[k]
            if c is not None:
                for i in range(pos, pos + n):
                    if not c(types[i]):
                        raise VerifyError(
                            f"{what} #{i} must be {c.description}, but got '{types[i].text}'"
                        )
            pos += n

    @staticmethod
    def _verify_count(found: int, declared: int, variadic: bool, what: str) -> None:
        if variadic:
            if found < declared - 1:
                raise VerifyError(f"expected at least {declared - 1} {what}s, but found {found}")
        elif found != declared:
            raise VerifyError(f"requires {declared} {what}s, but found {found}")


def collect_fields(cls: type) -> list[tuple[str, FieldSpec]]:
    """Field declarations of ``cls`` and its op base classes, bases first, in order.

    Declarations of ``cls`` itself are read from its namespace and remembered in
    ``cls._own_fields`` (the namespace entries are then replaced by accessors).
    """
    own = [(n, v) for n, v in vars(cls).items() if isinstance(v, FieldSpec)]
    own.sort(key=lambda nv: nv[1].order)
    cls._own_fields = own  # type: ignore[attr-defined]
    fields: dict[str, FieldSpec] = {}
    for klass in reversed(cls.__mro__):
        for n, v in vars(klass).get("_own_fields", ()):
            fields.pop(n, None)
            fields[n] = v
    return list(fields.items())


def make_accessors(cls: type, op_def: OpDef) -> None:
    """Replace field declarations on ``cls`` with properties reading the op's storage."""
    for k, name in enumerate(op_def.operands.names):
        setattr(cls, name, _group_accessor(op_def.operands, k, operands=True))
    for k, name in enumerate(op_def.results.names):
        setattr(cls, name, _group_accessor(op_def.results, k, operands=False))
    for name in op_def.props:
        setattr(cls, name, _prop_accessor(name))
    for k, name in enumerate(op_def.region_names):
        variadic = op_def.regions_variadic and k == len(op_def.region_names) - 1
        setattr(cls, name, _list_accessor("regions", k, variadic))
    for k, name in enumerate(op_def.successor_names):
        variadic = op_def.successors_variadic and k == len(op_def.successor_names) - 1
        setattr(cls, name, _successor_accessor(k, variadic))


def _group_accessor(layout: GroupLayout, k: int, operands: bool) -> property:
    arity = layout.arities[k]
    static = layout.static_index(k)
    if operands:
        if static is not None and arity is Arity.SINGLE:

            def get_single(self: Any) -> Any:
                return self._operands[static].value

            def set_single(self: Any, value: Any) -> None:
                self._operands[static].set(value)

            return property(get_single, set_single)

        variable = layout.variable
        if layout.segment_attr is None and len(variable) == 1:
            # One variable group and no segment sizes (the common case): the group's place
            # follows from the operand count alone.
            v, fixed = variable[0], layout.num_fixed

            def get_operands_fast(self: Any) -> Any:
                ops = self._operands
                if k < v:
                    return ops[k].value
                extra = len(ops) - fixed
                if k > v:
                    return ops[k + extra - 1].value
                if arity is Arity.OPTIONAL:
                    return ops[k].value if extra > 0 else None
                return tuple([u.value for u in ops[k : k + extra]])

            return property(get_operands_fast)

        def get_operands(self: Any) -> Any:
            start, n = layout.ranges(self, len(self._operands))[k]
            if arity is Arity.SINGLE:
                return self._operands[start].value
            if arity is Arity.OPTIONAL:
                return self._operands[start].value if n else None
            return tuple(u.value for u in self._operands[start : start + n])

        return property(get_operands)

    if static is not None and arity is Arity.SINGLE:
        return property(lambda self: self.results[static])

    def get_results(self: Any) -> Any:
        start, n = layout.ranges(self, len(self.results))[k]
        if arity is Arity.SINGLE:
            return self.results[start]
        if arity is Arity.OPTIONAL:
            return self.results[start] if n else None
        return self.results[start : start + n]

    return property(get_results)


def _prop_accessor(name: str) -> property:
    def get(self: Any) -> Any:
        return self.properties.get(name)

    def set(self: Any, value: Any) -> None:
        if value is None:
            self.properties.pop(name, None)
        else:
            self.properties[name] = value

    return property(get, set)


def _list_accessor(attr: str, k: int, variadic: bool) -> property:
    if variadic:
        return property(lambda self: tuple(getattr(self, attr)[k:]))
    return property(lambda self: getattr(self, attr)[k])


def _successor_accessor(k: int, variadic: bool) -> property:
    if variadic:
        return property(lambda self: tuple(s.block for s in self.successors[k:]))
    return property(lambda self: self.successors[k].block)
