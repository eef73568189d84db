// Tensor and filter descriptors: the objects behind the opaque C handles.
#pragma once

#include <cstdint>
#include <string>

#include "anydnn/anydnn_core.h"
#include "core/status.hpp"

namespace anydnn {

constexpr int kMaxDims = ANYDNN_DIM_MAX;

// The geometry every problem and kernel sees: dimensions and strides in
// elements, dimension 0 = N, 1 = C, then spatial.
struct TensorLayout {
    anydnnDataType_t dt = ANYDNN_DATA_FLOAT;
    int nd = 0;
    int64_t dims[kMaxDims] = {};
    int64_t strides[kMaxDims] = {};

    int64_t elements() const;
    // Elements spanned in memory: 1 + sum((dims[i] - 1) * strides[i]).
    int64_t span() const;
    std::size_t bytes() const;
    bool same_dims(const TensorLayout &o) const;
    bool same_geometry(const TensorLayout &o) const;  // dims, strides and type
    // "f32:2x3x4x5:60.20.5.1"
    std::string to_string() const;
};

// Packed strides for `dims` in NCHW order (NHWC: channels innermost).
void packed_strides(int nd, const int64_t *dims, anydnnTensorFormat_t format, int64_t *strides);

}  // namespace anydnn

struct anydnnTensorStruct {
    bool is_set = false;
    anydnnTensorFormat_t format = ANYDNN_TENSOR_NCHW;  // as set, or NCHW for explicit strides
    anydnn::TensorLayout layout;
};

struct anydnnFilterStruct {
    bool is_set = false;
    anydnnTensorFormat_t format = ANYDNN_TENSOR_NCHW;
    anydnn::TensorLayout layout;  // K, C, spatial... with the strides of `format`
};

namespace anydnn {

// The checked layout behind a descriptor argument: BAD_PARAM, naming `arg`,
// when the descriptor is NULL or was never set.
Status tensor_arg(const anydnnTensorStruct *desc, const char *arg, const TensorLayout **out);
Status filter_arg(const anydnnFilterStruct *desc, const char *arg, const TensorLayout **out);
// Validates and stores a tensor of nd dimensions (int, as the C API gives them).
Status set_tensor(anydnnTensorStruct *desc, anydnnDataType_t dt, int nd, const int *dims, const int *strides,
                  anydnnTensorFormat_t format);
Status set_filter(anydnnFilterStruct *desc, anydnnDataType_t dt, anydnnTensorFormat_t format, int nd,
                  const int *dims);

}  // namespace anydnn
