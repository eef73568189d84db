// --softmax in oneDNN: softmax_forward over the problem's axis (anydnn's
// "fast" softmax, without the max subtraction, has the same result as
// oneDNN's accurate one).
#include "drivers/softmax.hpp"
#include "onednn/adaptor.hpp"
#include "onednn/common.hpp"

namespace anydnn_bench::onednn {

std::unique_ptr<Case> softmax_case(const SoftmaxProblem &p, const Inputs &in) {
    const dnnl::algorithm alg =
        p.alg == ANYDNN_SOFTMAX_LOG ? dnnl::algorithm::softmax_log : dnnl::algorithm::softmax_accurate;
    const dnnl::memory::desc d = md(p.dims, p.tag, p.dt);
    auto pd = make_pd("softmax_forward", [&] {
        return dnnl::softmax_forward::primitive_desc(engine(), dnnl::prop_kind::forward_inference, alg, d, d, p.axis);
    });
    return src_to_dst_case(dnnl::softmax_forward(pd), d, in[SoftmaxProblem::kX], d, p.dt, elements(p.dims));
}

}  // namespace anydnn_bench::onednn
