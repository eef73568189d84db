// --transform in oneDNN: a reorder between the two layouts and types.
#include "drivers/transform.hpp"
#include "onednn/adaptor.hpp"
#include "onednn/common.hpp"

namespace anydnn_bench::onednn {

std::unique_ptr<Case> transform_case(const TransformProblem &p, const Inputs &in) {
    const Dims dims = at_least_4d(p.dims);
    const dnnl::memory::desc src = md(dims, p.stag, p.sdt), dst = md(dims, p.dtag, p.ddt);
    auto pd = make_pd("reorder", [&] { return dnnl::reorder::primitive_desc(engine(), src, engine(), dst); });
    return src_to_dst_case(dnnl::reorder(pd), src, in[TransformProblem::kX], dst, p.ddt, elements(p.dims));
}

}  // namespace anydnn_bench::onednn
