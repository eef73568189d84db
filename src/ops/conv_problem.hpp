// The forward convolution problem, validated once for every backend:
//   plain: y = alpha * conv(x, w) + beta * y
//   fused: y = act(alpha * conv(x, w) + alpha2 * z + bias)
// with the geometry normalized to three spatial dimensions (d, h, w; a 2-D
// problem has d = 1, a 1-D one also h = 1), so that kernels have one shape.
#pragma once

#include <cstdint>
#include <string>

#include "anydnn/anydnn_cnn.h"
#include "core/tensor_desc.hpp"
#include "ops/activation_problem.hpp"
#include "ops/conv_desc.hpp"

namespace anydnn::ops {

struct ConvGeometry {
    anydnnDataType_t dt = ANYDNN_DATA_FLOAT;       // storage of x, w, y (and z, bias)
    anydnnDataType_t compute = ANYDNN_DATA_FLOAT;  // FLOAT, or DOUBLE for DOUBLE tensors
    int spatial = 2;                               // as the user gave it: 1, 2 or 3
    int64_t n = 1, groups = 1, icg = 1, ocg = 1;   // channels per group
    // Index 0 = d, 1 = h, 2 = w. dil is the real dilation (1 = none).
    int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, k[3] = {1, 1, 1};
    int64_t stride[3] = {1, 1, 1}, pad[3] = {}, dil[3] = {1, 1, 1};
    bool flip = false;  // CONVOLUTION mode: tap k of the sum uses filter element K-1-k
    // Element strides, index 0 = n (k for w), 1 = c, 2 = d, 3 = h, 4 = w;
    // a spatial dimension the user did not have has stride 0.
    int64_t xs[5] = {}, ws[5] = {}, ys[5] = {};

    int64_t taps() const { return k[0] * k[1] * k[2]; }
    int64_t in_pixels() const { return in[0] * in[1] * in[2]; }
    int64_t out_pixels() const { return out[0] * out[1] * out[2]; }
    // The element offset in w of the filter tap that multiplies input tap
    // (kd, kh, kw): flipped in CONVOLUTION mode.
    int64_t filter_offset(int64_t kd, int64_t kh, int64_t kw) const {
        if (flip) {
            kd = k[0] - 1 - kd;
            kh = k[1] - 1 - kh;
            kw = k[2] - 1 - kw;
        }
        return kd * ws[2] + kh * ws[3] + kw * ws[4];
    }
    // Whether input tap t (kd, kh, kw in x order) lies at filter offset
    // t * step for every t: the taps side by side in x order, a packed
    // filter's (step 1 in KCRS, C in KRSC) without CONVOLUTION's flip.
    bool taps_at(int64_t step) const {
        int64_t t = 0;
        for (int64_t kd = 0; kd < k[0]; ++kd)
            for (int64_t kh = 0; kh < k[1]; ++kh)
                for (int64_t kw = 0; kw < k[2]; ++kw, ++t)
                    if (filter_offset(kd, kh, kw) != t * step) return false;
        return true;
    }
    // 2 * n * K * out pixels * C/groups * taps.
    double flops() const;
    std::string to_string() const;
};

struct ConvForwardProblem {
    ConvGeometry geo;
    double alpha = 1, beta = 0;
    // The fused call only.
    bool fused = false;
    double alpha2 = 0;
    bool has_z = false;  // alpha2 != 0
    int64_t zs[5] = {};  // z's strides as geo.ys
    bool z_is_y = false; // z is y's buffer with y's layout
    Activation act{ANYDNN_ACTIVATION_IDENTITY, false, 0, 1};
    int64_t bias_stride = 0;  // stride of the K bias values
    std::string to_string() const;
};

// The backward problems, with the forward's geometry (x/dx as x, w/dw as w,
// dy as y): dx = alpha * conv^T(dy, w) + beta * dx, or
// dw = alpha * sum over images of dy (x) x + beta * dw.
struct ConvBackwardProblem {
    ConvGeometry geo;
    double alpha = 1, beta = 0;
    std::string to_string(const char *direction) const;
};

// The set descriptor behind convDesc: BAD_PARAM when NULL or never set.
Status conv_desc_arg(const anydnnConvolutionStruct *desc, const anydnnConvolutionStruct **out);

// The output dimensions (nd = x.nd values) of x convolved with w under d.
// BAD_PARAM: ranks, channels or groups disagree, or an output would be < 1.
Status conv_forward_output_dims(const anydnnConvolutionStruct &d, const TensorLayout &x, const TensorLayout &w,
                                int64_t *dims);

// x, w and y against each other and the descriptor; fills p->geo.
// BAD_PARAM: shapes or types disagree. NOT_SUPPORTED: more than 3 spatial
// dimensions, or a type/compute type pair the CPU backend lacks.
Status make_conv_forward_problem(const anydnnConvolutionStruct &d, const TensorLayout &x, const TensorLayout &w,
                                 const TensorLayout &y, ConvForwardProblem *p);

// As make_conv_forward_problem, for the backward calls.
Status make_conv_backward_problem(const anydnnConvolutionStruct &d, const TensorLayout &x, const TensorLayout &w,
                                  const TensorLayout &y, ConvBackwardProblem *p);

// The fused call's extra operands: z (y's dims and type) and bias
// (1 x K x 1 ...). Fills the fusion fields of *p.
Status add_conv_fusion(const TensorLayout &z, const void *z_ptr, const TensorLayout &bias, const Activation &act,
                       double alpha2, const TensorLayout &y, const void *y_ptr, ConvForwardProblem *p);

// BAD_PARAM when the memory of out overlaps in's (a convolution reads
// neighbours of every output element, so even exact aliasing is wrong).
Status check_no_overlap(const void *out, const TensorLayout &out_l, const char *out_arg, const void *in,
                        const TensorLayout &in_l, const char *in_arg);

}  // namespace anydnn::ops
