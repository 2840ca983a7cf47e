// A reduced line too wide for one tile (or for the kernel's tiles to allocate beside each other)
// is folded chunk by chunk: one loop over the chunks per fold depth, each carrying the per-line
// results of its folds, then a loop that computes and stores the grid results. Per-line values
// between the folds (the mean) are made once per block of lines, between the loops.
// Max/min and integer folds combine their pieces exactly, so they need no option; a float sum
// needs --allow-reassociation and says so at the op (test/linalg/invalid-convert.mlir: refused
// without it). test/linalg/chunked-verify.mlir checks the results against the reference.
// RUN: ptoc %s --split-input-file --allow-reassociation --verify-diagnostics --emit=asm -o /dev/null
// RUN: ptoc %s --split-input-file --allow-reassociation --emit=mlir -o /dev/null --mlir-print-ir-after=convert-linalg-to-pto 2>&1 | FileCheck %s

// Layer norm over rows of 32768 f32 (128 KiB a row), returning the mean too.
// CHECK-LABEL: func.func @layer_norm_wide(%arg0: memref<4x32768xf32>, %arg1: memref<4x32768xf32>, %arg2: memref<4x1xf32>)
// CHECK-SAME: pto.fold_piece = [[PIECE:[0-9]+]]
// CHECK: scf.for %[[ROW:.*]] = %c0 to %c4 step %c1 {
// CHECK: %[[SUM:.*]] = scf.for %[[J:.*]] = %c0 to %c32768 step %c[[PIECE]] iter_args(%[[ACC:.*]] = %{{.*}}) -> (!pto.tile<1x1xf32>) {
// CHECK: "pto.tload"(%arg0, %[[ROW]], %[[J]])
// CHECK: %[[PART:.*]] = "pto.trowsum"
// CHECK: %[[NEXT:.*]] = "pto.tadd"(%[[PART]], %[[ACC]])
// CHECK: scf.yield %[[NEXT]]
// CHECK: %[[MEAN:.*]] = "pto.tdivs"(%[[SUM]]
// CHECK: %[[VAR:.*]] = scf.for {{.*}} iter_args
// CHECK: "pto.trowexpand"(%[[MEAN]])
// CHECK: "pto.trowsum"
// CHECK: scf.yield
// CHECK: scf.for
// CHECK: "pto.trsqrt"
// CHECK: "pto.tstore"({{.*}}, %arg1, %[[ROW]]
// CHECK: "pto.tstore"(%[[MEAN]], %arg2, %[[ROW]], %c0)
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#r1 = affine_map<(d0) -> (d0)>
func.func @layer_norm_wide(%x: tensor<4x32768xf32>) -> (tensor<4x32768xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 32768.0 : f32
  %eps = arith.constant 1.0e-05 : f32
  %e1 = tensor.empty() : tensor<4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x32768xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    // expected-remark@+1 {{--allow-reassociation: each row's sum of 32768 elements is folded in}}
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %mean = linalg.generic {indexing_maps = [#r1, #r1], iterator_types = ["parallel"]} ins(%sum : tensor<4xf32>) outs(%e1 : tensor<4xf32>) {
  ^bb0(%s: f32, %o: f32):
    %q = arith.divf %s, %n : f32
    linalg.yield %q : f32
  } -> tensor<4xf32>
  %var_sum = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]} ins(%x, %mean : tensor<4x32768xf32>, tensor<4xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%in: f32, %mu: f32, %acc: f32):
    %d = arith.subf %in, %mu : f32
    %sq = arith.mulf %d, %d : f32
    // expected-remark@+1 {{--allow-reassociation: each row's sum of 32768 elements is folded in}}
    %r = arith.addf %sq, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4x32768xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %mean, %var_sum : tensor<4x32768xf32>, tensor<4xf32>, tensor<4xf32>) outs(%e2 : tensor<4x32768xf32>) {
  ^bb0(%in: f32, %mu: f32, %vs: f32, %o: f32):
    %var = arith.divf %vs, %n : f32
    %ve = arith.addf %var, %eps : f32
    %rs = math.rsqrt %ve : f32
    %d = arith.subf %in, %mu : f32
    %r = arith.mulf %d, %rs : f32
    linalg.yield %r : f32
  } -> tensor<4x32768xf32>
  return %y, %mean : tensor<4x32768xf32>, tensor<4xf32>
}

// -----

// amax with NaN propagation over rows of 20000: exact in pieces, so no remark and no fold_piece.
// CHECK-LABEL: func.func @amax_wide(%arg0: memref<4x20000xf32>, %arg1: memref<4x1xf32>)
// CHECK-NOT: fold_piece
// CHECK: iter_args
// CHECK: "pto.trowmax"
// CHECK: "pto.tmax"
// CHECK: scf.yield
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @amax_wide(%x: tensor<4x20000xf32>) -> tensor<4xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e1 = tensor.empty() : tensor<4xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x20000xf32>) outs(%mi : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maximumf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %m : tensor<4xf32>
}

// -----

// A wrapping i32 sum over rows of 32768, and a column minnumf over 40000 rows: both exact.
// CHECK-LABEL: func.func @int_sum_wide
// CHECK: iter_args
// CHECK: "pto.trowsum"
// CHECK: "pto.tadd"
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @int_sum_wide(%x: tensor<4x32768xi32>) -> tensor<4xi32> {
  %seven = arith.constant 7 : i32
  %e1 = tensor.empty() : tensor<4xi32>
  %z = linalg.fill ins(%seven : i32) outs(%e1 : tensor<4xi32>) -> tensor<4xi32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x32768xi32>) outs(%z : tensor<4xi32>) {
  ^bb0(%in: i32, %acc: i32):
    %r = arith.addi %in, %acc : i32
    linalg.yield %r : i32
  } -> tensor<4xi32>
  return %s : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @col_min_tall(%arg0: memref<40000x4xf32>, %arg1: memref<1x4xf32>)
// CHECK: scf.for %{{.*}} = %c0 to %c40000 step
// CHECK: "pto.tcolmin"
// CHECK: "pto.tmin"
// CHECK: "pto.tstore"({{.*}}, %arg1, %c0, %c0)
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @col_min_tall(%x: tensor<40000x4xf32>) -> tensor<4xf32> {
  %nan = arith.constant 0x7FC00000 : f32
  %e1 = tensor.empty() : tensor<4xf32>
  %mi = linalg.fill ins(%nan : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %m = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<40000x4xf32>) outs(%mi : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.minnumf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %m : tensor<4xf32>
}
