// Row max of a 64x1024 f32 memref, four 16x256 tiles per iteration, written as an ML frontend
// would: every load first, then the reductions. At the default mask 1111 one 16x256 f32 tile
// holds 4 x 16 KiB = 64 KiB of the core's 256 KiB, so the four loads cannot be alive at once,
// and a dead tile stays allocated until 16 newer pushes on its hand retire it. pto-allocate
// plans such a kernel again in a scheduled order (each load followed by its reduction) and
// retires dead tiles with TMOVs of a 16x1 tile (512 bytes) where the next push would not fit.
// RUN: ptoc verify %s --trials 3 | FileCheck %s --check-prefix=VERIFY
// RUN: ptoc verify %s --trials 2 --pe-mask=1100 | FileCheck %s --check-prefix=VERIFY
// VERIFY: @row_max: {{[23]}} trials (seed 0), compiled code matches the source bit for bit
// RUN: ptoc %s --emit=mlir | FileCheck %s
// CHECK: scf.for
// CHECK: "pto.tload"
// CHECK-NEXT: "pto.trowmax"
// CHECK: "pto.tmov"{{.*}}pto.tsize = 1 : i64{{.*}}!pto.tile<16x1xf32>
// CHECK: "pto.tload"
// CHECK-NEXT: "pto.trowmax"
func.func @row_max(%x: memref<64x1024xf32>, %out: memref<64x1xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %c512 = arith.constant 512 : index
  %c768 = arith.constant 768 : index
  scf.for %i = %c0 to %c64 step %c16 {
    %t0 = "pto.tload"(%x, %i, %c0) : (memref<64x1024xf32>, index, index) -> !pto.tile<16x256xf32>
    %t1 = "pto.tload"(%x, %i, %c256) : (memref<64x1024xf32>, index, index) -> !pto.tile<16x256xf32>
    %t2 = "pto.tload"(%x, %i, %c512) : (memref<64x1024xf32>, index, index) -> !pto.tile<16x256xf32>
    %t3 = "pto.tload"(%x, %i, %c768) : (memref<64x1024xf32>, index, index) -> !pto.tile<16x256xf32>
    %m0 = "pto.trowmax"(%t0) : (!pto.tile<16x256xf32>) -> !pto.tile<16x1xf32>
    %m1 = "pto.trowmax"(%t1) : (!pto.tile<16x256xf32>) -> !pto.tile<16x1xf32>
    %m2 = "pto.trowmax"(%t2) : (!pto.tile<16x256xf32>) -> !pto.tile<16x1xf32>
    %m3 = "pto.trowmax"(%t3) : (!pto.tile<16x256xf32>) -> !pto.tile<16x1xf32>
    %a = "pto.tmax"(%m0, %m1) : (!pto.tile<16x1xf32>, !pto.tile<16x1xf32>) -> !pto.tile<16x1xf32>
    %b = "pto.tmax"(%m2, %m3) : (!pto.tile<16x1xf32>, !pto.tile<16x1xf32>) -> !pto.tile<16x1xf32>
    %m = "pto.tmax"(%a, %b) : (!pto.tile<16x1xf32>, !pto.tile<16x1xf32>) -> !pto.tile<16x1xf32>
    "pto.tstore"(%m, %out, %i, %c0) : (!pto.tile<16x1xf32>, memref<64x1xf32>, index, index) -> ()
  }
  return
}
