// cf.assert in a linalg program (docs/isa.md decision 63): one canonicalize proves (a constant
// true condition) is erased and the program compiles; any other is refused at the op, in a
// body or at function level, unless --strip-assertions, which drops them all.
// RUN: ptoc %s --split-input-file --strip-assertions --emit=asm | FileCheck %s --check-prefix=STRIPPED
// RUN: not ptoc %s --split-input-file -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=error:
// STRIPPED: .kernel proven
// STRIPPED: .kernel checked
// STRIPPED-NOT: TCMP
// STRIPPED: TSQRT
// STRIPPED: .kernel shape

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @proven(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.constant true
    cf.assert %t, "always"
    %s = arith.addf %in, %in : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @checked(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %z = arith.constant 0.0 : f32
    %ok = arith.cmpf olt, %z, %in : f32
    // CHECK: assertions.mlir:[[@LINE+1]]:5: error: cannot lower 'cf.assert' ("positive"): ptoc cannot check an assertion at run time and could not prove it statically; --strip-assertions compiles the program as if every assertion held
    cf.assert %ok, "positive"
    %s = math.sqrt %in : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

func.func @shape(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // A condition canonicalize proves false is not erased either.
  %f = arith.constant false
  // CHECK: assertions.mlir:[[@LINE+1]]:3: error: cannot lower 'cf.assert' ("never")
  cf.assert %f, "never"
  return %x : tensor<4x8xf32>
}
