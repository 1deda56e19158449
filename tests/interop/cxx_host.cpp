// A C++ host calling a layoutc kernel through the generated C launcher (the header's extern "C"
// block makes the C object link into a C++ program).
#include "layoutc_kernels.h"

#include <cstdio>
#include <vector>

int main()
{
    constexpr int n = 4096;
    alignas(16) static float src[n], dst[n];
    for (int i = 0; i < n; ++i) {
        src[i] = static_cast<float>(i);
        dst[i] = -1.0f;
    }
    const layoutc_dim3 grid{n / 1024, 1, 1}, block{128, 1, 1};
    CUresult rc = layoutc_copy_1d(src, n, dst, n, grid, block, nullptr);
    if (rc != CUDA_SUCCESS) {
        std::printf("refused %d: %s\n", static_cast<int>(rc), layoutc_last_error());
        return 3;
    }
    rc = layoutc_copy_1d(src + 1, n - 1, dst, n - 1, grid, block, nullptr);
    std::printf("misaligned refused: %d %s\n", rc == CUDA_ERROR_INVALID_VALUE, layoutc_last_error());
    for (int i = 0; i < n; ++i)
        if (dst[i] != src[i]) {
            std::printf("wrong at %d\n", i);
            return 4;
        }
    layoutc_unload();
    std::printf("ok\n");
    return 0;
}
