// The LRN cross-channel and divisive normalization problems, validated once
// for every backend:
//   LRN forward:   y  = alpha * x * s^-lrnBeta + beta * y,
//                  s_c = lrnK + lrnAlpha / lrnN * sum_{c' in window(c)} x_c'^2
//   LRN backward:  dx = alpha * dLRN(x, y, dy) + beta * dx
//   divisive normalization: the same with u = x - means and the window over
//   the spatial dimensions (anydnn_ops.h).
// The window of lrnN positions around i is [i - before, i + after], before =
// floor((lrnN - 1) / 2), after = lrnN - 1 - before (cuDNN's rule).
#pragma once

#include <cstdint>
#include <string>

#include "anydnn/anydnn_ops.h"
#include "core/tensor_desc.hpp"
#include "ops/lrn_desc.hpp"

namespace anydnn::ops {

struct LrnParams {
    int n = 5;           // window width
    int before = 2;      // window positions before the centre
    int after = 2;       // and after it
    double alpha_n = 0;  // lrnAlpha / lrnN (LRN) or / lrnN^spatial (divisive normalization)
    double beta = 0.75, k = 2;
    std::string to_string() const;
};

// The pixels of a tensor set: dimensions other than N and C, merged where
// they are contiguous in every operand (LRN: the window runs over C, so any
// pixel order works) or kept as d, h, w (divisive normalization).
constexpr int kLrnMaxOperands = 4;
struct LrnGrid {
    anydnnDataType_t dt = ANYDNN_DATA_FLOAT;
    int64_t n = 1, c = 1;
    int nd = 1;                   // pixel dimensions, outermost first; the last is the lane dimension
    int64_t dims[kMaxDims] = {1};  // pixel dimension extents
    int nops = 0;
    // Per operand: stride of N, of C, and of each pixel dimension.
    int64_t sn[kLrnMaxOperands] = {}, sc[kLrnMaxOperands] = {};
    int64_t s[kLrnMaxOperands][kMaxDims] = {};
    int64_t pixels() const;
    std::string to_string() const;
};

// Operands: 0 = x, 1 = y.
struct LrnForwardProblem {
    LrnParams lrn;
    LrnGrid grid;
    TensorLayout x, y;
    double alpha = 1, beta = 0;
    std::string to_string() const;
};

// Operands: 0 = x, 1 = y, 2 = dy, 3 = dx.
struct LrnBackwardProblem {
    LrnParams lrn;
    LrnGrid grid;
    TensorLayout y, dy, x, dx;
    double alpha = 1, beta = 0;
    std::string to_string() const;
};

// Divisive normalization: grid with nd = 3 pixel dimensions d, h, w (d = 1
// for 4-D tensors, stride 0). Operands: 0 = x, 1 = means, 2 = dy (all three
// xDesc's layout), 3 = the output: y, or dx and dMeans (dXdMeansDesc's).
struct DivNormProblem {
    LrnParams lrn;
    LrnGrid grid;
    TensorLayout x, y;  // y: the forward's output, or dx for the backward pass
    bool has_means = false, has_dmeans = false;
    double alpha = 1, beta = 0;
    std::string to_string() const;
};

// BAD_PARAM when desc is NULL.
Status lrn_desc_arg(const anydnnLRNStruct *desc, const anydnnLRNStruct **out);
// Validates and stores the parameters; a failure changes nothing.
Status set_lrn(anydnnLRNStruct *desc, unsigned n, double alpha, double beta, double k);

// Check the tensors and fill *p (all but alpha and beta). BAD_PARAM:
// dimensions or types that differ, fewer than 3 dimensions, non-positive
// strides; NOT_SUPPORTED: integer tensors.
Status make_lrn_forward_problem(const anydnnLRNStruct &d, const TensorLayout &x, const TensorLayout &y,
                                LrnForwardProblem *p);
Status make_lrn_backward_problem(const anydnnLRNStruct &d, const TensorLayout &y, const TensorLayout &dy,
                                 const TensorLayout &x, const TensorLayout &dx, LrnBackwardProblem *p);
// x describes x, means (and dy for the backward pass); y describes y (or dx
// and dMeans). BAD_PARAM as LRN, and unless 4 or 5 dimensions.
Status make_divnorm_problem(const anydnnLRNStruct &d, const TensorLayout &x, const TensorLayout &y,
                            DivNormProblem *p);

}  // namespace anydnn::ops
