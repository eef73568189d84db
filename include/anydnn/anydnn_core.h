/* anydnn_core.h: handle, status, version, logging, tensor and filter descriptors.
 *
 * anydnn implements the cuDNN 8 legacy C API with the prefix anydnn/ANYDNN_ in
 * place of cudnn/CUDNN_: same argument order, same semantics, same enum values.
 * cuDNN's documentation is the specification; where this header says more, it
 * documents an anydnn addition or a choice cuDNN leaves open.
 *
 * Conventions that hold for every function of the library:
 * - Every function returns an anydnnStatus_t (except the few getters noted).
 *   Any status other than ANYDNN_STATUS_SUCCESS also leaves a one-line message
 *   naming the function, the argument and the offending value, readable with
 *   anydnnGetLastErrorString() from the same thread.
 * - ANYDNN_STATUS_BAD_PARAM is the caller's mistake (NULL pointer, bad enum,
 *   dimensions that do not agree); ANYDNN_STATUS_NOT_SUPPORTED is a valid
 *   request that this build does not implement. The two are never confused.
 * - Nothing is written to an output when a call fails.
 * - alpha/beta scaling factors are host pointers to double when the tensors
 *   are ANYDNN_DATA_DOUBLE and to float otherwise, as in cuDNN.
 *
 * This header is C99 and C++ clean.
 */
#ifndef ANYDNN_CORE_H_
#define ANYDNN_CORE_H_

#include <stddef.h>
#include <stdint.h>

#include "anydnn_version.h"

#if defined(_WIN32)
#  if defined(ANYDNN_BUILDING_LIBRARY)
#    define ANYDNN_API __declspec(dllexport)
#  elif defined(ANYDNN_STATIC)
#    define ANYDNN_API
#  else
#    define ANYDNN_API __declspec(dllimport)
#  endif
#else
#  define ANYDNN_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Largest number of tensor dimensions, as CUDNN_DIM_MAX. */
#define ANYDNN_DIM_MAX 8

typedef enum {
    ANYDNN_STATUS_SUCCESS = 0,
    ANYDNN_STATUS_NOT_INITIALIZED = 1,
    ANYDNN_STATUS_ALLOC_FAILED = 2,
    ANYDNN_STATUS_BAD_PARAM = 3,
    ANYDNN_STATUS_INTERNAL_ERROR = 4,
    ANYDNN_STATUS_INVALID_VALUE = 5,
    ANYDNN_STATUS_ARCH_MISMATCH = 6,
    ANYDNN_STATUS_MAPPING_ERROR = 7,
    ANYDNN_STATUS_EXECUTION_FAILED = 8,
    ANYDNN_STATUS_NOT_SUPPORTED = 9,
    ANYDNN_STATUS_LICENSE_ERROR = 10, /* never returned: anydnn has no licence check */
    ANYDNN_STATUS_RUNTIME_PREREQUISITE_MISSING = 11,
    ANYDNN_STATUS_RUNTIME_IN_PROGRESS = 12,
    ANYDNN_STATUS_RUNTIME_FP_OVERFLOW = 13,
    ANYDNN_STATUS_VERSION_MISMATCH = 14
} anydnnStatus_t;

typedef struct anydnnContext *anydnnHandle_t;
/* The stream a handle's work is queued on. On the CPU it must be NULL (work
 * runs synchronously on the calling thread and its OpenMP team); on CUDA it
 * is a cudaStream_t. */
typedef struct anydnnStreamOpaque *anydnnStream_t;

/* anydnn addition: the device a handle runs on. */
typedef enum {
    ANYDNN_DEVICE_CPU = 0,
    ANYDNN_DEVICE_CUDA = 1
} anydnnDevice_t;

typedef enum {
    ANYDNN_MAJOR_VERSION = 0,
    ANYDNN_MINOR_VERSION = 1,
    ANYDNN_PATCH_LEVEL = 2
} anydnnLibraryPropertyType_t;

/* ---- Version and status strings ------------------------------------------------ */

/* The version of the loaded library, MAJOR * 10000 + MINOR * 100 + PATCHLEVEL. */
ANYDNN_API size_t anydnnGetVersion(void);
/* One component of the loaded library's version. BAD_PARAM: value is NULL or
 * type is not an anydnnLibraryPropertyType_t. */
ANYDNN_API anydnnStatus_t anydnnGetProperty(anydnnLibraryPropertyType_t type, int *value);
/* The name of a status code, e.g. "ANYDNN_STATUS_BAD_PARAM"; never NULL. */
ANYDNN_API const char *anydnnGetErrorString(anydnnStatus_t status);
/* The message left by the last failing anydnn call on this thread (cuDNN 9's
 * cudnnGetLastErrorString). Copies at most max_size - 1 characters and a NUL;
 * writes "" when the last call on this thread succeeded. The message is
 * cleared by the next successful call. */
ANYDNN_API void anydnnGetLastErrorString(char *message, size_t max_size);
/* anydnn addition: a static, human-readable description of this build:
 * version, backends compiled in, CPU ISA paths compiled in and the one this
 * machine selects, compiler and OpenMP version, one "key: value" per line. */
ANYDNN_API const char *anydnnGetBuildInfo(void);

/* ---- Handle ----------------------------------------------------------------------- */

/* Creates a handle on the CPU, unless the environment variable ANYDNN_DEVICE
 * says "cuda" or "cuda:N". BAD_PARAM: handle is NULL. VERSION_MISMATCH: see
 * anydnnCreateForVersion. */
ANYDNN_API anydnnStatus_t(anydnnCreate)(anydnnHandle_t *handle);
/* anydnn addition: creates a handle on the given device and device ordinal
 * (0 for the CPU). NOT_SUPPORTED: the device's backend is not compiled into
 * this build. BAD_PARAM: handle is NULL, device unknown, ordinal invalid.
 *
 * The CPU handle reads ANYDNN_MAX_ISA (generic|avx2|avx512) and
 * ANYDNN_NUM_THREADS when it is created. */
ANYDNN_API anydnnStatus_t(anydnnCreateEx)(anydnnHandle_t *handle, anydnnDevice_t device, int ordinal);
/* anydnn addition: anydnnCreate / anydnnCreateEx for a program compiled
 * against headers of version headerVersion (its ANYDNN_VERSION).
 * VERSION_MISMATCH, with both versions and the loaded library's path in the
 * message, when headerVersion's major differs from the library's or its minor
 * is newer (the program may call what this library lacks). The macros below
 * route every anydnnCreate / anydnnCreateEx call of a program through these;
 * (anydnnCreate)(handle) or a function pointer reaches the unchecked call. */
ANYDNN_API anydnnStatus_t anydnnCreateForVersion(anydnnHandle_t *handle, size_t headerVersion);
ANYDNN_API anydnnStatus_t anydnnCreateExForVersion(anydnnHandle_t *handle, anydnnDevice_t device, int ordinal,
                                                   size_t headerVersion);
#define anydnnCreate(handle) anydnnCreateForVersion((handle), ANYDNN_VERSION)
#define anydnnCreateEx(handle, device, ordinal) \
    anydnnCreateExForVersion((handle), (device), (ordinal), ANYDNN_VERSION)
ANYDNN_API anydnnStatus_t anydnnDestroy(anydnnHandle_t handle);
/* BAD_PARAM on a CPU handle when stream is not NULL. */
ANYDNN_API anydnnStatus_t anydnnSetStream(anydnnHandle_t handle, anydnnStream_t stream);
ANYDNN_API anydnnStatus_t anydnnGetStream(anydnnHandle_t handle, anydnnStream_t *stream);
/* anydnn addition: the number of CPU threads the handle's calls use;
 * 0 restores the default (ANYDNN_NUM_THREADS, else OpenMP's default).
 * BAD_PARAM: num_threads < 0. */
ANYDNN_API anydnnStatus_t anydnnSetNumThreads(anydnnHandle_t handle, int num_threads);
ANYDNN_API anydnnStatus_t anydnnGetNumThreads(anydnnHandle_t handle, int *num_threads);

/* ---- Memory on the handle's device (anydnn addition) ----------------------------- */

typedef enum {
    ANYDNN_MEMCPY_HOST_TO_HOST = 0,
    ANYDNN_MEMCPY_HOST_TO_DEVICE = 1,
    ANYDNN_MEMCPY_DEVICE_TO_HOST = 2,
    ANYDNN_MEMCPY_DEVICE_TO_DEVICE = 3,
    ANYDNN_MEMCPY_DEFAULT = 4
} anydnnMemcpyKind_t;

/* Allocates size bytes on the handle's device; on the CPU a 64-byte aligned
 * host allocation. size 0 gives *ptr == NULL and SUCCESS.
 * ALLOC_FAILED: out of memory. BAD_PARAM: handle or ptr NULL. */
ANYDNN_API anydnnStatus_t anydnnMalloc(anydnnHandle_t handle, void **ptr, size_t size);
/* Frees memory from anydnnMalloc on the same handle's device; NULL is a no-op. */
ANYDNN_API anydnnStatus_t anydnnFree(anydnnHandle_t handle, void *ptr);
/* Copies size bytes; on the CPU every kind is a host copy. BAD_PARAM: a NULL
 * pointer with size > 0, or kind unknown. */
ANYDNN_API anydnnStatus_t anydnnMemcpy(anydnnHandle_t handle, void *dst, const void *src, size_t size,
                                       anydnnMemcpyKind_t kind);

/* ---- API logging, as cuDNN's (CUDNN_LOGINFO_DBG and friends) ---------------------
 *
 * Environment: ANYDNN_LOGERR_DBG=1, ANYDNN_LOGWARN_DBG=1 and ANYDNN_LOGINFO_DBG=1
 * turn on the error, warning and info (every API call) messages;
 * ANYDNN_LOGDEST_DBG=stdout|stderr|<file name> says where they go (stderr by
 * default). A callback set with anydnnSetCallback receives the messages of the
 * severities in its mask instead. */

typedef enum {
    ANYDNN_SEV_FATAL = 0,
    ANYDNN_SEV_ERROR = 1,
    ANYDNN_SEV_WARNING = 2,
    ANYDNN_SEV_INFO = 3
} anydnnSeverity_t;

#define ANYDNN_SEV_ERROR_EN (1U << ANYDNN_SEV_ERROR)
#define ANYDNN_SEV_WARNING_EN (1U << ANYDNN_SEV_WARNING)
#define ANYDNN_SEV_INFO_EN (1U << ANYDNN_SEV_INFO)

typedef struct {
    unsigned anydnn_version;
    anydnnStatus_t anydnnStatus;
    unsigned time_sec;   /* epoch seconds */
    unsigned time_usec;  /* microseconds within the second */
    unsigned time_delta; /* seconds since the first message */
    anydnnHandle_t handle;
    anydnnStream_t stream;
    unsigned long long pid;
    unsigned long long tid;
    int deviceId;
    int reserved[15];
} anydnnDebug_t;

typedef void (*anydnnCallback_t)(anydnnSeverity_t sev, void *udata, const anydnnDebug_t *dbg, const char *msg);

/* mask: a bitwise OR of ANYDNN_SEV_*_EN; fptr NULL restores logging to the
 * destination named by the environment. */
ANYDNN_API anydnnStatus_t anydnnSetCallback(unsigned mask, void *udata, anydnnCallback_t fptr);
/* BAD_PARAM: any argument is NULL. */
ANYDNN_API anydnnStatus_t anydnnGetCallback(unsigned *mask, void **udata, anydnnCallback_t *fptr);

/* ---- Data types and layouts ------------------------------------------------------ */

typedef enum {
    ANYDNN_DATA_FLOAT = 0,
    ANYDNN_DATA_DOUBLE = 1,
    ANYDNN_DATA_HALF = 2,
    ANYDNN_DATA_INT8 = 3,
    ANYDNN_DATA_INT32 = 4,
    ANYDNN_DATA_INT8x4 = 5,  /* NOT_SUPPORTED */
    ANYDNN_DATA_UINT8 = 6,
    ANYDNN_DATA_UINT8x4 = 7, /* NOT_SUPPORTED */
    ANYDNN_DATA_INT8x32 = 8, /* NOT_SUPPORTED */
    ANYDNN_DATA_BFLOAT16 = 9,
    ANYDNN_DATA_INT64 = 10
} anydnnDataType_t;

typedef enum {
    ANYDNN_TENSOR_NCHW = 0,
    ANYDNN_TENSOR_NHWC = 1,
    ANYDNN_TENSOR_NCHW_VECT_C = 2 /* NOT_SUPPORTED */
} anydnnTensorFormat_t;

typedef enum {
    ANYDNN_NOT_PROPAGATE_NAN = 0,
    ANYDNN_PROPAGATE_NAN = 1
} anydnnNanPropagation_t;

typedef enum {
    ANYDNN_NON_DETERMINISTIC = 0,
    ANYDNN_DETERMINISTIC = 1
} anydnnDeterminism_t;

/* ---- Tensor descriptors -------------------------------------------------------------
 *
 * A tensor has 3 to ANYDNN_DIM_MAX dimensions, each >= 1, and a stride per
 * dimension in elements (>= 1; strides may describe any permutation of the
 * dimensions, and gaps, but two elements never share an address).
 * Dimension 0 is N, 1 is C, then the spatial dimensions (D,) H, W.
 * Supported data types: FLOAT, DOUBLE, HALF, BFLOAT16, INT8, UINT8, INT32,
 * INT64; the vectorized INT8x4/UINT8x4/INT8x32 types and NCHW_VECT_C give
 * NOT_SUPPORTED. A descriptor that was never set gives BAD_PARAM when used. */

typedef struct anydnnTensorStruct *anydnnTensorDescriptor_t;

ANYDNN_API anydnnStatus_t anydnnCreateTensorDescriptor(anydnnTensorDescriptor_t *tensorDesc);
ANYDNN_API anydnnStatus_t anydnnDestroyTensorDescriptor(anydnnTensorDescriptor_t tensorDesc);
/* A packed 4-D tensor in NCHW or NHWC order. BAD_PARAM: a dimension < 1, an
 * unknown format or data type, or more than 2^31 - 1 elements. */
ANYDNN_API anydnnStatus_t anydnnSetTensor4dDescriptor(anydnnTensorDescriptor_t tensorDesc, anydnnTensorFormat_t format,
                                                      anydnnDataType_t dataType, int n, int c, int h, int w);
/* A 4-D tensor with explicit strides. BAD_PARAM: a dimension or stride < 1. */
ANYDNN_API anydnnStatus_t anydnnSetTensor4dDescriptorEx(anydnnTensorDescriptor_t tensorDesc, anydnnDataType_t dataType,
                                                        int n, int c, int h, int w, int nStride, int cStride,
                                                        int hStride, int wStride);
/* BAD_PARAM: the descriptor is not 4-D. Any output pointer may be NULL. */
ANYDNN_API anydnnStatus_t anydnnGetTensor4dDescriptor(const anydnnTensorDescriptor_t tensorDesc,
                                                      anydnnDataType_t *dataType, int *n, int *c, int *h, int *w,
                                                      int *nStride, int *cStride, int *hStride, int *wStride);
/* NOT_SUPPORTED: nbDims outside [3, ANYDNN_DIM_MAX]. BAD_PARAM: dimA or
 * strideA NULL, a dimension or stride < 1, overlapping strides. */
ANYDNN_API anydnnStatus_t anydnnSetTensorNdDescriptor(anydnnTensorDescriptor_t tensorDesc, anydnnDataType_t dataType,
                                                      int nbDims, const int dimA[], const int strideA[]);
/* A packed N-D tensor in the order given by format (NHWC means channels
 * last: N, spatial..., C in memory). */
ANYDNN_API anydnnStatus_t anydnnSetTensorNdDescriptorEx(anydnnTensorDescriptor_t tensorDesc,
                                                        anydnnTensorFormat_t format, anydnnDataType_t dataType,
                                                        int nbDims, const int dimA[]);
/* Writes min(nbDimsRequested, nbDims) dimensions and strides. dimA and
 * strideA may be NULL when nbDimsRequested is 0. */
ANYDNN_API anydnnStatus_t anydnnGetTensorNdDescriptor(const anydnnTensorDescriptor_t tensorDesc, int nbDimsRequested,
                                                      anydnnDataType_t *dataType, int *nbDims, int dimA[],
                                                      int strideA[]);
/* Bytes spanned by the tensor: (1 + sum((dim_i - 1) * stride_i)) elements. */
ANYDNN_API anydnnStatus_t anydnnGetTensorSizeInBytes(const anydnnTensorDescriptor_t tensorDesc, size_t *size);

/* ---- Filter descriptors --------------------------------------------------------------
 *
 * A filter is K (output channels), C (input channels per group), then the
 * spatial dimensions, packed in NCHW (KCRS) or NHWC (KRSC) order. */

typedef struct anydnnFilterStruct *anydnnFilterDescriptor_t;

ANYDNN_API anydnnStatus_t anydnnCreateFilterDescriptor(anydnnFilterDescriptor_t *filterDesc);
ANYDNN_API anydnnStatus_t anydnnDestroyFilterDescriptor(anydnnFilterDescriptor_t filterDesc);
ANYDNN_API anydnnStatus_t anydnnSetFilter4dDescriptor(anydnnFilterDescriptor_t filterDesc, anydnnDataType_t dataType,
                                                      anydnnTensorFormat_t format, int k, int c, int h, int w);
ANYDNN_API anydnnStatus_t anydnnGetFilter4dDescriptor(const anydnnFilterDescriptor_t filterDesc,
                                                      anydnnDataType_t *dataType, anydnnTensorFormat_t *format,
                                                      int *k, int *c, int *h, int *w);
/* NOT_SUPPORTED: nbDims outside [3, ANYDNN_DIM_MAX]. */
ANYDNN_API anydnnStatus_t anydnnSetFilterNdDescriptor(anydnnFilterDescriptor_t filterDesc, anydnnDataType_t dataType,
                                                      anydnnTensorFormat_t format, int nbDims,
                                                      const int filterDimA[]);
ANYDNN_API anydnnStatus_t anydnnGetFilterNdDescriptor(const anydnnFilterDescriptor_t filterDesc, int nbDimsRequested,
                                                      anydnnDataType_t *dataType, anydnnTensorFormat_t *format,
                                                      int *nbDims, int filterDimA[]);
ANYDNN_API anydnnStatus_t anydnnGetFilterSizeInBytes(const anydnnFilterDescriptor_t filterDesc, size_t *size);

#ifdef __cplusplus
}
#endif

#endif /* ANYDNN_CORE_H_ */
