// Softmax down the columns (dim 0): the reductions run over d0, so ptoc tiles the columns and
// keeps each column's fold in one tile.
// RUN: ptoc verify %s --trials 3 | FileCheck %s --check-prefix=VERIFY
// RUN: ptoc %s --emit=asm | FileCheck %s
// VERIFY: @softmax_cols: 3 trials (seed 0), compiled code matches the source bit for bit
// CHECK: TCOLMAX
// CHECK: TCOLEXPANDEXPDIF
// CHECK: TCOLSUM
// CHECK: TCOLEXPANDDIV
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @softmax_cols(%x: tensor<128x96xf32>) -> tensor<128x96xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e1 = tensor.empty() : tensor<96xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<96xf32>) -> tensor<96xf32>
  %m = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<128x96xf32>) outs(%mi : tensor<96xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maximumf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<96xf32>
  %e2 = tensor.empty() : tensor<128x96xf32>
  %ex = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<128x96xf32>, tensor<96xf32>) outs(%e2 : tensor<128x96xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<128x96xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e1 : tensor<96xf32>) -> tensor<96xf32>
  %s = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]} ins(%ex : tensor<128x96xf32>) outs(%si : tensor<96xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<96xf32>
  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%ex, %s : tensor<128x96xf32>, tensor<96xf32>) outs(%e2 : tensor<128x96xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %q = arith.divf %a, %b : f32
    linalg.yield %q : f32
  } -> tensor<128x96xf32>
  return %y : tensor<128x96xf32>
}
