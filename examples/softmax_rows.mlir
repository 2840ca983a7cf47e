// Row softmax over a 16x64 FP32 tile: the kernel the README's first command compiles.
func.func @softmax_rows(%x: !pto.tile<16x64xf32>) -> !pto.tile<16x64xf32> {
  %m = "pto.trowmax"(%x) : (!pto.tile<16x64xf32>) -> !pto.tile<16x1xf32>
  %e = "pto.trowexpandexpdif"(%x, %m) : (!pto.tile<16x64xf32>, !pto.tile<16x1xf32>) -> !pto.tile<16x64xf32>
  %s = "pto.trowsum"(%e) : (!pto.tile<16x64xf32>) -> !pto.tile<16x1xf32>
  %r = "pto.trowexpanddiv"(%e, %s) : (!pto.tile<16x64xf32>, !pto.tile<16x1xf32>) -> !pto.tile<16x64xf32>
  return %r : !pto.tile<16x64xf32>
}
