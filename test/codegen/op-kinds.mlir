// One bundle per op kind not covered by lowering.mlir: the two copy expands (one source, geometry
// of the destination), a unary op, an ARG reduction (U32 result, dims of the source, 1x16 U32 fits
// 128 bytes) and an SFU binary. Words checked by hand against docs/isa.md §2.2 and §2.5:
// BSTART = DataType<<27 | Mode<<25 | Function<<20 | 0x19181; one-source B.IOT = Src0<<20 | L<<19 |
// SizeCode<<15 | 0b101<<12 | PEMode<<9 | Hand<<7 | 0x13. Registers: arguments T#1-T#3, then one
// per op in order (%e is T#6).
// RUN: ptoc %s --target-profile=absolute -O0 --emit=words | FileCheck %s
// CHECK:      0x0C419181  BSTART.SFU TROWEXPAND, FP32
// CHECK-NEXT: 0x01000043  B.DIM LB0=16
// CHECK-NEXT: 0x00801043  B.DIM LB1=8
// CHECK-NEXT: 0x0019DE13  B.IOT T#2, mask=1111, last, ->T<3>
// CHECK-NEXT: 0x00000001  BSTOP
// CHECK-NEXT: 0x0D419181  BSTART.SFU TCOLEXPAND, FP32
// CHECK:      0x0029DE13  B.IOT T#3, mask=1111, last, ->T<3>
// CHECK:      0x09219181  BSTART.SFU TEXP, FP32
// CHECK:      0x0009DE13  B.IOT T#1, mask=1111, last, ->T<3>
// CHECK:      0x0DC19181  BSTART.SFU TCOLARGMAX, FP32
// CHECK-NEXT: 0x01000043  B.DIM LB0=16
// CHECK-NEXT: 0x00801043  B.DIM LB1=8
// CHECK-NEXT: 0x0008DE13  B.IOT T#1, mask=1111, last, ->T<1>
// CHECK:      0x08319181  BSTART.SFU TDIV, FP32
// CHECK:      0x1409CE13  B.IOT T#1, T#6, mask=1111, last, ->T<3>
// CHECK:      0x0DA19181  BSTART.SFU TCOLEXPANDMIN, FP32
// CHECK:      0x0809CE13  B.IOT T#1, T#3, mask=1111, last, ->T<3>
func.func @kinds(%x: !pto.tile<8x16xf32>, %r: !pto.tile<8x1xf32>, %c: !pto.tile<1x16xf32>) -> (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>, !pto.tile<8x16xf32>, !pto.tile<1x16xui32>, !pto.tile<8x16xf32>, !pto.tile<8x16xf32>) {
  %a = "pto.trowexpand"(%r) : (!pto.tile<8x1xf32>) -> !pto.tile<8x16xf32>
  %b = "pto.tcolexpand"(%c) : (!pto.tile<1x16xf32>) -> !pto.tile<8x16xf32>
  %e = "pto.texp"(%x) : (!pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %i = "pto.tcolargmax"(%x) : (!pto.tile<8x16xf32>) -> !pto.tile<1x16xui32>
  %d = "pto.tdiv"(%x, %e) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %m = "pto.tcolexpandmin"(%x, %c) : (!pto.tile<8x16xf32>, !pto.tile<1x16xf32>) -> !pto.tile<8x16xf32>
  return %a, %b, %e, %i, %d, %m : !pto.tile<8x16xf32>, !pto.tile<8x16xf32>, !pto.tile<8x16xf32>, !pto.tile<1x16xui32>, !pto.tile<8x16xf32>, !pto.tile<8x16xf32>
}
