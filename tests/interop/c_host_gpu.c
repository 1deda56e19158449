/* The generated launcher on a real GPU through the real driver: copy N floats and check. */
#include "layoutc_kernels.h"

#include <stdio.h>
#include <stdlib.h>

#define N (1 << 20)
#define CHECK(x)                                                                               \
    do {                                                                                       \
        CUresult rc_ = (x);                                                                    \
        if (rc_ != CUDA_SUCCESS) {                                                             \
            printf("%s failed: %d %s\n", #x, (int)rc_, layoutc_last_error());                  \
            return 2;                                                                          \
        }                                                                                      \
    } while (0)

int main(void)
{
    CUdevice dev;
    CUcontext ctx;
    CUdeviceptr src, dst;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    float *host = malloc(N * sizeof(float)), *back = malloc(N * sizeof(float));
    for (int i = 0; i < N; ++i) host[i] = (float)(i % 1000) * 0.25f;
    CHECK(cuMemAlloc(&src, N * sizeof(float)));
    CHECK(cuMemAlloc(&dst, N * sizeof(float)));
    CHECK(cuMemcpyHtoD(src, host, N * sizeof(float)));
    CHECK(cuMemsetD8(dst, 0, N * sizeof(float)));
    layoutc_dim3 grid = {N / 1024, 1, 1}, block = {128, 1, 1};
    CHECK(layoutc_copy_1d((float *)src, N, (float *)dst, N, grid, block, (CUstream)0));
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(back, dst, N * sizeof(float)));
    for (int i = 0; i < N; ++i)
        if (back[i] != host[i]) {
            printf("wrong at %d: %f != %f\n", i, back[i], host[i]);
            return 4;
        }
    CHECK(layoutc_unload());
    printf("ok\n");
    return 0;
}
