#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @where_greater(%arg0: tensor<16x64xf32>, %arg1: tensor<16x64xf32>) -> tensor<16x64xf32> {
    %0 = tensor.empty() : tensor<16x64xi1>
    %1 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<16x64xf32>, tensor<16x64xf32>) outs(%0 : tensor<16x64xi1>) {
    ^bb0(%in: f32, %in_0: f32, %out: i1):
      %4 = arith.cmpf ogt, %in, %in_0 : f32
      linalg.yield %4 : i1
    } -> tensor<16x64xi1>
    %2 = tensor.empty() : tensor<16x64xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %arg0, %arg1 : tensor<16x64xi1>, tensor<16x64xf32>, tensor<16x64xf32>) outs(%2 : tensor<16x64xf32>) {
    ^bb0(%in: i1, %in_0: f32, %in_1: f32, %out: f32):
      %4 = arith.select %in, %in_0, %in_1 : f32
      linalg.yield %4 : f32
    } -> tensor<16x64xf32>
    return %3 : tensor<16x64xf32>
  }
}

