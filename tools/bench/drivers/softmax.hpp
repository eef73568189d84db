// --softmax: anydnnSoftmaxForward, as benchdnn's softmax driver:
// --alg=accurate|fast|log --axis=A --dt --tag, problem e.g. 64x1000 with
// --axis=1. The axis becomes cuDNN's CHANNEL mode on the tensor
// (outer, axis, inner, 1), the view frameworks give cuDNN; with
// --tag=nhwc the axis must be 1 (the channels).
#pragma once

#include <memory>

#include "core/driver.hpp"
#include "core/types.hpp"

namespace anydnn_bench {

struct SoftmaxProblem : Problem {
    enum Input { kX };

    anydnnSoftmaxAlgorithm_t alg = ANYDNN_SOFTMAX_ACCURATE;
    int axis = 1;
    anydnnDataType_t dt = ANYDNN_DATA_FLOAT;
    Tag tag = Tag::nchw;
    Dims dims;

    // The 4-D tensor anydnn is called with.
    Dims anydnn_dims() const;

    const char *driver() const override { return "softmax"; }
    std::string repro() const override;
    double bytes() const override;
    double tolerance() const override;
    Inputs make_inputs(anydnnHandle_t h, uint64_t seed) const override;
    // anydnn_case, onednn_case: its driver's WithCases (core/problem_driver.hpp).
};

std::unique_ptr<Driver> make_softmax_driver();
extern const char kSoftmaxUsage[];

}  // namespace anydnn_bench
