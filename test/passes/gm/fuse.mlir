// Shape inference and fusion on GM kernels, block by block: inside a loop body a numpy-style
// broadcast becomes an expand and fuses into its consumer (row softmax); an expand in an outer
// block stays there and its consumer in the loop stays unfused (nothing fuses across a block
// boundary); tiles that are stored, yielded or read by a nested block are kept.
// RUN: ptoc %s --emit=mlir --pass-pipeline=pto-verify,pto-infer-shapes,pto-fuse | FileCheck %s
// RUN: ptoc %s --emit=mlir --pass-pipeline=pto-verify,pto-infer-shapes | FileCheck %s --check-prefix=INFER
// RUN: ptoc %s --emit=mlir --pass-pipeline=pto-verify,pto-infer-shapes,pto-fuse --mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=DUMP

// DUMP: IR Dump After PtoInferShapes (pto-infer-shapes)
// DUMP: "pto.trowexpand"(%{{.*}}) : (!pto.tile<16x1xf32>) -> !pto.tile<16x64xf32>
// DUMP: IR Dump After PtoFuse (pto-fuse)
// DUMP: "pto.trowexpandexpdif"

// CHECK-LABEL: func.func @softmax
// CHECK:         scf.for %[[I:.*]] = %c0 to %c64 step %c16 {
// CHECK-NEXT:      %[[T:.*]] = "pto.tload"(%arg0, %[[I]], %c0) : (memref<64x64xf32>, index, index) -> !pto.tile<16x64xf32>
// CHECK-NEXT:      %[[M:.*]] = "pto.trowmax"(%[[T]])
// CHECK-NEXT:      %[[E:.*]] = "pto.trowexpandexpdif"(%[[T]], %[[M]]) : (!pto.tile<16x64xf32>, !pto.tile<16x1xf32>) -> !pto.tile<16x64xf32>
// CHECK-NEXT:      %[[S:.*]] = "pto.trowsum"(%[[E]])
// CHECK-NEXT:      %[[R:.*]] = "pto.trowexpanddiv"(%[[E]], %[[S]])
// CHECK-NEXT:      "pto.tstore"(%[[R]], %arg1, %[[I]], %c0)
// CHECK-NEXT:    }

// INFER-LABEL: func.func @softmax
// INFER:         "pto.trowexpand"
// INFER-NEXT:    "pto.tsub"{{.*}} -> !pto.tile<16x64xf32>
// INFER-NEXT:    "pto.texp"{{.*}} -> !pto.tile<16x64xf32>
func.func @softmax(%x: memref<64x64xf32>, %y: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c16 {
    %t = "pto.tload"(%x, %i, %c0) : (memref<64x64xf32>, index, index) -> !pto.tile<16x64xf32>
    %m = "pto.trowmax"(%t) : (!pto.tile<16x64xf32>) -> !pto.tile<16x1xf32>
    %d = "pto.tsub"(%t, %m) : (!pto.tile<16x64xf32>, !pto.tile<16x1xf32>) -> !pto.tile<?x?xf32>
    %e = "pto.texp"(%d) : (!pto.tile<?x?xf32>) -> !pto.tile<?x?xf32>
    %s = "pto.trowsum"(%e) : (!pto.tile<?x?xf32>) -> !pto.tile<?x?xf32>
    %r = "pto.tdiv"(%e, %s) : (!pto.tile<?x?xf32>, !pto.tile<?x?xf32>) -> !pto.tile<?x?xf32>
    "pto.tstore"(%r, %y, %i, %c0) : (!pto.tile<?x?xf32>, memref<64x64xf32>, index, index) -> ()
  }
  return
}

// CHECK-LABEL: func.func @across_blocks
// CHECK:         %[[M:.*]] = "pto.trowmax"
// CHECK-NEXT:    %[[X:.*]] = "pto.trowexpand"(%[[M]]) : (!pto.tile<16x1xf32>) -> !pto.tile<16x16xf32>
// CHECK-NEXT:    %[[L:.*]] = scf.for {{.*}} iter_args(%[[A:.*]] = %[[X]]) -> (!pto.tile<16x16xf32>) {
// CHECK-NEXT:      %[[U:.*]] = "pto.tload"
// CHECK-NEXT:      %[[D:.*]] = "pto.tsub"(%[[U]], %[[X]])
// CHECK-NEXT:      %[[N:.*]] = "pto.tmax"(%[[A]], %[[D]])
// CHECK-NEXT:      scf.yield %[[N]]
// CHECK-NEXT:    }
// CHECK-NEXT:    "pto.tstore"(%[[L]], %arg0
func.func @across_blocks(%x: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %t = "pto.tload"(%x, %c0, %c0) : (memref<64x16xf32>, index, index) -> !pto.tile<16x16xf32>
  %m = "pto.trowmax"(%t) : (!pto.tile<16x16xf32>) -> !pto.tile<16x1xf32>
  %e = "pto.trowexpand"(%m) : (!pto.tile<16x1xf32>) -> !pto.tile<16x16xf32>
  %r = scf.for %i = %c16 to %c64 step %c16 iter_args(%a = %e) -> (!pto.tile<16x16xf32>) {
    %u = "pto.tload"(%x, %i, %c0) : (memref<64x16xf32>, index, index) -> !pto.tile<16x16xf32>
    %d = "pto.tsub"(%u, %e) : (!pto.tile<16x16xf32>, !pto.tile<16x16xf32>) -> !pto.tile<16x16xf32>
    %n = "pto.tmax"(%a, %d) : (!pto.tile<16x16xf32>, !pto.tile<16x16xf32>) -> !pto.tile<16x16xf32>
    scf.yield %n : !pto.tile<16x16xf32>
  }
  "pto.tstore"(%r, %x, %c0, %c0) : (!pto.tile<16x16xf32>, memref<64x16xf32>, index, index) -> ()
  return
}

// Two tile-scalar ops that differ only in their scalar stay two ops.
// CHECK-LABEL: func.func @two_scalars
// CHECK:         %[[A:.*]] = "pto.tadds"(%[[T:.*]], %arg1)
// CHECK-NEXT:    %[[B:.*]] = "pto.tadds"(%[[T]], %arg2)
// CHECK-NEXT:    "pto.tmul"(%[[A]], %[[B]])
func.func @two_scalars(%x: memref<16x16xf32>, %s: f32, %u: f32) {
  %c0 = arith.constant 0 : index
  %t = "pto.tload"(%x, %c0, %c0) : (memref<16x16xf32>, index, index) -> !pto.tile<16x16xf32>
  %a = "pto.tadds"(%t, %s) : (!pto.tile<16x16xf32>, f32) -> !pto.tile<16x16xf32>
  %b = "pto.tadds"(%t, %u) : (!pto.tile<16x16xf32>, f32) -> !pto.tile<16x16xf32>
  %r = "pto.tmul"(%a, %b) : (!pto.tile<16x16xf32>, !pto.tile<16x16xf32>) -> !pto.tile<16x16xf32>
  "pto.tstore"(%r, %x, %c0, %c0) : (!pto.tile<16x16xf32>, memref<16x16xf32>, index, index) -> ()
  return
}

// Two identical ops are one value after fusion; both stores read it.
// CHECK-LABEL: func.func @same_value_twice
// CHECK:         %[[E:.*]] = "pto.texp"
// CHECK-NOT:     "pto.texp"
// CHECK:         "pto.tstore"(%[[E]], %arg0, %c0, %c0)
// CHECK-NEXT:    "pto.tstore"(%[[E]], %arg0, %c16, %c0)
func.func @same_value_twice(%x: memref<32x16xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %t = "pto.tload"(%x, %c0, %c0) : (memref<32x16xf32>, index, index) -> !pto.tile<16x16xf32>
  %a = "pto.texp"(%t) : (!pto.tile<16x16xf32>) -> !pto.tile<16x16xf32>
  %b = "pto.texp"(%t) : (!pto.tile<16x16xf32>) -> !pto.tile<16x16xf32>
  "pto.tstore"(%a, %x, %c0, %c0) : (!pto.tile<16x16xf32>, memref<32x16xf32>, index, index) -> ()
  "pto.tstore"(%b, %x, %c16, %c0) : (!pto.tile<16x16xf32>, memref<32x16xf32>, index, index) -> ()
  return
}
