// --eltwise in oneDNN: eltwise_forward (inference) and eltwise_backward
// (from src, so every algorithm has a backward pass).
#include "drivers/eltwise.hpp"
#include "onednn/adaptor.hpp"
#include "onednn/common.hpp"

namespace anydnn_bench::onednn {
namespace {

struct Alg {
    dnnl::algorithm alg;
    float alpha, beta;
};

// cuDNN's modes as oneDNN's algorithms and parameters.
Alg to_onednn(const EltwiseProblem &p) {
    using a = dnnl::algorithm;
    const float c = static_cast<float>(p.alpha);
    switch (p.alg) {
    case EltwiseAlg::relu: return {a::eltwise_relu, 0, 0};
    case EltwiseAlg::tanh: return {a::eltwise_tanh, 0, 0};
    case EltwiseAlg::sigmoid: return {a::eltwise_logistic, 0, 0};
    case EltwiseAlg::gelu: return {a::eltwise_gelu_erf, 0, 0};
    case EltwiseAlg::gelu_tanh: return {a::eltwise_gelu_tanh, 0, 0};
    case EltwiseAlg::elu: return {a::eltwise_elu, c, 0};
    case EltwiseAlg::swish: return {a::eltwise_swish, c, 0};
    case EltwiseAlg::clip: return {a::eltwise_clip, 0, c};
    case EltwiseAlg::leaky_relu: return {a::eltwise_relu, c, 0};
    case EltwiseAlg::identity: return {a::eltwise_linear, 1, 0};
    case EltwiseAlg::hardswish: return {a::eltwise_hardswish, 1.0f / 6, 0.5f};
    case EltwiseAlg::mish: return {a::eltwise_mish, 0, 0};
    case EltwiseAlg::softplus: return {a::eltwise_soft_relu, 1, 0};
    }
    throw Unsupported("oneDNN eltwise: algorithm not mapped");
}

}  // namespace

std::unique_ptr<Case> eltwise_case(const EltwiseProblem &p, const Inputs &in) {
    const Alg a = to_onednn(p);
    const dnnl::memory::desc d = md(at_least_4d(p.dims), p.tag, p.dt);
    if (!p.backward) {
        auto pd = make_pd("eltwise_forward", [&] {
            return dnnl::eltwise_forward::primitive_desc(engine(), dnnl::prop_kind::forward_inference, a.alg, d, d,
                                                         a.alpha, a.beta);
        });
        return src_to_dst_case(dnnl::eltwise_forward(pd), d, in[EltwiseProblem::kX], d, p.dt, elements(p.dims));
    }
    auto hint = make_pd("eltwise_forward", [&] {
        return dnnl::eltwise_forward::primitive_desc(engine(), dnnl::prop_kind::forward_training, a.alg, d, d,
                                                     a.alpha, a.beta);
    });
    auto pd = make_pd("eltwise_backward", [&] {
        return dnnl::eltwise_backward::primitive_desc(engine(), a.alg, d, d, d, a.alpha, a.beta, hint);
    });
    std::vector<Buffer> out;
    out.emplace_back(p.dt, elements(p.dims));
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, memory(d, in[EltwiseProblem::kX])},
                                               {DNNL_ARG_DIFF_DST, memory(d, in[EltwiseProblem::kDy])},
                                               {DNNL_ARG_DIFF_SRC, memory(d, out[0])}};
    return std::make_unique<PrimitiveCase>(dnnl::eltwise_backward(pd), std::move(args), std::move(out));
}

}  // namespace anydnn_bench::onednn
