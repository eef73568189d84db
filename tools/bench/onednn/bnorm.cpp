// --bnorm and --lnorm in oneDNN: batch_normalization / layer_normalization
// with scale and shift on the user's layout. FWD_I reads the given mean and
// variance (use_global_stats); FWD_D writes its batch statistics into the
// mean and variance inputs (the same values the tool computed, which
// anydnn's FWD_D does not read); BWD_DW reads them, with a training forward
// descriptor as its hint.
#include "core/anydnn_util.hpp"
#include "drivers/bnorm.hpp"
#include "onednn/adaptor.hpp"
#include "onednn/common.hpp"

namespace anydnn_bench::onednn {

namespace {

using Dir = NormBenchProblem::Dir;
using I = NormBenchProblem::Input;

template <class Fwd, class Bwd>
std::unique_ptr<Case> make_case(const NormBenchProblem &p, const Inputs &in, const char *name) {
    const dnnl::memory::desc x = md(p.dims, p.layer ? Tag::nchw : p.tag, p.dt);
    const dnnl::memory::data_type pdt = data_type(compute_type(p.dt));
    const dnnl::memory::desc ch({p.channels()}, pdt, dnnl::memory::format_tag::a);
    const float eps = static_cast<float>(p.epsilon);
    auto flags = dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
    if (p.dir == Dir::fwd_i) flags = flags | dnnl::normalization_flags::use_global_stats;
    const dnnl::prop_kind prop =
        p.dir == Dir::fwd_i ? dnnl::prop_kind::forward_inference : dnnl::prop_kind::forward_training;
    auto fwd = make_pd(name, [&] { return typename Fwd::primitive_desc(engine(), prop, x, x, eps, flags); });
    std::vector<Buffer> out;
    out.emplace_back(p.dt, elements(p.dims));
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, memory(x, in[I::kX])},
                                               {DNNL_ARG_SCALE, memory(ch, in[I::kScale])},
                                               {DNNL_ARG_MEAN, memory(fwd.mean_desc(), in[I::kMean])},
                                               {DNNL_ARG_VARIANCE, memory(fwd.variance_desc(), in[I::kVar])}};
    // The shift is an input of the forward passes and, for oneDNN's layer
    // normalization only, of the backward one too.
    if (p.dir != Dir::bwd_dw || p.layer) args.emplace(DNNL_ARG_SHIFT, memory(ch, in[I::kShift]));
    if (p.dir != Dir::bwd_dw) {
        args.emplace(DNNL_ARG_DST, memory(x, out[0]));
        return std::make_unique<PrimitiveCase>(Fwd(fwd), std::move(args), std::move(out));
    }
    auto bwd = make_pd(name, [&] {
        return typename Bwd::primitive_desc(engine(), dnnl::prop_kind::backward, x, x, x, eps, flags, fwd);
    });
    out.emplace_back(compute_type(p.dt), p.channels());
    out.emplace_back(compute_type(p.dt), p.channels());
    args.emplace(DNNL_ARG_DIFF_DST, memory(x, in[I::kDy]));
    args.emplace(DNNL_ARG_DIFF_SRC, memory(x, out[0]));
    args.emplace(DNNL_ARG_DIFF_SCALE, memory(ch, out[1]));
    args.emplace(DNNL_ARG_DIFF_SHIFT, memory(ch, out[2]));
    return std::make_unique<PrimitiveCase>(Bwd(bwd), std::move(args), std::move(out));
}

}  // namespace

std::unique_ptr<Case> norm_case(const NormBenchProblem &p, const Inputs &in) {
    if (p.layer)
        return make_case<dnnl::layer_normalization_forward, dnnl::layer_normalization_backward>(
            p, in, "layer_normalization");
    return make_case<dnnl::batch_normalization_forward, dnnl::batch_normalization_backward>(p, in,
                                                                                           "batch_normalization");
}

}  // namespace anydnn_bench::onednn
