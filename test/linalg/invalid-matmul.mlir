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

func.func @transpose_b(%a: tensor<16x32xf32>, %b: tensor<16x32xf32>) -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  // CHECK: invalid-matmul.mlir:[[@LINE+1]]:8: error: cannot map this contraction: B is read transposed (N×K, as linalg.matmul_transpose_b does); the CUBE loads take B as K×N rows, so pass B as K×N and use linalg.matmul
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<16x32xf32>, tensor<16x32xf32>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
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

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @narrowed_after(%a: tensor<16x32xf16>, %b: tensor<32x16xf16>) -> tensor<16x16xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  // CHECK: invalid-matmul.mlir:[[@LINE+1]]:8: error: the program returns tensor<16x16xf16> computed from this product's tensor<16x16xf32>; ptoc runs what follows a matmul in place on the product's memory, so it must keep the product's shape and element type (a narrowing, a reduction or a second matmul needs a workspace ptoc does not have yet)
  %r = linalg.matmul ins(%a, %b : tensor<16x32xf16>, tensor<32x16xf16>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  %h = tensor.empty() : tensor<16x16xf16>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%r : tensor<16x16xf32>) outs(%h : tensor<16x16xf16>) {
  ^bb0(%x: f32, %o: f16):
    %n = arith.truncf %x : f32 to f16
    linalg.yield %n : f16
  } -> tensor<16x16xf16>
  return %t : tensor<16x16xf16>
}
