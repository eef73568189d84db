// --lrn in oneDNN: lrn_forward (inference) across channels, and
// lrn_backward, whose workspace (where oneDNN has one) comes from a
// forward_training run made once when the case is prepared.
#include "drivers/lrn.hpp"
#include "onednn/adaptor.hpp"
#include "onednn/common.hpp"

namespace anydnn_bench::onednn {

std::unique_ptr<Case> lrn_case(const LrnProblem &p, const Inputs &in) {
    const dnnl::memory::desc d = md(p.dims(), p.tag, p.dt);
    const auto alg = dnnl::algorithm::lrn_across_channels;
    const float alpha = float(p.alpha), beta = float(p.beta), k = float(p.k);
    if (!p.backward) {
        auto pd = make_pd("lrn_forward", [&] {
            return dnnl::lrn_forward::primitive_desc(engine(), dnnl::prop_kind::forward_inference, alg, d, d, p.ls,
                                                     alpha, beta, k);
        });
        return src_to_dst_case(dnnl::lrn_forward(pd), d, in[LrnProblem::kX], d, p.dt, elements(p.dims()));
    }
    auto hint = make_pd("lrn_forward", [&] {
        return dnnl::lrn_forward::primitive_desc(engine(), dnnl::prop_kind::forward_training, alg, d, d, p.ls, alpha,
                                                 beta, k);
    });
    auto pd = make_pd("lrn_backward", [&] {
        return dnnl::lrn_backward::primitive_desc(engine(), alg, d, d, d, p.ls, alpha, beta, k, hint);
    });
    std::vector<Buffer> out;
    out.emplace_back(p.dt, elements(p.dims()));
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, memory(d, in[LrnProblem::kX])},
                                               {DNNL_ARG_DIFF_DST, memory(d, in[LrnProblem::kDy])},
                                               {DNNL_ARG_DIFF_SRC, memory(d, out[0])}};
    bind_forward_workspace<dnnl::lrn_forward>(hint, args.at(DNNL_ARG_SRC), args);
    return std::make_unique<PrimitiveCase>(dnnl::lrn_backward(pd), std::move(args), std::move(out));
}

}  // namespace anydnn_bench::onednn
