// A batch_matmul whose B broadcasts one 2-D weight over the batch (torch-mlir's MatMul of a 3-D
// by a 2-D tensor) is one matmul of A's stacked batch·M rows by the weight itself: no stage and
// no copy for the broadcast, the weight's memref is K×N. Each is verified bit for bit against
// the program (k in order from +0 for each element, docs/isa.md §9 decision 51).
// RUN: ptoc verify %s --trials 3 | FileCheck %s --check-prefix=VERIFY
// RUN: ptoc %s --emit=mlir -o /dev/null --mlir-print-ir-after=convert-linalg-to-pto 2>&1 | FileCheck %s
// VERIFY: @shared: 3 trials (seed 0), compiled code matches the source bit for bit
// VERIFY: @shared_computed: 3 trials (seed 0), compiled code matches the source bit for bit
// VERIFY: @shared_epilogue: 3 trials (seed 0), compiled code matches the source bit for bit
// A's 48 stacked rows in a 32-row and a 16-row block, each by the whole 64x32 weight.
// CHECK-LABEL: func.func @shared(%arg0: memref<48x64xf32>, %arg1: memref<64x32xf32>, %arg2: memref<48x32xf32>)
// CHECK-NOT: pto.workspace
// CHECK: "pto.tmatmul"{{.*}}cube_m32>, !pto.tile<64x32xf32, layout=cube_n8>)
// CHECK: "pto.tmatmul"{{.*}}cube_m16>, !pto.tile<64x32xf32, layout=cube_n8>)
// CHECK-NOT: "pto.tmatmul"
// CHECK-LABEL: func.func @shared_computed
// The weight is computed (w + w) by a grid stage before the product, which reads it from a
// workspace; the broadcast is still no stage of its own.
// CHECK-SAME: pto.workspace
// CHECK: "pto.tadd"
// CHECK: "pto.tmatmul"
// The epilogue (a ReLU) runs in place on the product, which reads the weight itself.
// CHECK-LABEL: func.func @shared_epilogue(%arg0: memref<32x64xf32>, %arg1: memref<64x32xf32>, %arg2: memref<32x32xf32>)
// CHECK: "pto.tmatmul"
// CHECK: "pto.tmaxs"

#bcast = affine_map<(d0, d1, d2) -> (d1, d2)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

func.func @shared(%x: tensor<3x16x64xf32>, %w: tensor<64x32xf32>) -> tensor<3x16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x64x32xf32>
  %wb = linalg.generic {indexing_maps = [#bcast, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%w : tensor<64x32xf32>) outs(%e : tensor<3x64x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<3x64x32xf32>
  %o = tensor.empty() : tensor<3x16x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%o : tensor<3x16x32xf32>) -> tensor<3x16x32xf32>
  %r = linalg.batch_matmul ins(%x, %wb : tensor<3x16x64xf32>, tensor<3x64x32xf32>) outs(%z : tensor<3x16x32xf32>) -> tensor<3x16x32xf32>
  return %r : tensor<3x16x32xf32>
}

func.func @shared_computed(%x: tensor<2x16x64xf32>, %w: tensor<64x32xf32>) -> tensor<2x16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<64x32xf32>
  %ww = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<64x32xf32>) outs(%e2 : tensor<64x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %in : f32
    linalg.yield %s : f32
  } -> tensor<64x32xf32>
  %e = tensor.empty() : tensor<2x64x32xf32>
  %wb = linalg.generic {indexing_maps = [#bcast, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ww : tensor<64x32xf32>) outs(%e : tensor<2x64x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x64x32xf32>
  %o = tensor.empty() : tensor<2x16x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%o : tensor<2x16x32xf32>) -> tensor<2x16x32xf32>
  %r = linalg.batch_matmul ins(%x, %wb : tensor<2x16x64xf32>, tensor<2x64x32xf32>) outs(%z : tensor<2x16x32xf32>) -> tensor<2x16x32xf32>
  return %r : tensor<2x16x32xf32>
}

func.func @shared_epilogue(%x: tensor<2x16x64xf32>, %w: tensor<64x32xf32>) -> tensor<2x16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x64x32xf32>
  %wb = linalg.generic {indexing_maps = [#bcast, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%w : tensor<64x32xf32>) outs(%e : tensor<2x64x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x64x32xf32>
  %o = tensor.empty() : tensor<2x16x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%o : tensor<2x16x32xf32>) -> tensor<2x16x32xf32>
  %r = linalg.batch_matmul ins(%x, %wb : tensor<2x16x64xf32>, tensor<2x64x32xf32>) outs(%z : tensor<2x16x32xf32>) -> tensor<2x16x32xf32>
  %relu = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r : tensor<2x16x32xf32>) outs(%o : tensor<2x16x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x16x32xf32>
  return %relu : tensor<2x16x32xf32>
}
