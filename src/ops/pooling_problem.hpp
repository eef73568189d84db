// The pooling problems, validated once for every backend:
//   forward:  y = alpha * pool(x) + beta * y
//   backward: dx = alpha * dpool(x, dy) + beta * dx
// with the geometry normalized to three spatial dimensions (d, h, w; a 2-D
// problem has d = 1 with window 1, a 1-D one also h = 1), so that kernels
// have one shape.
#pragma once

#include <cstdint>
#include <string>

#include "anydnn/anydnn_ops.h"
#include "core/tensor_desc.hpp"
#include "ops/pooling_desc.hpp"

namespace anydnn::ops {

enum class PoolKind { max, avg_include_padding, avg_exclude_padding };

struct PoolGeometry {
    anydnnDataType_t dt = ANYDNN_DATA_FLOAT;  // of every tensor
    PoolKind kind = PoolKind::max;
    bool propagate_nan = false;  // MAX only
    int spatial = 2;             // as the user gave it: 1, 2 or 3
    int64_t n = 1, c = 1;
    // Index 0 = d, 1 = h, 2 = w.
    int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, window[3] = {1, 1, 1};
    int64_t stride[3] = {1, 1, 1}, pad[3] = {};

    int64_t window_size() const { return window[0] * window[1] * window[2]; }
    int64_t in_pixels() const { return in[0] * in[1] * in[2]; }
    int64_t out_pixels() const { return out[0] * out[1] * out[2]; }
    std::string to_string() const;
};

// Element strides of one tensor: index 0 = n, 1 = c, 2 = d, 3 = h, 4 = w; a
// spatial dimension the user did not have has stride 0.
struct PoolStrides {
    int64_t s[5] = {};
};

struct PoolingForwardProblem {
    PoolGeometry geo;
    TensorLayout x, y;
    PoolStrides xs, ys;
    double alpha = 1, beta = 0;
    std::string to_string() const;
};

struct PoolingBackwardProblem {
    PoolGeometry geo;
    TensorLayout y, dy, x, dx;
    PoolStrides dys, xs, dxs;  // y is never read
    double alpha = 1, beta = 0;
    std::string to_string() const;
};

// The set descriptor behind poolingDesc: BAD_PARAM when NULL or never set.
Status pooling_desc_arg(const anydnnPoolingStruct *desc, const anydnnPoolingStruct **out);

// Validates and stores nd spatial dimensions (Set2d / SetNd). BAD_PARAM as
// anydnnSetPoolingNdDescriptor documents; a failure changes nothing.
Status set_pooling(anydnnPoolingStruct *desc, anydnnPoolingMode_t mode, anydnnNanPropagation_t nan_opt, int nd,
                   const int *window, const int *pad, const int *stride);

// The dimensions of y (x.nd values) for input x. BAD_PARAM: x does not have
// the descriptor's spatial count + 2 dimensions, a window larger than its
// padded input.
Status pooling_forward_output_dims(const anydnnPoolingStruct &d, const TensorLayout &x, int64_t *dims);

// Check the tensors against the descriptor and each other and fill *p (all
// but alpha and beta). BAD_PARAM: dimensions or types that do not match.
// NOT_SUPPORTED: non-floating tensors, more than 3 spatial dimensions.
Status make_pooling_forward_problem(const anydnnPoolingStruct &d, const TensorLayout &x, const TensorLayout &y,
                                    PoolingForwardProblem *p);
Status make_pooling_backward_problem(const anydnnPoolingStruct &d, const TensorLayout &y, const TensorLayout &dy,
                                     const TensorLayout &x, const TensorLayout &dx, PoolingBackwardProblem *p);

}  // namespace anydnn::ops
