// --eltwise: anydnnActivationForward / anydnnActivationBackward, as
// benchdnn's eltwise driver: --dir=fwd|bwd --alg=relu|tanh|... --alpha=A
// --dt=f32|f64|f16|bf16 --tag=nchw|nhwc, problem NxCxHxW (any rank).
#pragma once

#include <memory>

#include "core/driver.hpp"
#include "core/types.hpp"

namespace anydnn_bench {

enum class EltwiseAlg {
    relu, tanh, sigmoid, gelu, gelu_tanh, elu, swish, clip, leaky_relu, identity, hardswish, mish, softplus
};

struct EltwiseProblem : Problem {
    enum Input { kX, kY, kDy };  // y = f(x) and dy exist for the backward pass only

    bool backward = false;
    EltwiseAlg alg = EltwiseAlg::relu;
    double alpha = 0;  // the algorithm's parameter: clip's threshold, elu's alpha, the slope, swish's beta
    anydnnDataType_t dt = ANYDNN_DATA_FLOAT;
    Tag tag = Tag::nchw;
    Dims dims;

    const char *driver() const override { return "eltwise"; }
    std::string repro() const override;
    double bytes() const override;
    double tolerance() const override;
    Inputs make_inputs(anydnnHandle_t h, uint64_t seed) const override;
    // anydnn_case, onednn_case: its driver's WithCases (core/problem_driver.hpp).
};

std::unique_ptr<Driver> make_eltwise_driver();
extern const char kEltwiseUsage[];

}  // namespace anydnn_bench
