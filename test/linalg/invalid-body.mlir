// A linalg.generic's maps read operands at loop dimensions dN or at index 0, and its body holds
// the scalar ops ptoc_ir::linalg::ScalarOp names; anything else is refused at the op (the
// generic for a map, the body op for an op), saying why and what ptoc takes.
// RUN: not ptoc %s --split-input-file -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=error:

func.func @sine(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    // CHECK: invalid-body.mlir:[[@LINE+1]]:10: error: cannot lower 'math.sin': the ISA has no sine; supported math ops are math.exp, math.log, math.sqrt, math.rsqrt, math.absf
    %s = math.sin %in : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

func.func @tanh_f16(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %e = tensor.empty() : tensor<4x8xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf16>) outs(%e : tensor<4x8xf16>) {
  ^bb0(%in: f16, %out: f16):
    // f32 tanh and erf are written out in ISA ops (test/frontends); other types are not.
    // CHECK: invalid-body.mlir:[[@LINE+1]]:10: error: cannot lower 'math.tanh' of f16: the ISA has no hyperbolic function; ptoc writes it out in ISA ops for one f32 operand only
    %s = math.tanh %in : f16
    linalg.yield %s : f16
  } -> tensor<4x8xf16>
  return %r : tensor<4x8xf16>
}

// -----

func.func @remf(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    // CHECK: invalid-body.mlir:[[@LINE+1]]:10: error: cannot lower 'arith.remf' in a linalg.generic body; ptoc takes arith.addf, arith.addi, arith.cmpf, arith.cmpi, arith.constant, arith.divf, arith.divsi, arith.divui, arith.extf, arith.extsi, arith.extui, arith.fptosi, arith.fptoui, arith.index_cast, arith.maximumf, arith.maxnumf, arith.maxsi, arith.maxui, arith.minimumf, arith.minnumf, arith.minsi, arith.minui, arith.mulf, arith.muli, arith.negf, arith.select, arith.sitofp, arith.subf, arith.subi, arith.truncf, arith.trunci, arith.uitofp, linalg.index and linalg.yield; and the math ops math.exp, math.log, math.sqrt, math.rsqrt, math.absf
    %s = arith.remf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

func.func @extract(%x: tensor<4x8xf32>, %t: tensor<8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %j = linalg.index 1 : index
    // CHECK: invalid-body.mlir:[[@LINE+1]]:10: error: cannot lower 'tensor.extract' in a linalg.generic body; ptoc takes
    %v = tensor.extract %t[%j] : tensor<8xf32>
    %s = arith.addf %in, %v : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

func.func @skew(%x: tensor<12xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  // CHECK: invalid-body.mlir:[[@LINE+1]]:8: error: 'linalg.generic' indexing map #0 is (d0, d1) -> (d0 + d1); ptoc takes maps whose results are loop dimensions dN or the constant 0 (projections, permutations and broadcasts)
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0 + d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<12xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

func.func @column_one(%x: tensor<4x2xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  // CHECK: invalid-body.mlir:[[@LINE+1]]:8: error: 'linalg.generic' indexing map #0 is (d0, d1) -> (d0, 1); ptoc takes maps whose results are loop dimensions dN or the constant 0
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x2xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

func.func @wide_body(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    // CHECK: invalid-body.mlir:[[@LINE+1]]:10: error: the result of 'arith.extf' has element type 'f80'; ptoc's element types are
    %w = arith.extf %in : f32 to f80
    %m = arith.mulf %w, %w : f80
    %n = arith.truncf %m : f80 to f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
