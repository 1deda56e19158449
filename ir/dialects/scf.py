"""The scf dialect: structured control flow (``scf.for``, ``scf.if``, ``scf.while``,
``scf.yield``, ``scf.condition``) with MLIR's operands, regions and custom forms, and the
canonicalizations that remove constant conditions and trivial loops.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.asm import Argument, OpAsmParser, OpAsmPrinter, UnresolvedOperand
from ..core.attributes import IntegerAttr, UnitAttr
from ..core.block import Block, Region
from ..core.constraints import I1, SignlessIntegerOrIndex
from ..core.context import Dialect
from ..core.errors import VerifyError
from ..core.folding import constant_value
from ..core.location import Location
from ..core.opdef import operand, opt_prop, region, var_operand, var_result
from ..core.operation import Operation
from ..core.rewrite import PatternRewriter, RewritePattern, lazy_patterns
from ..core.traits import (
    HasParent,
    NoRegionArguments,
    Pure,
    RecursiveMemoryEffects,
    ReturnLike,
    SingleBlock,
    SingleBlockImplicitTerminator,
    Terminator,
)
from ..core.types import FunctionType, IndexType, Type, index
from ..core.values import BlockArgument, Value


class YieldOp(Operation):
    """``scf.yield %a, %b : i32, f32`` ends the regions of scf ops, passing values out."""

    name = "scf.yield"
    assembly_format = "attr-dict ($results_^ `:` type($results_))?"
    traits = (
        Pure,
        Terminator,
        ReturnLike,
        HasParent("scf.for", "scf.if", "scf.while", "scf.execute_region", "scf.index_switch"),
    )
    results_ = var_operand()

    def __init__(self, *values: Value, loc: Location | None = None):
        super().__init__(operands=[list(values)], loc=loc)


def _ensure_yield(region: Region, loc: Location) -> None:
    """Append the implicit ``scf.yield`` that custom forms may omit."""
    if not region.blocks:
        region.add_block(Block())
    block = region.blocks[0]
    last = block.last_op
    if last is None or not last.has_trait(Terminator):
        block.append(YieldOp(loc=loc))


def _check_yield(
    op: Operation, region: Region, index: int, types: Sequence[Type], what: str
) -> None:
    if not region.blocks:
        return
    term = region.blocks[0].last_op
    if not isinstance(term, YieldOp):
        return
    got = term.operands
    if len(got) != len(types):
        raise VerifyError(
            f"region control flow edge from Region #{index} to {what}: source has "
            f"{len(got)} operands, but target successor needs {len(types)}"
        )
    for i, (v, t) in enumerate(zip(got, types)):
        if v.type is not t:
            raise VerifyError(
                f"along control flow edge from Region #{index} to {what}: source type #{i} "
                f"'{v.type.text}' should match input type #{i} '{t.text}'"
            )


def _print_init_list(
    p: OpAsmPrinter, args: Sequence[BlockArgument], inits: Sequence[Value]
) -> None:
    p.write("(")
    for i, (a, v) in enumerate(zip(args, inits)):
        if i:
            p.write(", ")
        p.print_block_argument(a, with_type=False)
        p.write(" = ")
        p.print_operand(v)
    p.write(")")


def _parse_init_list(p: OpAsmParser) -> tuple[list[Argument], list[UnresolvedOperand]]:
    args: list[Argument] = []
    inits: list[UnresolvedOperand] = []

    def one() -> None:
        args.append(p.parse_argument(with_type=False))
        p.expect("=")
        inits.append(p.parse_operand())

    p.parse_comma_separated("(", one, "in initialization list")
    return args, inits


class ForOp(Operation):
    """``scf.for %i = %lb to %ub step %s iter_args(%acc = %init) -> (f32) { ... }``."""

    name = "scf.for"
    traits = (SingleBlockImplicitTerminator("scf.yield"), RecursiveMemoryEffects)
    lowerBound = operand(SignlessIntegerOrIndex)
    upperBound = operand(SignlessIntegerOrIndex)
    step = operand(SignlessIntegerOrIndex)
    initArgs = var_operand()
    results_ = var_result()
    unsignedCmp = opt_prop(UnitAttr)
    body = region()

    @lazy_patterns
    def canonicalization_patterns() -> tuple[RewritePattern, ...]:
        return (ForTrivialTripCount(),)

    def __init__(
        self,
        lower: Value,
        upper: Value,
        step: Value,
        init_args: Sequence[Value] = (),
        loc: Location | None = None,
    ):
        """A loop whose body block has the induction variable and iteration arguments.

        Without ``init_args`` the body is given its ``scf.yield``; otherwise the caller
        appends ``scf.yield`` with the next values.
        """
        block = Block([lower.type, *(v.type for v in init_args)])
        super().__init__(
            operands=[lower, upper, step, list(init_args)],
            result_types=[[v.type for v in init_args]],
            regions=[Region([block])],
            loc=loc,
        )
        if not init_args:
            block.append(YieldOp(loc=loc))

    @property
    def induction_var(self) -> BlockArgument:
        return self.body.blocks[0].args[0]

    @property
    def region_iter_args(self) -> list[BlockArgument]:
        return self.body.blocks[0].args[1:]

    @property
    def body_block(self) -> Block:
        return self.body.blocks[0]

    def verify_(self) -> None:
        t = self.lowerBound.type
        if self.upperBound.type is not t or self.step.type is not t:
            raise VerifyError(
                "failed to verify that all of {lowerBound, upperBound, step} have same type"
            )
        step = constant_value(self.step)
        if isinstance(step, IntegerAttr) and step.signed_value <= 0:
            raise VerifyError("constant step operand must be positive")
        inits = self.initArgs
        if len(inits) != len(self.results):
            raise VerifyError("mismatch in number of loop-carried values and defined values")
        for i, (v, r) in enumerate(zip(inits, self.results)):
            if v.type is not r.type:
                raise VerifyError(f"types mismatch between {i}th iter operand and defined value")
        if not self.body.blocks:
            raise VerifyError("expects a non-empty body region")
        args = self.body.blocks[0].args
        if len(args) != 1 + len(inits):
            raise VerifyError(
                f"expects the body to have {1 + len(inits)} arguments (induction variable and "
                f"iteration arguments), but it has {len(args)}"
            )
        if args[0].type is not t:
            raise VerifyError("expected induction variable to be same type as bounds and step")
        for i, (a, v) in enumerate(zip(args[1:], inits)):
            if a.type is not v.type:
                raise VerifyError(
                    f"types mismatch between iter operand #{i} ('{v.type.text}') and region "
                    f"iter argument ('{a.type.text}')"
                )
        _check_yield(self, self.body, 0, [r.type for r in self.results], "parent results")

    def print_custom(self, p: OpAsmPrinter) -> None:
        if self.unsignedCmp is not None:
            p.write(" unsigned")
        p.write(" ")
        p.print_block_argument(self.induction_var, with_type=False)
        p.write(" = ")
        p.print_operand(self.lowerBound)
        p.write(" to ")
        p.print_operand(self.upperBound)
        p.write(" step ")
        p.print_operand(self.step)
        inits = self.initArgs
        if inits:
            p.write(" iter_args")
            _print_init_list(p, self.region_iter_args, inits)
            p.write(" -> (")
            p.print_types(v.type for v in inits)
            p.write(")")
        t = self.induction_var.type
        if not isinstance(t, IndexType):
            p.write(f" : {t.text}")
        p.write(" ")
        p.print_region(self.body, print_entry_block_args=False, print_block_terminators=bool(inits))
        p.print_attr_dict(self, elided=("unsignedCmp",))

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> ForOp:
        unsigned = p.accept("unsigned")
        iv = p.parse_argument(with_type=False)
        p.expect("=")
        lb = p.parse_operand()
        p.parse_keyword("to")
        ub = p.parse_operand()
        p.parse_keyword("step")
        step = p.parse_operand()
        args: list[Argument] = []
        inits: list[UnresolvedOperand] = []
        types: list[Type] = []
        if p.accept("iter_args"):
            args, inits = _parse_init_list(p)
            at = p.pos
            types = p.parse_arrow_type_list()
            if len(types) != len(inits):
                raise p.error(
                    f"expected {len(inits)} types for the iteration arguments, got {len(types)}", at
                )
        iv_type: Type = index
        if p.accept(":"):
            iv_type = p.parse_type()
        values = p.resolve_operands([lb, ub, step], [iv_type] * 3)
        init_values = p.resolve_operands(inits, types)
        region_args = [Argument(iv.operand, iv_type, None, None)] + [
            Argument(a.operand, t, None, None) for a, t in zip(args, types)
        ]
        body = p.parse_region(region_args)
        _ensure_yield(body, p.loc)
        attrs = p.parse_optional_attr_dict()
        props = {"unsignedCmp": UnitAttr()} if unsigned else {}
        return cls.create(
            values + init_values,
            types,
            properties=props,
            attributes=attrs,
            regions=[body],
            loc=p.loc,
        )


class IfOp(Operation):
    """``%r = scf.if %c -> (i32) { scf.yield %a : i32 } else { scf.yield %b : i32 }``."""

    name = "scf.if"
    traits = (SingleBlockImplicitTerminator("scf.yield"), RecursiveMemoryEffects, NoRegionArguments)
    condition = operand(I1)
    results_ = var_result()
    thenRegion = region()
    elseRegion = region()

    @lazy_patterns
    def canonicalization_patterns() -> tuple[RewritePattern, ...]:
        return (IfConstantCondition(),)

    def __init__(
        self,
        condition: Value,
        result_types: Sequence[Type] = (),
        with_else: bool = True,
        loc: Location | None = None,
    ):
        """Empty then/else blocks; without results they already end with ``scf.yield``."""
        then_block = Block()
        regions = [Region([then_block]), Region([Block()] if with_else or result_types else [])]
        super().__init__(
            operands=[condition], result_types=[list(result_types)], regions=regions, loc=loc
        )
        if not result_types:
            for r in self.regions:
                if r.blocks:
                    r.blocks[0].append(YieldOp(loc=loc))

    @property
    def then_block(self) -> Block:
        return self.thenRegion.blocks[0]

    @property
    def else_block(self) -> Block | None:
        return self.elseRegion.blocks[0] if self.elseRegion.blocks else None

    def verify_(self) -> None:
        if self.results and not self.elseRegion.blocks:
            raise VerifyError("must have an else block if defining values")
        for i, r in enumerate(self.regions):
            _check_yield(self, r, i, [x.type for x in self.results], "parent results")

    def print_custom(self, p: OpAsmPrinter) -> None:
        p.write(" ")
        p.print_operand(self.condition)
        if self.results:
            p.write(" -> (")
            p.print_types(r.type for r in self.results)
            p.write(")")
        terminators = bool(self.results)
        p.write(" ")
        p.print_region(
            self.thenRegion, print_entry_block_args=False, print_block_terminators=terminators
        )
        if self.elseRegion.blocks:
            p.write(" else ")
            p.print_region(
                self.elseRegion, print_entry_block_args=False, print_block_terminators=terminators
            )
        p.print_attr_dict(self)

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> IfOp:
        cond = p.parse_operand()
        types = p.parse_optional_arrow_type_list()
        value = p.resolve_operand(cond, _i1())
        then_region = p.parse_region([])
        _ensure_yield(then_region, p.loc)
        else_region = Region()
        if p.accept("else"):
            else_region = p.parse_region([])
            _ensure_yield(else_region, p.loc)
        attrs = p.parse_optional_attr_dict()
        return cls.create(
            [value], types, attributes=attrs, regions=[then_region, else_region], loc=p.loc
        )


def _i1() -> Type:
    from ..core.types import i1

    return i1


class ConditionOp(Operation):
    """``scf.condition(%c) %a : i32`` ends the "before" region of ``scf.while``."""

    name = "scf.condition"
    assembly_format = "`(` $condition `)` attr-dict ($args^ `:` type($args))?"
    traits = (Pure, Terminator, HasParent("scf.while"))
    condition = operand(I1)
    args = var_operand()

    def __init__(self, condition: Value, *args: Value, loc: Location | None = None):
        super().__init__(operands=[condition, list(args)], loc=loc)


class WhileOp(Operation):
    """``%r = scf.while (%a = %init) : (i32) -> i32 { ... scf.condition ... } do { ... }``."""

    name = "scf.while"
    traits = (RecursiveMemoryEffects, SingleBlock)
    inits = var_operand()
    results_ = var_result()
    before = region()
    after = region()

    def __init__(
        self, inits: Sequence[Value], result_types: Sequence[Type], loc: Location | None = None
    ):
        """Empty "before" block taking the inits' types and "after" block taking the results'."""
        before = Region([Block([v.type for v in inits])])
        after = Region([Block(result_types)])
        super().__init__(
            operands=[list(inits)],
            result_types=[list(result_types)],
            regions=[before, after],
            loc=loc,
        )

    @property
    def before_block(self) -> Block:
        return self.before.blocks[0]

    @property
    def after_block(self) -> Block:
        return self.after.blocks[0]

    def verify_(self) -> None:
        if not self.before.blocks or not self.after.blocks:
            raise VerifyError("expects non-empty before and after regions")
        init_types = [v.type for v in self.inits]
        result_types = [r.type for r in self.results]
        if [a.type for a in self.before_block.args] != init_types:
            raise VerifyError(
                "expects the 'before' region arguments to match the types of the init values"
            )
        term = self.before_block.last_op
        if not isinstance(term, ConditionOp):
            raise VerifyError("expects the 'before' region to end with 'scf.condition'")
        if [v.type for v in term.args] != result_types:
            raise VerifyError(
                "expects the 'scf.condition' arguments to match the op's result types"
            )
        if [a.type for a in self.after_block.args] != result_types:
            raise VerifyError("expects the 'after' region arguments to match the op's result types")
        _check_yield(self, self.after, 1, init_types, "Region #0")

    def print_custom(self, p: OpAsmPrinter) -> None:
        if self.inits:
            p.write(" ")
            _print_init_list(p, self.before_block.args, self.inits)
        p.write(" : ")
        p.print_type(FunctionType([v.type for v in self.inits], [r.type for r in self.results]))
        p.write(" ")
        p.print_region(self.before, print_entry_block_args=False)
        p.write(" do ")
        p.print_region(self.after)
        p.print_optional_attr_dict_with_keyword(self.attributes)

    @classmethod
    def parse_custom(cls, p: OpAsmParser) -> WhileOp:
        args: list[Argument] = []
        inits: list[UnresolvedOperand] = []
        if p.peek() == "(":
            args, inits = _parse_init_list(p)
        p.expect(":")
        at = p.pos
        ftype = p.parse_type()
        if not isinstance(ftype, FunctionType):
            raise p.error("expected a function type (inits) -> (results)", at)
        values = p.resolve_operands(inits, ftype.inputs, at)
        before = p.parse_region(
            [Argument(a.operand, t, None, None) for a, t in zip(args, ftype.inputs)]
        )
        p.parse_keyword("do")
        after = p.parse_region()
        attrs = p.parse_optional_attr_dict_with_keyword()
        return cls.create(
            values, ftype.results, attributes=attrs, regions=[before, after], loc=p.loc
        )


# ---------------------------------------------------------------------------------------------
# canonicalization
# ---------------------------------------------------------------------------------------------


def _inline_single_block(
    rewriter: PatternRewriter, op: Operation, block: Block, args: Sequence[Value]
) -> list[Value]:
    """Move ``block``'s ops before ``op`` (its terminator excluded); return the yielded values."""
    term = block.last_op
    yielded = list(term.operands) if isinstance(term, YieldOp) else []
    if isinstance(term, YieldOp):
        rewriter.erase_op(term)
    assert op.parent is not None
    rewriter.inline_block_before(block, op.parent, op, args)
    return yielded


class IfConstantCondition(RewritePattern):
    """``scf.if`` on a constant condition is replaced by the taken branch."""

    def match_and_rewrite(self, op: IfOp, rewriter: PatternRewriter) -> bool:
        cond = constant_value(op.condition)
        if not isinstance(cond, IntegerAttr):
            return False
        region = op.thenRegion if cond.value else op.elseRegion
        if not region.blocks:
            rewriter.erase_op(op)
            return True
        yielded = _inline_single_block(rewriter, op, region.blocks[0], [])
        rewriter.replace_op(op, yielded)
        return True


class ForTrivialTripCount(RewritePattern):
    """``scf.for`` that runs zero times becomes its init values; once, its inlined body."""

    def match_and_rewrite(self, op: ForOp, rewriter: PatternRewriter) -> bool:
        lb, ub, step = (constant_value(v) for v in (op.lowerBound, op.upperBound, op.step))
        if not all(isinstance(c, IntegerAttr) for c in (lb, ub, step)):
            return False
        unsigned = op.unsignedCmp is not None
        lo = lb.unsigned_value if unsigned else lb.signed_value
        hi = ub.unsigned_value if unsigned else ub.signed_value
        st = step.unsigned_value if unsigned else step.signed_value
        if st <= 0:
            return False
        if hi <= lo:
            rewriter.replace_op(op, list(op.initArgs))
            return True
        if lo + st < hi:
            return False
        # Exactly one iteration: the body runs with iv = lb.
        yielded = _inline_single_block(rewriter, op, op.body_block, [op.lowerBound, *op.initArgs])
        rewriter.replace_op(op, yielded)
        return True


DIALECT = Dialect("scf", ops=[ForOp, IfOp, WhileOp, YieldOp, ConditionOp])

__all__ = [
    "DIALECT",
    "ConditionOp",
    "ForOp",
    "ForTrivialTripCount",
    "IfConstantCondition",
    "IfOp",
    "WhileOp",
    "YieldOp",
]
