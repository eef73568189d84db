// --conv in oneDNN: convolution_forward (algorithm::convolution_direct) on
// the layouts oneDNN picks for itself (format_tag::any for src, weights and
// dst). The user's nchw/nhwc src and KCRS/KRSC weights are reordered into
// them once, when the case is made; run() times the convolution alone, and
// outputs() reorders dst back to the user's layout for corr mode. With
// timed_reorders, run() also includes the src reorder before and the dst
// reorder after (the cost of oneDNN from plain tensors).
#include "drivers/conv.hpp"
#include "onednn/adaptor.hpp"
#include "onednn/common.hpp"

namespace anydnn_bench::onednn {
namespace {

using dims = dnnl::memory::dims;
using tag = dnnl::memory::format_tag;

// The user's weights: K x C/g x ... packed KCRS or KRSC, as oneDNN's
// g x K/g x C/g x ... when grouped.
dnnl::memory::desc weights_md(const ConvProblem &p) {
    const Dims d = p.wei_dims();
    const Dims strides = strides_for(d, p.tag);
    if (p.shape.g == 1) return dnnl::memory::desc(d, data_type(p.dt), strides);
    Dims gd{p.shape.g, p.shape.oc / p.shape.g}, gs{strides[0] * (p.shape.oc / p.shape.g), strides[0]};
    gd.insert(gd.end(), d.begin() + 1, d.end());
    gs.insert(gs.end(), strides.begin() + 1, strides.end());
    return dnnl::memory::desc(gd, data_type(p.dt), gs);
}

// `from` in the layout `to`: itself, or a copy reordered now (not timed).
dnnl::memory reordered(dnnl::memory from, const dnnl::memory::desc &to) {
    if (from.get_desc() == to) return from;
    dnnl::memory m(to, engine());
    dnnl::reorder(from, m).execute(stream(), from, m);
    stream().wait();
    return m;
}

class ConvCase final : public Case {
public:
    ConvCase(dnnl::convolution_forward prim, std::unordered_map<int, dnnl::memory> args, dnnl::memory dst,
             dnnl::memory user_dst, Buffer out)
        : prim_(std::move(prim)), args_(std::move(args)), dst_(std::move(dst)), user_dst_(std::move(user_dst)),
          out_(std::move(out)) {
        if (dst_.get_desc() != user_dst_.get_desc()) to_user_ = dnnl::reorder(dst_, user_dst_);
    }

    // Makes run() reorder `user_src` into the primitive's src first and dst
    // to the user's layout after; a layout oneDNN took as is costs nothing.
    void time_reorders(dnnl::memory user_src) {
        timed_reorders_ = true;
        user_src_ = std::move(user_src);
        const dnnl::memory &src = args_.at(DNNL_ARG_SRC);
        if (src.get_desc() != user_src_.get_desc()) from_user_ = dnnl::reorder(user_src_, src);
    }

    void run() override {
        if (from_user_) from_user_.execute(stream(), user_src_, args_.at(DNNL_ARG_SRC));
        prim_.execute(stream(), args_);
        if (timed_reorders_ && to_user_) to_user_.execute(stream(), dst_, user_dst_);
        stream().wait();
    }
    std::vector<Buffer *> outputs() override {
        if (to_user_) {
            to_user_.execute(stream(), dst_, user_dst_);
            stream().wait();
        }
        return {&out_};
    }

private:
    dnnl::convolution_forward prim_;
    std::unordered_map<int, dnnl::memory> args_;
    dnnl::memory dst_, user_dst_;
    Buffer out_;  // user_dst_'s storage
    dnnl::reorder to_user_;
    bool timed_reorders_ = false;
    dnnl::memory user_src_;
    dnnl::reorder from_user_;
};

}  // namespace

std::unique_ptr<Case> conv_case(const ConvProblem &p, const Inputs &in, bool timed_reorders) {
    const ConvShape &s = p.shape;
    const dnnl::memory::data_type dt = data_type(p.dt);
    dims strides, dilates, pad_l, pad_r;
    for (int a = 3 - p.spatial_rank(); a < 3; ++a) {
        strides.push_back(s.s[a]);
        dilates.push_back(s.d[a]);  // oneDNN counts dilation from 0, as benchdnn
        pad_l.push_back(s.p[a]);
        // What the last output reaches past the input (may be < pad_l).
        pad_r.push_back((s.o[a] - 1) * s.s[a] + s.kernel_extent(a) - s.i[a] - s.p[a]);
    }
    const dnnl::memory::desc user_src = md(p.src_dims(), p.tag, p.dt), user_wei = weights_md(p),
                             user_dst = md(p.dst_dims(), p.tag, p.dt);
    const dnnl::memory::desc any_src(p.src_dims(), dt, tag::any), any_wei(user_wei.get_dims(), dt, tag::any),
        any_dst(p.dst_dims(), dt, tag::any), bias({s.oc}, dt, tag::x);
    dnnl::primitive_attr attr;
    if (p.fused) {
        dnnl::post_ops ops;
        ops.append_eltwise(dnnl::algorithm::eltwise_relu, 0.f, 0.f);
        attr.set_post_ops(ops);
    }
    auto pd = make_pd("convolution_forward", [&] {
        using pd_t = dnnl::convolution_forward::primitive_desc;
        const auto fwd = dnnl::prop_kind::forward_inference;
        const auto alg = dnnl::algorithm::convolution_direct;
        return p.has_bias() ? pd_t(engine(), fwd, alg, any_src, any_wei, bias, any_dst, strides, dilates, pad_l,
                                   pad_r, attr)
                            : pd_t(engine(), fwd, alg, any_src, any_wei, any_dst, strides, dilates, pad_l, pad_r,
                                   attr);
    });
    std::vector<Buffer> out;
    out.emplace_back(p.dt, elements(p.dst_dims()));
    dnnl::memory user_dst_mem = memory(user_dst, out[0]);
    dnnl::memory dst = pd.dst_desc() == user_dst ? user_dst_mem : dnnl::memory(pd.dst_desc(), engine());
    const dnnl::memory user_src_mem = memory(user_src, in[ConvProblem::kSrc]);
    std::unordered_map<int, dnnl::memory> args{
        {DNNL_ARG_SRC, reordered(user_src_mem, pd.src_desc())},
        {DNNL_ARG_WEIGHTS, reordered(memory(user_wei, in[ConvProblem::kWei]), pd.weights_desc())},
        {DNNL_ARG_DST, dst}};
    if (p.has_bias()) args.emplace(DNNL_ARG_BIAS, memory(bias, in[ConvProblem::kBias]));
    auto c = std::make_unique<ConvCase>(dnnl::convolution_forward(pd), std::move(args), dst, user_dst_mem,
                                        std::move(out[0]));
    if (timed_reorders) c->time_reorders(user_src_mem);
    return c;
}

}  // namespace anydnn_bench::onednn
