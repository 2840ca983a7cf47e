// Chunked folds under verify (README, linalg-on-tensors input). A reduced line too wide for one
// tile is folded chunk by chunk. Under --allow-reassociation a float sum or product then folds in
// pieces and the kernel records their length (pto.fold_piece); verify reads the program with that
// meaning, so it matches bit for bit: (a) torch-mlir's row softmax over 8x32768 f32 (rows of
// 128 KiB, two folds: max, then sum), (b) a sum from init 1.0 that fits one tile (one piece,
// the init joining after it). Max/min and integer folds chunk exactly, so plain verify (no flag)
// matches on (c) a maximumf amax over 4x32768 with NaNs, an addi i32 row sum over 4x32768 from
// 7, a minnumf column fold over 40000x4. Three trials cover the three input profiles (edges,
// moderate values, sparse edges: ptoc verify --help).
// RUN: split-file %s %t
// RUN: ptoc verify %t/reassociated.mlir --allow-reassociation --trials 3 | FileCheck %s --check-prefix=REASSOC
// RUN: ptoc %t/reassociated.mlir --allow-reassociation --emit=mlir 2>/dev/null | FileCheck %s --check-prefix=PIECE
// RUN: ptoc verify %t/exact.mlir --trials 3 | FileCheck %s --check-prefix=EXACT
// RUN: ptoc %t/exact.mlir --emit=mlir | FileCheck %s --check-prefix=NOPIECE
// REASSOC: @softmax: 3 trials (seed 0), compiled code matches the source bit for bit
// REASSOC: @sum_from_one: 3 trials (seed 0), compiled code matches the source bit for bit
// PIECE-LABEL: func.func @softmax
// PIECE-SAME: pto.fold_piece = 2048
// PIECE-LABEL: func.func @sum_from_one
// PIECE-SAME: pto.fold_piece = 64
// EXACT: @amax: 3 trials (seed 0), compiled code matches the source bit for bit
// EXACT: @isum: 3 trials (seed 0), compiled code matches the source bit for bit
// EXACT: @colmin: 3 trials (seed 0), compiled code matches the source bit for bit
// NOPIECE-NOT: pto.fold_piece

//--- reassociated.mlir
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0, d1) -> (d0, 0)>
module {
  ml_program.global private mutable @global_seed(dense<0> : tensor<i64>) : tensor<i64>
  func.func @softmax(%arg0: tensor<8x32768xf32>, %arg1: i64) -> tensor<8x32768xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0xFF800000 : f32
    %c0_i64 = arith.constant 0 : i64
    %0 = tensor.empty() : tensor<8xi64>
    %1 = linalg.fill ins(%c0_i64 : i64) outs(%0 : tensor<8xi64>) -> tensor<8xi64>
    %2 = tensor.empty() : tensor<8xf32>
    %3 = linalg.fill ins(%cst_0 : f32) outs(%2 : tensor<8xf32>) -> tensor<8xf32>
    %4:2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<8x32768xf32>) outs(%3, %1 : tensor<8xf32>, tensor<8xi64>) {
    ^bb0(%in: f32, %out: f32, %out_1: i64):
      %11 = linalg.index 1 : index
      %12 = arith.index_cast %11 : index to i64
      %13 = arith.maximumf %in, %out : f32
      %14 = arith.cmpf ogt, %in, %out : f32
      %15 = arith.select %14, %12, %out_1 : i64
      linalg.yield %13, %15 : f32, i64
    } -> (tensor<8xf32>, tensor<8xi64>)
    %expanded = tensor.expand_shape %4#0 [[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
    %5 = tensor.empty() : tensor<8x32768xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %expanded : tensor<8x32768xf32>, tensor<8x1xf32>) outs(%5 : tensor<8x32768xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %11 = arith.subf %in, %in_1 : f32
      linalg.yield %11 : f32
    } -> tensor<8x32768xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<8x32768xf32>) outs(%5 : tensor<8x32768xf32>) {
    ^bb0(%in: f32, %out: f32):
      %11 = math.exp %in : f32
      linalg.yield %11 : f32
    } -> tensor<8x32768xf32>
    %8 = tensor.empty() : tensor<8x1xf32>
    %9 = linalg.fill ins(%cst : f32) outs(%8 : tensor<8x1xf32>) -> tensor<8x1xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%7 : tensor<8x32768xf32>) outs(%9 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %11 = arith.addf %in, %out : f32
      linalg.yield %11 : f32
    } -> tensor<8x1xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%7, %10 : tensor<8x32768xf32>, tensor<8x1xf32>) outs(%5 : tensor<8x32768xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %12 = arith.divf %in, %in_1 : f32
      linalg.yield %12 : f32
    } -> tensor<8x32768xf32>
    return %11 : tensor<8x32768xf32>
  }
  func.func @sum_from_one(%x: tensor<8x64xf32>) -> tensor<8xf32> {
    %one = arith.constant 1.0 : f32
    %e1 = tensor.empty() : tensor<8xf32>
    %z = linalg.fill ins(%one : f32) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
    %s = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x64xf32>) outs(%z : tensor<8xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    } -> tensor<8xf32>
    return %s : tensor<8xf32>
  }
}

//--- exact.mlir
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @amax(%x: tensor<4x32768xf32>) -> tensor<4xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x32768xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maximumf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %m : tensor<4xf32>
}
func.func @isum(%x: tensor<4x32768xi32>) -> tensor<4xi32> {
  %seven = arith.constant 7 : i32
  %e = tensor.empty() : tensor<4xi32>
  %init = linalg.fill ins(%seven : i32) outs(%e : tensor<4xi32>) -> tensor<4xi32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x32768xi32>) outs(%init : tensor<4xi32>) {
  ^bb0(%in: i32, %acc: i32):
    %r = arith.addi %in, %acc : i32
    linalg.yield %r : i32
  } -> tensor<4xi32>
  return %s : tensor<4xi32>
}
func.func @colmin(%x: tensor<40000x4xf32>) -> tensor<4xf32> {
  %big = arith.constant 1.0e30 : f32
  %e = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%big : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %m = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<40000x4xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.minnumf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %m : tensor<4xf32>
}
