/* A stand-in for libcuda, enough for layoutc's C launchers: a "device" whose compute capability
   comes from LC_FAKE_CC (e.g. 86), a current context unless LC_FAKE_NO_CONTEXT is set, module
   loads that write the image they were given to LC_FAKE_IMAGE, and launches that print their
   shape and parameter values and run a model of copy_1d (dst[i] = src[i], i < N); other
   kernels' launches print their shape, and the first two words of the TMA descriptor
   parameter LC_FAKE_TMA_PARAM (an index) if set. cuTensorMapEncodeTiled prints its arguments
   and writes the address and the first two extents into the descriptor's first two words. */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fake_module, fake_function, fake_context;
static char fake_name[256];
static int loads;

CUresult cuGetErrorName(CUresult rc, const char **name)
{
    *name = rc == CUDA_ERROR_INVALID_VALUE ? "CUDA_ERROR_INVALID_VALUE" : "CUDA_ERROR_FAKE";
    return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext *ctx)
{
    *ctx = getenv("LC_FAKE_NO_CONTEXT") ? NULL : (CUcontext)&fake_context;
    return CUDA_SUCCESS;
}

CUresult cuCtxGetDevice(CUdevice *dev)
{
    *dev = 0;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attr, CUdevice dev)
{
    (void)dev;
    int cc = atoi(getenv("LC_FAKE_CC") ? getenv("LC_FAKE_CC") : "90");
    *value = attr == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ? cc / 10 : cc % 10;
    return CUDA_SUCCESS;
}

CUresult cuModuleLoadData(CUmodule *module, const void *image)
{
    const char *path = getenv("LC_FAKE_IMAGE");
    const unsigned char *bytes = image;
    if (path && bytes[0] == 0x7f) { /* an ELF cubin: it ends with its header tables */
        uint64_t shoff, phoff;
        uint16_t phentsize, phnum, shentsize, shnum;
        memcpy(&phoff, bytes + 0x20, 8);
        memcpy(&shoff, bytes + 0x28, 8);
        memcpy(&phentsize, bytes + 0x36, 2);
        memcpy(&phnum, bytes + 0x38, 2);
        memcpy(&shentsize, bytes + 0x3a, 2);
        memcpy(&shnum, bytes + 0x3c, 2);
        uint64_t end = shoff + (uint64_t)shentsize * shnum;
        if (phoff + (uint64_t)phentsize * phnum > end) end = phoff + (uint64_t)phentsize * phnum;
        FILE *f = fopen(path, "wb");
        fwrite(bytes, 1, end, f);
        fclose(f);
    }
    ++loads;
    *module = (CUmodule)&fake_module;
    return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction *fn, CUmodule module, const char *name)
{
    (void)module;
    printf("function %s\n", name);
    snprintf(fake_name, sizeof fake_name, "%s", name);
    *fn = (CUfunction)&fake_function;
    return CUDA_SUCCESS;
}

CUresult cuModuleUnload(CUmodule module)
{
    (void)module;
    printf("unload\n");
    return CUDA_SUCCESS;
}

/* Whether the function allowed clusters of more than 8 blocks (one kernel per test host). */
static int fake_non_portable;

CUresult cuFuncSetAttribute(CUfunction fn, CUfunction_attribute attr, int value)
{
    (void)fn;
    if (attr == CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED) {
        printf("non-portable=%d ", value);
        fake_non_portable = value;
    }
    return CUDA_SUCCESS;
}

static CUresult fake_launch(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                            unsigned bz, unsigned smem, CUstream stream, void **params)
{
    if (strcmp(fake_name, "copy_1d")) {
        printf("launch grid=(%u,%u,%u) block=(%u,%u,%u) smem=%u kernel=%s", gx, gy, gz, bx, by,
               bz, smem, fake_name);
        const char *tma = getenv("LC_FAKE_TMA_PARAM");
        if (tma) {
            const CUtensorMap *map = params[atoi(tma)];
            printf(" tma=%llx,%llx", (unsigned long long)map->opaque[0],
                   (unsigned long long)map->opaque[1]);
        }
        printf("\n");
        return CUDA_SUCCESS;
    }
    CUdeviceptr src = *(CUdeviceptr *)params[0], dst = *(CUdeviceptr *)params[2];
    int32_t n = *(int32_t *)params[1];
    printf("launch grid=(%u,%u,%u) block=(%u,%u,%u) smem=%u stream=%p n=%d loads=%d\n", gx, gy,
           gz, bx, by, bz, smem, (void *)stream, n, loads);
    memcpy((void *)(uintptr_t)dst, (void *)(uintptr_t)src, (size_t)n * sizeof(float));
    return CUDA_SUCCESS;
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned smem, CUstream stream, void **params,
                        void **extra)
{
    (void)f;
    (void)extra;
    return fake_launch(gx, gy, gz, bx, by, bz, smem, stream, params);
}

/* Prints the launch attributes first: "cluster=(x,y,z)" for the cluster dimension. Refuses
   clusters of more than 8 blocks, as the driver does, unless the function allowed them. */
CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **params, void **extra)
{
    (void)f;
    (void)extra;
    for (unsigned i = 0; i < config->numAttrs; ++i) {
        const CUlaunchAttribute *a = &config->attrs[i];
        if (a->id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
            printf("cluster=(%u,%u,%u) ", a->value.clusterDim.x, a->value.clusterDim.y,
                   a->value.clusterDim.z);
            if (a->value.clusterDim.x * a->value.clusterDim.y * a->value.clusterDim.z > 8 &&
                !fake_non_portable)
                return CUDA_ERROR_INVALID_CLUSTER_SIZE;
        } else
            printf("attribute %d ", (int)a->id);
    }
    return fake_launch(config->gridDimX, config->gridDimY, config->gridDimZ, config->blockDimX,
                       config->blockDimY, config->blockDimZ, config->sharedMemBytes,
                       config->hStream, params);
}

/* Prints its arguments (dims, the strides of dimensions 1.., corners, channels, pixels, the
   traversal strides) and writes the address and the first two extents as the tiled one. */
CUresult cuTensorMapEncodeIm2col(CUtensorMap *map, CUtensorMapDataType dtype, cuuint32_t rank,
                                 void *address, const cuuint64_t *dims, const cuuint64_t *strides,
                                 const int *lower, const int *upper, cuuint32_t channels,
                                 cuuint32_t pixels, const cuuint32_t *element_strides,
                                 CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                 CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill fill)
{
    printf("encode-im2col dtype=%d rank=%u address=%llx dims=(", (int)dtype, rank,
           (unsigned long long)(uintptr_t)address);
    for (cuuint32_t k = 0; k < rank; ++k) printf(k ? ",%llu" : "%llu", (unsigned long long)dims[k]);
    printf(") strides=(");
    for (cuuint32_t k = 0; k + 1 < rank; ++k)
        printf(k ? ",%llu" : "%llu", (unsigned long long)strides[k]);
    printf(") lower=(");
    for (cuuint32_t k = 0; k + 2 < rank; ++k) printf(k ? ",%d" : "%d", lower[k]);
    printf(") upper=(");
    for (cuuint32_t k = 0; k + 2 < rank; ++k) printf(k ? ",%d" : "%d", upper[k]);
    printf(") channels=%u pixels=%u elementstrides=(", channels, pixels);
    for (cuuint32_t k = 0; k < rank; ++k) printf(k ? ",%u" : "%u", element_strides[k]);
    printf(") swizzle=%d interleave=%d l2=%d fill=%d\n", (int)swizzle, (int)interleave, (int)l2,
           (int)fill);
    memset(map, 0, sizeof *map);
    map->opaque[0] = (cuuint64_t)(uintptr_t)address;
    map->opaque[1] = dims[0] | (rank > 1 ? dims[1] << 32 : 0);
    return CUDA_SUCCESS;
}

CUresult cuTensorMapEncodeTiled(CUtensorMap *map, CUtensorMapDataType dtype, cuuint32_t rank,
                                void *address, const cuuint64_t *dims, const cuuint64_t *strides,
                                const cuuint32_t *box, const cuuint32_t *element_strides,
                                CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill fill)
{
    printf("encode f32=%d rank=%u dims=(", dtype == CU_TENSOR_MAP_DATA_TYPE_FLOAT32, rank);
    for (cuuint32_t k = 0; k < rank; ++k) printf(k ? ",%llu" : "%llu", (unsigned long long)dims[k]);
    printf(") strides=(");
    for (cuuint32_t k = 0; k + 1 < rank; ++k)
        printf(k ? ",%llu" : "%llu", (unsigned long long)strides[k]);
    printf(") box=(");
    for (cuuint32_t k = 0; k < rank; ++k) printf(k ? ",%u" : "%u", box[k]);
    printf(") elementstrides=%u swizzle128=%d interleave=%d l2=%d zerofill=%d\n",
           element_strides[0], swizzle == CU_TENSOR_MAP_SWIZZLE_128B,
           (int)interleave, l2 == CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
           fill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    memset(map, 0, sizeof *map);
    map->opaque[0] = (cuuint64_t)(uintptr_t)address;
    map->opaque[1] = dims[0] | (rank > 1 ? dims[1] << 32 : 0);
    return CUDA_SUCCESS;
}
