"""Function bodies for ``llvmlite.ir`` modules, built and printed fast: llvmlite's ``IRBuilder``
API (the subset the translation uses) over small slotted instruction classes whose text is
byte for byte what ``llvmlite.ir`` prints for its own instructions.

Why: a GEMM's module has about 3,500 (GPU) to 6,500 (CPU) instructions; llvmlite spends most of
the translation stage on them (a ``NamedValue`` per instruction with string caches, name
registration through two method calls, ``str.format`` with nested ``__str__`` calls to print
it), about two thirds of the stage. These classes keep what llvmlite keeps (operands, flags,
metadata, the name) in ``__slots__``, register names with llvmlite's own rule in the function's
own ``NameScope`` (so an unnamed value is ``%".7"`` exactly where llvmlite would number it 7),
and print with one f-string each, in llvmlite's spelling, spaces included.

Everything else stays ``llvmlite.ir``: the module, globals, functions and their arguments, basic
blocks (``ir.Block.descr`` prints these instructions through ``str``), types, constants,
metadata, inline asm (``InlineAsm`` here only formats its reference once). Instructions from
llvmlite's own builder may sit in the same blocks. :func:`module_text` is ``str(module)`` with
the bodies printed here, each instruction formatted once into one list.
What llvmlite's builder checks, this one checks with the same exceptions (operand types of
binary ops, stores, calls and aggregates). Not here: ``invoke``, ``landingpad``, ``switch``,
``indirectbr``, ``shufflevector``, the ``*_with_overflow`` and bit-counting helpers, debug
metadata on the builder (``debug_metadata``); the translation uses none of them
(tests/codegen/test_llvm_builder.py compares this builder's text with llvmlite's on the same
calls).
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from llvmlite.ir import instructions as _li
from llvmlite.ir import types as _lt
from llvmlite.ir.values import MetaDataArgument

__all__ = [
    "AllocaInstr",
    "Branch",
    "CallInstr",
    "CastInstr",
    "CompareInstr",
    "ConditionalBranch",
    "ExtractElement",
    "ExtractValue",
    "FCMPInstr",
    "Fence",
    "GEPInstr",
    "ICMPInstr",
    "IRBuilder",
    "InlineAsm",
    "InsertElement",
    "InsertValue",
    "Instruction",
    "LoadInstr",
    "PhiInstr",
    "Ret",
    "SelectInstr",
    "StoreInstr",
    "Unreachable",
    "function_text",
    "module_text",
]

_CMP = {">": "gt", "<": "lt", "==": "eq", "!=": "ne", ">=": "ge", "<=": "le"}
_VOID = ir.VoidType()
_I1 = ir.IntType(1)
_VoidType = _lt.VoidType
_IntType = _lt.IntType
_PointerType = _lt.PointerType
_VectorType = _lt.VectorType
_MetaDataType = _lt.MetaDataType


def unique_name(scope: Any, name: str) -> str:
    """``scope.register(name, deduplicate=True)`` of llvmlite's ``NameScope``, inlined: a name
    already used gets the next ``.N`` of its base name (``""`` gives ``.1``, ``.2``, ...)."""
    used = scope._useset
    if name in used:
        counts = scope._basenamemap
        base = name
        while name in used:
            n = counts[base] + 1
            counts[base] = n
            name = f"{base}.{n}"
    used.add(name)
    return name


def _same_type(a: Any, b: Any) -> bool:
    return a is b or a == b


def _typed_list(values: Any) -> str:
    """``type ref, type ref, ...``: how llvmlite prints operand lists."""
    return ", ".join([f"{v.type} {v.get_reference()}" for v in values])


class Instruction(ir.values.Value):
    """An instruction with llvmlite's generic form (``opname [flags] type op, op``); the base
    of the others, and of instruction classes defined elsewhere (``descr(buf)`` as llvmlite's)."""

    __slots__ = ("_name", "_ref", "flags", "metadata", "operands", "opname", "parent", "type")

    def __init__(
        self, parent: Any, typ: Any, opname: str, operands: Any, name: str = "", flags: Any = ()
    ) -> None:
        self.parent = parent
        self.type = typ
        self.opname = opname
        self.operands = operands
        self.flags = flags
        self.metadata: dict[str, Any] | None = None
        self._name = unique_name(parent.scope, name)
        self._ref: str | None = None

    # -- naming -------------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @name.setter
    def name(self, name: str) -> None:
        self._name = unique_name(self.parent.scope, name)
        self._ref = None

    def get_reference(self) -> str:
        ref = self._ref
        if ref is None:
            name = self._name
            if "\\" in name or '"' in name:
                name = name.replace("\\", "\\5c").replace('"', "\\22")
            ref = self._ref = f'%"{name}"'
        return ref

    @property
    def function(self) -> Any:
        return self.parent.function

    @property
    def module(self) -> Any:
        return self.parent.function.module

    # -- metadata -----------------------------------------------------------------------------
    def set_metadata(self, name: str, node: Any) -> None:
        if self.metadata is None:
            self.metadata = {}
        self.metadata[name] = node

    def _stringify_metadata(self, leading_comma: bool = False) -> str:
        md = self.metadata
        if not md:
            return ""
        text = ", ".join(f"!{k} {v.get_reference()}" for k, v in md.items())
        return ", " + text if leading_comma else text

    # -- text ---------------------------------------------------------------------------------
    def descr(self, buf: list[str]) -> None:
        buf.append(self._body())

    def _body(self) -> str:
        """The instruction's text after ``%x = `` (trailing spaces are stripped by ``str``)."""
        opname = " ".join((self.opname, *self.flags)) if self.flags else self.opname
        ops = ", ".join([op.get_reference() for op in self.operands])
        return f"{opname} {self.type} {ops}{self._stringify_metadata(True)}"

    def _body_from_descr(self) -> str:
        buf: list[str] = []
        self.descr(buf)
        return "".join(buf)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "descr" in cls.__dict__ and "_body" not in cls.__dict__:
            cls._body = Instruction._body_from_descr  # prints itself as llvmlite's do

    def __str__(self) -> str:
        if isinstance(self.type, _VoidType):
            return self._body().rstrip()
        return f"{self.get_reference()} = {self._body()}".rstrip()

    def __repr__(self) -> str:
        return (
            f"<{type(self).__name__} {self._name!r} of type '{self.type}', opname "
            f"{self.opname!r}, operands {self.operands!r}>"
        )


class _Binary(Instruction):
    __slots__ = ()

    def _body(self) -> str:
        a, b = self.operands
        opname = " ".join((self.opname, *self.flags)) if self.flags else self.opname
        return f"{opname} {self.type} {a.get_reference()}, {b.get_reference()}{self._stringify_metadata(True)}"


class CastInstr(Instruction):
    __slots__ = ()

    def __init__(self, parent: Any, op: str, val: Any, typ: Any, name: str = "") -> None:
        super().__init__(parent, typ, op, [val], name)

    def _body(self) -> str:
        (v,) = self.operands
        return f"{self.opname} {v.type} {v.get_reference()} to {self.type} {self._stringify_metadata(True)}"


class CompareInstr(Instruction):
    __slots__ = ("op",)
    OPNAME = "invalid-compare"
    VALID_OP: Any = ()
    VALID_FLAG: Any = ()

    def __init__(
        self, parent: Any, op: str, lhs: Any, rhs: Any, name: str = "", flags: Any = ()
    ) -> None:
        if op not in self.VALID_OP:
            raise ValueError(f"invalid comparison {op!r} for {self.OPNAME}")
        for flag in flags:
            if flag not in self.VALID_FLAG:
                raise ValueError(f"invalid flag {flag!r} for {self.OPNAME}")
        t = lhs.type
        typ = _VectorType(_I1, t.count) if isinstance(t, _VectorType) else _I1
        super().__init__(parent, typ, self.OPNAME, [lhs, rhs], name, flags)
        self.op = op

    def _body(self) -> str:
        a, b = self.operands
        flags = "".join(" " + f for f in self.flags)
        return (
            f"{self.opname}{flags} {self.op} {a.type} {a.get_reference()}, {b.get_reference()} "
            f"{self._stringify_metadata(True)}"
        )


class ICMPInstr(CompareInstr):
    __slots__ = ()
    OPNAME = "icmp"
    VALID_OP = _li.ICMPInstr.VALID_OP
    VALID_FLAG = _li.ICMPInstr.VALID_FLAG


class FCMPInstr(CompareInstr):
    __slots__ = ()
    OPNAME = "fcmp"
    VALID_OP = _li.FCMPInstr.VALID_OP
    VALID_FLAG = _li.FCMPInstr.VALID_FLAG


class SelectInstr(Instruction):
    __slots__ = ()

    def __init__(
        self, parent: Any, cond: Any, lhs: Any, rhs: Any, name: str = "", flags: Any = ()
    ) -> None:
        assert _same_type(lhs.type, rhs.type)
        super().__init__(parent, lhs.type, "select", [cond, lhs, rhs], name, flags)

    def _body(self) -> str:
        c, a, b = self.operands
        return (
            f"select {' '.join(self.flags)} {c.type} {c.get_reference()}, {a.type} "
            f"{a.get_reference()}, {b.type} {b.get_reference()} {self._stringify_metadata(True)}"
        )


class LoadInstr(Instruction):
    __slots__ = ("align",)

    def __init__(self, parent: Any, ptr: Any, name: str = "", typ: Any = None) -> None:
        if typ is None:
            if isinstance(ptr, AllocaInstr):
                typ = ptr.allocated_type
            elif not ptr.type.is_opaque:
                typ = ptr.type.pointee
            else:
                raise ValueError("Load lacks type.")
        super().__init__(parent, typ, "load", [ptr], name)
        self.align: int | None = None

    def _body(self) -> str:
        (p,) = self.operands
        align = "" if self.align is None else f", align {self.align:d}"
        return (
            f"load {self.type}, {p.type} {p.get_reference()}{align}{self._stringify_metadata(True)}"
        )


class StoreInstr(Instruction):
    __slots__ = ("align",)

    def __init__(self, parent: Any, val: Any, ptr: Any) -> None:
        super().__init__(parent, _VOID, "store", [val, ptr])
        self.align: int | None = None

    def _body(self) -> str:
        v, p = self.operands
        align = "" if self.align is None else f", align {self.align:d}"
        return (
            f"store {v.type} {v.get_reference()}, {p.type} {p.get_reference()}{align}"
            f"{self._stringify_metadata(True)}"
        )


class AllocaInstr(Instruction):
    __slots__ = ("align", "allocated_type")

    def __init__(self, parent: Any, typ: Any, count: Any, name: str) -> None:
        super().__init__(parent, typ.as_pointer(), "alloca", [count] if count else (), name)
        self.allocated_type = typ
        self.align: int | None = None

    def _body(self) -> str:
        text = f"{self.opname} {self.allocated_type}"
        if self.operands:
            (n,) = self.operands
            text += f", {n.type} {n.get_reference()}"
        if self.align is not None:
            text += f", align {self.align}"
        return text + self._stringify_metadata(True)


class GEPInstr(Instruction):
    __slots__ = ("inbounds", "indices", "pointer", "source_etype")

    def __init__(
        self,
        parent: Any,
        ptr: Any,
        indices: Any,
        inbounds: bool,
        name: str,
        source_etype: Any = None,
        pointer_to: Any = None,
    ) -> None:
        """``pointer_to(type, addrspace)`` makes the result's pointer type (``as_pointer``
        unless given: the builder passes its cache)."""
        if source_etype is not None:
            typ = ptr.type
        elif not ptr.type.is_opaque:
            typ = ptr.type
            lasttyp = None
            lastaddrspace = 0
            for i in indices:
                lasttyp, typ = typ, typ.gep(i)
                if isinstance(lasttyp, _PointerType):
                    lastaddrspace = lasttyp.addrspace
            if not isinstance(typ, _PointerType) and isinstance(lasttyp, _PointerType):
                typ = lasttyp
            elif pointer_to is not None:
                typ = pointer_to(typ, lastaddrspace)
            else:
                typ = typ.as_pointer(lastaddrspace)
            source_etype = ptr.type.pointee
        else:
            raise ValueError("GEP lacks type.")
        super().__init__(parent, typ, "getelementptr", [ptr, *indices], name)
        self.source_etype = source_etype
        self.pointer = ptr
        self.indices = indices
        self.inbounds = inbounds

    def _body(self) -> str:
        p = self.pointer
        indices = _typed_list(self.indices)
        op = "getelementptr inbounds" if self.inbounds else "getelementptr"
        return (
            f"{op} {self.source_etype}, {p.type} {p.get_reference()}, {indices} "
            f"{self._stringify_metadata(True)}"
        )


class PhiInstr(Instruction):
    __slots__ = ("incomings",)

    def __init__(self, parent: Any, typ: Any, name: str, flags: Any = ()) -> None:
        super().__init__(parent, typ, "phi", (), name, flags)
        self.incomings: list[tuple[Any, Any]] = []

    def add_incoming(self, value: Any, block: Any) -> None:
        assert isinstance(block, ir.Block)
        self.incomings.append((value, block))

    def _body(self) -> str:
        incs = ", ".join([f"[{v.get_reference()}, {b.get_reference()}]" for v, b in self.incomings])
        return f"phi {' '.join(self.flags)} {self.type} {incs} {self._stringify_metadata(True)}"


class CallInstr(Instruction):
    __slots__ = ("arg_attributes", "attributes", "cconv", "fastmath", "tail")

    def __init__(
        self,
        parent: Any,
        func: Any,
        args: Any,
        name: str = "",
        cconv: str | None = None,
        tail: Any = None,
        fastmath: Any = (),
        attrs: Any = (),
        arg_attrs: Any = None,
    ) -> None:
        self.cconv = (
            func.calling_convention if cconv is None and isinstance(func, ir.Function) else cconv
        )
        if not (isinstance(tail, str) and tail in _li.TailMarkerOptions):
            tail = "tail" if tail else ""
        self.tail = tail
        self.fastmath = _li.FastMathFlags(fastmath) if fastmath else ()
        self.attributes = _li.CallInstrAttributes(attrs) if attrs else ()
        self.arg_attributes: dict[int, Any] = {}
        if arg_attrs:
            for idx, a in arg_attrs.items():
                if not (0 <= idx < len(args)):
                    raise ValueError(f"Invalid argument index {idx}")
                self.arg_attributes[idx] = ir.values.ArgumentAttributes(a)
        fnty = func.function_type
        args = list(args)
        for i, expected in enumerate(fnty.args):
            arg = args[i]
            t = arg.type
            if t is expected:
                continue
            if isinstance(expected, _MetaDataType) and t != expected:
                arg = args[i] = MetaDataArgument(arg)
                t = arg.type
            if t != expected:
                raise TypeError(f"Type of #{1 + i} arg mismatch: {expected} != {t}")
        super().__init__(parent, fnty.return_type, "call", [func, *args], name)

    @property
    def callee(self) -> Any:
        return self.operands[0]

    @property
    def args(self) -> Any:
        return self.operands[1:]

    def _body(self) -> str:
        callee, *args = self.operands
        fnty = callee.function_type
        ty = fnty if fnty.var_arg else fnty.return_type
        callee_ref = f"{ty} {callee.get_reference()}"
        if self.cconv:
            callee_ref = f"{self.cconv} {callee_ref}"
        arg_attrs = self.arg_attributes
        if arg_attrs:
            parts = []
            for i, a in enumerate(args):
                at = arg_attrs.get(i)
                attrs = " ".join(at._to_list(a.type)) + " " if at is not None else ""
                parts.append(f"{a.type} {attrs}{a.get_reference()}")
            text = ", ".join(parts)
        else:
            text = _typed_list(args)
        tail = f"{self.tail} " if self.tail else ""
        # AttributeSet._to_list of call and fast-math attributes: their names, sorted
        fn_attrs = " " + " ".join(sorted(self.attributes)) if self.attributes else ""
        fm = " " + " ".join(sorted(self.fastmath)) if self.fastmath else ""
        return f"{tail}call{fm} {callee_ref}({text}){fn_attrs}{self._stringify_metadata(True)}"


class Branch(Instruction):
    """``br label %dest`` (llvmlite's ``Terminator`` form)."""

    __slots__ = ()

    def _body(self) -> str:
        ops = _typed_list(self.operands)
        return f"{self.opname} {ops}{self._stringify_metadata(True)}"


class ConditionalBranch(Branch):
    __slots__ = ()


class Ret(Instruction):
    __slots__ = ()

    def _body(self) -> str:
        md = self._stringify_metadata(True)
        if self.operands:
            (v,) = self.operands
            return f"{self.opname} {v.type} {v.get_reference()}{md}"
        return f"{self.opname}{md}"


class Unreachable(Instruction):
    __slots__ = ()

    def _body(self) -> str:
        return self.opname


class ExtractElement(Instruction):
    __slots__ = ()

    def _body(self) -> str:
        ops = _typed_list(self.operands)
        return f"{self.opname} {ops}"


class InsertElement(ExtractElement):
    __slots__ = ()


class ExtractValue(Instruction):
    __slots__ = ("aggregate", "indices")

    def __init__(self, parent: Any, agg: Any, indices: Any, name: str = "") -> None:
        typ = agg.type
        try:
            for i in indices:
                typ = typ.elements[i]
        except (AttributeError, IndexError):
            raise TypeError(f"Can't index at {list(indices)!r} in {agg.type}") from None
        super().__init__(parent, typ, "extractvalue", [agg], name)
        self.aggregate = agg
        self.indices = indices

    def _body(self) -> str:
        a = self.aggregate
        indices = ", ".join([str(i) for i in self.indices])
        return (
            f"extractvalue {a.type} {a.get_reference()}, {indices} {self._stringify_metadata(True)}"
        )


class InsertValue(Instruction):
    __slots__ = ("aggregate", "indices", "value")

    def __init__(self, parent: Any, agg: Any, elem: Any, indices: Any, name: str = "") -> None:
        typ = agg.type
        try:
            for i in indices:
                typ = typ.elements[i]
        except (AttributeError, IndexError):
            raise TypeError(f"Can't index at {list(indices)!r} in {agg.type}") from None
        if not _same_type(elem.type, typ):
            raise TypeError(
                f"Can only insert {typ} at {list(indices)!r} in {agg.type}: got {elem.type}"
            )
        super().__init__(parent, agg.type, "insertvalue", [agg, elem], name)
        self.aggregate = agg
        self.value = elem
        self.indices = indices

    def _body(self) -> str:
        a, v = self.aggregate, self.value
        indices = ", ".join([str(i) for i in self.indices])
        return (
            f"insertvalue {a.type} {a.get_reference()}, {v.type} {v.get_reference()}, "
            f"{indices} {self._stringify_metadata(True)}"
        )


class Fence(Instruction):
    __slots__ = ("ordering", "targetscope")

    def __init__(
        self, parent: Any, ordering: str, targetscope: str | None = None, name: str = ""
    ) -> None:
        if ordering not in _li.Fence.VALID_FENCE_ORDERINGS:
            raise ValueError(
                f'Invalid fence ordering "{ordering}"! Should be one of '
                f"{', '.join(_li.Fence.VALID_FENCE_ORDERINGS)}."
            )
        super().__init__(parent, _VOID, "fence", (), name)
        self.ordering = ordering
        self.targetscope = targetscope

    def _body(self) -> str:
        scope = "" if self.targetscope is None else f'syncscope("{self.targetscope}") '
        return f"fence {scope}{self.ordering}"


class InlineAsm(ir.InlineAsm):
    """``ir.InlineAsm`` whose reference (``asm sideeffect "..", ".."``, printed at every call)
    is formatted once: its code, constraints and side effects are fixed once it is called."""

    _ref: str | None = None

    def get_reference(self) -> str:
        ref = self._ref
        if ref is None:
            ref = self._ref = super().get_reference()
        return ref


def module_text(module: ir.Module) -> str:
    """``str(module)``, byte for byte, with the function bodies printed here: each
    instruction's text goes straight into one list (llvmlite formats every line twice, the
    instruction and then ``"  {0}\n".format`` of it). Blocks may hold llvmlite's instructions
    too (printed by ``str``)."""
    lines = [
        f'; ModuleID = "{module.name}"',
        f'target triple = "{module.triple}"',
        f'target datalayout = "{module.data_layout}"',
        "",
    ]
    lines += [t.get_declaration() for t in module.get_identified_types().values()]
    for value in module.globals.values():
        if isinstance(value, ir.Function) and value.blocks:
            lines.append(function_text(value))
        else:
            lines.append(str(value))
    lines += module._get_metadata_lines()
    return "\n".join(lines)


def function_text(fn: ir.Function) -> str:
    """``str(fn)`` of a defined function (see :func:`module_text`)."""
    buf: list[str] = []
    fn.descr_prototype(buf)
    buf.append("{\n")
    append = buf.append
    mine = Instruction
    void = _VoidType
    for block in fn.blocks:
        append(f"{block._format_name()}:\n")
        for i in block.instructions:
            if not isinstance(i, mine):
                append(f"  {i}\n")
            elif isinstance(i.type, void):
                append(f"  {i._body()}".rstrip() + "\n")
            else:  # the same text as str(i)
                append(f"  {i.get_reference()} = {i._body()}".rstrip() + "\n")
    append("}\n")
    return "".join(buf)


def _binop(opname: str) -> Any:
    def build(self: IRBuilder, lhs: Any, rhs: Any, name: str = "", flags: Any = ()) -> Any:
        t = lhs.type
        if t is not rhs.type and t != rhs.type:
            raise ValueError(f"Operands must be the same type, got ({t}, {rhs.type})")
        return self._insert(_Binary(self._block, t, opname, (lhs, rhs), name, flags))

    build.__name__ = build.__qualname__ = opname
    return build


def _castop(opname: str) -> Any:
    def build(self: IRBuilder, value: Any, typ: Any, name: str = "") -> Any:
        t = value.type
        if t is typ or t == typ:
            return value
        return self._insert(CastInstr(self._block, opname, value, typ, name))

    build.__name__ = build.__qualname__ = opname
    return build


class IRBuilder:
    """llvmlite's ``ir.IRBuilder`` for the instructions above (same methods, arguments, checks
    and text)."""

    __slots__ = ("_anchor", "_block", "_pointers")

    def __init__(self, block: Any = None) -> None:
        self._block = block
        self._anchor = len(block.instructions) if block else 0
        self._pointers: dict[tuple[int, int], Any] = {}

    def _pointer_to(self, typ: Any, addrspace: int) -> Any:
        """``typ.as_pointer(addrspace)``, one object per pair for this builder (llvmlite caches
        a type's text on the object; the cached pointer keeps ``typ``, so its id, alive)."""
        key = (id(typ), addrspace)
        got = self._pointers.get(key)
        if got is None:
            got = self._pointers[key] = typ.as_pointer(addrspace)
        return got

    @property
    def block(self) -> Any:
        return self._block

    basic_block = block

    @property
    def function(self) -> Any:
        return self._block.parent

    @property
    def module(self) -> Any:
        return self._block.parent.module

    def position_at_end(self, block: Any) -> None:
        self._block = block
        self._anchor = len(block.instructions)

    def position_at_start(self, block: Any) -> None:
        self._block = block
        self._anchor = 0

    def position_before(self, instr: Any) -> None:
        self._block = instr.parent
        self._anchor = self._block.instructions.index(instr)

    def position_after(self, instr: Any) -> None:
        self._block = instr.parent
        self._anchor = self._block.instructions.index(instr) + 1

    def append_basic_block(self, name: str = "") -> Any:
        return self.function.append_basic_block(name)

    def _insert(self, instr: Any) -> Any:
        block = self._block
        anchor = self._anchor
        if anchor == len(block.instructions):
            block.instructions.append(instr)
        else:
            block.instructions.insert(anchor, instr)
        self._anchor = anchor + 1
        return instr

    def _set_terminator(self, term: Any) -> Any:
        assert not self._block.is_terminated
        self._insert(term)
        self._block.terminator = term
        return term

    # -- arithmetic ---------------------------------------------------------------------------
    shl = _binop("shl")
    lshr = _binop("lshr")
    ashr = _binop("ashr")
    add = _binop("add")
    fadd = _binop("fadd")
    sub = _binop("sub")
    fsub = _binop("fsub")
    mul = _binop("mul")
    fmul = _binop("fmul")
    udiv = _binop("udiv")
    sdiv = _binop("sdiv")
    fdiv = _binop("fdiv")
    urem = _binop("urem")
    srem = _binop("srem")
    frem = _binop("frem")
    or_ = _binop("or")
    and_ = _binop("and")
    xor = _binop("xor")

    def not_(self, value: Any, name: str = "") -> Any:
        t = value.type
        rhs = ir.Constant(t, (-1,) * t.count) if isinstance(t, _VectorType) else ir.Constant(t, -1)
        return self.xor(value, rhs, name=name)

    def neg(self, value: Any, name: str = "") -> Any:
        return self.sub(ir.Constant(value.type, 0), value, name=name)

    def fneg(self, arg: Any, name: str = "", flags: Any = ()) -> Any:
        return self._insert(Instruction(self._block, arg.type, "fneg", [arg], name, flags))

    # -- comparisons --------------------------------------------------------------------------
    def _icmp(self, prefix: str, cmpop: str, lhs: Any, rhs: Any, name: str) -> Any:
        op = _CMP.get(cmpop)
        if op is None:
            raise ValueError(f"invalid comparison {cmpop!r} for icmp")
        if cmpop not in ("==", "!="):
            op = prefix + op
        return self._insert(ICMPInstr(self._block, op, lhs, rhs, name))

    def icmp_signed(self, cmpop: str, lhs: Any, rhs: Any, name: str = "") -> Any:
        return self._icmp("s", cmpop, lhs, rhs, name)

    def icmp_unsigned(self, cmpop: str, lhs: Any, rhs: Any, name: str = "") -> Any:
        return self._icmp("u", cmpop, lhs, rhs, name)

    def fcmp_ordered(self, cmpop: str, lhs: Any, rhs: Any, name: str = "", flags: Any = ()) -> Any:
        op = "o" + _CMP[cmpop] if cmpop in _CMP else cmpop
        return self._insert(FCMPInstr(self._block, op, lhs, rhs, name, flags))

    def fcmp_unordered(
        self, cmpop: str, lhs: Any, rhs: Any, name: str = "", flags: Any = ()
    ) -> Any:
        op = "u" + _CMP[cmpop] if cmpop in _CMP else cmpop
        return self._insert(FCMPInstr(self._block, op, lhs, rhs, name, flags))

    def select(self, cond: Any, lhs: Any, rhs: Any, name: str = "", flags: Any = ()) -> Any:
        return self._insert(SelectInstr(self._block, cond, lhs, rhs, name, flags))

    # -- casts --------------------------------------------------------------------------------
    trunc = _castop("trunc")
    zext = _castop("zext")
    sext = _castop("sext")
    fptrunc = _castop("fptrunc")
    fpext = _castop("fpext")
    bitcast = _castop("bitcast")
    addrspacecast = _castop("addrspacecast")
    fptoui = _castop("fptoui")
    uitofp = _castop("uitofp")
    fptosi = _castop("fptosi")
    sitofp = _castop("sitofp")
    ptrtoint = _castop("ptrtoint")
    inttoptr = _castop("inttoptr")

    # -- memory -------------------------------------------------------------------------------
    def alloca(self, typ: Any, size: Any = None, name: str = "") -> Any:
        if size is not None and not isinstance(size, ir.Value | Instruction):
            size = ir.Constant(_IntType(32), size)
        return self._insert(AllocaInstr(self._block, typ, size, name))

    def load(self, ptr: Any, name: str = "", align: int | None = None, typ: Any = None) -> Any:
        if not isinstance(ptr.type, _PointerType):
            raise TypeError(
                f"cannot load from value of type {ptr.type} ({str(ptr)!r}): not a pointer"
            )
        instr = LoadInstr(self._block, ptr, name, typ)
        instr.align = align
        return self._insert(instr)

    def store(self, value: Any, ptr: Any, align: int | None = None) -> Any:
        pt = ptr.type
        if not isinstance(pt, _PointerType):
            raise TypeError(f"cannot store to value of type {pt} ({str(ptr)!r}): not a pointer")
        if not pt.is_opaque and not _same_type(pt.pointee, value.type):
            raise TypeError(f"cannot store {value.type} to {pt}: mismatching types")
        instr = StoreInstr(self._block, value, ptr)
        instr.align = align
        return self._insert(instr)

    def gep(
        self, ptr: Any, indices: Any, inbounds: bool = False, name: str = "", source_etype=None
    ) -> Any:
        return self._insert(
            GEPInstr(self._block, ptr, indices, inbounds, name, source_etype, self._pointer_to)
        )

    # -- control flow -------------------------------------------------------------------------
    def branch(self, target: Any) -> Any:
        return self._set_terminator(Branch(self._block, _VOID, "br", [target]))

    def cbranch(self, cond: Any, truebr: Any, falsebr: Any) -> Any:
        return self._set_terminator(
            ConditionalBranch(self._block, _VOID, "br", [cond, truebr, falsebr])
        )

    def ret_void(self) -> Any:
        return self._set_terminator(Ret(self._block, _VOID, "ret void", []))

    def ret(self, value: Any) -> Any:
        return self._set_terminator(Ret(self._block, _VOID, "ret", [value]))

    def unreachable(self) -> Any:
        return self._set_terminator(Unreachable(self._block, _VOID, "unreachable", ()))

    def phi(self, typ: Any, name: str = "", flags: Any = ()) -> Any:
        return self._insert(PhiInstr(self._block, typ, name, flags))

    # -- calls --------------------------------------------------------------------------------
    def call(
        self,
        fn: Any,
        args: Any,
        name: str = "",
        cconv: str | None = None,
        tail: Any = False,
        fastmath: Any = (),
        attrs: Any = (),
        arg_attrs: Any = None,
    ) -> Any:
        return self._insert(
            CallInstr(self._block, fn, args, name, cconv, tail, fastmath, attrs, arg_attrs)
        )

    def asm(
        self, ftype: Any, asm: str, constraint: str, args: Any, side_effect: bool, name: str = ""
    ) -> Any:
        return self.call(InlineAsm(ftype, asm, constraint, side_effect), args, name)

    def fence(self, ordering: str, targetscope: str | None = None, name: str = "") -> Any:
        return self._insert(Fence(self._block, ordering, targetscope, name))

    # -- vectors and aggregates ---------------------------------------------------------------
    def extract_element(self, vector: Any, idx: Any, name: str = "") -> Any:
        if not isinstance(vector.type, _VectorType):
            raise TypeError("vector needs to be of VectorType.")
        if not isinstance(idx.type, _IntType):
            raise TypeError("index needs to be of IntType.")
        return self._insert(
            ExtractElement(self._block, vector.type.element, "extractelement", [vector, idx], name)
        )

    def insert_element(self, vector: Any, value: Any, idx: Any, name: str = "") -> Any:
        vt = vector.type
        if not isinstance(vt, _VectorType):
            raise TypeError("vector needs to be of VectorType.")
        if not _same_type(value.type, vt.element):
            raise TypeError(f"value needs to be of type {vt.element} not {value.type}.")
        if not isinstance(idx.type, _IntType):
            raise TypeError("index needs to be of IntType.")
        return self._insert(
            InsertElement(self._block, vt, "insertelement", [vector, value, idx], name)
        )

    def extract_value(self, agg: Any, idx: Any, name: str = "") -> Any:
        if not isinstance(idx, (tuple, list)):
            idx = [idx]
        return self._insert(ExtractValue(self._block, agg, idx, name))

    def insert_value(self, agg: Any, value: Any, idx: Any, name: str = "") -> Any:
        if not isinstance(idx, (tuple, list)):
            idx = [idx]
        return self._insert(InsertValue(self._block, agg, value, idx, name))
