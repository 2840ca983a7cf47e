// A linalg program's function-level ops are linalg.generic (named linalg ops are generalized to
// it), arith.constant, tensor.empty, tensor.expand_shape/collapse_shape and func.return; anything
// else is refused at the op, saying why and what ptoc takes.
// RUN: not ptoc %s --split-input-file -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=error:

func.func @slice(%x: tensor<8x8xf32>) -> tensor<4x8xf32> {
  // CHECK: invalid-ops.mlir:[[@LINE+1]]:8: error: cannot lower 'tensor.extract_slice': of the tensor dialect ptoc takes tensor.empty, tensor.expand_shape and tensor.collapse_shape (no slicing, padding, insertion or extraction)
  %s = tensor.extract_slice %x[0, 0] [4, 8] [1, 1] : tensor<8x8xf32> to tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

// -----

func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

func.func @call(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: invalid-ops.mlir:[[@LINE+1]]:8: error: cannot lower the call of @helper: ptoc compiles each function on its own; inline the callee first (mlir-opt --inline)
  %r = func.call @helper(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @scalar_arith(%x: tensor<4xf32>, %a: f32, %b: f32) -> (tensor<4xf32>, f32) {
  // CHECK: invalid-ops.mlir:[[@LINE+1]]:8: error: cannot lower 'arith.addf' outside a linalg.generic body: ptoc computes scalars and elementwise tensor arithmetic inside linalg.generic regions only (arith.constant is the one function-level arith op; mlir-opt --convert-elementwise-to-linalg rewrites elementwise tensor ops)
  %s = arith.addf %a, %b : f32
  return %x, %s : tensor<4xf32>, f32
}

// -----

func.func @tensor_arith(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: invalid-ops.mlir:[[@LINE+1]]:8: error: cannot lower 'math.exp' outside a linalg.generic body
  %e = math.exp %x : tensor<4xf32>
  return %e : tensor<4xf32>
}

// -----

func.func @function_sine(%a: f32, %x: tensor<4xf32>) -> (tensor<4xf32>, f32) {
  // CHECK: invalid-ops.mlir:[[@LINE+1]]:8: error: cannot lower 'math.sin': the ISA has no sine; supported math ops are math.exp, math.log, math.sqrt, math.rsqrt, math.absf
  %s = math.sin %a : f32
  return %x, %s : tensor<4xf32>, f32
}

// -----

func.func @dense(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: invalid-ops.mlir:[[@LINE+1]]:8: error: 'arith.constant' of 'tensor<2xf32>' holds a dense tensor of different elements; ptoc takes scalar constants and splat tensors dense<c> (a tensor of weights would need its own memory in the kernel, which ptoc does not lay out: pass it as an argument)
  %c = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %e = tensor.empty() : tensor<2xf32>
  %r = linalg.add ins(%x, %c : tensor<2xf32>, tensor<2xf32>) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  // CHECK: invalid-ops.mlir:[[@LINE+1]]:8: error: cannot lower 'linalg.softmax': it has no linalg.generic form (linalg-generalize-named-ops leaves it as it is); ptoc takes linalg.generic (and named linalg ops, which are generalized to it), arith.constant, tensor.empty, tensor.expand_shape, tensor.collapse_shape and func.return
  %r = linalg.softmax dimension(1) ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

func.func @loop(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // CHECK: invalid-ops.mlir:[[@LINE+1]]:8: error: cannot lower 'scf.for' in a linalg program; ptoc takes linalg.generic
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %x) -> tensor<4xf32> {
    %n = linalg.add ins(%a, %a : tensor<4xf32>, tensor<4xf32>) outs(%a : tensor<4xf32>) -> tensor<4xf32>
    scf.yield %n : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// A weight blob (IREE and torch-mlir keep large constants as resources): refused without its bytes.
func.func @resource(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: invalid-ops.mlir:[[@LINE+1]]:8: error: 'arith.constant' of 'tensor<4xf32>' holds an attribute that is not a dense splat (a resource blob, or sparse elements); ptoc takes scalar constants and splat tensors dense<c>
  %c = arith.constant dense_resource<w> : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.add ins(%x, %c : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F0000004000004040000080C0"
    }
  }
#-}
