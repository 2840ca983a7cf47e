#map = affine_map<(d0, d1, d2) -> (d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
module {
  func.func @linear_batched(%arg0: tensor<4x16x64xf32>, %arg1: tensor<64x32xf32>) -> tensor<4x16x32xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<4x64x32xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg1 : tensor<64x32xf32>) outs(%0 : tensor<4x64x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<4x64x32xf32>
    %2 = tensor.empty() : tensor<4x16x32xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<4x16x32xf32>) -> tensor<4x16x32xf32>
    %4 = linalg.batch_matmul ins(%arg0, %1 : tensor<4x16x64xf32>, tensor<4x64x32xf32>) outs(%3 : tensor<4x16x32xf32>) -> tensor<4x16x32xf32>
    return %4 : tensor<4x16x32xf32>
  }
}

