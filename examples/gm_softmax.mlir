// Row softmax over a 4096x1024 FP32 tensor in global memory, one row per loop iteration:
// y[i, :] = exp(x[i, :] - max(x[i, :])) / sum(exp(x[i, :] - max(x[i, :]))).
// The benchmark benches/gm_softmax.py runs it against numpy; 4096x1024 FP32 is 16 MiB per tensor.
func.func @gm_softmax(%x: memref<4096x1024xf32>, %y: memref<4096x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = arith.constant 4096 : index
  scf.for %i = %c0 to %rows step %c1 {
    %t = "pto.tload"(%x, %i, %c0) : (memref<4096x1024xf32>, index, index) -> !pto.tile<1x1024xf32>
    %m = "pto.trowmax"(%t) : (!pto.tile<1x1024xf32>) -> !pto.tile<1x1xf32>
    %e = "pto.trowexpandexpdif"(%t, %m) : (!pto.tile<1x1024xf32>, !pto.tile<1x1xf32>) -> !pto.tile<1x1024xf32>
    %s = "pto.trowsum"(%e) : (!pto.tile<1x1024xf32>) -> !pto.tile<1x1xf32>
    %r = "pto.trowexpanddiv"(%e, %s) : (!pto.tile<1x1024xf32>, !pto.tile<1x1xf32>) -> !pto.tile<1x1024xf32>
    "pto.tstore"(%r, %y, %i, %c0) : (!pto.tile<1x1024xf32>, memref<4096x1024xf32>, index, index) -> ()
  }
  return
}
