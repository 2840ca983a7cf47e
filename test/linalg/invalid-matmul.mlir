// Contractions ptoc cannot map onto the matrix unit exactly: each refusal at the op, saying why
// and what would be accepted (docs/isa.md §18, decision 51). Nothing is written.
// RUN: not ptoc %s --split-input-file -o %t.bin 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not test -e %t.bin

func.func @f16_accumulator(%a: tensor<16x32xf16>, %b: tensor<32x16xf16>) -> tensor<16x16xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<16x16xf16>
  %c = linalg.fill ins(%zero : f16) outs(%e : tensor<16x16xf16>) -> tensor<16x16xf16>
  // CHECK: invalid-matmul.mlir:[[@LINE+1]]:8: error: cannot map this contraction onto the matrix unit: the output is f16; the matrix unit accumulates f16 products in f32 (make the output f32 and narrow the result afterwards)
  %r = linalg.matmul ins(%a, %b : tensor<16x32xf16>, tensor<32x16xf16>) outs(%c : tensor<16x16xf16>) -> tensor<16x16xf16>
  return %r : tensor<16x16xf16>
}

// -----

func.func @negative_zero_fill(%a: tensor<16x32xf32>, %b: tensor<32x16xf32>) -> tensor<16x16xf32> {
  %nz = arith.constant -0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %c = linalg.fill ins(%nz : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  // CHECK: invalid-matmul.mlir:[[@LINE+1]]:8: error: the accumulator starts from the fill 0x80000000; the matrix unit starts a sum from +0 or from a tensor in memory: fill with +0, or pass the init as an argument
  %r = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x16xf32>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

func.func @empty_init(%a: tensor<16x32xf32>, %b: tensor<32x16xf32>) -> tensor<16x16xf32> {
  %e = tensor.empty() : tensor<16x16xf32>
  // CHECK: invalid-matmul.mlir:[[@LINE+1]]:8: error: the accumulator %e is neither a fill of +0 nor an argument of the program
  %r = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x16xf32>) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @reversed_add(%a: tensor<16x32xf32>, %b: tensor<32x16xf32>) -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  // CHECK: invalid-matmul.mlir:[[@LINE+1]]:8: error: cannot map this contraction onto the matrix unit: its body is not a matmul's (arith.mulf of A's by B's, arith.addf onto the output's element, in that operand order), which the matrix unit computes bit for bit
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<16x32xf32>, tensor<32x16xf32>) outs(%c : tensor<16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.subf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

func.func @returned_twice(%a: tensor<16x32xf32>, %b: tensor<32x16xf32>, %w: tensor<16x8xf32>) -> (tensor<16x8xf32>, tensor<16x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x16xf32>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  %e2 = tensor.empty() : tensor<16x8xf32>
  %c2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<16x8xf32>) -> tensor<16x8xf32>
  %y = linalg.matmul ins(%r, %w : tensor<16x16xf32>, tensor<16x8xf32>) outs(%c2 : tensor<16x8xf32>) -> tensor<16x8xf32>
  // CHECK: invalid-matmul.mlir:[[@LINE-8]]:1: error: result 1 (%y) is returned twice; in a program with several stages each result must be a tensor one of its ops computes, returned once
  return %y, %y : tensor<16x8xf32>, tensor<16x8xf32>
}
