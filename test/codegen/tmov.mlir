// TMOV copies a tile: BSTART.TMOV (DataType<<27 | Function 2<<20 | 0x11181, docs/isa.md §13.1;
// FP32 = 1 gives 0x08211181), no B.DATR or B.DIM (the copy takes its source's geometry and
// padding, §13.4–§13.5), one binding: source T#1, L=1, SizeCode 3, hand T, funct3 101, PEMode 111
// = 0x0009DE13 (§2.5). The compiled kernel agrees bit for bit with the reference evaluator, and
// a copy that asks for another pad is a located error.
// RUN: ptoc %s --target-profile=absolute --emit=words | FileCheck %s
// RUN: ptoc verify %s --target-profile=absolute --trials 40 | FileCheck %s --check-prefix=EXEC
// RUN: not ptoc %S/Inputs/tmov-pad.mlir --target-profile=absolute 2>&1 | FileCheck %s --check-prefix=ERR

// CHECK:      0x08211181  BSTART.TMOV FP32
// CHECK-NEXT: 0x0009DE13  B.IOT T#1, mask=1111, last, ->T<3>
// CHECK-NEXT: 0x00000001  BSTOP
// CHECK-NEXT: 0x09119181  BSTART.VEC TNEG, FP32
// EXEC: @copy: 40 trials (seed 0), compiled code matches the source bit for bit
// ERR: tmov-pad.mlir:3:8: error: pto.tmov copies its source's padding (Null); the result asks for Zero

func.func @copy(%x: !pto.tile<8x16xf32, valid=8x12>) -> !pto.tile<8x16xf32, valid=8x12> {
  %c = "pto.tmov"(%x) : (!pto.tile<8x16xf32, valid=8x12>) -> !pto.tile<8x16xf32, valid=8x12>
  %r = "pto.tneg"(%c) : (!pto.tile<8x16xf32, valid=8x12>) -> !pto.tile<8x16xf32, valid=8x12>
  return %r : !pto.tile<8x16xf32, valid=8x12>
}
