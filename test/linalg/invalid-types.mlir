// linalg programs take static tensors of rank 0 to 8 and scalars of ptoc's element types; every
// other type is refused at the value that has it, naming what ptoc accepts.
// RUN: not ptoc %s --split-input-file -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=error:

// CHECK: invalid-types.mlir:[[@LINE+1]]:16: error: argument #0 has dynamic type 'tensor<?x4xf32>'; ptoc needs static shapes such as 'tensor<64x128xf32>'
func.func @dyn(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %x : tensor<?x4xf32>
}

// -----

// CHECK: invalid-types.mlir:[[@LINE+1]]:17: error: argument #0 has type 'tensor<1x2x1x2x1x2x1x2x3xf32>' of rank 9; ptoc takes tensors of rank 0 to 8
func.func @rank(%x: tensor<1x2x1x2x1x2x1x2x3xf32>) -> tensor<1x2x1x2x1x2x1x2x3xf32> {
  return %x : tensor<1x2x1x2x1x2x1x2x3xf32>
}

// -----

// CHECK: invalid-types.mlir:[[@LINE+1]]:40: error: argument #1 has unranked type 'tensor<*xf32>'; ptoc needs static shapes such as 'tensor<64x128xf32>'
func.func @unranked(%x: tensor<4xf32>, %y: tensor<*xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// CHECK: invalid-types.mlir:[[@LINE+1]]:16: error: argument #0 has element type 'f80'; ptoc's element types are f64, f32, tf32, f16, bf16, f8E4M3FN, f8E5M2, i8, i16, i32, i64, si8…si64, ui8…ui64, i1 and index
func.func @f80(%x: tensor<4xf80>) -> tensor<4xf80> {
  return %x : tensor<4xf80>
}

// -----

// CHECK: invalid-types.mlir:[[@LINE+1]]:20: error: argument #0 has element type 'complex<f32>'; ptoc's element types are
func.func @complex(%x: tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>> {
  return %x : tensor<4x4xcomplex<f32>>
}

// -----

// CHECK: invalid-types.mlir:[[@LINE+1]]:15: error: argument #0 has element type 'i4'; ptoc's element types are
func.func @i4(%x: tensor<8xi4>) -> tensor<8xi4> {
  return %x : tensor<8xi4>
}

// -----

// CHECK: invalid-types.mlir:[[@LINE+1]]:21: error: argument #0 has type 'tensor<4xf32, "dense">' with encoding '"dense"'; ptoc takes tensors without an encoding such as 'tensor<64x128xf32>'
func.func @encoding(%x: tensor<4xf32, "dense">) -> tensor<4xf32, "dense"> {
  return %x : tensor<4xf32, "dense">
}

// -----

// CHECK: invalid-types.mlir:[[@LINE+1]]:40: error: argument #1 has type 'memref<4x4xf32>'; linalg programs take static tensors of rank 0 to 8 ('tensor<64x128xf32>') and scalars (f64, f32
func.func @memref(%x: tensor<4x4xf32>, %m: memref<4x4xf32>) -> tensor<4x4xf32> {
  return %x : tensor<4x4xf32>
}

// -----

// A value inside the function: the dynamic empty tensor, at the op that makes it.
func.func @dynamic_empty(%n: index) -> tensor<?x4xf32> {
  // CHECK: invalid-types.mlir:[[@LINE+1]]:8: error: result #0 of 'tensor.empty' has dynamic type 'tensor<?x4xf32>'; ptoc needs static shapes such as 'tensor<64x128x
  %e = tensor.empty(%n) : tensor<?x4xf32>
  return %e : tensor<?x4xf32>
}
