// The CPU backend of the normalizations: lays out the statistics and
// parameter groups, runs the passes of the normalization kernel family and
// reads and writes the small tensors (scale, bias, means, variances).
#pragma once

#include "core/handle.hpp"
#include "ops/normalization_problem.hpp"

namespace anydnn::cpu {

// The user's buffers of one call; NULL for the ones it does not have.
struct NormBuffers {
    const void *x = nullptr;
    void *y = nullptr;          // forward output
    const void *z = nullptr;    // forward add
    const void *dy = nullptr;
    void *dx = nullptr, *dz = nullptr;
    const void *scale = nullptr, *bias = nullptr;
    const void *est_mean = nullptr, *est_var = nullptr;    // inference
    void *running_mean = nullptr, *running_var = nullptr;  // training
    void *save_mean = nullptr, *save_inv = nullptr;        // training
    const void *saved_mean = nullptr, *saved_inv = nullptr;  // backward
    void *dscale = nullptr, *dbias = nullptr;
    unsigned char *reserve = nullptr;  // the activation mask (training and backward with RELU)
};

// The scratch they allocate (std::bad_alloc when they cannot, which
// api_call turns into ALLOC_FAILED) is a few arrays of the statistics and
// parameter groups, times at most 64 chunks for the reductions.
void execute_norm_inference(const Handle &h, const ops::NormProblem &p, const NormBuffers &b);
void execute_norm_training(const Handle &h, const ops::NormProblem &p, const NormBuffers &b);
void execute_norm_backward(const Handle &h, const ops::NormProblem &p, const NormBuffers &b);

}  // namespace anydnn::cpu
