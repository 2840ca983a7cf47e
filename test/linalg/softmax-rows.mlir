// torch-mlir's row softmax (aten._softmax over dim 1) as linalg on tensors: an unused global, a
// two-result max/argmax reduction whose argmax is dead, expand_shape to a unit column, broadcast
// reads through (d0, 0), exp, an addf reduction and a division.
// RUN: ptoc verify %s --trials 3 | FileCheck %s --check-prefix=VERIFY
// RUN: ptoc %s --emit=asm | FileCheck %s
// RUN: ptoc %s --emit=mlir --mlir-print-ir-after=convert-linalg-to-pto 2>&1 >/dev/null | FileCheck %s --check-prefix=PTO
// VERIFY: @main: 3 trials (seed 0), compiled code matches the source bit for bit
// CHECK-LABEL: .kernel main
// CHECK: TROWMAX
// CHECK: TROWEXPANDEXPDIF
// CHECK: TROWSUM
// CHECK: TROWEXPANDDIV
// PTO: IR Dump After ConvertLinalgToPto (convert-linalg-to-pto)
// PTO: func.func @main(%arg0: memref<64x256xf32>, %arg1: i64, %arg2: memref<64x256xf32>)
// PTO: scf.for
// PTO: "pto.tload"(%arg0
// PTO: "pto.trowmax"
// PTO: "pto.tstore"({{.*}}, %arg2
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0, d1) -> (d0, 0)>
module {
  ml_program.global private mutable @global_seed(dense<0> : tensor<i64>) : tensor<i64>
  func.func @main(%arg0: tensor<64x256xf32>, %arg1: i64) -> tensor<64x256xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0xFF800000 : f32
    %c0_i64 = arith.constant 0 : i64
    %0 = tensor.empty() : tensor<64xi64>
    %1 = linalg.fill ins(%c0_i64 : i64) outs(%0 : tensor<64xi64>) -> tensor<64xi64>
    %2 = tensor.empty() : tensor<64xf32>
    %3 = linalg.fill ins(%cst_0 : f32) outs(%2 : tensor<64xf32>) -> tensor<64xf32>
    %4:2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<64x256xf32>) outs(%3, %1 : tensor<64xf32>, tensor<64xi64>) {
    ^bb0(%in: f32, %out: f32, %out_1: i64):
      %11 = linalg.index 1 : index
      %12 = arith.index_cast %11 : index to i64
      %13 = arith.maximumf %in, %out : f32
      %14 = arith.cmpf ogt, %in, %out : f32
      %15 = arith.select %14, %12, %out_1 : i64
      linalg.yield %13, %15 : f32, i64
    } -> (tensor<64xf32>, tensor<64xi64>)
    %expanded = tensor.expand_shape %4#0 [[0, 1]] output_shape [64, 1] : tensor<64xf32> into tensor<64x1xf32>
    %5 = tensor.empty() : tensor<64x256xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %expanded : tensor<64x256xf32>, tensor<64x1xf32>) outs(%5 : tensor<64x256xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %11 = arith.subf %in, %in_1 : f32
      linalg.yield %11 : f32
    } -> tensor<64x256xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<64x256xf32>) outs(%5 : tensor<64x256xf32>) {
    ^bb0(%in: f32, %out: f32):
      %11 = math.exp %in : f32
      linalg.yield %11 : f32
    } -> tensor<64x256xf32>
    %8 = tensor.empty() : tensor<64x1xf32>
    %9 = linalg.fill ins(%cst : f32) outs(%8 : tensor<64x1xf32>) -> tensor<64x1xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%7 : tensor<64x256xf32>) outs(%9 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %11 = arith.addf %in, %out : f32
      linalg.yield %11 : f32
    } -> tensor<64x1xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%7, %10 : tensor<64x256xf32>, tensor<64x1xf32>) outs(%5 : tensor<64x256xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %12 = arith.divf %in, %in_1 : f32
      linalg.yield %12 : f32
    } -> tensor<64x256xf32>
    return %11 : tensor<64x256xf32>
  }
}
