// The external interface models linalg-on-tensors normalisation relies on, which the C API's
// dialect handles do not register: mlir-opt gets them from registerAllExtensions. Without the
// tensor reshape ops' ReifyRankedShapedTypeOpInterface, linalg-fold-unit-extent-dims cannot fold
// `tensor.collapse_shape (tensor.empty)` into a smaller `tensor.empty`, and the normalised
// program differs from mlir-opt's.

#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/Tensor/IR/TensorInferTypeOpInterfaceImpl.h"
#include "mlir/IR/DialectRegistry.h"

extern "C" void ptocRegisterLinalgInputExtensions(MlirDialectRegistry registry) {
  mlir::tensor::registerInferTypeOpInterfaceExternalModels(*unwrap(registry));
}
