// TCVT: one op-table row (Mode 0, Function 27, VEC engine). Words checked by hand against
// docs/isa.md §2.2 and §2.3: BSTART = SrcDataType<<27 | 0<<25 | 27<<20 | 0x19181; B.DATR =
// Pad<<27 | Sat<<26 | DstDataType<<20 | RMode<<15 | 0x1023 (codes FP64 0, FP32 1, FP16 4,
// E4M3 7, S64 16, S8 19, U8 27; pads Max 1, Null 3; RMode RTZ 2, RUP 4, RNA 5). The compiled
// kernel agrees bit for bit with the reference evaluator; pto.rmode/pto.sat print back as MLIR.
// RUN: ptoc %s --target-profile=absolute --emit=words | FileCheck %s
// RUN: ptoc verify %s --target-profile=absolute --trials 40 | FileCheck %s --check-prefix=EXEC
// RUN: ptoc %s --target-profile=absolute --emit=mlir | FileCheck %s --check-prefix=MLIR
// RUN: ptoc %s --target-profile=absolute --emit=mlir --pass-pipeline= -o %t.1.mlir
// RUN: ptoc %t.1.mlir --target-profile=absolute --emit=mlir --pass-pipeline= -o %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: ptoc %s --target-profile=absolute -o %t.bin && ptoc disasm %t.bin -o %t.s && ptoc asm %t.s -o %t.2.bin && cmp %t.bin %t.2.bin

// FP32 -> FP16, default rounding (RNE): B.DATR DataType=FP16, Null.
// CHECK:      0x09B19181  BSTART.VEC TCVT, FP32
// CHECK-NEXT: 0x18401023  B.DATR DataType=FP16, PadValue=Null
// CHECK-NEXT: 0x04000043  B.DIM LB0=64
// CHECK-NEXT: 0x01001043  B.DIM LB1=16
// 2 KiB FP16 destination (SizeCode 5) for the 16 rows of the 4 KiB FP32 source; T#1 is code 0.
// CHECK-NEXT: 0x000ADE13  B.IOT T#1, mask=1111, last, ->T<5>
// CHECK-NEXT: 0x00000001  BSTOP
// FP32 -> S8 with RNA, Sat and a Max pad.
// CHECK:      0x09B19181  BSTART.VEC TCVT, FP32
// CHECK-NEXT: 0x0D329023  B.DATR DataType=S8, PadValue=Max, RMode=RNA, Sat=1
// FP16 -> E4M3 with RTZ.
// CHECK:      0x21B19181  BSTART.VEC TCVT, FP16
// CHECK-NEXT: 0x18711023  B.DATR DataType=E4M3, PadValue=Null, RMode=RTZ
// S64 -> FP32 rounding up.
// CHECK:      0x81B19181  BSTART.VEC TCVT, S64
// CHECK-NEXT: 0x18121023  B.DATR DataType=FP32, PadValue=Null, RMode=RUP
// FP64 16x1 -> U8: the U8 destination's smallest SizeCode holds 128 rows of one column, so the
// allocator gives the FP64 argument 128 rows (1 KiB) and the destination SizeCode 1.
// CHECK:      0x01B19181  BSTART.VEC TCVT, FP64
// CHECK-NEXT: 0x19B01023  B.DATR DataType=U8, PadValue=Null
// CHECK-NEXT: 0x00100043  B.DIM LB0=1
// CHECK-NEXT: 0x01001043  B.DIM LB1=16
// CHECK-NEXT: 0x0028DE13  B.IOT T#3, mask=1111, last, ->T<1>

// EXEC: @convert: 40 trials (seed 0), compiled code matches the source bit for bit

// MLIR: func.func @convert(%arg0: !pto.tile<16x64xf32> {{{.*}}}, %arg1: !pto.tile<8x32xsi64> {{{.*}}}, %arg2: !pto.tile<16x1xf64> {pto.dst = "T#3", pto.rows = 128 : i64, pto.tsize = 4 : i64})
// MLIR: "pto.tcvt"(%arg0) {pto.dst = "T#4", pto.rows = 16 : i64, pto.tsize = 5 : i64} : (!pto.tile<16x64xf32>) -> !pto.tile<16x64xf16>
// MLIR: "pto.tcvt"(%arg0) {pto.dst = "T#5", pto.rmode = "rna", pto.rows = 16 : i64, pto.sat = true, pto.tsize = 4 : i64} : (!pto.tile<16x64xf32>) -> !pto.tile<16x64xsi8, pad=max>
// MLIR: "pto.tcvt"(%0) {pto.dst = "T#6", pto.rmode = "rtz", pto.rows = 16 : i64, pto.tsize = 4 : i64} : (!pto.tile<16x64xf16>) -> !pto.tile<16x64xf8E4M3FN>
// MLIR: "pto.tcvt"(%arg1) {pto.dst = "T#7", pto.rmode = "rup", {{.*}}} : (!pto.tile<8x32xsi64>) -> !pto.tile<8x32xf32>
// MLIR: "pto.tcvt"(%arg2) {pto.dst = "T#8", pto.rows = 128 : i64, pto.tsize = 1 : i64} : (!pto.tile<16x1xf64>) -> !pto.tile<16x1xui8>

func.func @convert(%x: !pto.tile<16x64xf32>, %i: !pto.tile<8x32xsi64>, %d: !pto.tile<16x1xf64>) -> (!pto.tile<16x64xsi8, pad=max>, !pto.tile<?x?xf8E4M3FN>, !pto.tile<8x32xf32>, !pto.tile<16x1xui8>) {
  %h = "pto.tcvt"(%x) : (!pto.tile<16x64xf32>) -> !pto.tile<16x64xf16>
  %s = "pto.tcvt"(%x) {pto.rmode = "rna", pto.sat = true} : (!pto.tile<16x64xf32>) -> !pto.tile<16x64xsi8, pad=max>
  %t = "pto.tcvt"(%h) {pto.rmode = "rtz"} : (!pto.tile<16x64xf16>) -> !pto.tile<?x?xf8E4M3FN>
  %f = "pto.tcvt"(%i) {pto.rmode = "rup"} : (!pto.tile<8x32xsi64>) -> !pto.tile<8x32xf32>
  %u = "pto.tcvt"(%d) : (!pto.tile<16x1xf64>) -> !pto.tile<16x1xui8>
  return %s, %t, %f, %u : !pto.tile<16x64xsi8, pad=max>, !pto.tile<?x?xf8E4M3FN>, !pto.tile<8x32xf32>, !pto.tile<16x1xui8>
}
