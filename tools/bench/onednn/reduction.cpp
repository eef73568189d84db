// --reduction in oneDNN: the reduction primitive (no amax: oneDNN has none).
#include "drivers/reduction.hpp"
#include "onednn/adaptor.hpp"
#include "onednn/common.hpp"

namespace anydnn_bench::onednn {
namespace {

struct Alg {
    dnnl::algorithm alg;
    float p;
};

Alg to_onednn(anydnnReduceTensorOp_t op) {
    using a = dnnl::algorithm;
    switch (op) {
    case ANYDNN_REDUCE_TENSOR_ADD: return {a::reduction_sum, 0};
    case ANYDNN_REDUCE_TENSOR_MUL: return {a::reduction_mul, 0};
    case ANYDNN_REDUCE_TENSOR_MIN: return {a::reduction_min, 0};
    case ANYDNN_REDUCE_TENSOR_MAX: return {a::reduction_max, 0};
    case ANYDNN_REDUCE_TENSOR_AVG: return {a::reduction_mean, 0};
    case ANYDNN_REDUCE_TENSOR_NORM1: return {a::reduction_norm_lp_sum, 1};
    case ANYDNN_REDUCE_TENSOR_NORM2: return {a::reduction_norm_lp_sum, 2};
    default: throw Unsupported("oneDNN reduction: no equivalent of this op (amax)");
    }
}

}  // namespace

std::unique_ptr<Case> reduction_case(const ReductionProblem &p, const Inputs &in) {
    const Alg a = to_onednn(p.alg);
    const dnnl::memory::desc src = md(at_least_4d(p.src), p.tag, p.dt), dst = md(at_least_4d(p.dst), p.tag, p.dt);
    auto pd = make_pd("reduction", [&] { return dnnl::reduction::primitive_desc(engine(), a.alg, src, dst, a.p, 0); });
    return src_to_dst_case(dnnl::reduction(pd), src, in[ReductionProblem::kSrc], dst, p.dt, elements(p.dst));
}

}  // namespace anydnn_bench::onednn
