"""Valid IR snippets in custom form covering every op of builtin/func/arith/scf/cf.

Each snippet is printed by layoutc exactly as written (tests check that), so it doubles as
documentation of the custom forms.
"""

ARITH_INT = """\
module {
  func.func @ints(%a: i32, %b: i32, %n: index, %v: vector<4xi32>) -> i32 {
    %c0_i32 = arith.constant 0 : i32
    %c-7_i32 = arith.constant -7 : i32
    %c4 = arith.constant 4 : index
    %true = arith.constant true
    %0 = arith.addi %a, %b : i32
    %1 = arith.addi %0, %b overflow<nsw> : i32
    %2 = arith.subi %1, %a overflow<nsw, nuw> : i32
    %3 = arith.muli %2, %c-7_i32 overflow<nuw> : i32
    %4 = arith.divsi %3, %b : i32
    %5 = arith.divui %4, %b : i32
    %6 = arith.ceildivsi %5, %b : i32
    %7 = arith.ceildivui %6, %b : i32
    %8 = arith.floordivsi %7, %b : i32
    %9 = arith.remsi %8, %b : i32
    %10 = arith.remui %9, %b : i32
    %11 = arith.minsi %10, %b : i32
    %12 = arith.maxsi %11, %b : i32
    %13 = arith.minui %12, %b : i32
    %14 = arith.maxui %13, %b : i32
    %15 = arith.andi %14, %b : i32
    %16 = arith.ori %15, %b : i32
    %17 = arith.xori %16, %b : i32
    %18 = arith.shli %17, %b : i32
    %19 = arith.shrui %18, %b : i32
    %20 = arith.shrsi %19, %b : i32
    %21 = arith.cmpi slt, %20, %c0_i32 : i32
    %22 = arith.select %21, %20, %a : i32
    %23 = arith.addi %v, %v : vector<4xi32>
    %24 = arith.cmpi uge, %n, %c4 : index
    %25 = arith.select %true, %n, %c4 : index
    %26 = arith.addi %25, %n {tag = "x"} : index
    return %22 : i32
  }
}"""

ARITH_FLOAT = """\
module {
  func.func @floats(%x: f32, %y: f32, %h: f16, %b: bf16, %d: f64) -> f32 {
    %cst = arith.constant 1.500000e+00 : f32
    %cst_0 = arith.constant 1.000000e-01 : f32
    %cst_1 = arith.constant 0.123456789 : f64
    %cst_2 = arith.constant 0x7FC00000 : f32
    %cst_3 = arith.constant -0.000000e+00 : f32
    %cst_4 = arith.constant 0xFF800000 : f32
    %cst_5 = arith.constant 6.550400e+04 : f16
    %0 = arith.addf %x, %y : f32
    %1 = arith.subf %0, %cst fastmath<fast> : f32
    %2 = arith.mulf %1, %cst_0 fastmath<nnan,ninf> : f32
    %3 = arith.divf %2, %y fastmath<reassoc,contract> : f32
    %4 = arith.remf %3, %y : f32
    %5 = arith.maximumf %4, %y : f32
    %6 = arith.minimumf %5, %y : f32
    %7 = arith.maxnumf %6, %y : f32
    %8 = arith.minnumf %7, %y : f32
    %9 = arith.negf %8 fastmath<nsz> : f32
    %10 = arith.cmpf olt, %9, %y : f32
    %11 = arith.cmpf uno, %9, %y fastmath<nnan> : f32
    %12 = arith.extf %h : f16 to f32
    %13 = arith.truncf %d : f64 to f32
    %14 = arith.extf %b : bf16 to f64
    %15 = arith.select %10, %12, %13 : f32
    return %15 : f32
  }
}"""

ARITH_CASTS = """\
module {
  func.func @casts(%i: i32, %n: index, %f: f32, %v: vector<4xi32>) -> i64 {
    %0 = arith.extsi %i : i32 to i64
    %1 = arith.extui %i : i32 to i64
    %2 = arith.trunci %0 : i64 to i16
    %3 = arith.index_cast %i : i32 to index
    %4 = arith.index_cast %n : index to i64
    %5 = arith.index_castui %n : index to i32
    %6 = arith.sitofp %i : i32 to f32
    %7 = arith.uitofp %i : i32 to f64
    %8 = arith.fptosi %f : f32 to i32
    %9 = arith.fptoui %f : f32 to i64
    %10 = arith.bitcast %f : f32 to i32
    %11 = arith.bitcast %10 : i32 to f32
    return %1 : i64
  }
}"""

SCF = """\
module {
  func.func @loops(%n: index, %init: f32, %c: i1) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      %3 = arith.addi %i, %c1 : index
    }
    %0 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (f32) {
      %3 = arith.addf %acc, %acc : f32
      scf.yield %3 : f32
    }
    %1:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %init, %b = %init) -> (f32, f32) {
      scf.yield %b, %a : f32, f32
    }
    %c0_i32 = arith.constant 0 : i32
    %c8_i32 = arith.constant 8 : i32
    %c2_i32 = arith.constant 2 : i32
    scf.for %j = %c0_i32 to %c8_i32 step %c2_i32 : i32 {
      %3 = arith.addi %j, %j : i32
    }
    scf.if %c {
      %3 = arith.addf %init, %init : f32
    }
    scf.if %c {
      %3 = arith.addf %init, %init : f32
    } else {
      %3 = arith.mulf %init, %init : f32
    }
    %2 = scf.if %c -> (f32) {
      scf.yield %0 : f32
    } else {
      scf.yield %1#1 : f32
    }
    %w:2 = scf.while (%x = %c0, %y = %2) : (index, f32) -> (index, f32) {
      %3 = arith.cmpi slt, %x, %n : index
      scf.condition(%3) %x, %y : index, f32
    } do {
    ^bb0(%x: index, %y: f32):
      %3 = arith.addi %x, %c1 : index
      scf.yield %3, %y : index, f32
    }
    scf.while : () -> () {
      scf.condition(%c)
    } do {
      scf.yield
    }
    return %w#1 : f32
  }
}"""

CF = """\
module {
  func.func @branches(%c: i1, %a: i32, %b: i32) -> i32 {
    cf.cond_br %c, ^bb1(%a : i32), ^bb2
  ^bb1(%0: i32):
    cf.br ^bb3(%0, %b : i32, i32)
  ^bb2:
    cf.br ^bb3(%b, %a : i32, i32)
  ^bb3(%1: i32, %2: i32):
    %3 = arith.addi %1, %2 : i32
    cf.cond_br %c, ^bb4, ^bb5
  ^bb4:
    return %3 : i32
  ^bb5:
    return %1 : i32
  }
}"""

FUNC = """\
module @named attributes {note = "top", test.container} {
  func.func private @decl(i32 {llvm.noalias}, f32) -> (i32 {layoutc.out}, f32)
  func.func nested @nested_decl()
  func.func @callee(%x: i32) -> i32 attributes {gpu.kernel} {
    return %x : i32
  }
  func.func @caller(%x: i32) -> (i32, i32) {
    %f = "test.value"() : () -> f32
    %0 = call @callee(%x) : (i32) -> i32
    %1:2 = call @decl(%0, %f) : (i32, f32) -> (i32, f32)
    return %0, %1#0 : i32, i32
  }
  func.func @fnptr_type() -> ((i32) -> i32)
  func.func @empty() {
    return
  }
}"""

BUILTIN = """\
module {
  module @inner {
  }
  func.func @casts(%x: i32) -> index {
    %0 = builtin.unrealized_conversion_cast %x : i32 to index
    %1:2 = builtin.unrealized_conversion_cast %0 : index to i64, i64
    %2 = builtin.unrealized_conversion_cast to !llvm.ptr<3>
    %3 = builtin.unrealized_conversion_cast %1#0, %1#1 : i64, i64 to index
    return %3 : index
  }
}"""

UNREGISTERED = """\
module {
  %0:3 = "test.multi"() {attr = [1 : i64, "two", 3.000000e+00 : f32, @sym, @a::@b, unit, i32, array<i32: 1, 2>, array<f64>, {k = false}]} : () -> (i32, !test.type<"opaque">, tuple<i32, f32>)
  "test.regions"(%0#0) ({
  ^bb0(%a: i32):
    "test.use"(%a, %0#1) : (i32, !test.type<"opaque">) -> ()
  }, {
  ^bb0:
  }, {
  }) : (i32) -> ()
  "test.cfg"() ({
    "test.succ"(%0#0)[^bb1, ^bb2] : (i32) -> ()
  ^bb1(%2: i32):
    "test.succ"(%2)[^bb2] : (i32) -> ()
  ^bb2:
    "test.end"() : () -> ()
  }) : () -> ()
  %1 = "test.props"() <{p = #test.attr<[1, 2]>, q = 5 : ui8}> {r = -1 : si16, s = 0x7FF8000000000001 : f64} : () -> vector<[4]x2xf32>
}"""

# Valid MLIR that xDSL 0.74 rejects (it lacks vector casts, scf.for's `unsignedCmp` and
# space-separated opaque dialect bodies): round-trip tested, kept out of the xDSL check.
MLIR_ONLY = """\
module {
  func.func @f(%v: vector<4xi32>, %x: i64, %n: i32) {
    %0 = arith.extsi %v : vector<4xi32> to vector<4xi64>
    %1 = arith.sitofp %v : vector<4xi32> to vector<4xf32>
    %2 = arith.trunci %x overflow<nsw> : i64 to i8
    scf.for unsigned %j = %n to %n step %n : i32 {
      %5 = arith.addi %j, %j : i32
    }
    %3 = "test.op"() : () -> !test.type<a b c>
    %4 = "test.op"() {a = #test<"x y">} : () -> !test.type<"opaque", 4, <[(x)]>>
    return
  }
}"""

ALL = {
    "arith_int": ARITH_INT,
    "arith_float": ARITH_FLOAT,
    "arith_casts": ARITH_CASTS,
    "scf": SCF,
    "cf": CF,
    "func": FUNC,
    "builtin": BUILTIN,
    "unregistered": UNREGISTERED,
}
