/* A C host launching a kernel with a TMA descriptor through the generated launcher (the
   descriptor is encoded by the launcher from the tensor A). argv[1]: "ok" (two launches with
   one tensor, then one with another), "misaligned", "stride" or "extent". */
#include "tmalib_kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ok";
    float *a = aligned_alloc(64, 64 * 130 * sizeof(float));
    int32_t rows = 64, cols = 128, ld = 128;
    float *p = a;
    if (!strcmp(mode, "misaligned")) p = a + 1;
    if (!strcmp(mode, "stride")) ld = 129;
    if (!strcmp(mode, "extent")) rows = 0;
    layoutc_dim3 grid = {8, 4, 1}, block = {32, 1, 1};
    printf("a=%llx\n", (unsigned long long)(uintptr_t)p);
    CUresult rc = tmalib_tmak(p, rows, cols, ld, grid, block, (CUstream)0);
    if (rc == CUDA_SUCCESS) rc = tmalib_tmak(p, rows, cols, ld, grid, block, (CUstream)0);
    if (rc == CUDA_SUCCESS) rc = tmalib_tmak(p + 16, rows, cols, ld, grid, block, (CUstream)0);
    if (rc != CUDA_SUCCESS) {
        printf("refused %d: %s\n", (int)rc, tmalib_last_error());
        return 3;
    }
    printf("encodes=%llu\n", tmalib_tma_encodes());
    return 0;
}
