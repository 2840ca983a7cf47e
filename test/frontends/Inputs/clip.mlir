#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> ()>
module {
  func.func @clip(%arg0: tensor<16x64xf32>) -> tensor<16x64xf32> {
    %cst = arith.constant dense<-1.500000e+00> : tensor<f32>
    %cst_0 = arith.constant dense<2.000000e+00> : tensor<f32>
    %0 = tensor.empty() : tensor<16x64xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %cst, %cst_0 : tensor<16x64xf32>, tensor<f32>, tensor<f32>) outs(%0 : tensor<16x64xf32>) {
    ^bb0(%in: f32, %in_1: f32, %in_2: f32, %out: f32):
      %2 = arith.cmpf ult, %in, %in_1 : f32
      %3 = arith.select %2, %in_1, %in : f32
      %4 = arith.cmpf ugt, %3, %in_2 : f32
      %5 = arith.select %4, %in_2, %3 : f32
      linalg.yield %5 : f32
    } -> tensor<16x64xf32>
    return %1 : tensor<16x64xf32>
  }
}

