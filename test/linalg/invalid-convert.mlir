// Programs that import but that convert-linalg-to-pto refuses, one per chunk, each at the op
// that cannot be lowered exactly, saying why and what would work.
// RUN: ptoc %s --split-input-file --verify-diagnostics --emit=asm

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @sum_from_one(%x: tensor<8x64xf32>) -> tensor<8xf32> {
  %one = arith.constant 1.0 : f32
  %e1 = tensor.empty() : tensor<8xf32>
  %z = linalg.fill ins(%one : f32) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x64xf32>) outs(%z : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    // expected-error@+1 {{this sum starts from an init other than +0.0, which the ISA's fold cannot start from: adding it afterwards reassociates the fold; pass --allow-reassociation to accept that}}
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @always(%x: tensor<8x64xf32>, %y: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %e = tensor.empty() : tensor<8x64xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<8x64xf32>, tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    // expected-error@+1 {{arith.cmpf true is a constant; ptoc lowers comparisons that read their operands (every predicate but false and true)}}
    %c = arith.cmpf true, %a, %b : f32
    %s = arith.select %c, %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @unsigned_div(%x: tensor<8x64xi32>, %y: tensor<8x64xi32>) -> tensor<8x64xi32> {
  %e = tensor.empty() : tensor<8x64xi32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<8x64xi32>, tensor<8x64xi32>) outs(%e : tensor<8x64xi32>) {
  ^bb0(%a: i32, %b: i32, %o: i32):
    // expected-error@+1 {{arith.divui has no exact lowering: ptoc keeps MLIR's signless integers in signed tiles (S8..S64), and unsigned division, unlike unsigned comparisons and max/min, has no signed form}}
    %m = arith.divui %a, %b : i32
    linalg.yield %m : i32
  } -> tensor<8x64xi32>
  return %r : tensor<8x64xi32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @live_index(%x: tensor<8x64xi64>) -> tensor<8x64xi64> {
  %e = tensor.empty() : tensor<8x64xi64>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x64xi64>) outs(%e : tensor<8x64xi64>) {
  ^bb0(%a: i64, %o: i64):
    // expected-error@+1 {{linalg.index is not supported where its value is used: the ISA's tile ops have no element index}}
    %i = linalg.index 1 : index
    %c = arith.index_cast %i : index to i64
    %s = arith.addi %a, %c : i64
    linalg.yield %s : i64
  } -> tensor<8x64xi64>
  return %r : tensor<8x64xi64>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @wide_rows(%x: tensor<4x32768xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  // expected-error@+1 {{this sum folds each row of the 4x32768 grid, which needs a 131072-byte tile, and the largest tile is 65536 bytes; folding a row in pieces reassociates the sum: pass --allow-reassociation to accept that}}
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x32768xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @both_axes(%x: tensor<256x256xf32>) -> (tensor<256xf32>, tensor<256xf32>) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<256xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<256xf32>) -> tensor<256xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<256x256xf32>) outs(%z : tensor<256xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<256xf32>
  // expected-error@+1 {{this program reduces over both rows and columns, so the whole 256x256 grid must fit one tile: 262144 bytes, more than 65536}}
  %t = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<256x256xf32>) outs(%z : tensor<256xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<256xf32>
  return %s, %t : tensor<256xf32>, tensor<256xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
func.func @transpose(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  %e = tensor.empty() : tensor<8x4xf32>
  // expected-error@+1 {{operand #0 is read through a map that transposes it (or reads a diagonal); ptoc reads each tensor in its own row-major order and transposes only in a generic that does nothing else (linalg.transpose): transpose first, then compute}}
  %y = linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
// expected-error@+1 {{%x (tensor<0x4xf32>) has no elements; ptoc compiles tensors of at least one element}}
func.func @no_elements(%x: tensor<0x4xf32>) -> tensor<0x4xf32> {
  %e = tensor.empty() : tensor<0x4xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<0x4xf32>) outs(%e : tensor<0x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<0x4xf32>
  return %y : tensor<0x4xf32>
}

// -----

// A matmul compiles (test/linalg/matmul.mlir); a contraction of three inputs does not.
#ak = affine_map<(d0, d1, d2) -> (d0, d2)>
#kb = affine_map<(d0, d1, d2) -> (d2, d1)>
#ab = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @scaled_contraction(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %s: tensor<4x8xf32>) -> tensor<4x4xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  // expected-error@+1 {{a contraction other than a matmul (an operand reads the reduced loop d2 with only some of the others); ptoc maps linalg.matmul and linalg.batch_matmul, two inputs and one output, onto the matrix unit, and otherwise lowers elementwise ops and folds along one dimension}}
  %c = linalg.generic {indexing_maps = [#ak, #kb, #ak, #ab], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b, %s : tensor<4x8xf32>, tensor<8x4xf32>, tensor<4x8xf32>) outs(%f : tensor<4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %w: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %q = arith.mulf %p, %w : f32
    %r = arith.addf %o, %q : f32
    linalg.yield %r : f32
  } -> tensor<4x4xf32>
  return %c : tensor<4x4xf32>
}

// -----

// Batch dimensions merge into rows only where every op keeps them in order.
#m3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#r3 = affine_map<(d0, d1, d2) -> (d1, d2)>
func.func @batch_skipped(%x: tensor<2x8x16xf32>, %p: tensor<8x16xf32>) -> tensor<2x8x16xf32> {
  %e = tensor.empty() : tensor<2x8x16xf32>
  // expected-error@+1 {{operand 1's indexing map does not read the leading dimensions d0..d1 in order (then optionally d2 or 0), d2 alone, or nothing}}
  %y = linalg.generic {indexing_maps = [#m3, #r3, #m3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %p : tensor<2x8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<2x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x8x16xf32>
  return %y : tensor<2x8x16xf32>
}

// -----

#m3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#s3 = affine_map<(d0, d1, d2) -> (d1, d2)>
func.func @batch_reduced(%x: tensor<2x8x16xf32>) -> tensor<8x16xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  // expected-error@+1 {{a rank-3 op that reduces over a leading dimension; ptoc merges the leading dimensions into rows, so a rank-3 op may fold only its last dimension}}
  %s = linalg.generic {indexing_maps = [#m3, #s3], iterator_types = ["reduction", "parallel", "parallel"]} ins(%x : tensor<2x8x16xf32>) outs(%f : tensor<8x16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  return %s : tensor<8x16xf32>
}
