#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (0, d1)>
module {
  func.func @gemm_transposed_a(%arg0: tensor<64x16xf32>, %arg1: tensor<64x32xf32>, %arg2: tensor<1x32xf32>) -> tensor<16x32xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<16x64xf32>
    %transposed = linalg.transpose ins(%arg0 : tensor<64x16xf32>) outs(%0 : tensor<16x64xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<16x32xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<16x32xf32>) -> tensor<16x32xf32>
    %3 = linalg.matmul ins(%transposed, %arg1 : tensor<16x64xf32>, tensor<64x32xf32>) outs(%2 : tensor<16x32xf32>) -> tensor<16x32xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %arg2 : tensor<16x32xf32>, tensor<1x32xf32>) outs(%1 : tensor<16x32xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %5 = arith.addf %in, %in_0 : f32
      linalg.yield %5 : f32
    } -> tensor<16x32xf32>
    return %4 : tensor<16x32xf32>
  }
}

