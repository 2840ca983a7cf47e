#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @bias_add(%arg0: tensor<16x64xf32>, %arg1: tensor<64xf32>) -> tensor<16x64xf32> {
    %0 = tensor.empty() : tensor<16x64xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<16x64xf32>, tensor<64xf32>) outs(%0 : tensor<16x64xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %2 = arith.addf %in, %in_0 : f32
      linalg.yield %2 : f32
    } -> tensor<16x64xf32>
    return %1 : tensor<16x64xf32>
  }
}

