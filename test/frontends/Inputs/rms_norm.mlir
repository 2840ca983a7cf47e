#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0, d1) -> ()>
#map3 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @rms_norm(%arg0: tensor<16x64xf32>, %arg1: tensor<64xf32>) -> tensor<16x64xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant dense<9.99999997E-7> : tensor<f32>
    %cst_1 = arith.constant 6.400000e+01 : f32
    %0 = tensor.empty() : tensor<16x64xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg0 : tensor<16x64xf32>, tensor<16x64xf32>) outs(%0 : tensor<16x64xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %10 = arith.mulf %in, %in_2 : f32
      linalg.yield %10 : f32
    } -> tensor<16x64xf32>
    %2 = tensor.empty() : tensor<16x1xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<16x1xf32>) -> tensor<16x1xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%1 : tensor<16x64xf32>) outs(%3 : tensor<16x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %10 = arith.addf %in, %out : f32
      linalg.yield %10 : f32
    } -> tensor<16x1xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<16x1xf32>) outs(%2 : tensor<16x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %10 = arith.divf %in, %cst_1 : f32
      linalg.yield %10 : f32
    } -> tensor<16x1xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%5, %cst_0 : tensor<16x1xf32>, tensor<f32>) outs(%2 : tensor<16x1xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %10 = arith.addf %in, %in_2 : f32
      linalg.yield %10 : f32
    } -> tensor<16x1xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<16x1xf32>) outs(%2 : tensor<16x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %10 = math.sqrt %in : f32
      linalg.yield %10 : f32
    } -> tensor<16x1xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %7 : tensor<16x64xf32>, tensor<16x1xf32>) outs(%0 : tensor<16x64xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %10 = arith.divf %in, %in_2 : f32
      linalg.yield %10 : f32
    } -> tensor<16x64xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%8, %arg1 : tensor<16x64xf32>, tensor<64xf32>) outs(%0 : tensor<16x64xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %10 = arith.mulf %in, %in_2 : f32
      linalg.yield %10 : f32
    } -> tensor<16x64xf32>
    return %9 : tensor<16x64xf32>
  }
}

