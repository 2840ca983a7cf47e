// The one MLIR entry point ptoc needs that the C API lacks: parse a buffer from memory into a
// module, with the implicit top-level module mlir-opt gives a file, and with `source_name` in
// every location (the C API's string parser names them all "-", its file parser reopens a
// path). A few lines over mlir::parseSourceString<ModuleOp>, MLIR's own implementation of both.

#include "mlir/CAPI/IR.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

extern "C" MlirModule ptocModuleCreateParseNamed(MlirContext context, MlirStringRef source,
                                                 MlirStringRef source_name) {
  mlir::ParserConfig config(unwrap(context));
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(llvm::StringRef(source.data, source.length), config,
                                              llvm::StringRef(source_name.data, source_name.length));
  return wrap(module.release());
}
