#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @gemm_scaled(%arg0: tensor<16x64xf32>, %arg1: tensor<64x32xf32>, %arg2: tensor<16x32xf32>) -> tensor<16x32xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 5.000000e-01 : f32
    %cst_1 = arith.constant 2.000000e+00 : f32
    %0 = tensor.empty() : tensor<16x32xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<16x32xf32>) -> tensor<16x32xf32>
    %2 = linalg.matmul ins(%arg0, %arg1 : tensor<16x64xf32>, tensor<64x32xf32>) outs(%1 : tensor<16x32xf32>) -> tensor<16x32xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<16x32xf32>) outs(%0 : tensor<16x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %5 = arith.mulf %in, %cst_0 : f32
      linalg.yield %5 : f32
    } -> tensor<16x32xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %arg2 : tensor<16x32xf32>, tensor<16x32xf32>) outs(%0 : tensor<16x32xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %5 = arith.mulf %in_2, %cst_1 : f32
      %6 = arith.addf %in, %5 : f32
      linalg.yield %6 : f32
    } -> tensor<16x32xf32>
    return %4 : tensor<16x32xf32>
  }
}

