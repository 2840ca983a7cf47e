// A TMOV result must keep its source's pad (see tmov.mlir).
func.func @copy(%x: !pto.tile<8x16xf32, valid=8x12>) -> !pto.tile<8x16xf32, valid=8x12, pad=zero> {
  %c = "pto.tmov"(%x) : (!pto.tile<8x16xf32, valid=8x12>) -> !pto.tile<8x16xf32, valid=8x12, pad=zero>
  return %c : !pto.tile<8x16xf32, valid=8x12, pad=zero>
}
