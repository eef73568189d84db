// --conv: anydnnConvolutionForward, as benchdnn's conv driver:
// --dir=FWD_D|FWD_B (bias) --fused (bias and ReLU, through
// anydnnConvolutionBiasActivationForward) --dt --tag=nchw|nhwc (the filter
// KCRS or KRSC) --alg=auto|implicit|precomp|direct --mb=N; problem: a
// benchdnn descriptor, e.g. mb1ic64ih56oc64oh56kh3ph1n"res2_branch2b"
// (core/conv_shape.hpp).
#pragma once

#include <memory>

#include "core/conv_shape.hpp"
#include "core/driver.hpp"
#include "core/types.hpp"

namespace anydnn_bench {

struct ConvProblem final : Problem {
    enum Input { kSrc, kWei, kBias };
    enum class Dir { fwd_d, fwd_b };
    enum class Alg { automatic, implicit, precomp, direct };

    Dir dir = Dir::fwd_d;
    bool fused = false;  // bias + ReLU, whatever --dir
    anydnnDataType_t dt = ANYDNN_DATA_FLOAT;
    Tag tag = Tag::nchw;
    Alg alg = Alg::automatic;
    ConvShape shape;

    bool has_bias() const { return dir == Dir::fwd_b || fused; }
    // The tensors as anydnn sees them: N x C x (D x) H x W (a 1-D problem
    // has H = 1), the filter K x C/g x (T x) R x S, the bias 1 x K x 1 x 1 (x 1).
    Dims src_dims() const;
    Dims wei_dims() const;
    Dims dst_dims() const;
    Dims bias_dims() const;
    int spatial_rank() const { return shape.ndims == 3 ? 3 : 2; }

    const char *driver() const override { return "conv"; }
    std::string repro() const override;
    double bytes() const override;
    double flops() const override { return shape.flops(); }
    int occurrences() const override { return occurrences_in_name(shape.name); }
    double tolerance() const override;
    Inputs make_inputs(anydnnHandle_t h, uint64_t seed) const override;
    std::unique_ptr<Case> anydnn_case(anydnnHandle_t h, const Inputs &in) const override;
    std::unique_ptr<Case> onednn_case(const Inputs &in) const override;
    std::unique_ptr<Case> onednn_reorder_case(const Inputs &in) const override;
};

std::unique_ptr<Driver> make_conv_driver();
extern const char kConvUsage[];

}  // namespace anydnn_bench
