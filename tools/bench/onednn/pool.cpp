// --pool in oneDNN: pooling_forward (inference) with the problem's window,
// strides and padding on the user's layout, and pooling_backward, whose
// workspace (MAX) comes from a forward_training run made once when the case
// is prepared.
#include "drivers/pool.hpp"
#include "onednn/adaptor.hpp"
#include "onednn/common.hpp"

namespace anydnn_bench::onednn {

std::unique_ptr<Case> pool_case(const PoolProblem &p, const Inputs &in) {
    const dnnl::algorithm alg = p.alg == ANYDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                                    ? dnnl::algorithm::pooling_avg_include_padding
                                : p.alg == ANYDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING
                                    ? dnnl::algorithm::pooling_avg_exclude_padding
                                    : dnnl::algorithm::pooling_max;
    dnnl::memory::dims kernel, strides, pad, dilation;
    for (int a = 3 - p.spatial_rank(); a < 3; ++a) {
        kernel.push_back(p.shape.k[a]);
        strides.push_back(p.shape.s[a]);
        pad.push_back(p.shape.p[a]);
        dilation.push_back(0);
    }
    const dnnl::memory::desc src = md(p.src_dims(), p.tag, p.dt), dst = md(p.dst_dims(), p.tag, p.dt);
    const auto forward_pd = [&](dnnl::prop_kind prop) {
        return make_pd("pooling_forward", [&] {
            return dnnl::pooling_forward::primitive_desc(engine(), prop, alg, src, dst, strides, kernel, dilation,
                                                         pad, pad);
        });
    };
    if (!p.backward) {
        auto pd = forward_pd(dnnl::prop_kind::forward_inference);
        return src_to_dst_case(dnnl::pooling_forward(pd), src, in[PoolProblem::kSrc], dst, p.dt,
                               elements(p.dst_dims()));
    }
    auto hint = forward_pd(dnnl::prop_kind::forward_training);
    auto pd = make_pd("pooling_backward", [&] {
        return dnnl::pooling_backward::primitive_desc(engine(), alg, src, dst, strides, kernel, dilation, pad, pad,
                                                      hint);
    });
    std::vector<Buffer> out;
    out.emplace_back(p.dt, elements(p.src_dims()));
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_DIFF_DST, memory(dst, in[PoolProblem::kDiffDst])},
                                               {DNNL_ARG_DIFF_SRC, memory(src, out[0])}};
    bind_forward_workspace<dnnl::pooling_forward>(hint, memory(src, in[PoolProblem::kSrc]), args);
    return std::make_unique<PrimitiveCase>(dnnl::pooling_backward(pd), std::move(args), std::move(out));
}

}  // namespace anydnn_bench::onednn
