// Programs without loops (they return or reshape their arguments) take their grid from the
// tensors' own shape, so the kernel's memrefs hold the whole tensors.
// RUN: ptoc verify %s --trials 2 | FileCheck %s
// CHECK: @same: 2 trials (seed 0), compiled code matches the source bit for bit
// CHECK: @flatten: 2 trials (seed 0), compiled code matches the source bit for bit
// CHECK: @batch: 2 trials (seed 0), compiled code matches the source bit for bit
func.func @same(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  return %x : tensor<2x3xf32>
}

func.func @flatten(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %c = tensor.collapse_shape %x [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  return %c : tensor<6xf32>
}

func.func @batch(%x: tensor<2x3x4xi32>) -> tensor<2x3x4xi32> {
  return %x : tensor<2x3x4xi32>
}
