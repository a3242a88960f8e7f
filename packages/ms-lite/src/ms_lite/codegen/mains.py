"""The test programs of a generated project: the golden test and the benchmark main.

They are not part of the library (they use ``<stdio.h>``, and the benchmark a clock):
on Cortex-M their output goes through semihosting. The golden test prints every output
element (float32 as its bit pattern, so the Python side compares exactly what C computed)
and ``golden: PASS`` when all are within 1e-5 (relative above 1) of the Python lite
runtime, or equal for integer outputs.
"""

from __future__ import annotations

from ms_lite.codegen.context import c_type

__all__ = ["golden_c", "benchmark_c", "TOLERANCE"]

TOLERANCE = 1e-5

_GOLDEN_HEAD = r"""/* Golden test: the inputs saved at generation against the Python lite runtime */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net.h"
#include "golden_data.h"

@CHECK_F32@static int check_f32(int index, const float *got, const float *want, int n)
{
    int bad = 0;
    printf("out%d %d", index, n);
    for (int i = 0; i < n; ++i) {
        uint32_t bits;
        memcpy(&bits, &got[i], sizeof bits);
        printf(" %08lx", (unsigned long)bits);
        const float tol = @TOL@f * (fabsf(want[i]) > 1.0f ? fabsf(want[i]) : 1.0f);
        if (!(fabsf(got[i] - want[i]) <= tol)) bad = 1;
    }
    printf("\n");
    return bad;
}

@CHECK_INT@static int check_int(int index, const void *got, const void *want, int n, int size)
{
    int bad = 0;
    printf("out%d %d", index, n);
    for (int i = 0; i < n; ++i) {
        long g, w;
        if (size == 1) { g = ((const int8_t *)got)[i]; w = ((const int8_t *)want)[i]; }
        else { g = ((const int32_t *)got)[i]; w = ((const int32_t *)want)[i]; }
        printf(" %ld", g);
        if (g != w) bad = 1;
    }
    printf("\n");
    return bad;
}

int main(int argc, char **argv)
{
    int fail = 0;
    size_t bytes = 0;
    const void *got;
    (void)argc;
    (void)argv;
    net_init();
"""


def golden_c(graph, parallel: bool = False) -> str:
    body = []
    if parallel:  # argv[1]: the threads
        body.append("    if (argc > 1 && net_set_thread_num(atoi(argv[1])) != 0) {\n"
                    '        printf("golden: cannot run %s threads\\n", argv[1]);\n'
                    "        return 1;\n    }")
    for i in range(len(graph.inputs)):
        body.append(f"    fail |= net_set_input({i}, golden_in{i}, sizeof golden_in{i}) != 0;")
    body.append("    fail |= net_run() != 0;")
    for i, v in enumerate(graph.outputs):
        c_type(v.dtype, f"output {v.name!r}")
        n = f"(int)(sizeof golden_out{i} / sizeof golden_out{i}[0])"
        if v.dtype == "float32":
            check = f"check_f32({i}, (const float *)got, golden_out{i}, {n})"
        elif v.dtype in ("int8", "uint8", "int32"):
            size = 1 if v.dtype != "int32" else 4
            check = f"check_int({i}, got, golden_out{i}, {n}, {size})"
        else:
            raise ValueError(f"the golden test cannot compare output {v.name!r} of dtype "
                             f"{v.dtype}")
        body.append(f"    got = net_get_output({i}, &bytes);\n"
                    f"    if (got == 0 || bytes != sizeof golden_out{i}) {{\n"
                    f'        printf("output {i}: %lu bytes, expected %lu\\n", '
                    f"(unsigned long)bytes, (unsigned long)sizeof golden_out{i});\n"
                    f"        fail = 1;\n    }} else {{\n        fail |= {check};\n    }}")
    if parallel:
        body.append("    net_deinit();")
    tail = '    printf("golden: %s\\n", fail ? "FAIL" : "PASS");\n    return fail;\n}\n'
    head = _GOLDEN_HEAD.replace("@TOL@", repr(TOLERANCE))
    pre, rest = head.split("@CHECK_F32@")
    check_f32, rest = rest.split("@CHECK_INT@")
    check_int, main = rest.split("int main", 1)
    dtypes = {v.dtype for v in graph.outputs}
    return (pre + (check_f32 if "float32" in dtypes else "")
            + (check_int if dtypes - {"float32"} else "") + "int main" + main
            + "\n".join(body) + "\n" + tail)


_BENCHMARK = r"""/* Benchmark: net_run on the golden inputs `loops` times (argv[1]; 10 on
   Cortex-M), on argv[2] threads in a support_parallel build
   Hosted: prints the median and minimum wall time per run in microseconds.
   Cortex-M: prints SysTick cycles per run (under qemu -icount, virtual cycles). */
#if !defined(__arm__) || defined(__linux__)
#define _POSIX_C_SOURCE 199309L
#define HOSTED 1
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net.h"
#include "golden_data.h"

#define MAX_LOOPS 10000

static void set_inputs(void)
{
@SET_INPUTS@
}

#ifdef HOSTED
#include <time.h>
static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double times[MAX_LOOPS];

int main(int argc, char **argv)
{
    int loops = argc > 1 ? atoi(argv[1]) : 1000;
    if (loops < 1 || loops > MAX_LOOPS) loops = 1000;
    net_init();
#ifdef NET_SUPPORT_PARALLEL
    if (argc > 2 && net_set_thread_num(atoi(argv[2])) != 0) {
        printf("benchmark: cannot run %s threads\n", argv[2]);
        return 1;
    }
#endif
    for (int i = 0; i < 10; ++i) { set_inputs(); net_run(); }
    for (int i = 0; i < loops; ++i) {
        set_inputs();
        const double t0 = now_us();
        net_run();
        times[i] = now_us() - t0;
    }
#ifdef NET_SUPPORT_PARALLEL
    net_deinit();
#endif
    qsort(times, (size_t)loops, sizeof times[0], cmp);
    printf("benchmark: loops=%d median_us=%.3f min_us=%.3f arena_bytes=%u\n", loops,
           times[loops / 2], times[0], (unsigned)NET_ARENA_SIZE);
    return 0;
}
#else
#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)
static volatile uint32_t wraps;

void SysTick_Handler(void)
{
    ++wraps;
}

static uint64_t cycles(void)
{
    uint32_t w, v;
    do { w = wraps; v = SYST_CVR; } while (w != wraps);
    return (uint64_t)w * 0x1000000u + (0xFFFFFFu - v);
}

int main(int argc, char **argv)
{
    int loops = 10;
    (void)argc;
    (void)argv;
    net_init();
    SYST_RVR = 0xFFFFFFu;
    SYST_CVR = 0;
    SYST_CSR = 7u;  /* processor clock, interrupt on wrap, enable */
    set_inputs();
    net_run();
    uint64_t best = (uint64_t)-1;
    for (int i = 0; i < loops; ++i) {
        set_inputs();
        const uint64_t t0 = cycles();
        net_run();
        const uint64_t t = cycles() - t0;
        if (t < best) best = t;
    }
    printf("benchmark: loops=%d min_cycles=%lu arena_bytes=%u\n", loops,
           (unsigned long)best, (unsigned)NET_ARENA_SIZE);
    return 0;
}
#endif
"""


def benchmark_c(graph) -> str:
    sets = "\n".join(f"    net_set_input({i}, golden_in{i}, sizeof golden_in{i});"
                     for i in range(len(graph.inputs)))
    return _BENCHMARK.replace("@SET_INPUTS@", sets)
