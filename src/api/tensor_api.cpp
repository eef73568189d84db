// C entry points for tensor and filter descriptors (anydnn_core.h).
#include <new>

#include "anydnn/anydnn_core.h"
#include "api/api_call.hpp"
#include "core/dtype.hpp"
#include "core/tensor_desc.hpp"

using namespace anydnn;

namespace {

template <class T>
Status create_object(T **out, const char *arg) {
    if (out == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "%s is NULL", arg);
    *out = new (std::nothrow) T;
    if (*out == nullptr) return fail(ANYDNN_STATUS_ALLOC_FAILED, "out of memory for %s", arg);
    return kSuccess;
}

template <class T>
Status destroy_object(T *p) {
    delete p;  // NULL is a no-op, as cuDNN's destroy functions allow
    return kSuccess;
}

int narrow(int64_t v) { return static_cast<int>(v); }

}  // namespace

extern "C" {

anydnnStatus_t anydnnCreateTensorDescriptor(anydnnTensorDescriptor_t *tensorDesc) {
    return api_call("anydnnCreateTensorDescriptor", nullptr, [&] { return create_object(tensorDesc, "tensorDesc"); });
}

anydnnStatus_t anydnnDestroyTensorDescriptor(anydnnTensorDescriptor_t tensorDesc) {
    return api_call("anydnnDestroyTensorDescriptor", nullptr, [&] { return destroy_object(tensorDesc); });
}

anydnnStatus_t anydnnSetTensor4dDescriptor(anydnnTensorDescriptor_t tensorDesc, anydnnTensorFormat_t format,
                                           anydnnDataType_t dataType, int n, int c, int h, int w) {
    return api_call("anydnnSetTensor4dDescriptor", nullptr, [&] {
        const int dims[4] = {n, c, h, w};
        return set_tensor(tensorDesc, dataType, 4, dims, nullptr, format);
    });
}

anydnnStatus_t anydnnSetTensor4dDescriptorEx(anydnnTensorDescriptor_t tensorDesc, anydnnDataType_t dataType, int n,
                                             int c, int h, int w, int nStride, int cStride, int hStride,
                                             int wStride) {
    return api_call("anydnnSetTensor4dDescriptorEx", nullptr, [&] {
        const int dims[4] = {n, c, h, w};
        const int strides[4] = {nStride, cStride, hStride, wStride};
        return set_tensor(tensorDesc, dataType, 4, dims, strides, ANYDNN_TENSOR_NCHW);
    });
}

anydnnStatus_t anydnnGetTensor4dDescriptor(const anydnnTensorDescriptor_t tensorDesc, anydnnDataType_t *dataType,
                                           int *n, int *c, int *h, int *w, int *nStride, int *cStride,
                                           int *hStride, int *wStride) {
    return api_call("anydnnGetTensor4dDescriptor", nullptr, [&] {
        const TensorLayout *l;
        ANYDNN_TRY(tensor_arg(tensorDesc, "tensorDesc", &l));
        if (l->nd != 4) return fail(ANYDNN_STATUS_BAD_PARAM, "tensorDesc has %d dimensions, not 4", l->nd);
        int *outs[8] = {n, c, h, w, nStride, cStride, hStride, wStride};
        for (int i = 0; i < 4; ++i) {
            if (outs[i] != nullptr) *outs[i] = narrow(l->dims[i]);
            if (outs[4 + i] != nullptr) *outs[4 + i] = narrow(l->strides[i]);
        }
        if (dataType != nullptr) *dataType = l->dt;
        return kSuccess;
    });
}

anydnnStatus_t anydnnSetTensorNdDescriptor(anydnnTensorDescriptor_t tensorDesc, anydnnDataType_t dataType,
                                           int nbDims, const int dimA[], const int strideA[]) {
    return api_call("anydnnSetTensorNdDescriptor", nullptr, [&] {
        if (strideA == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "strideA is NULL");
        return set_tensor(tensorDesc, dataType, nbDims, dimA, strideA, ANYDNN_TENSOR_NCHW);
    });
}

anydnnStatus_t anydnnSetTensorNdDescriptorEx(anydnnTensorDescriptor_t tensorDesc, anydnnTensorFormat_t format,
                                             anydnnDataType_t dataType, int nbDims, const int dimA[]) {
    return api_call("anydnnSetTensorNdDescriptorEx", nullptr,
                    [&] { return set_tensor(tensorDesc, dataType, nbDims, dimA, nullptr, format); });
}

anydnnStatus_t anydnnGetTensorNdDescriptor(const anydnnTensorDescriptor_t tensorDesc, int nbDimsRequested,
                                           anydnnDataType_t *dataType, int *nbDims, int dimA[], int strideA[]) {
    return api_call("anydnnGetTensorNdDescriptor", nullptr, [&] {
        const TensorLayout *l;
        ANYDNN_TRY(tensor_arg(tensorDesc, "tensorDesc", &l));
        if (nbDimsRequested < 0)
            return fail(ANYDNN_STATUS_BAD_PARAM, "nbDimsRequested is %d, must be >= 0", nbDimsRequested);
        const int n = nbDimsRequested < l->nd ? nbDimsRequested : l->nd;
        if (n > 0 && (dimA == nullptr || strideA == nullptr))
            return fail(ANYDNN_STATUS_BAD_PARAM, "%s is NULL", dimA == nullptr ? "dimA" : "strideA");
        for (int i = 0; i < n; ++i) {
            dimA[i] = narrow(l->dims[i]);
            strideA[i] = narrow(l->strides[i]);
        }
        if (dataType != nullptr) *dataType = l->dt;
        if (nbDims != nullptr) *nbDims = l->nd;
        return kSuccess;
    });
}

anydnnStatus_t anydnnGetTensorSizeInBytes(const anydnnTensorDescriptor_t tensorDesc, size_t *size) {
    return api_call("anydnnGetTensorSizeInBytes", nullptr, [&] {
        const TensorLayout *l;
        ANYDNN_TRY(tensor_arg(tensorDesc, "tensorDesc", &l));
        if (size == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "size is NULL");
        *size = l->bytes();
        return kSuccess;
    });
}

anydnnStatus_t anydnnCreateFilterDescriptor(anydnnFilterDescriptor_t *filterDesc) {
    return api_call("anydnnCreateFilterDescriptor", nullptr, [&] { return create_object(filterDesc, "filterDesc"); });
}

anydnnStatus_t anydnnDestroyFilterDescriptor(anydnnFilterDescriptor_t filterDesc) {
    return api_call("anydnnDestroyFilterDescriptor", nullptr, [&] { return destroy_object(filterDesc); });
}

anydnnStatus_t anydnnSetFilter4dDescriptor(anydnnFilterDescriptor_t filterDesc, anydnnDataType_t dataType,
                                           anydnnTensorFormat_t format, int k, int c, int h, int w) {
    return api_call("anydnnSetFilter4dDescriptor", nullptr, [&] {
        const int dims[4] = {k, c, h, w};
        return set_filter(filterDesc, dataType, format, 4, dims);
    });
}

anydnnStatus_t anydnnGetFilter4dDescriptor(const anydnnFilterDescriptor_t filterDesc, anydnnDataType_t *dataType,
                                           anydnnTensorFormat_t *format, int *k, int *c, int *h, int *w) {
    return api_call("anydnnGetFilter4dDescriptor", nullptr, [&] {
        const TensorLayout *l;
        ANYDNN_TRY(filter_arg(filterDesc, "filterDesc", &l));
        if (l->nd != 4) return fail(ANYDNN_STATUS_BAD_PARAM, "filterDesc has %d dimensions, not 4", l->nd);
        int *outs[4] = {k, c, h, w};
        for (int i = 0; i < 4; ++i)
            if (outs[i] != nullptr) *outs[i] = narrow(l->dims[i]);
        if (dataType != nullptr) *dataType = l->dt;
        if (format != nullptr) *format = filterDesc->format;
        return kSuccess;
    });
}

anydnnStatus_t anydnnSetFilterNdDescriptor(anydnnFilterDescriptor_t filterDesc, anydnnDataType_t dataType,
                                           anydnnTensorFormat_t format, int nbDims, const int filterDimA[]) {
    return api_call("anydnnSetFilterNdDescriptor", nullptr,
                    [&] { return set_filter(filterDesc, dataType, format, nbDims, filterDimA); });
}

anydnnStatus_t anydnnGetFilterNdDescriptor(const anydnnFilterDescriptor_t filterDesc, int nbDimsRequested,
                                           anydnnDataType_t *dataType, anydnnTensorFormat_t *format, int *nbDims,
                                           int filterDimA[]) {
    return api_call("anydnnGetFilterNdDescriptor", nullptr, [&] {
        const TensorLayout *l;
        ANYDNN_TRY(filter_arg(filterDesc, "filterDesc", &l));
        if (nbDimsRequested < 0)
            return fail(ANYDNN_STATUS_BAD_PARAM, "nbDimsRequested is %d, must be >= 0", nbDimsRequested);
        const int n = nbDimsRequested < l->nd ? nbDimsRequested : l->nd;
        if (n > 0 && filterDimA == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "filterDimA is NULL");
        for (int i = 0; i < n; ++i) filterDimA[i] = narrow(l->dims[i]);
        if (dataType != nullptr) *dataType = l->dt;
        if (format != nullptr) *format = filterDesc->format;
        if (nbDims != nullptr) *nbDims = l->nd;
        return kSuccess;
    });
}

anydnnStatus_t anydnnGetFilterSizeInBytes(const anydnnFilterDescriptor_t filterDesc, size_t *size) {
    return api_call("anydnnGetFilterSizeInBytes", nullptr, [&] {
        const TensorLayout *l;
        ANYDNN_TRY(filter_arg(filterDesc, "filterDesc", &l));
        if (size == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "size is NULL");
        *size = l->bytes();
        return kSuccess;
    });
}

}  // extern "C"
