// TTRANS: one op-table row (Mode 3, Function 14, SFU engine; docs/isa.md §19). Words checked by
// hand against docs/isa.md §2.2, §2.4 and §2.5:
//   BSTART = DataType<<27 | 3<<25 | 14<<20 | 0x19181 = DataType<<27 | 0x06E19181 (U16 = 26 gives
//   0xD6E19181, FP32 = 1 gives 0x0EE19181);
//   B.DIM = imm<<20 | LB<<12 | 0x43, and TTRANS writes all three, for its destination: LB0 its
//   valid columns, LB1 its valid rows, LB2 its physical columns;
//   B.IOT, one source = Src<<20 | L<<19 | SizeCode<<15 | 0b101<<12 | 0b111<<9 | Hand<<7 | 0x13.
// No B.DATR: TTRANS's padding is always Null and ptoc's destinations are NORM.
// RUN: ptoc %s --target-profile=absolute --emit=words | FileCheck %s
// RUN: ptoc %s --target-profile=absolute --emit=mlir | FileCheck %s --check-prefix=MLIR
// RUN: ptoc %s --target-profile=absolute --emit=mlir --pass-pipeline= -o %t.1.mlir
// RUN: ptoc %t.1.mlir --target-profile=absolute --emit=mlir --pass-pipeline= -o %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: ptoc %s --target-profile=absolute -o %t.bin && ptoc disasm %t.bin -o %t.s && ptoc asm %t.s -o %t.2.bin && cmp %t.bin %t.2.bin

// A U16 2x3 (physical 2x4) source in T#1 (code 0): the destination is valid 3x2 in 2 columns,
// 12 bytes, SizeCode 1.
// CHECK:      0xD6E19181  BSTART.SFU TTRANS, U16
// CHECK-NEXT: 0x00200043  B.DIM LB0=2
// CHECK-NEXT: 0x00301043  B.DIM LB1=3
// CHECK-NEXT: 0x00202043  B.DIM LB2=2
// CHECK-NEXT: 0x0008DE13  B.IOT T#1, mask=1111, last, ->T<1>
// CHECK-NEXT: 0x00000001  BSTOP
// An FP32 16x64 source in T#2 (code 1): valid 64x16 in 16 columns, 4 KiB, SizeCode 6.
// CHECK-NEXT: 0x0EE19181  BSTART.SFU TTRANS, FP32
// CHECK-NEXT: 0x01000043  B.DIM LB0=16
// CHECK-NEXT: 0x04001043  B.DIM LB1=64
// CHECK-NEXT: 0x01002043  B.DIM LB2=16
// CHECK-NEXT: 0x001B5E13  B.IOT T#2, mask=1111, last, ->T<6>
// CHECK-NEXT: 0x00000001  BSTOP
// The transpose of the transpose, written with wider columns than it needs (valid 16x64 in 64
// columns is the source's own shape): LB2 = 64; T#4 is code 3.
// CHECK-NEXT: 0x0EE19181  BSTART.SFU TTRANS, FP32
// CHECK-NEXT: 0x04000043  B.DIM LB0=64
// CHECK-NEXT: 0x01001043  B.DIM LB1=16
// CHECK-NEXT: 0x04002043  B.DIM LB2=64
// CHECK-NEXT: 0x003B5E13  B.IOT T#4, mask=1111, last, ->T<6>
// CHECK-NEXT: 0x00000001  BSTOP

// Shape inference fills the first result: 3 rows, 2 columns, valid 3x2.
// MLIR: "pto.ttrans"(%arg0) {pto.dst = "T#3", pto.rows = 32 : i64, pto.tsize = 1 : i64} : (!pto.tile<2x4xui16, valid=2x3>) -> !pto.tile<3x2xui16>
// MLIR: "pto.ttrans"(%arg1) {pto.dst = "T#4", pto.rows = 64 : i64, pto.tsize = 6 : i64} : (!pto.tile<16x64xf32>) -> !pto.tile<64x16xf32>
// MLIR: "pto.ttrans"(%1) {pto.dst = "T#5", pto.rows = 16 : i64, pto.tsize = 6 : i64} : (!pto.tile<64x16xf32>) -> !pto.tile<16x64xf32>

func.func @transpose(%x: !pto.tile<2x4xui16, valid=2x3>, %y: !pto.tile<16x64xf32>) -> (!pto.tile<?x?xui16>, !pto.tile<16x64xf32>) {
  %t = "pto.ttrans"(%x) : (!pto.tile<2x4xui16, valid=2x3>) -> !pto.tile<?x?xui16>
  %u = "pto.ttrans"(%y) : (!pto.tile<16x64xf32>) -> !pto.tile<64x16xf32>
  %v = "pto.ttrans"(%u) : (!pto.tile<64x16xf32>) -> !pto.tile<16x64xf32>
  return %t, %v : !pto.tile<?x?xui16>, !pto.tile<16x64xf32>
}
