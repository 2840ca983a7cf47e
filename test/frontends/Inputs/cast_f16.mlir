#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @cast_f16(%arg0: tensor<16x64xf32>) -> tensor<16x64xf16> {
    %0 = tensor.empty() : tensor<16x64xf16>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<16x64xf32>) outs(%0 : tensor<16x64xf16>) {
    ^bb0(%in: f32, %out: f16):
      %2 = arith.truncf %in : f32 to f16
      linalg.yield %2 : f16
    } -> tensor<16x64xf16>
    return %1 : tensor<16x64xf16>
  }
}

