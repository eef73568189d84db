// --pool in oneDNN: pooling_forward (inference) with the problem's window,
// strides and padding on the user's layout.
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
    auto pd = make_pd("pooling_forward", [&] {
        return dnnl::pooling_forward::primitive_desc(engine(), dnnl::prop_kind::forward_inference, alg, src, dst,
                                                     strides, kernel, dilation, pad, pad);
    });
    return src_to_dst_case(dnnl::pooling_forward(pd), src, in[PoolProblem::kSrc], dst, p.dt, elements(p.dst_dims()));
}

}  // namespace anydnn_bench::onednn
