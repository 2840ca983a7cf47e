// Named ops, unit dimensions, captured scalars and a constant in a body: what upstream
// normalisation turns into linalg.generic, collapse/expand_shape and hoisted constants.
func.func @mixed(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>, %s: f32, %u: tensor<1x8xf32>) -> (tensor<16x8xf32>, tensor<f32>, tensor<8x1xf32>, tensor<8x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x8xf32>) outs(%acc : tensor<16x8xf32>) -> tensor<16x8xf32>
  %e0 = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %sum = linalg.reduce ins(%mm : tensor<16x8xf32>) outs(%init : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %out: f32) {
      %t = arith.addf %in, %out : f32
      linalg.yield %t : f32
    }
  %eu = tensor.empty() : tensor<1x8xf32>
  %scaled = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%u : tensor<1x8xf32>) outs(%eu : tensor<1x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %half = arith.constant 0.5 : f32
    %p = arith.mulf %x, %s fastmath<nnan> : f32
    %q = arith.maximumf %p, %half : f32
    linalg.yield %q : f32
  } -> tensor<1x8xf32>
  %col = tensor.collapse_shape %scaled [[0, 1]] : tensor<1x8xf32> into tensor<8xf32>
  %r = tensor.expand_shape %col [[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
  %et = tensor.empty() : tensor<8x16xf32>
  %tr = linalg.transpose ins(%mm : tensor<16x8xf32>) outs(%et : tensor<8x16xf32>) permutation = [1, 0]
  return %mm, %sum, %r, %tr : tensor<16x8xf32>, tensor<f32>, tensor<8x1xf32>, tensor<8x16xf32>
}
