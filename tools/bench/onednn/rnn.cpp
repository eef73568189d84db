// --rnn in oneDNN: lstm_forward (with weights_projection for dic < dhc),
// lbr_gru_forward (cuDNN's GRU applies the reset gate after the recurrent
// product: oneDNN's linear-before-reset GRU) and vanilla_rnn_forward (ReLU
// or tanh), forward_inference or forward_training with its workspace.
// Activations and states are the user's tnc / ldnc buffers; the weights are
// written in ldigo / ldio from the canonical ones and reordered once, outside
// the timed run, into the layout oneDNN picks (format_tag::any), as a
// framework caches them.
//
// The mapping from cuDNN's weights (RnnProblem's canonical form):
//   gates   oneDNN's LSTM i, f, c~, o are cuDNN's i, f, g, o; its GRU u, r, o
//           are cuDNN's z, r, n (h = u * h_prev + (1 - u) * o, as cuDNN's
//           h = (1 - z) * n + z * h_prev).
//   W, R    cuDNN's matrix (rows = dhc outputs, cols = inputs, W x) is
//           oneDNN's ldigo slice [l][d][i = col][g][o = row]; the projection
//           (dic x dhc) is ldio [l][d][i = col][o = row].
//   bias    one per gate, bW + bR, for the LSTM and vanilla RNN; the GRU's
//           ldgo bias has 4 parts: u and r (bW + bR each), then o's input
//           bias bW_n and its recurrent bias bR_n (the one inside r * (...)).
#include "drivers/rnn.hpp"
#include "onednn/adaptor.hpp"
#include "onednn/common.hpp"

namespace anydnn_bench::onednn {
namespace {

using dims = dnnl::memory::dims;
using tag = dnnl::memory::format_tag;
using Cell = RnnProblem::Cell;

// The cuDNN gate that oneDNN's gate g is.
int cudnn_gate(const RnnProblem &p, int g) {
    if (p.cell != Cell::gru) return g;
    return g == 0 ? 1 : g == 1 ? 0 : 2;
}

dnnl::memory::desc plain(const dims &d, tag t, anydnnDataType_t dt) { return dnnl::memory::desc(d, data_type(dt), t); }

// The weights in one of oneDNN's plain layouts, built from the canonical ones.
struct UserWeights {
    Buffer layer, iter, projection, bias;
};

UserWeights user_weights(const RnnProblem &p, const Inputs &in) {
    const Buffer &w = in[RnnProblem::kWeights], &b = in[RnnProblem::kBiases];
    const int64_t L = p.l, D = p.directions(), G = p.gates(), slc = p.slc, dhc = p.dhc, dic = p.dic;
    const int64_t bias_gates = p.cell == Cell::gru ? 4 : G;
    UserWeights u{Buffer(p.dt, L * D * slc * G * dhc), Buffer(p.dt, L * D * dic * G * dhc),
                  Buffer(p.dt, p.projection() ? L * D * dhc * dic : 0), Buffer(p.dt, L * D * bias_gates * dhc)};
    for (int64_t pl = 0; pl < L * D; ++pl) {
        for (int64_t g = 0; g < G; ++g) {
            const int cg = cudnn_gate(p, int(g));
            const RnnProblem::Matrix wm = p.matrix(pl, cg), rm = p.matrix(pl, int(G) + cg);
            for (int64_t o = 0; o < dhc; ++o) {
                for (int64_t i = 0; i < slc; ++i)
                    u.layer.set(((pl * slc + i) * G + g) * dhc + o, w.get(wm.offset + o * wm.cols + i));
                for (int64_t i = 0; i < dic; ++i)
                    u.iter.set(((pl * dic + i) * G + g) * dhc + o, w.get(rm.offset + o * rm.cols + i));
            }
            for (int64_t o = 0; o < dhc; ++o) {
                const double bw = b.get(p.bias_offset(pl, cg) + o), br = b.get(p.bias_offset(pl, int(G) + cg) + o);
                // The GRU's n gate keeps its two biases apart (parts 2 and 3).
                if (p.cell == Cell::gru && g == 2) {
                    u.bias.set((pl * bias_gates + 2) * dhc + o, bw);
                    u.bias.set((pl * bias_gates + 3) * dhc + o, br);
                } else {
                    u.bias.set((pl * bias_gates + g) * dhc + o, bw + br);
                }
            }
        }
        if (p.projection()) {
            const RnnProblem::Matrix pm = p.matrix(pl, int(2 * G));
            for (int64_t i = 0; i < dhc; ++i)
                for (int64_t o = 0; o < dic; ++o)
                    u.projection.set((pl * dhc + i) * dic + o, w.get(pm.offset + o * pm.cols + i));
        }
    }
    return u;
}

dnnl::rnn_direction direction(const RnnProblem &p) {
    return p.bidirectional ? dnnl::rnn_direction::bidirectional_concat
                           : dnnl::rnn_direction::unidirectional_left2right;
}

// Binds the problem's buffers to the primitive of `pd`: the user's
// activations and states as they are, the weights reordered once.
std::unique_ptr<Case> bind(const RnnProblem &p, const Inputs &in, dnnl::primitive prim,
                           const dnnl::rnn_primitive_desc_base &pd) {
    const int64_t L = p.l, D = p.directions(), N = p.mb, T = p.t;
    const bool lstm = p.cell == Cell::lstm;
    std::vector<Buffer> out;
    out.emplace_back(p.dt, elements(p.y_dims()));
    out.emplace_back(p.dt, elements(p.h_dims()));
    if (lstm) out.emplace_back(p.dt, elements(p.c_dims()));
    std::unordered_map<int, dnnl::memory> args{
        {DNNL_ARG_SRC_LAYER, memory(plain({T, N, p.slc}, tag::tnc, p.dt), in[RnnProblem::kX])},
        {DNNL_ARG_SRC_ITER, memory(plain({L, D, N, p.dic}, tag::ldnc, p.dt), in[RnnProblem::kHx])},
        {DNNL_ARG_DST_LAYER, memory(plain({T, N, p.dic * D}, tag::tnc, p.dt), out[0])},
        {DNNL_ARG_DST_ITER, memory(plain({L, D, N, p.dic}, tag::ldnc, p.dt), out[1])}};
    if (lstm) {
        args[DNNL_ARG_SRC_ITER_C] = memory(plain({L, D, N, p.dhc}, tag::ldnc, p.dt), in[RnnProblem::kCx]);
        args[DNNL_ARG_DST_ITER_C] = memory(plain({L, D, N, p.dhc}, tag::ldnc, p.dt), out[2]);
    }
    UserWeights u = user_weights(p, in);
    const int64_t G = p.gates();
    args[DNNL_ARG_WEIGHTS_LAYER] =
        reordered(memory(plain({L, D, p.slc, G, p.dhc}, tag::ldigo, p.dt), u.layer), pd.weights_layer_desc());
    args[DNNL_ARG_WEIGHTS_ITER] =
        reordered(memory(plain({L, D, p.dic, G, p.dhc}, tag::ldigo, p.dt), u.iter), pd.weights_iter_desc());
    if (p.projection())
        args[DNNL_ARG_WEIGHTS_PROJECTION] = reordered(
            memory(plain({L, D, p.dhc, p.dic}, tag::ldio, p.dt), u.projection), pd.weights_projection_desc());
    args[DNNL_ARG_BIAS] = memory(pd.bias_desc(), u.bias);
    if (p.training) args[DNNL_ARG_WORKSPACE] = dnnl::memory(pd.workspace_desc(), engine());
    auto c = std::make_unique<PrimitiveCase>(std::move(prim), std::move(args), std::move(out));
    // reordered() may have bound the user's weights themselves.
    for (Buffer *b : {&u.layer, &u.iter, &u.projection, &u.bias}) c->keep(std::move(*b));
    return c;
}

}  // namespace

std::unique_ptr<Case> rnn_case(const RnnProblem &p, const Inputs &in) {
    // oneDNN takes one weights_layer tensor for every layer: the layers
    // after the first must read as many channels as the first.
    if (p.l > 1 && p.slc != p.dic * p.directions())
        throw Unsupported("oneDNN rnn: l > 1 needs slc == dic * directions (one weights_layer tensor for all layers)");
    const int64_t L = p.l, D = p.directions(), N = p.mb, T = p.t, G = p.gates();
    const auto kind = p.training ? dnnl::prop_kind::forward_training : dnnl::prop_kind::forward_inference;
    const auto dt = data_type(p.dt);
    const auto any = [&](const dims &d) { return dnnl::memory::desc(d, dt, tag::any); };
    const auto src_layer = plain({T, N, p.slc}, tag::tnc, p.dt), dst_layer = plain({T, N, p.dic * D}, tag::tnc, p.dt);
    const auto h = plain({L, D, N, p.dic}, tag::ldnc, p.dt), c = plain({L, D, N, p.dhc}, tag::ldnc, p.dt);
    const auto wl = any({L, D, p.slc, G, p.dhc}), wi = any({L, D, p.dic, G, p.dhc});
    switch (p.cell) {
    case Cell::lstm: {
        const auto proj = p.projection() ? any({L, D, p.dhc, p.dic}) : dnnl::memory::desc();
        const auto bias = plain({L, D, G, p.dhc}, tag::ldgo, p.dt);
        const auto pd = make_pd("lstm_forward", [&] {
            return dnnl::lstm_forward::primitive_desc(engine(), kind, direction(p), src_layer, h, c, wl, wi,
                                                      dnnl::memory::desc(), proj, bias, dst_layer, h, c);
        });
        return bind(p, in, dnnl::lstm_forward(pd), pd);
    }
    case Cell::gru: {
        const auto bias = plain({L, D, G + 1, p.dhc}, tag::ldgo, p.dt);
        const auto pd = make_pd("lbr_gru_forward", [&] {
            return dnnl::lbr_gru_forward::primitive_desc(engine(), kind, direction(p), src_layer, h, wl, wi, bias,
                                                         dst_layer, h);
        });
        return bind(p, in, dnnl::lbr_gru_forward(pd), pd);
    }
    default: {
        const auto act = p.cell == Cell::rnn_relu ? dnnl::algorithm::eltwise_relu : dnnl::algorithm::eltwise_tanh;
        const auto bias = plain({L, D, G, p.dhc}, tag::ldgo, p.dt);
        const auto pd = make_pd("vanilla_rnn_forward", [&] {
            return dnnl::vanilla_rnn_forward::primitive_desc(engine(), kind, act, direction(p), src_layer, h, wl, wi,
                                                             bias, dst_layer, h);
        });
        return bind(p, in, dnnl::vanilla_rnn_forward(pd), pd);
    }
    }
}

}  // namespace anydnn_bench::onednn
