// An ARG result typed si32 passes pto-verify (the legality handler accepts S32) but the encoded op
// always writes U32 indices: codegen refuses it at the op, says why and what to write, and leaves
// no output file behind.
// RUN: rm -f %t.bin
// RUN: not ptoc %s -o %t.bin 2>&1 | FileCheck %s
// RUN: not test -e %t.bin
// RUN: ptoc %s --pass-pipeline=pto-verify --emit=mlir | FileCheck %s --check-prefix=VERIFIED

// CHECK: result-type-errors.mlir:[[@LINE+3]]:8: error: result type S32 cannot be produced: this op's destination is U32 (type the result ui32)
// VERIFIED: "pto.tcolargmin"
func.func @arg_si32(%x: !pto.tile<4x8xui16>) -> !pto.tile<1x8xsi32> {
  %a = "pto.tcolargmin"(%x) : (!pto.tile<4x8xui16>) -> !pto.tile<1x8xsi32>
  return %a : !pto.tile<1x8xsi32>
}
