/* Compile latency and thread throughput of the C API, in process (benches/embedding.sh).
 * Usage: embed_compile KERNEL.mlir [RUNS=100]
 *   latency: median wall time of RUNS ptoc_compile calls on KERNEL (object out);
 *   throughput: 8 distinct kernels (KERNEL renamed @k0..@k7 with 8..64 columns... see
 *   distinct()), compiled by 1 thread in turn and by 8 threads at once; kernels per second. */
#define _POSIX_C_SOURCE 200809L
#include "ptoc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc(n + 1);
  if (fread(buf, 1, n, f) != (size_t)n) n = 0;
  buf[n] = 0;
  fclose(f);
  return buf;
}

static void compile_once(const char *src) {
  PtocCompileResult *r = NULL;
  if (ptoc_compile(src, "k.mlir", NULL, &r) != PTOC_STATUS_OK) {
    fprintf(stderr, "compile failed: %s\n", r ? r->error : "?");
    exit(1);
  }
  ptoc_compile_result_free(r);
}

/* Kernel i: a row softmax over a 16 x (8 << (i % 4)) tile of f32 (i < 4) or f16 (i >= 4). */
static void distinct(char *buf, size_t n, int i) {
  int cols = 8 << (i % 4);
  const char *t = i < 4 ? "f32" : "f16";
  snprintf(buf, n,
           "func.func @k%d(%%x: !pto.tile<16x%dx%s>) -> !pto.tile<16x%dx%s> {\n"
           "  %%m = \"pto.trowmax\"(%%x) : (!pto.tile<16x%dx%s>) -> !pto.tile<16x1x%s>\n"
           "  %%e = \"pto.trowexpandexpdif\"(%%x, %%m) : (!pto.tile<16x%dx%s>, !pto.tile<16x1x%s>) -> !pto.tile<16x%dx%s>\n"
           "  %%s = \"pto.trowsum\"(%%e) : (!pto.tile<16x%dx%s>) -> !pto.tile<16x1x%s>\n"
           "  %%r = \"pto.trowexpanddiv\"(%%e, %%s) : (!pto.tile<16x%dx%s>, !pto.tile<16x1x%s>) -> !pto.tile<16x%dx%s>\n"
           "  return %%r : !pto.tile<16x%dx%s>\n}\n",
           i, cols, t, cols, t, cols, t, t, cols, t, t, cols, t, cols, t, t, cols, t, t, cols, t, cols, t);
}

enum { THREADS = 8, PER_THREAD = 25 };
static char kernels[THREADS][2048];

static void *worker(void *arg) {
  int i = *(int *)arg;
  for (int k = 0; k < PER_THREAD; k++) compile_once(kernels[i]);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s KERNEL.mlir [RUNS]\n", argv[0]);
    return 2;
  }
  char *src = read_file(argv[1]);
  int runs = argc > 2 ? atoi(argv[2]) : 100;
  if (!src || runs < 1) return 2;
  compile_once(src); /* warm-up: page in the library */
  double *t = malloc(sizeof(double) * runs);
  for (int i = 0; i < runs; i++) {
    double start = now();
    compile_once(src);
    t[i] = now() - start;
  }
  qsort(t, runs, sizeof(double), cmp);
  printf("c_latency_ms %.3f\n", t[runs / 2] * 1e3);

  int ids[THREADS];
  for (int i = 0; i < THREADS; i++) {
    distinct(kernels[i], sizeof kernels[i], i);
    ids[i] = i;
  }
  double start = now();
  for (int i = 0; i < THREADS; i++) worker(&ids[i]);
  double one = now() - start;
  pthread_t th[THREADS];
  start = now();
  for (int i = 0; i < THREADS; i++) pthread_create(&th[i], NULL, worker, &ids[i]);
  for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
  double eight = now() - start;
  printf("c_kernels_per_s_1_thread %.1f\n", THREADS * PER_THREAD / one);
  printf("c_kernels_per_s_8_threads %.1f\n", THREADS * PER_THREAD / eight);
  free(t);
  free(src);
  return 0;
}
