/* A C host calling a layoutc kernel through the generated launcher, as a user's program does.
   argv[1]: "ok", "misaligned", "unequal", "block", "twice", "cluster" (clusters of 2 blocks),
   "cluster-grid" (a grid that is no multiple of the cluster), "cluster-empty", "cluster16"
   (16 blocks: a non-portable size) or "cluster17" (more than any cluster may have). */
#include "layoutc_kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 4096

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ok";
    float *src = aligned_alloc(16, (N + 4) * sizeof(float));
    float *dst = aligned_alloc(16, (N + 4) * sizeof(float));
    for (int i = 0; i < N + 4; ++i) {
        src[i] = (float)i * 0.5f;
        dst[i] = -1.0f;
    }
    layoutc_dim3 grid = {N / 1024, 1, 1}, block = {128, 1, 1};
    int n_dst = N;
    float *s = src;
    if (!strcmp(mode, "misaligned")) s = src + 1;
    if (!strcmp(mode, "unequal")) n_dst = N - 4;
    if (!strcmp(mode, "block")) block.x = 2048;
    CUresult rc;
    if (!strncmp(mode, "cluster", 7)) {
        layoutc_dim3 cluster = {2, 1, 1};
        if (!strcmp(mode, "cluster-grid")) grid.x = 3;
        if (!strcmp(mode, "cluster-empty")) cluster.y = 0;
        if (!strcmp(mode, "cluster16")) cluster.x = grid.x = 16;
        if (!strcmp(mode, "cluster17")) cluster.x = grid.x = 17;
        rc = layoutc_copy_1d_cluster(s, N, dst, n_dst, grid, block, cluster, (CUstream)0);
    } else {
        rc = layoutc_copy_1d(s, N, dst, n_dst, grid, block, (CUstream)0);
    }
    if (rc == CUDA_SUCCESS && !strcmp(mode, "twice"))
        rc = layoutc_copy_1d(s, N, dst, n_dst, grid, block, (CUstream)0);
    if (rc != CUDA_SUCCESS) {
        printf("refused %d: %s\n", (int)rc, layoutc_last_error());
        return 3;
    }
    for (int i = 0; i < N; ++i)
        if (dst[i] != src[i]) {
            printf("wrong at %d\n", i);
            return 4;
        }
    if (dst[N] != -1.0f) {
        printf("wrote past the end\n");
        return 5;
    }
    layoutc_unload();
    printf("ok\n");
    return 0;
}
