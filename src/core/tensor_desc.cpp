#include "core/tensor_desc.hpp"

#include <cstdio>

#include "core/dtype.hpp"

namespace anydnn {

int64_t TensorLayout::elements() const {
    int64_t n = 1;
    for (int i = 0; i < nd; ++i) n *= dims[i];
    return n;
}

int64_t TensorLayout::span() const {
    int64_t s = 1;
    for (int i = 0; i < nd; ++i) s += (dims[i] - 1) * strides[i];
    return s;
}

std::size_t TensorLayout::bytes() const { return static_cast<std::size_t>(span()) * dtype_size(dt); }

bool TensorLayout::same_dims(const TensorLayout &o) const {
    if (nd != o.nd) return false;
    for (int i = 0; i < nd; ++i)
        if (dims[i] != o.dims[i]) return false;
    return true;
}

bool TensorLayout::same_geometry(const TensorLayout &o) const {
    if (dt != o.dt || !same_dims(o)) return false;
    for (int i = 0; i < nd; ++i)
        if (dims[i] > 1 && strides[i] != o.strides[i]) return false;
    return true;
}

std::string TensorLayout::to_string() const {
    std::string s = dtype_name(dt);
    char buf[32];
    for (int i = 0; i < nd; ++i) {
        std::snprintf(buf, sizeof buf, "%s%lld", i == 0 ? ":" : "x", static_cast<long long>(dims[i]));
        s += buf;
    }
    for (int i = 0; i < nd; ++i) {
        std::snprintf(buf, sizeof buf, "%s%lld", i == 0 ? ":" : ".", static_cast<long long>(strides[i]));
        s += buf;
    }
    return s;
}

void packed_strides(int nd, const int64_t *dims, anydnnTensorFormat_t format, int64_t *strides) {
    if (format == ANYDNN_TENSOR_NHWC && nd >= 3) {
        // Memory order N, spatial..., C.
        strides[1] = 1;
        int64_t s = dims[1];
        for (int i = nd - 1; i >= 2; --i) {
            strides[i] = s;
            s *= dims[i];
        }
        strides[0] = s;
        return;
    }
    int64_t s = 1;
    for (int i = nd - 1; i >= 0; --i) {
        strides[i] = s;
        s *= dims[i];
    }
}

Status tensor_arg(const anydnnTensorStruct *desc, const char *arg, const TensorLayout **out) {
    if (desc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "%s is NULL", arg);
    if (!desc->is_set) return fail(ANYDNN_STATUS_BAD_PARAM, "%s was created but never set", arg);
    *out = &desc->layout;
    return kSuccess;
}

Status filter_arg(const anydnnFilterStruct *desc, const char *arg, const TensorLayout **out) {
    if (desc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "%s is NULL", arg);
    if (!desc->is_set) return fail(ANYDNN_STATUS_BAD_PARAM, "%s was created but never set", arg);
    *out = &desc->layout;
    return kSuccess;
}

namespace {

Status check_common(anydnnDataType_t dt, int nd, const int *dims, const char *what) {
    if (!dtype_known(dt)) return fail(ANYDNN_STATUS_BAD_PARAM, "dataType %d is not an anydnnDataType_t", dt);
    if (!dtype_supported(dt))
        return fail(ANYDNN_STATUS_NOT_SUPPORTED, "dataType %s (%d) is not supported", dtype_name(dt), dt);
    if (nd <= 0) return fail(ANYDNN_STATUS_BAD_PARAM, "nbDims is %d, must be positive", nd);
    if (nd < 3 || nd > kMaxDims)
        return fail(ANYDNN_STATUS_NOT_SUPPORTED, "nbDims is %d, supported are 3 to %d", nd, kMaxDims);
    if (dims == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "%s is NULL", what);
    int64_t n = 1;
    for (int i = 0; i < nd; ++i) {
        if (dims[i] < 1) return fail(ANYDNN_STATUS_BAD_PARAM, "%s[%d] is %d, must be >= 1", what, i, dims[i]);
        n *= dims[i];
        if (n > INT32_MAX)
            return fail(ANYDNN_STATUS_NOT_SUPPORTED, "%s describes more than 2^31 - 1 elements", what);
    }
    return kSuccess;
}

Status check_format(anydnnTensorFormat_t format) {
    if (format == ANYDNN_TENSOR_NCHW_VECT_C)
        return fail(ANYDNN_STATUS_NOT_SUPPORTED, "format ANYDNN_TENSOR_NCHW_VECT_C is not supported yet");
    if (format != ANYDNN_TENSOR_NCHW && format != ANYDNN_TENSOR_NHWC)
        return fail(ANYDNN_STATUS_BAD_PARAM, "format %d is not an anydnnTensorFormat_t", format);
    return kSuccess;
}

}  // namespace

Status set_tensor(anydnnTensorStruct *desc, anydnnDataType_t dt, int nd, const int *dims, const int *strides,
                  anydnnTensorFormat_t format) {
    if (desc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "tensorDesc is NULL");
    ANYDNN_TRY(check_common(dt, nd, dims, "dimA"));
    TensorLayout l;
    l.dt = dt;
    l.nd = nd;
    for (int i = 0; i < nd; ++i) l.dims[i] = dims[i];
    if (strides != nullptr) {
        for (int i = 0; i < nd; ++i) {
            if (strides[i] < 1)
                return fail(ANYDNN_STATUS_BAD_PARAM, "strideA[%d] is %d, must be >= 1", i, strides[i]);
            l.strides[i] = strides[i];
        }
    } else {
        ANYDNN_TRY(check_format(format));
        packed_strides(nd, l.dims, format, l.strides);
    }
    // The span must stay addressable with 64-bit offsets in any kernel.
    int64_t span = 1;
    for (int i = 0; i < nd; ++i) {
        if (l.strides[i] > (INT64_C(1) << 40) || span > (INT64_C(1) << 48))
            return fail(ANYDNN_STATUS_NOT_SUPPORTED, "strides span more than 2^48 elements");
        span += (l.dims[i] - 1) * l.strides[i];
    }
    desc->layout = l;
    desc->format = strides != nullptr ? ANYDNN_TENSOR_NCHW : format;
    desc->is_set = true;
    return kSuccess;
}

Status set_filter(anydnnFilterStruct *desc, anydnnDataType_t dt, anydnnTensorFormat_t format, int nd,
                  const int *dims) {
    if (desc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "filterDesc is NULL");
    ANYDNN_TRY(check_common(dt, nd, dims, "filterDimA"));
    ANYDNN_TRY(check_format(format));
    TensorLayout l;
    l.dt = dt;
    l.nd = nd;
    for (int i = 0; i < nd; ++i) l.dims[i] = dims[i];
    packed_strides(nd, l.dims, format, l.strides);
    desc->layout = l;
    desc->format = format;
    desc->is_set = true;
    return kSuccess;
}

}  // namespace anydnn
