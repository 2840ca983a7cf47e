func.func @k(%i: !pto.tile<8x32xsi16>, %e: !pto.tile<8x32xf8E4M3FN>) -> !pto.tile<8x32xsi16> {
  %s = "pto.tsqrt"(%i) : (!pto.tile<8x32xsi16>) -> !pto.tile<8x32xsi16>
  %l = "pto.tlog"(%i) : (!pto.tile<8x32xsi16>) -> !pto.tile<8x32xsi16>
  %n = "pto.tneg"(%i) : (!pto.tile<8x32xsi16>) -> !pto.tile<8x16xsi16>
  return %s : !pto.tile<8x32xsi16>
}
