// Queue naming (docs/isa.md §9 decisions 1–2): a kernel of 97 tiles, more than the 64 registers
// absolute naming can ever hand out, compiles under --target-profile=queue. Dead tiles retire as
// newer ones are pushed; %x, %y and four early values read at the end stay reachable because the
// allocator re-pushes them with TMOV before 16 newer tiles would retire them. The compiled kernel
// matches its source bit for bit.
// RUN: not ptoc %s --target-profile=absolute 2>&1 | FileCheck %s --check-prefix=ABS
// RUN: ptoc %s --target-profile=queue | FileCheck %s
// RUN: ptoc verify %s --target-profile=queue --trials 20 | FileCheck %s --check-prefix=EXEC

// ABS: error: kernel @long needs 97 tile registers; the core has 64
// CHECK: .profile queue
// CHECK: BSTART.TMOV FP32
// EXEC: @long: 20 trials (seed 0), compiled code matches the source bit for bit

func.func @long(%x: !pto.tile<8x16xf32>, %y: !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32> {
  %v0 = "pto.tadd"(%x, %y) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v1 = "pto.tneg"(%v0) : (!pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v2 = "pto.tmax"(%v1, %x) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v3 = "pto.tadd"(%v2, %y) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v4 = "pto.tneg"(%v3) : (!pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v5 = "pto.tmax"(%v4, %x) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v6 = "pto.tadd"(%v5, %y) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v7 = "pto.tneg"(%v6) : (!pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v8 = "pto.tmax"(%v7, %x) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v9 = "pto.tadd"(%v8, %y) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v10 = "pto.tneg"(%v9) : (!pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v11 = "pto.tmax"(%v10, %x) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v12 = "pto.tadd"(%v11, %y) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v13 = "pto.tneg"(%v12) : (!pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v14 = "pto.tmax"(%v13, %x) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v15 = "pto.tadd"(%v14, %y) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v16 = "pto.tneg"(%v15) : (!pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v17 = "pto.tmax"(%v16, %x) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v18 = "pto.tadd"(%v17, %y) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v19 = "pto.tneg"(%v18) : (!pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v20 = "pto.tmax"(%v19, %x) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v21 = "pto.tadd"(%v20, %y) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v22 = "pto.tneg"(%v21) : (!pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v23 = "pto.tmax"(%v22, %x) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v24 = "pto.tadd"(%v23, %y) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v25 = "pto.tneg"(%v24) : (!pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v26 = "pto.tmax"(%v25, %x) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v27 = "pto.tadd"(%v26, %y) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v28 = "pto.tneg"(%v27) : (!pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v29 = "pto.tmax"(%v28, %x) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v30 = "pto.tadd"(%v29, %y) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v31 = "pto.tneg"(%v30) : (!pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v32 = "pto.tmax"(%v31, %x) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v33 = "pto.tadd"(%v32, %y) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v34 = "pto.tneg"(%v33) : (!pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v35 = "pto.tmax"(%v34, %x) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v36 = "pto.tadd"(%v35, %y) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v37 = "pto.tneg"(%v36) : (!pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v38 = "pto.tmax"(%v37, %x) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v39 = "pto.tadd"(%v38, %y) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v40 = "pto.tneg"(%v39) : (!pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v41 = "pto.tmax"(%v40, %x) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v42 = "pto.tadd"(%v41, %y) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v43 = "pto.tneg"(%v42) : (!pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v44 = "pto.tmax"(%v43, %x) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v45 = "pto.tadd"(%v44, %y) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v46 = "pto.tneg"(%v45) : (!pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v47 = "pto.tmax"(%v46, %x) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v48 = "pto.tadd"(%v47, %y) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v49 = "pto.tneg"(%v48) : (!pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v50 = "pto.tmax"(%v49, %x) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v51 = "pto.tadd"(%v50, %y) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v52 = "pto.tneg"(%v51) : (!pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v53 = "pto.tmax"(%v52, %x) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v54 = "pto.tadd"(%v53, %y) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v55 = "pto.tneg"(%v54) : (!pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v56 = "pto.tmax"(%v55, %x) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v57 = "pto.tadd"(%v56, %y) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v58 = "pto.tneg"(%v57) : (!pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v59 = "pto.tmax"(%v58, %x) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v60 = "pto.tadd"(%v59, %y) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v61 = "pto.tneg"(%v60) : (!pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v62 = "pto.tmax"(%v61, %x) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v63 = "pto.tadd"(%v62, %y) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v64 = "pto.tneg"(%v63) : (!pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v65 = "pto.tmax"(%v64, %x) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v66 = "pto.tadd"(%v65, %y) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v67 = "pto.tneg"(%v66) : (!pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v68 = "pto.tmax"(%v67, %x) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v69 = "pto.tadd"(%v68, %y) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v70 = "pto.tneg"(%v69) : (!pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v71 = "pto.tmax"(%v70, %x) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v72 = "pto.tadd"(%v71, %y) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v73 = "pto.tneg"(%v72) : (!pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v74 = "pto.tmax"(%v73, %x) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v75 = "pto.tadd"(%v74, %y) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v76 = "pto.tneg"(%v75) : (!pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v77 = "pto.tmax"(%v76, %x) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v78 = "pto.tadd"(%v77, %y) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v79 = "pto.tneg"(%v78) : (!pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v80 = "pto.tmax"(%v79, %x) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v81 = "pto.tadd"(%v80, %y) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v82 = "pto.tneg"(%v81) : (!pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v83 = "pto.tmax"(%v82, %x) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v84 = "pto.tadd"(%v83, %y) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v85 = "pto.tneg"(%v84) : (!pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v86 = "pto.tmax"(%v85, %x) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v87 = "pto.tadd"(%v86, %y) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v88 = "pto.tneg"(%v87) : (!pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %v89 = "pto.tmax"(%v88, %x) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %w2 = "pto.tadd"(%v89, %v2) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %w5 = "pto.tadd"(%w2, %v5) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %w11 = "pto.tadd"(%w5, %v11) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %w20 = "pto.tadd"(%w11, %v20) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  %w33 = "pto.tadd"(%w20, %v33) : (!pto.tile<8x16xf32>, !pto.tile<8x16xf32>) -> !pto.tile<8x16xf32>
  return %w33 : !pto.tile<8x16xf32>
}
