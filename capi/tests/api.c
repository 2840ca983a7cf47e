/* Every entry point of the C API, from C: compile (object, assembly, diagnostics, bad
 * arguments, target profiles), run (named and positional inputs, typed outputs, flags, shape
 * errors, predicate tiles in and out), a kernel over global memory (assembled by hand: memref
 * and scalar inputs, stored memrefs out, a GM fault with its address), verify, the frees, and
 * four threads compiling and running at once.
 * Expected values are worked out by hand from the kernels' meaning. Built with `cc` and run by tests/c_program.rs; exits 0
 * when every check holds and prints each failed check otherwise. */

#include "ptoc.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond)                                                         \
  do {                                                                      \
    if (!(cond)) {                                                          \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      failures++;                                                           \
    }                                                                       \
  } while (0)

/* r = x * v, v broadcast along each row. */
static const char *SCALE =
    "func.func @scale(%x: !pto.tile<2x4xf32>, %v: !pto.tile<2x1xf32>) -> !pto.tile<2x4xf32> {\n"
    "  %r = \"pto.trowexpandmul\"(%x, %v) : (!pto.tile<2x4xf32>, !pto.tile<2x1xf32>) -> !pto.tile<2x4xf32>\n"
    "  return %r : !pto.tile<2x4xf32>\n"
    "}\n";

/* The same op with an f16 vector: the sources must share one DataType (line 2, column 8). */
static const char *MIXED =
    "func.func @scale(%x: !pto.tile<2x4xf32>, %v: !pto.tile<2x1xf16>) -> !pto.tile<2x4xf32> {\n"
    "  %r = \"pto.trowexpandmul\"(%x, %v) : (!pto.tile<2x4xf32>, !pto.tile<2x1xf16>) -> !pto.tile<2x4xf32>\n"
    "  return %r : !pto.tile<2x4xf32>\n"
    "}\n";

/* Row maxima of a signed 16-bit tile; `cols` makes each thread's kernel different. */
static void rowmax_source(char *buf, size_t size, int cols) {
  snprintf(buf, size,
           "func.func @rowmax(%%x: !pto.tile<4x%dxsi16>) -> !pto.tile<4x1xsi16> {\n"
           "  %%m = \"pto.trowmax\"(%%x) : (!pto.tile<4x%dxsi16>) -> !pto.tile<4x1xsi16>\n"
           "  return %%m : !pto.tile<4x1xsi16>\n"
           "}\n",
           cols, cols);
}

static void test_compile(void) {
  PtocCompileOptions options = ptoc_compile_options_default();
  CHECK(options.opt_level == 2 && options.emit == NULL);

  PtocCompileResult *obj = NULL;
  CHECK(ptoc_compile(SCALE, "scale.mlir", &options, &obj) == PTOC_STATUS_OK);
  CHECK(obj != NULL && obj->status == PTOC_STATUS_OK && obj->error == NULL);
  CHECK(obj->output_len > 4 && memcmp(obj->output, "\x7f" "ELF", 4) == 0);
  CHECK(obj->num_diagnostics == 0);
  ptoc_compile_result_free(obj);

  options.emit = "asm";
  PtocCompileResult *asm_text = NULL;
  CHECK(ptoc_compile(SCALE, NULL, &options, &asm_text) == PTOC_STATUS_OK);
  CHECK(strstr((const char *)asm_text->output, "BSTART") != NULL);
  CHECK(strlen((const char *)asm_text->output) == asm_text->output_len);
  ptoc_compile_result_free(asm_text);

  PtocCompileResult *bad = NULL;
  CHECK(ptoc_compile(MIXED, "mixed.mlir", NULL, &bad) == PTOC_STATUS_COMPILE_ERROR);
  CHECK(bad->output == NULL && bad->num_diagnostics >= 1);
  const PtocDiagnostic *d = &bad->diagnostics[0];
  CHECK(strcmp(d->file, "mixed.mlir") == 0);
  CHECK(d->line == 2 && d->column == 8);
  CHECK(d->severity == PTOC_SEVERITY_ERROR);
  CHECK(d->rule != NULL && strcmp(d->rule, "same-type") == 0);
  CHECK(d->fault_class != NULL && strcmp(d->fault_class, "Fault_TileLegality") == 0);
  CHECK(strstr(d->message, "[same-type, Fault_TileLegality]") != NULL);
  CHECK(strncmp(bad->error, "mixed.mlir:2:8: error: ", 23) == 0);
  ptoc_compile_result_free(bad);

  /* Null pointers, bad UTF-8 and unknown options are errors with a message, never a crash. */
  PtocCompileResult *r = NULL;
  CHECK(ptoc_compile(NULL, "x.mlir", NULL, &r) == PTOC_STATUS_INVALID_ARGUMENT);
  CHECK(strcmp(r->error, "source is a null pointer") == 0);
  ptoc_compile_result_free(r);
  CHECK(ptoc_compile("func.func @\xff", "x.mlir", NULL, &r) == PTOC_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(r->error, "not UTF-8") != NULL);
  ptoc_compile_result_free(r);
  options.emit = "elf";
  CHECK(ptoc_compile(SCALE, "x.mlir", &options, &r) == PTOC_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(r->error, "'elf' is not an output kind") != NULL);
  ptoc_compile_result_free(r);
  options = ptoc_compile_options_default();
  options.pe_mask = "0000";
  CHECK(ptoc_compile(SCALE, "x.mlir", &options, &r) == PTOC_STATUS_INVALID_ARGUMENT);
  ptoc_compile_result_free(r);
  CHECK(ptoc_compile(SCALE, "x.mlir", NULL, NULL) == PTOC_STATUS_INVALID_ARGUMENT);
  ptoc_compile_result_free(NULL);

  /* The target profile is recorded in the object (assembly shows it as `.profile`). */
  options = ptoc_compile_options_default();
  options.emit = "asm";
  options.target_profile = "queue";
  CHECK(ptoc_compile(SCALE, "x.mlir", &options, &r) == PTOC_STATUS_OK);
  CHECK(strstr((const char *)r->output, ".profile queue\n") != NULL);
  ptoc_compile_result_free(r);
  options.target_profile = "absolute";
  CHECK(ptoc_compile(SCALE, "x.mlir", &options, &r) == PTOC_STATUS_OK);
  CHECK(strstr((const char *)r->output, ".profile absolute\n") != NULL);
  ptoc_compile_result_free(r);
  options.target_profile = "fifo";
  CHECK(ptoc_compile(SCALE, "x.mlir", &options, &r) == PTOC_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(r->error, "'fifo' is not a target profile") != NULL);
  ptoc_compile_result_free(r);
}

/* A kernel over global memory, written by hand (test/runtime/gm-loop.s): for i < n,
 * out[i, :] = x[i, :] + x[i, :], one 8-column FP32 row per iteration (TLOAD, TADD, TSTORE in a
 * loop of standard blocks). */
static const char *DOUBLE_ROWS =
    ".kernel double_rows\n"
    ".profile queue\n"
    ".memref x, a0, FP32, 4x8, pos=0\n"
    ".memref out, a1, FP32, 4x8, pos=1, stored\n"
    ".scalar n, a2, index, pos=2\n"
    "BSTART.STD COND, .+104\n"
    "addi zero, 0, ->s0\n"
    "addi a0, 0, ->x0\n"
    "addi a1, 0, ->x1\n"
    "addi zero, 32, ->s1\n"
    "setc.ge s0, a2\n"
    "BSTOP\n"
    "BSTART.TLOAD FP32\n"
    "B.DIM LB0=8\n"
    "B.IOT mask=1111, last, ->T<1>\n"
    "B.IOR x0, s1, zero, ->zero\n"
    "BSTOP\n"
    "BSTART.VEC TADD, FP32\n"
    "B.DIM LB0=8\n"
    "B.IOT T#1, T#1, mask=1111, last, ->T<1>\n"
    "BSTOP\n"
    "BSTART.TSTORE FP32\n"
    "B.IOT T#1, mask=1111, last\n"
    "B.IOR x1, s1, zero, ->zero\n"
    "BSTOP\n"
    "BSTART.STD COND, .-52\n"
    "addi s0, 1, ->s0\n"
    "add a0, s0<<5, ->x0\n"
    "add a1, s0<<5, ->x1\n"
    "setc.lt s0, a2\n"
    "BSTOP\n";

static void test_gm(void) {
  PtocCompileResult *obj = NULL;
  CHECK(ptoc_assemble(DOUBLE_ROWS, "double_rows.s", &obj) == PTOC_STATUS_OK);
  CHECK(obj->output_len > 4 && memcmp(obj->output, "\x7f" "ELF", 4) == 0);

  /* x = i/2 - 3, so 2x = i - 6 (exact in FP32); rows at and past n stay as given (zeros). */
  float x[32], zeros[32] = {0}, want[32];
  for (int i = 0; i < 32; i++) {
    x[i] = (float)i / 2 - 3;
    want[i] = i < 24 ? (float)(i - 6) : 0;
  }
  int64_t n = 3;
  PtocTensorIn in[3] = {
      {.name = "x", .rows = 4, .cols = 8, .data = x, .size = sizeof x},
      {.name = "out", .dtype = "f32", .rows = 4, .cols = 8, .data = zeros},
      {.name = "n", .rows = 1, .cols = 1, .data = &n, .size = sizeof n},
  };
  PtocRunResult *run = NULL;
  CHECK(ptoc_run(obj->output, obj->output_len, NULL, in, 3, &run) == PTOC_STATUS_OK);
  CHECK(run->num_outputs == 0 && run->num_memrefs == 1 && run->fault == NULL);
  const PtocTensorOut *out = &run->memrefs[0];
  CHECK(strcmp(out->name, "out") == 0 && strcmp(out->dtype, "f32") == 0);
  CHECK(out->rows == 4 && out->cols == 8 && out->size == sizeof want);
  CHECK(memcmp(out->data, want, sizeof want) == 0);
  CHECK(zeros[0] == 0); /* the caller's buffer is an input only */
  ptoc_run_result_free(run);

  /* n = 5 reads past x: a precise GM fault naming the element's address, out as it was. */
  n = 5;
  CHECK(ptoc_run(obj->output, obj->output_len, NULL, in, 3, &run) == PTOC_STATUS_FAULT);
  CHECK(run->fault != NULL && run->num_memrefs == 0);
  CHECK(strcmp(run->fault->class_name, "Fault_DataPage") == 0 && run->fault->bundle == 17);
  CHECK(run->fault->has_address && run->fault->address == 0x10080);
  CHECK(strstr(run->error, "Fault_DataPage in bundle 17 at GM address 0x10080: ") == run->error);
  ptoc_run_result_free(run);

  /* A size that is not rows x cols elements, and a scalar of the wrong type. */
  in[0].size = sizeof x - 4;
  CHECK(ptoc_run(obj->output, obj->output_len, NULL, in, 3, &run) == PTOC_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(run->error, "inputs[0].size is 124 bytes; 4x8 f32 elements take 128") != NULL);
  ptoc_run_result_free(run);
  in[0].size = 0;
  const float half = 0.5f;
  in[2].data = &half;
  in[2].dtype = "f32";
  CHECK(ptoc_run(obj->output, obj->output_len, NULL, in, 3, &run) == PTOC_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(run->error, "inputs[2].size is 8 bytes; 1x1 f32 elements take 4") != NULL);
  ptoc_run_result_free(run);
  in[2].size = sizeof half;
  CHECK(ptoc_run(obj->output, obj->output_len, NULL, in, 3, &run) == PTOC_STATUS_RUN_ERROR);
  CHECK(strstr(run->error, "'n' (index in a2) holds S64 elements") != NULL);
  ptoc_run_result_free(run);
  ptoc_compile_result_free(obj);

  /* Assembly that does not assemble: located diagnostics. */
  CHECK(ptoc_assemble(".kernel k\nBSTART.VEC TNOPE, FP32\n", "bad.s", &obj) == PTOC_STATUS_COMPILE_ERROR);
  CHECK(obj->output == NULL && obj->num_diagnostics >= 1);
  CHECK(strcmp(obj->diagnostics[0].file, "bad.s") == 0 && obj->diagnostics[0].line == 2);
  ptoc_compile_result_free(obj);
  CHECK(ptoc_assemble(NULL, NULL, &obj) == PTOC_STATUS_INVALID_ARGUMENT);
  ptoc_compile_result_free(obj);
}

static void test_run(void) {
  PtocCompileResult *obj = NULL;
  CHECK(ptoc_compile(SCALE, "scale.mlir", NULL, &obj) == PTOC_STATUS_OK);

  const float x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  const float v[2] = {10, 0.5f};
  PtocTensorIn inputs[2] = {
      {.name = "v", .dtype = "f32", .rows = 2, .cols = 1, .data = v},
      {.name = "x", .dtype = NULL, .rows = 2, .cols = 4, .data = x},
  };
  PtocRunResult *run = NULL;
  CHECK(ptoc_run(obj->output, obj->output_len, NULL, inputs, 2, &run) == PTOC_STATUS_OK);
  CHECK(run->num_outputs == 1 && run->fault == NULL && run->flags == 0);
  const PtocTensorOut *out = &run->outputs[0];
  CHECK(strcmp(out->name, "r0") == 0 && strcmp(out->dtype, "f32") == 0);
  CHECK(out->rows == 2 && out->cols == 4 && out->size == 8 * sizeof(float));
  const float want[8] = {10, 20, 30, 40, 2.5f, 3, 3.5f, 4};
  CHECK(memcmp(out->data, want, sizeof want) == 0);
  ptoc_run_result_free(run);

  /* Positional inputs (null names) and raw bits: the unsigned type of the element's width. */
  uint32_t v_bits[2];
  memcpy(v_bits, v, sizeof v_bits);
  PtocTensorIn positional[2] = {
      {.name = NULL, .dtype = NULL, .rows = 2, .cols = 4, .data = x},
      {.name = NULL, .dtype = "ui32", .rows = 2, .cols = 1, .data = v_bits},
  };
  CHECK(ptoc_run(obj->output, obj->output_len, "scale", positional, 2, &run) == PTOC_STATUS_OK);
  CHECK(memcmp(run->outputs[0].data, want, sizeof want) == 0);
  ptoc_run_result_free(run);

  /* A wrong shape says what the argument takes. */
  PtocTensorIn wrong[2] = {
      {.name = "x", .rows = 2, .cols = 4, .data = x},
      {.name = "v", .rows = 1, .cols = 2, .data = v},
  };
  CHECK(ptoc_run(obj->output, obj->output_len, NULL, wrong, 2, &run) == PTOC_STATUS_RUN_ERROR);
  CHECK(strstr(run->error, "takes a 2x1 valid region, the input is 1x2") != NULL);
  CHECK(run->num_outputs == 0);
  ptoc_run_result_free(run);

  /* No such kernel, a missing input, a null kernel. */
  CHECK(ptoc_run(obj->output, obj->output_len, "other", inputs, 2, &run) == PTOC_STATUS_RUN_ERROR);
  ptoc_run_result_free(run);
  CHECK(ptoc_run(obj->output, obj->output_len, NULL, inputs, 1, &run) == PTOC_STATUS_RUN_ERROR);
  CHECK(strstr(run->error, "no input for 'x'") != NULL);
  ptoc_run_result_free(run);
  CHECK(ptoc_run(NULL, 0, NULL, inputs, 2, &run) == PTOC_STATUS_INVALID_ARGUMENT);
  ptoc_run_result_free(run);
  ptoc_compile_result_free(obj);

  /* Source text runs too (compiled first); x / 0 raises DZ, and 0 / 0 NV, in the flags. */
  const char *div =
      "func.func @div(%a: !pto.tile<1x2xf32>, %b: !pto.tile<1x2xf32>) -> !pto.tile<1x2xf32> {\n"
      "  %r = \"pto.tdiv\"(%a, %b) : (!pto.tile<1x2xf32>, !pto.tile<1x2xf32>) -> !pto.tile<1x2xf32>\n"
      "  return %r : !pto.tile<1x2xf32>\n"
      "}\n";
  const float a[2] = {1, 0}, b[2] = {0, 0};
  PtocTensorIn ab[2] = {{.name = "a", .rows = 1, .cols = 2, .data = a},
                        {.name = "b", .rows = 1, .cols = 2, .data = b}};
  CHECK(ptoc_run((const uint8_t *)div, strlen(div), NULL, ab, 2, &run) == PTOC_STATUS_OK);
  const float *q = run->outputs[0].data;
  CHECK(isinf(q[0]) && q[0] > 0 && isnan(q[1]));
  CHECK(run->flags == (0x01 | 0x02)); /* NV | DZ */
  ptoc_run_result_free(run);

  /* A signed division by a zero element faults before any effect (docs/isa.md §1.3). */
  const char *idiv =
      "func.func @idiv(%n: !pto.tile<2x4xsi32>, %d: !pto.tile<2x1xsi32>) -> !pto.tile<2x4xsi32> {\n"
      "  %r = \"pto.trowexpanddiv\"(%n, %d) : (!pto.tile<2x4xsi32>, !pto.tile<2x1xsi32>) -> !pto.tile<2x4xsi32>\n"
      "  return %r : !pto.tile<2x4xsi32>\n"
      "}\n";
  const int32_t n[8] = {7, -7, 100, -128, 1, 2, 3, 4}, den[2] = {2, 0};
  PtocTensorIn nd[2] = {{.name = "n", .rows = 2, .cols = 4, .data = n},
                        {.name = "d", .rows = 2, .cols = 1, .data = den}};
  CHECK(ptoc_run((const uint8_t *)idiv, strlen(idiv), NULL, nd, 2, &run) == PTOC_STATUS_FAULT);
  CHECK(run->fault != NULL && run->num_outputs == 0);
  CHECK(strcmp(run->fault->class_name, "Fault_TileLegality") == 0 && run->fault->bundle == 0);
  CHECK(strstr(run->fault->reason, "zero") != NULL);
  CHECK(strncmp(run->error, "Fault_TileLegality in bundle 0: ", 32) == 0);
  ptoc_run_result_free(run);

  /* Source that does not compile comes back with its diagnostics. */
  CHECK(ptoc_run((const uint8_t *)MIXED, strlen(MIXED), NULL, ab, 2, &run) == PTOC_STATUS_COMPILE_ERROR);
  CHECK(run->num_diagnostics >= 1 && strcmp(run->diagnostics[0].rule, "same-type") == 0);
  ptoc_run_result_free(run);
  ptoc_run_result_free(NULL);
}

static void test_verify(void) {
  PtocVerifyResult *v = NULL;
  CHECK(ptoc_verify(SCALE, "scale.mlir", NULL, 50, 7, &v) == PTOC_STATUS_OK);
  CHECK(v->mismatch == NULL && v->error == NULL);
  ptoc_verify_result_free(v);
  PtocCompileOptions o0 = ptoc_compile_options_default();
  o0.opt_level = 0;
  CHECK(ptoc_verify(SCALE, "scale.mlir", &o0, 20, 1, &v) == PTOC_STATUS_OK);
  ptoc_verify_result_free(v);
  CHECK(ptoc_verify(MIXED, "mixed.mlir", NULL, 10, 0, &v) == PTOC_STATUS_COMPILE_ERROR);
  CHECK(v->mismatch == NULL && v->num_diagnostics >= 1 && v->diagnostics[0].line == 2);
  ptoc_verify_result_free(v);
  CHECK(ptoc_verify(NULL, NULL, NULL, 10, 0, &v) == PTOC_STATUS_INVALID_ARGUMENT);
  ptoc_verify_result_free(v);
  ptoc_verify_result_free(NULL);
}

/* TCMP -> TSEL: a predicate result (a < b), the minimum it selects, and a predicate argument
 * picking between the same sources. Predicates travel unpacked, one uint8_t 0 or 1 each. */
static const char *MINSEL =
    "func.func @minsel(%a: !pto.tile<2x4xf32>, %b: !pto.tile<2x4xf32>, %p: !pto.tile<2x4xi1>) -> (!pto.tile<2x4xi1>, !pto.tile<2x4xf32>, !pto.tile<2x4xf32>) {\n"
    "  %lt = \"pto.tcmp\"(%a, %b) {pto.cmode = \"lt\"} : (!pto.tile<2x4xf32>, !pto.tile<2x4xf32>) -> !pto.tile<2x4xi1>\n"
    "  %m = \"pto.tsel\"(%lt, %a, %b) : (!pto.tile<2x4xi1>, !pto.tile<2x4xf32>, !pto.tile<2x4xf32>) -> !pto.tile<2x4xf32>\n"
    "  %s = \"pto.tsel\"(%p, %a, %b) : (!pto.tile<2x4xi1>, !pto.tile<2x4xf32>, !pto.tile<2x4xf32>) -> !pto.tile<2x4xf32>\n"
    "  return %lt, %m, %s : !pto.tile<2x4xi1>, !pto.tile<2x4xf32>, !pto.tile<2x4xf32>\n"
    "}\n";

static void test_predicates(void) {
  PtocCompileResult *obj = NULL;
  CHECK(ptoc_compile(MINSEL, "minsel.mlir", NULL, &obj) == PTOC_STATUS_OK);
  const float a[8] = {1, -2, 3, NAN, 0, 5, -0.0f, 7};
  const float b[8] = {2, -3, 3, 1, -0.0f, 6, 0, INFINITY};
  const uint8_t p[8] = {1, 0, 1, 0, 0, 0, 1, 1};
  /* NaN < 1 is false and -0 < +0 is false (IEEE); TSEL copies the chosen bits, zeros' signs
   * included. */
  const uint8_t lt[8] = {1, 0, 0, 0, 0, 1, 0, 1};
  const float min[8] = {1, -3, 3, 1, -0.0f, 5, 0, 7};
  const float picked[8] = {1, -3, 3, 1, -0.0f, 6, -0.0f, 7};
  /* The predicate as "i1", as its raw bits ("ui8"), and as the argument's own type (null). */
  const char *spellings[3] = {"i1", "ui8", NULL};
  for (int k = 0; k < 3; k++) {
    PtocTensorIn in[3] = {
        {.name = "a", .dtype = "f32", .rows = 2, .cols = 4, .data = a},
        {.name = "b", .rows = 2, .cols = 4, .data = b},
        {.name = "p", .dtype = spellings[k], .rows = 2, .cols = 4, .data = p},
    };
    PtocRunResult *run = NULL;
    CHECK(ptoc_run(obj->output, obj->output_len, NULL, in, 3, &run) == PTOC_STATUS_OK);
    CHECK(run->num_outputs == 3 && run->flags == 0);
    const PtocTensorOut *r0 = &run->outputs[0];
    CHECK(strcmp(r0->name, "r0") == 0 && strcmp(r0->dtype, "i1") == 0);
    CHECK(r0->rows == 2 && r0->cols == 4 && r0->size == sizeof lt);
    CHECK(memcmp(r0->data, lt, sizeof lt) == 0);
    CHECK(strcmp(run->outputs[1].dtype, "f32") == 0 && run->outputs[1].size == sizeof min);
    CHECK(memcmp(run->outputs[1].data, min, sizeof min) == 0);
    CHECK(memcmp(run->outputs[2].data, picked, sizeof picked) == 0);
    ptoc_run_result_free(run);
  }
  /* A predicate element is 0 or 1; f32 values are not a predicate. */
  const uint8_t two[8] = {0, 1, 2, 0, 0, 0, 0, 0};
  PtocTensorIn bad[3] = {
      {.name = "a", .rows = 2, .cols = 4, .data = a},
      {.name = "b", .rows = 2, .cols = 4, .data = b},
      {.name = "p", .rows = 2, .cols = 4, .data = two},
  };
  PtocRunResult *run = NULL;
  CHECK(ptoc_run(obj->output, obj->output_len, NULL, bad, 3, &run) == PTOC_STATUS_INVALID_ARGUMENT);
  CHECK(strstr(run->error, "wider than the 1-bit PRED element") != NULL);
  ptoc_run_result_free(run);
  bad[2].dtype = "ui8";
  CHECK(ptoc_run(obj->output, obj->output_len, NULL, bad, 3, &run) == PTOC_STATUS_RUN_ERROR);
  CHECK(strstr(run->error, "a predicate element is 0 or 1, not 2") != NULL);
  ptoc_run_result_free(run);
  bad[2].dtype = "f32";
  bad[2].data = a;
  CHECK(ptoc_run(obj->output, obj->output_len, NULL, bad, 3, &run) == PTOC_STATUS_RUN_ERROR);
  CHECK(strstr(run->error, "holds PRED elements; the input holds FP32") != NULL);
  ptoc_run_result_free(run);
  ptoc_compile_result_free(obj);

  /* Compiled against the reference evaluator, random 0/1 predicates included. */
  PtocVerifyResult *v = NULL;
  CHECK(ptoc_verify(MINSEL, "minsel.mlir", NULL, 50, 3, &v) == PTOC_STATUS_OK);
  CHECK(v->mismatch == NULL);
  ptoc_verify_result_free(v);
}

/* Each thread compiles its own kernel (a different width) and runs it 5 times. */
static void *thread_main(void *arg) {
  int cols = *(int *)arg;
  char source[512];
  rowmax_source(source, sizeof source, cols);
  int16_t x[4 * 64];
  for (int i = 0; i < 4 * cols; i++) x[i] = (int16_t)((i * 37) % 101 - 50);
  for (int round = 0; round < 5; round++) {
    PtocCompileResult *obj = NULL;
    if (ptoc_compile(source, "rowmax.mlir", NULL, &obj) != PTOC_STATUS_OK) {
      ptoc_compile_result_free(obj);
      return (void *)1;
    }
    PtocTensorIn in = {.name = "x", .dtype = "si16", .rows = 4, .cols = (uint32_t)cols, .data = x};
    PtocRunResult *run = NULL;
    int bad = ptoc_run(obj->output, obj->output_len, NULL, &in, 1, &run) != PTOC_STATUS_OK ||
              run->outputs[0].rows != 4 || run->outputs[0].cols != 1;
    for (int r = 0; !bad && r < 4; r++) {
      int16_t max = x[r * cols];
      for (int c = 1; c < cols; c++) max = x[r * cols + c] > max ? x[r * cols + c] : max;
      bad = ((const int16_t *)run->outputs[0].data)[r] != max;
    }
    ptoc_run_result_free(run);
    ptoc_compile_result_free(obj);
    if (bad) return (void *)1;
  }
  return NULL;
}

static void test_threads(void) {
  int cols[4] = {8, 16, 32, 64};
  pthread_t threads[4];
  for (int i = 0; i < 4; i++) CHECK(pthread_create(&threads[i], NULL, thread_main, &cols[i]) == 0);
  for (int i = 0; i < 4; i++) {
    void *failed = NULL;
    pthread_join(threads[i], &failed);
    CHECK(failed == NULL);
  }
}

int main(void) {
  test_compile();
  test_run();
  test_gm();
  test_verify();
  test_predicates();
  test_threads();
  if (failures) {
    fprintf(stderr, "%d checks failed\n", failures);
    return 1;
  }
  printf("all C API checks passed\n");
  return 0;
}
