// The default target profile is queue (docs/isa.md §9 decisions 1–2): the planner spreads new
// tiles over the emptiest hands and names each source by its age; --target-profile=absolute
// keeps the spec's executable model (lowest free register, nothing freed). Both verify.
// RUN: ptoc %s --emit=asm | FileCheck %s
// RUN: ptoc %s --emit=asm --target-profile=absolute | FileCheck %s --check-prefix=ABS
// RUN: ptoc verify %s --trials 8 | FileCheck %s --check-prefix=EXEC
// RUN: ptoc verify %s --trials 8 --target-profile=absolute | FileCheck %s --check-prefix=EXEC
// CHECK:      .profile queue
// CHECK-NEXT: .arg x, T#1, FP32, 8x16
// CHECK-NEXT: .arg y, U#1, FP32, 8x16
// CHECK-NEXT: .result r0, N#1, FP32, 8x16
// CHECK:      B.IOT T#1, U#1, mask=1111, last, ->M<3>
// CHECK:      B.IOT M#1, T#1, mask=1111, last, ->N<3>
// ABS:        .profile absolute
// ABS-NEXT:   .arg x, T#1, FP32, 8x16
// ABS-NEXT:   .arg y, T#2, FP32, 8x16
// ABS-NEXT:   .result r0, T#4, FP32, 8x16
// ABS:        B.IOT T#1, T#2, mask=1111, last, ->T<3>
// ABS:        B.IOT T#3, T#1, mask=1111, last, ->T<3>
// EXEC: 8 trials (seed 0), compiled code matches the source bit for bit

func.func @k(%x: !pto.tile<8x16xf32>, %y: !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32> {
  %m = "pto.tmax"(%x, %y) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %s = "pto.tadd"(%m, %x) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  return %s : !pto.tile<8x16xf32>
}
