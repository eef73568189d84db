// --binary in oneDNN: the binary primitive, src1 broadcast; addtensor is
// binary_add in place (dst = src0 = C).
#include "drivers/binary.hpp"
#include "onednn/adaptor.hpp"
#include "onednn/common.hpp"

namespace anydnn_bench::onednn {

std::unique_ptr<Case> binary_case(const BinaryProblem &p, const Inputs &in) {
    using a = dnnl::algorithm;
    const a alg = p.alg == BinaryAlg::mul   ? a::binary_mul
                  : p.alg == BinaryAlg::min ? a::binary_min
                  : p.alg == BinaryAlg::max ? a::binary_max
                                            : a::binary_add;
    const dnnl::memory::desc d0 = md(at_least_4d(p.src0), p.tag, p.dt), d1 = md(at_least_4d(p.src1), p.tag, p.dt);
    auto pd = make_pd("binary", [&] { return dnnl::binary::primitive_desc(engine(), alg, d0, d1, d0); });
    std::vector<Buffer> out;
    out.emplace_back(p.dt, elements(p.src0));
    const bool in_place = p.alg == BinaryAlg::addtensor;
    const dnnl::memory dst = memory(d0, out[0]);
    std::unordered_map<int, dnnl::memory> args{
        {DNNL_ARG_SRC_0, in_place ? dst : memory(d0, in[BinaryProblem::kSrc0])},
        {DNNL_ARG_SRC_1, memory(d1, in[BinaryProblem::kSrc1])},
        {DNNL_ARG_DST, dst}};
    auto c = std::make_unique<PrimitiveCase>(dnnl::binary(pd), std::move(args), std::move(out));
    if (in_place) c->start_from(0, in[BinaryProblem::kSrc0]);
    return c;
}

}  // namespace anydnn_bench::onednn
