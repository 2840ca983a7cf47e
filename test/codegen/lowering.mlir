// Bundle emission without fusion: reductions describe their source, expands their full-shape
// operands; EXPDIF widening gets B.DATR DataType=FP32; a result pad gets B.DATR PadValue.
// RUN: ptoc %s --target-profile=absolute -O0 --emit=asm --split-input-file | FileCheck %s

// CHECK-LABEL: .kernel softmax_rows
// CHECK:      .arg x, T#1, FP32, 16x64, valid=16x64, size=6, pad=Null
// CHECK-NEXT: .result r0, T#5, FP32, 16x64, valid=16x64, size=6, pad=Null
// CHECK:      ; %m = pto.trowmax  ({{.*}}lowering.mlir:{{[0-9]+}}:{{[0-9]+}})
// CHECK-NEXT: BSTART.SFU TROWMAX, FP32
// CHECK-NEXT: B.DIM LB0=64
// CHECK-NEXT: B.DIM LB1=16
// CHECK-NEXT: B.IOT T#1, mask=1111, last, ->T<1>
// CHECK-NEXT: BSTOP
// CHECK:      ; %e = pto.trowexpandexpdif
// CHECK-NEXT: BSTART.SFU TROWEXPANDEXPDIF, FP32
// CHECK-NEXT: B.DIM LB0=64
// CHECK-NEXT: B.DIM LB1=16
// CHECK-NEXT: B.IOT T#1, T#2, mask=1111, last, ->T<6>
// CHECK-NEXT: BSTOP
// CHECK:      ; %s = pto.trowsum
// CHECK-NEXT: BSTART.SFU TROWSUM, FP32
// CHECK:      B.IOT T#3, mask=1111, last, ->T<1>
// CHECK:      ; %r = pto.trowexpanddiv
// CHECK-NEXT: BSTART.SFU TROWEXPANDDIV, FP32
// CHECK:      B.IOT T#3, T#4, mask=1111, last, ->T<6>
func.func @softmax_rows(%x: !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32> {
  %m = "pto.trowmax"(%x) : (!pto.tile<16x64xf32>) -> !pto.tile<16x1xf32>
  %e = "pto.trowexpandexpdif"(%x, %m) : (!pto.tile<16x64xf32>, !pto.tile<16x1xf32>) -> !pto.tile<16x64xf32>
  %s = "pto.trowsum"(%e) : (!pto.tile<16x64xf32>) -> !pto.tile<16x1xf32>
  %r = "pto.trowexpanddiv"(%e, %s) : (!pto.tile<16x64xf32>, !pto.tile<16x1xf32>) -> !pto.tile<16x64xf32>
  return %r : !pto.tile<16x64xf32>
}

// -----

// CHECK-LABEL: .kernel mixed_expdif
// CHECK:      BSTART.SFU TCOLEXPANDEXPDIF, FP16
// CHECK-NEXT: B.DATR DataType=FP32, PadValue=Null
// CHECK-NEXT: B.DIM LB0=2
// CHECK-NEXT: B.DIM LB1=32
// CHECK-NEXT: B.IOT T#1, T#2, mask=1111, last, ->T<2>
func.func @mixed_expdif(%x: !pto.tile<32x2xf16>, %c: !pto.tile<1x2xf16>) -> !pto.tile<32x2xf32> {
  %0 = "pto.tcolexpandexpdif"(%x, %c) : (!pto.tile<32x2xf16>, !pto.tile<1x2xf16>) -> !pto.tile<32x2xf32>
  return %0 : !pto.tile<32x2xf32>
}

// -----

// CHECK-LABEL: .kernel padded_partial
// CHECK:      BSTART.VEC TMAX, S32
// CHECK-NEXT: B.DATR PadValue=Min
// CHECK-NEXT: B.DIM LB0=12
// CHECK-NEXT: B.DIM LB1=5
// CHECK-NEXT: B.DIM LB2=16
// CHECK-NEXT: B.IOT T#1, T#2, mask=1111, last, ->T<3>
// CHECK-NEXT: BSTOP
func.func @padded_partial(%a: !pto.tile<8x16xsi32, valid=5x12>, %b: !pto.tile<8x16xsi32, valid=5x12>) -> !pto.tile<8x16xsi32, valid=5x12, pad=min> {
  %0 = "pto.tmax"(%a, %b) : (!pto.tile<8x16xsi32, valid=5x12>, !pto.tile<8x16xsi32, valid=5x12>) -> !pto.tile<8x16xsi32, valid=5x12, pad=min>
  return %0 : !pto.tile<8x16xsi32, valid=5x12, pad=min>
}
