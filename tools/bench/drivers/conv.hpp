// --conv: convolution as benchdnn's conv driver, one direction per problem:
//   --dir=FWD_D (FWD_I, fwd)  anydnnConvolutionForward: src, wei -> dst
//   --dir=FWD_B               the same with bias (anydnnConvolutionBiasActivationForward)
//   --dir=BWD_D (bwd_d)       anydnnConvolutionBackwardData: wei, diff_dst -> diff_src
//   --dir=BWD_W (bwd_w)       anydnnConvolutionBackwardFilter: src, diff_dst -> diff_wei
//   --dir=BWD_B (bwd_b)       anydnnConvolutionBackwardBias: diff_dst -> diff_bias
// --fused (forward only: bias and ReLU in one call) --dt --tag=nchw|nhwc
// (the filter KCRS or KRSC) --alg=auto|implicit|precomp|direct|winograd (forward) or
// auto|algo0|algo1 (BWD_D, BWD_W: BWD_DATA/BWD_FILTER_ALGO_0/1; BWD_D also
// winograd, WINOGRAD_NONFUSED; BWD_B takes auto only) --mb=N; problem: a benchdnn descriptor, e.g.
// mb1ic64ih56oc64oh56kh3ph1n"res2_branch2b" (core/conv_shape.hpp).
#pragma once

#include <memory>
#include <vector>

#include "core/conv_shape.hpp"
#include "core/driver.hpp"
#include "core/types.hpp"

namespace anydnn_bench {

struct ConvProblem final : Problem {
    // The tensors of a convolution. A backward direction reads diff_dst (the
    // gradient of dst, with dst's dims) and writes the gradient of src, wei
    // or bias, with that tensor's dims and layout.
    enum class Tensor { src, wei, bias, dst };
    enum class Dir { fwd_d, fwd_b, bwd_d, bwd_w, bwd_b };
    enum class Alg { automatic, implicit, precomp, direct, winograd, algo0, algo1 };

    Dir dir = Dir::fwd_d;
    bool fused = false;  // bias + ReLU, forward only
    anydnnDataType_t dt = ANYDNN_DATA_FLOAT;
    Tag tag = Tag::nchw;
    Alg alg = Alg::automatic;
    ConvShape shape;

    bool backward() const { return dir == Dir::bwd_d || dir == Dir::bwd_w || dir == Dir::bwd_b; }
    bool has_bias() const { return dir == Dir::fwd_b || fused; }
    // What the direction reads, in the order of make_inputs' buffers:
    // forward src, wei (, bias); BWD_D wei, dst; BWD_W src, dst; BWD_B dst
    // (dst standing for diff_dst).
    std::vector<Tensor> inputs() const;
    // What it writes: dst forward; src, wei, bias (their gradients) backward.
    Tensor output() const;
    // The buffer of `t` among make_inputs' `in`; `t` must be one of inputs().
    const Buffer &input(const Inputs &in, Tensor t) const;

    // The tensors as anydnn sees them: N x C x (D x) H x W (a 1-D problem
    // has H = 1), the filter K x C/g x (T x) R x S, the bias 1 x K x 1 x 1 (x 1).
    Dims dims(Tensor t) const;
    Dims src_dims() const { return dims(Tensor::src); }
    Dims wei_dims() const { return dims(Tensor::wei); }
    Dims dst_dims() const { return dims(Tensor::dst); }
    Dims bias_dims() const { return dims(Tensor::bias); }
    int spatial_rank() const { return shape.spatial_rank(); }

    const char *driver() const override { return "conv"; }
    std::string repro() const override;
    double bytes() const override;
    // Backward data and weights do the forward's multiply-adds; the bias
    // gradient is a memory-bound sum (GB/s only).
    double flops() const override { return dir == Dir::bwd_b ? 0 : shape.flops(); }
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
