// --transform in oneDNN: a reorder between the two layouts and types.
#include "drivers/transform.hpp"
#include "onednn/adaptor.hpp"
#include "onednn/common.hpp"

namespace anydnn_bench::onednn {

std::unique_ptr<Case> transform_case(const TransformProblem &p, const Inputs &in) {
    const Dims dims = at_least_4d(p.dims);
    const dnnl::memory::desc src = md(dims, p.stag, p.sdt), dst = md(dims, p.dtag, p.ddt);
    auto pd = make_pd("reorder", [&] { return dnnl::reorder::primitive_desc(engine(), src, engine(), dst); });
    std::vector<Buffer> out;
    out.emplace_back(p.ddt, elements(p.dims));
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_FROM, memory(src, in[TransformProblem::kX])},
                                               {DNNL_ARG_TO, memory(dst, out[0])}};
    return std::make_unique<PrimitiveCase>(dnnl::reorder(pd), std::move(args), std::move(out));
}

}  // namespace anydnn_bench::onednn
