// The unary ops: one row of the op table each, lowered like TEXP. BSTART words checked by hand
// against docs/isa.md §2.2 (DataType<<27 | Mode<<25 | Function<<20 | 0x19181; Mode 0, Functions
// TABS 15, TNEG 17, TLOG 19, TRECIP 20, TSQRT 21, TRSQRT 22, TRELU 23; FP32 = 1, S16 = 18); the
// engine picks the alias (VEC for TABS/TNEG/TRELU, SFU for the others). The compiled kernel agrees
// bit for bit with the reference evaluator; wrong DataTypes and shapes are located errors.
// RUN: ptoc %s --emit=words | FileCheck %s
// RUN: ptoc verify %s --trials 40 | FileCheck %s --check-prefix=EXEC
// RUN: not ptoc %S/Inputs/unary-errors.mlir 2>&1 | FileCheck %s --check-prefix=ERR

// CHECK: 0x08F19181  BSTART.VEC TABS, FP32
// CHECK: 0x09519181  BSTART.SFU TSQRT, FP32
// CHECK: 0x09619181  BSTART.SFU TRSQRT, FP32
// CHECK: 0x09419181  BSTART.SFU TRECIP, FP32
// CHECK: 0x09319181  BSTART.SFU TLOG, FP32
// CHECK: 0x09119181  BSTART.VEC TNEG, FP32
// CHECK: 0x09719181  BSTART.VEC TRELU, FP32
// CHECK: 0x90F19181  BSTART.VEC TABS, S16
// CHECK: 0x91119181  BSTART.VEC TNEG, S16
// CHECK: 0x91719181  BSTART.VEC TRELU, S16
// EXEC: @unary: 40 trials (seed 0), compiled code matches the source bit for bit

// ERR: unary-errors.mlir:2:8: error: 'pto.tsqrt' op source operand #0 %i has DataType S16, which TSQRT does not accept; legal: FP64, FP32, TF32, HF32, FP16, BF16, E4M3, E5M2 [data-type, Fault_TileLegality]
// ERR: unary-errors.mlir:3:8: error: 'pto.tlog' op source operand #0 %i has DataType S16, which TLOG does not accept
// ERR: unary-errors.mlir:4:8: error: 'pto.tneg' op result has shape 8x16xsi16, but the full-shape source has 8x32xsi16

func.func @unary(%x: !pto.tile<16x64xf32>, %i: !pto.tile<8x32xsi16>) -> (!pto.tile<16x64xf32>, !pto.tile<8x32xsi16>) {
  %a = "pto.tabs"(%x) : (!pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  %s = "pto.tsqrt"(%a) : (!pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  %r = "pto.trsqrt"(%s) : (!pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  %c = "pto.trecip"(%r) : (!pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  %l = "pto.tlog"(%c) : (!pto.tile<16x64xf32>) -> !pto.tile<16x64xf32>
  %n = "pto.tneg"(%l) : (!pto.tile<16x64xf32>) -> !pto.tile<16x64xf32, pad=max>
  %u = "pto.trelu"(%n) : (!pto.tile<16x64xf32, pad=max>) -> !pto.tile<16x64xf32>
  %ia = "pto.tabs"(%i) : (!pto.tile<8x32xsi16>) -> !pto.tile<8x32xsi16>
  %in = "pto.tneg"(%ia) : (!pto.tile<8x32xsi16>) -> !pto.tile<8x32xsi16>
  %ir = "pto.trelu"(%in) : (!pto.tile<8x32xsi16>) -> !pto.tile<8x32xsi16>
  return %u, %ir : !pto.tile<16x64xf32>, !pto.tile<8x32xsi16>
}
