#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> ()>
module {
  func.func @gelu(%arg0: tensor<16x64xf32>) -> tensor<16x64xf32> {
    %cst = arith.constant dense<1.41421354> : tensor<f32>
    %cst_0 = arith.constant dense<1.000000e+00> : tensor<f32>
    %cst_1 = arith.constant dense<5.000000e-01> : tensor<f32>
    %0 = tensor.empty() : tensor<16x64xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %cst : tensor<16x64xf32>, tensor<f32>) outs(%0 : tensor<16x64xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %6 = arith.divf %in, %in_2 : f32
      linalg.yield %6 : f32
    } -> tensor<16x64xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%1 : tensor<16x64xf32>) outs(%0 : tensor<16x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %6 = math.erf %in : f32
      linalg.yield %6 : f32
    } -> tensor<16x64xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%2, %cst_0 : tensor<16x64xf32>, tensor<f32>) outs(%0 : tensor<16x64xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %6 = arith.addf %in, %in_2 : f32
      linalg.yield %6 : f32
    } -> tensor<16x64xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %3 : tensor<16x64xf32>, tensor<16x64xf32>) outs(%0 : tensor<16x64xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %6 = arith.mulf %in, %in_2 : f32
      linalg.yield %6 : f32
    } -> tensor<16x64xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%4, %cst_1 : tensor<16x64xf32>, tensor<f32>) outs(%0 : tensor<16x64xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %6 = arith.mulf %in, %in_2 : f32
      linalg.yield %6 : f32
    } -> tensor<16x64xf32>
    return %5 : tensor<16x64xf32>
  }
}

