/* A C host application: opens the default device, loads the chain manifest
 * (saxpy -> scale -> reduce), feeds it its own x and y, runs it and checks the device's
 * reduction against the same arithmetic done here on the CPU.
 *
 *   cc main.c $(pkg-config --cflags --libs weft) -lm -o c_host && ./c_host examples/chain/chain.toml */
#include <math.h>
#include <stdio.h>

#include <weft.h>

#define TRY(call)                                                                      \
  do {                                                                                 \
    weft_status s_ = (call);                                                           \
    if (s_ != WEFT_OK) {                                                               \
      fprintf(stderr, "%s failed: %s: %s\n", #call, weft_status_name(s_), weft_last_error()); \
      return 1;                                                                        \
    }                                                                                  \
  } while (0)

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s path/to/examples/chain/chain.toml\n", argv[0]);
    return 2;
  }
  weft_device* device = NULL;
  TRY(weft_device_open(NULL, &device));
  weft_device_info info = {.struct_size = sizeof info};
  TRY(weft_device_info_get(device, &info));
  printf("device: %s (%s)\n", info.name, info.type);

  weft_program* program = NULL;
  TRY(weft_program_from_manifest(device, argv[1], &program));
  weft_device_release(device); /* the program keeps it alive */

  enum { N = 256 };
  float x[N], y[N];
  double sum = 0, squares = 0, peak = 0;
  for (int i = 0; i < N; ++i) {
    x[i] = (float)cos(0.05 * i);
    y[i] = (float)(i % 10) * 0.1f;
    const float v = 0.5f * (2.0f * x[i] + y[i]); /* saxpy alpha 2, then scale 0.5 */
    sum += v;
    squares += (double)v * v;
    if (fabs(v) > peak) peak = fabs(v);
  }
  TRY(weft_program_write_segment(program, WEFT_BIND_HEAP, "x", 0, x, sizeof x));
  TRY(weft_program_write_segment(program, WEFT_BIND_HEAP, "y", 0, y, sizeof y));
  uint64_t ticket = 0;
  TRY(weft_program_submit(program, &ticket));
  TRY(weft_program_wait(program, ticket, UINT64_MAX));

  float result[4]; /* sum, sum of squares, max |v|, mean */
  TRY(weft_program_read_segment(program, WEFT_BIND_GLOBALS, "result", 0, result, sizeof result));
  double gpu_ns = 0;
  TRY(weft_program_gpu_time_ns(program, &gpu_ns));
  printf("device: sum %.6f  squares %.6f  max %.6f  mean %.6f  (GPU %.1f us)\n", result[0], result[1], result[2],
         result[3], gpu_ns / 1e3);
  printf("cpu:    sum %.6f  squares %.6f  max %.6f  mean %.6f\n", sum, squares, peak, sum / N);
  weft_program_release(program);

  /* float32 sums of 256 terms of size <= 1.5 on the device, in another order: 1e-4 relative. */
  const int ok = fabs(result[0] - sum) <= 1e-4 * (1 + fabs(sum)) && fabs(result[1] - squares) <= 1e-4 * (1 + squares) &&
                 fabs(result[2] - peak) <= 1e-6 && fabs(result[3] - sum / N) <= 1e-4;
  printf(ok ? "agree\n" : "DISAGREE\n");
  return ok ? 0 : 1;
}
