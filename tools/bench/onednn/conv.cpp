// --conv in oneDNN, per direction:
//   forward  convolution_forward (forward_inference)
//   BWD_D    convolution_backward_data
//   BWD_W    convolution_backward_weights
//   BWD_B    reduction (sum) of diff_dst to 1 x K x 1 x 1
// all with algorithm::convolution_direct on the layouts oneDNN picks for
// itself (format_tag::any for every convolution tensor; the backward ones
// take a forward_training primitive_desc as their hint). The user's
// nchw/nhwc activations and KCRS/KRSC weights are reordered into them once,
// when the case is made; run() times the primitive alone, and outputs()
// reorders the output back to the user's layout for corr mode. With
// timed_reorders, run() also includes the reorders of the activation inputs
// (src, diff_dst) before and of the output after (the cost of oneDNN from
// plain tensors); the weights stay reordered once, as frameworks cache them.
#include "drivers/conv.hpp"
#include "onednn/adaptor.hpp"
#include "onednn/common.hpp"

namespace anydnn_bench::onednn {
namespace {

using dims = dnnl::memory::dims;
using tag = dnnl::memory::format_tag;
using Tensor = ConvProblem::Tensor;

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

// Tensor `t` as the user holds it (the layout of the anydnn descriptors);
// the bias as oneDNN's convolutions take it, a vector of K.
dnnl::memory::desc user_md(const ConvProblem &p, Tensor t) {
    switch (t) {
    case Tensor::wei: return weights_md(p);
    case Tensor::bias: return dnnl::memory::desc({p.shape.oc}, data_type(p.dt), tag::x);
    default: return md(p.dims(t), p.tag, p.dt);
    }
}

// The same dims in the layout oneDNN will choose.
dnnl::memory::desc any_md(const ConvProblem &p, Tensor t) {
    return dnnl::memory::desc(user_md(p, t).get_dims(), data_type(p.dt), tag::any);
}

// The geometry in oneDNN's terms, common to every direction.
struct Geometry {
    dims strides, dilates, pad_l, pad_r;
};

Geometry geometry(const ConvProblem &p) {
    const ConvShape &s = p.shape;
    Geometry g;
    for (int a = 3 - p.spatial_rank(); a < 3; ++a) {
        g.strides.push_back(s.s[a]);
        g.dilates.push_back(s.d[a]);  // oneDNN counts dilation from 0, as benchdnn
        g.pad_l.push_back(s.p[a]);
        // What the last output reaches past the input (may be < pad_l).
        g.pad_r.push_back((s.o[a] - 1) * s.s[a] + s.kernel_extent(a) - s.i[a] - s.p[a]);
    }
    return g;
}

// The forward primitive_desc: the forward case itself (forward_inference,
// with the bias and the fused ReLU) or the backward ones' hint
// (forward_training; a backward problem has neither).
dnnl::convolution_forward::primitive_desc forward_pd(const ConvProblem &p, dnnl::prop_kind kind) {
    const Geometry g = geometry(p);
    dnnl::primitive_attr attr;
    if (p.fused) {
        dnnl::post_ops ops;
        ops.append_eltwise(dnnl::algorithm::eltwise_relu, 0.f, 0.f);
        attr.set_post_ops(ops);
    }
    return make_pd("convolution_forward", [&] {
        using pd_t = dnnl::convolution_forward::primitive_desc;
        const auto alg = dnnl::algorithm::convolution_direct;
        const auto src = any_md(p, Tensor::src), wei = any_md(p, Tensor::wei), dst = any_md(p, Tensor::dst);
        return p.has_bias() ? pd_t(engine(), kind, alg, src, wei, user_md(p, Tensor::bias), dst, g.strides,
                                   g.dilates, g.pad_l, g.pad_r, attr)
                            : pd_t(engine(), kind, alg, src, wei, dst, g.strides, g.dilates, g.pad_l, g.pad_r, attr);
    });
}

// One convolution primitive bound to the user's buffers: inputs reordered
// into the primitive's layouts, the output written in its layout and
// reordered back to the user's for corr mode.
class ConvCase final : public Case {
public:
    ConvCase(dnnl::primitive prim, const ConvProblem &p, const Inputs &in, bool timed_reorders)
        : prim_(std::move(prim)), p_(p), in_(in), timed_reorders_(timed_reorders) {}

    // Binds input `t` as argument `arg` in `layout`, reordered now; with
    // timed reorders and `per_call` (an activation, not the cached weights),
    // run() redoes that reorder from the user's buffer.
    void input(int arg, Tensor t, const dnnl::memory::desc &layout, bool per_call) {
        const dnnl::memory user = memory(user_md(p_, t), p_.input(in_, t));
        const dnnl::memory bound = reordered(user, layout);
        args_[arg] = bound;
        if (timed_reorders_ && per_call && bound.get_desc() != user.get_desc())
            from_user_.push_back({dnnl::reorder(user, bound), user, bound});
    }

    // Binds the direction's output as `arg`, in `layout`.
    void output(int arg, const dnnl::memory::desc &layout) {
        const Tensor t = p_.output();
        out_ = Buffer(p_.dt, elements(p_.dims(t)));
        user_out_ = memory(user_md(p_, t), out_);
        out_mem_ = layout == user_out_.get_desc() ? user_out_ : dnnl::memory(layout, engine());
        args_[arg] = out_mem_;
        if (layout != user_out_.get_desc()) to_user_ = dnnl::reorder(out_mem_, user_out_);
    }

    void run() override {
        for (Reorder &r : from_user_) r.prim.execute(stream(), r.from, r.to);
        prim_.execute(stream(), args_);
        if (timed_reorders_ && to_user_) to_user_.execute(stream(), out_mem_, user_out_);
        stream().wait();
    }
    std::vector<Buffer *> outputs() override {
        if (to_user_) {
            to_user_.execute(stream(), out_mem_, user_out_);
            stream().wait();
        }
        return {&out_};
    }

private:
    struct Reorder {
        dnnl::reorder prim;
        dnnl::memory from, to;
    };
    dnnl::primitive prim_;
    const ConvProblem &p_;
    const Inputs &in_;
    bool timed_reorders_;
    std::unordered_map<int, dnnl::memory> args_;
    std::vector<Reorder> from_user_;
    Buffer out_;                   // user_out_'s storage
    dnnl::memory user_out_, out_mem_;
    dnnl::reorder to_user_;
};

std::unique_ptr<Case> forward_case(const ConvProblem &p, const Inputs &in, bool timed_reorders) {
    const auto pd = forward_pd(p, dnnl::prop_kind::forward_inference);
    auto c = std::make_unique<ConvCase>(dnnl::convolution_forward(pd), p, in, timed_reorders);
    c->input(DNNL_ARG_SRC, Tensor::src, pd.src_desc(), true);
    c->input(DNNL_ARG_WEIGHTS, Tensor::wei, pd.weights_desc(), false);
    if (p.has_bias()) c->input(DNNL_ARG_BIAS, Tensor::bias, pd.bias_desc(), false);
    c->output(DNNL_ARG_DST, pd.dst_desc());
    return c;
}

std::unique_ptr<Case> backward_data_case(const ConvProblem &p, const Inputs &in, bool timed_reorders) {
    const auto hint = forward_pd(p, dnnl::prop_kind::forward_training);
    const Geometry g = geometry(p);
    const auto pd = make_pd("convolution_backward_data", [&] {
        return dnnl::convolution_backward_data::primitive_desc(
            engine(), dnnl::algorithm::convolution_direct, any_md(p, Tensor::src), any_md(p, Tensor::wei),
            any_md(p, Tensor::dst), g.strides, g.dilates, g.pad_l, g.pad_r, hint);
    });
    auto c = std::make_unique<ConvCase>(dnnl::convolution_backward_data(pd), p, in, timed_reorders);
    c->input(DNNL_ARG_WEIGHTS, Tensor::wei, pd.weights_desc(), false);
    c->input(DNNL_ARG_DIFF_DST, Tensor::dst, pd.diff_dst_desc(), true);
    c->output(DNNL_ARG_DIFF_SRC, pd.diff_src_desc());
    return c;
}

std::unique_ptr<Case> backward_weights_case(const ConvProblem &p, const Inputs &in, bool timed_reorders) {
    const auto hint = forward_pd(p, dnnl::prop_kind::forward_training);
    const Geometry g = geometry(p);
    const auto pd = make_pd("convolution_backward_weights", [&] {
        return dnnl::convolution_backward_weights::primitive_desc(
            engine(), dnnl::algorithm::convolution_direct, any_md(p, Tensor::src), any_md(p, Tensor::wei),
            any_md(p, Tensor::dst), g.strides, g.dilates, g.pad_l, g.pad_r, hint);
    });
    auto c = std::make_unique<ConvCase>(dnnl::convolution_backward_weights(pd), p, in, timed_reorders);
    c->input(DNNL_ARG_SRC, Tensor::src, pd.src_desc(), true);
    c->input(DNNL_ARG_DIFF_DST, Tensor::dst, pd.diff_dst_desc(), true);
    c->output(DNNL_ARG_DIFF_WEIGHTS, pd.diff_weights_desc());
    return c;
}

// oneDNN computes the bias gradient only together with the weights'
// (convolution_backward_weights' diff_bias); a framework that wants it alone,
// as anydnnConvolutionBackwardBias gives it, sums diff_dst with a reduction.
// It reads diff_dst in the user's layout, as anydnn does: nothing to reorder.
std::unique_ptr<Case> backward_bias_case(const ConvProblem &p, const Inputs &in) {
    const dnnl::memory::desc src = md(p.dst_dims(), p.tag, p.dt), dst = md(p.bias_dims(), Tag::nchw, p.dt);
    const auto pd = make_pd("reduction", [&] {
        return dnnl::reduction::primitive_desc(engine(), dnnl::algorithm::reduction_sum, src, dst, 0.f, 0.f);
    });
    std::vector<Buffer> out;
    out.emplace_back(p.dt, elements(p.bias_dims()));
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, memory(src, p.input(in, Tensor::dst))},
                                               {DNNL_ARG_DST, memory(dst, out[0])}};
    return std::make_unique<PrimitiveCase>(dnnl::reduction(pd), std::move(args), std::move(out));
}

}  // namespace

std::unique_ptr<Case> conv_case(const ConvProblem &p, const Inputs &in, bool timed_reorders) {
    switch (p.dir) {
    case ConvProblem::Dir::bwd_d: return backward_data_case(p, in, timed_reorders);
    case ConvProblem::Dir::bwd_w: return backward_weights_case(p, in, timed_reorders);
    case ConvProblem::Dir::bwd_b: return backward_bias_case(p, in);
    default: return forward_case(p, in, timed_reorders);
    }
}

}  // namespace anydnn_bench::onednn
