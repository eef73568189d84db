#include "reference/rnn_reference.hpp"

#include <cmath>

namespace anydnn_test::ref {

int Rnn::gates() const {
    switch (cell) {
    case RnnCell::Lstm: return 4;
    case RnnCell::Gru: return 3;
    default: return 1;
    }
}

int Rnn::lin_layers() const { return cell == RnnCell::Lstm ? 9 : 2 * gates(); }

Rnn::Dims Rnn::matrix(int layer, int lin_id) const {
    const int g = gates();
    if (lin_id < g) {
        if (skip_input && layer == 0) return {};
        return {hidden, layer_input(layer)};
    }
    if (lin_id < 2 * g) return {hidden, proj};
    if (lin_id == 8 && has_projection()) return {proj, hidden};
    return {};
}

int Rnn::bias_rows(int /*layer*/, int lin_id) const {
    const int g = gates();
    if (lin_id < g) return input_bias ? hidden : 0;
    if (lin_id < 2 * g) return recurrent_bias ? hidden : 0;
    return 0;  // the projection has no bias
}

RnnWeights rnn_zero_weights(const Rnn &p) {
    RnnWeights w(p.pseudo_layers());
    for (int pl = 0; pl < p.pseudo_layers(); ++pl) {
        const int layer = pl / p.dirs();
        w[pl].m.resize(p.lin_layers());
        w[pl].b.resize(p.lin_layers());
        for (int id = 0; id < p.lin_layers(); ++id) {
            const Rnn::Dims d = p.matrix(layer, id);
            w[pl].m[id].assign(size_t(d.rows) * d.cols, 0.0);
            w[pl].b[id].assign(p.bias_rows(layer, id), 0.0);
        }
    }
    return w;
}

int64_t rnn_data_position(RnnLayout layout, int max_t, const std::vector<int> &len, int b, int t) {
    const int batch = int(len.size());
    switch (layout) {
    case RnnLayout::SeqMajorUnpacked: return int64_t(t) * batch + b;
    case RnnLayout::BatchMajorUnpacked: return int64_t(b) * max_t + t;
    case RnnLayout::SeqMajorPacked: {
        int64_t pos = 0;
        for (int s = 0; s < t; ++s)
            for (int l : len) pos += l > s;
        for (int o = 0; o < b; ++o) pos += len[o] > t;
        return pos;
    }
    }
    return -1;
}

int64_t rnn_data_vectors(RnnLayout layout, int max_t, const std::vector<int> &len) {
    if (layout != RnnLayout::SeqMajorPacked) return int64_t(max_t) * int64_t(len.size());
    int64_t n = 0;
    for (int l : len) n += l;
    return n;
}

namespace {

double sigmoid(double v) { return 1 / (1 + std::exp(-v)); }

// out[r] += sum_c m[r][c] v[c]
void gemv(const std::vector<double> &m, int rows, int cols, const double *v, double *out) {
    for (int r = 0; r < rows; ++r) {
        double s = 0;
        for (int c = 0; c < cols; ++c) s += m[size_t(r) * cols + c] * v[c];
        out[r] += s;
    }
}
// out[c] += sum_r m[r][c] g[r]
void gemv_t(const std::vector<double> &m, int rows, int cols, const double *g, double *out) {
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) out[c] += m[size_t(r) * cols + c] * g[r];
}
// dm[r][c] += g[r] v[c]
void outer(std::vector<double> &dm, int rows, int cols, const double *g, const double *v) {
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) dm[size_t(r) * cols + c] += g[r] * v[c];
}

double clamp_cell(const Rnn &p, double c) {
    if (!p.clip) return c;
    if (std::isnan(c)) return p.clip_nan_propagate ? c : p.lclip;
    return c < p.lclip ? p.lclip : c > p.rclip ? p.rclip : c;
}
// Where the clamp changed c_t, c_t does not depend on its inputs.
bool clamp_active(const Rnn &p, double c_raw) {
    return p.cell == RnnCell::Lstm && p.clip && (c_raw < p.lclip || c_raw > p.rclip || std::isnan(c_raw));
}

// One step of one pseudo-layer, with what its backward needs.
struct Step {
    std::vector<double> xin, hp, cp;  // the step's input, h_{t-1}, c_{t-1}
    std::vector<double> act;          // the activated gates, gates * hidden
    std::vector<double> rn;           // GRU: R_n h_{t-1} + bR_n
    std::vector<double> c_raw, c;     // LSTM: c_t before and after the clamp
    std::vector<double> hc;           // LSTM: o * tanh(c_t), before the projection
    std::vector<double> h;            // the step's output, proj values
};

Step cell_forward(const Rnn &p, const PseudoLayerWeights &w, int layer, const double *xin, const double *hp,
                  const double *cp) {
    const int H = p.hidden, P = p.proj, G = p.gates(), width = p.layer_input(layer);
    Step s;
    s.xin.assign(xin, xin + width);
    s.hp.assign(hp, hp + P);
    if (p.cell == RnnCell::Lstm) s.cp.assign(cp, cp + H);
    // a: the input side (W x_t + bW), r: the recurrent side (R h_{t-1} + bR), per gate.
    std::vector<double> a(size_t(G) * H, 0.0), r(size_t(G) * H, 0.0);
    for (int g = 0; g < G; ++g) {
        double *ag = &a[size_t(g) * H], *rg = &r[size_t(g) * H];
        if (w.m[g].empty())  // SKIP_INPUT's first layer
            for (int k = 0; k < H; ++k) ag[k] = xin[k];
        else
            gemv(w.m[g], H, width, xin, ag);
        if (!w.b[g].empty())
            for (int k = 0; k < H; ++k) ag[k] += w.b[g][k];
        gemv(w.m[G + g], H, P, hp, rg);
        if (!w.b[G + g].empty())
            for (int k = 0; k < H; ++k) rg[k] += w.b[G + g][k];
    }
    s.act.assign(size_t(G) * H, 0.0);
    switch (p.cell) {
    case RnnCell::Relu:
    case RnnCell::Tanh:
        for (int k = 0; k < H; ++k) {
            const double z = a[k] + r[k];
            s.act[k] = p.cell == RnnCell::Relu ? (z > 0 ? z : 0) : std::tanh(z);
        }
        s.h = s.act;
        break;
    case RnnCell::Lstm: {
        s.c_raw.resize(H);
        s.c.resize(H);
        s.hc.resize(H);
        for (int k = 0; k < H; ++k) {
            const double i = sigmoid(a[k] + r[k]), f = sigmoid(a[H + k] + r[H + k]);
            const double g = std::tanh(a[2 * H + k] + r[2 * H + k]), o = sigmoid(a[3 * H + k] + r[3 * H + k]);
            s.act[k] = i;
            s.act[H + k] = f;
            s.act[2 * H + k] = g;
            s.act[3 * H + k] = o;
            s.c_raw[k] = f * cp[k] + i * g;
            s.c[k] = clamp_cell(p, s.c_raw[k]);
            s.hc[k] = o * std::tanh(s.c[k]);
        }
        if (p.has_projection()) {
            s.h.assign(P, 0.0);
            gemv(w.m[8], P, H, s.hc.data(), s.h.data());
        } else {
            s.h = s.hc;
        }
        break;
    }
    case RnnCell::Gru:
        s.rn.assign(r.begin() + 2 * H, r.end());
        s.h.resize(H);
        for (int k = 0; k < H; ++k) {
            const double rg = sigmoid(a[k] + r[k]), z = sigmoid(a[H + k] + r[H + k]);
            const double n = std::tanh(a[2 * H + k] + rg * r[2 * H + k]);
            s.act[k] = rg;
            s.act[H + k] = z;
            s.act[2 * H + k] = n;
            s.h[k] = (1 - z) * n + z * hp[k];
        }
        break;
    }
    return s;
}

// Backward of one step: dh (proj) and dc (hidden, LSTM) the gradients of
// h_t and c_t (after the clamp); adds into dxin (the layer's input width)
// and dw; sets dhp (proj) and dcp (hidden, LSTM) to those of h_{t-1}, c_{t-1}.
void cell_backward(const Rnn &p, const PseudoLayerWeights &w, int layer, const Step &s, const double *dh,
                   const double *dc, double *dxin, double *dhp, double *dcp, PseudoLayerWeights &dw) {
    const int H = p.hidden, P = p.proj, G = p.gates(), width = p.layer_input(layer);
    // gi / gr: the gradients of each gate's input-side and recurrent-side
    // pre-activations (equal except for GRU's n gate, where r scales the
    // recurrent side).
    std::vector<double> gi(size_t(G) * H, 0.0), gr;
    for (int k = 0; k < P; ++k) dhp[k] = 0;
    switch (p.cell) {
    case RnnCell::Relu:
    case RnnCell::Tanh:
        for (int k = 0; k < H; ++k) {
            const double y = s.act[k];
            gi[k] = dh[k] * (p.cell == RnnCell::Relu ? (y > 0 ? 1.0 : 0.0) : 1 - y * y);
        }
        gr = gi;
        break;
    case RnnCell::Lstm: {
        std::vector<double> dhc(H, 0.0);
        if (p.has_projection()) {
            gemv_t(w.m[8], P, H, dh, dhc.data());
            outer(dw.m[8], P, H, dh, s.hc.data());
        } else {
            for (int k = 0; k < H; ++k) dhc[k] = dh[k];
        }
        for (int k = 0; k < H; ++k) {
            const double i = s.act[k], f = s.act[H + k], g = s.act[2 * H + k], o = s.act[3 * H + k];
            const double tc = std::tanh(s.c[k]);
            const double dc_total = dc[k] + dhc[k] * o * (1 - tc * tc);
            const double dcr = clamp_active(p, s.c_raw[k]) ? 0.0 : dc_total;
            gi[k] = dcr * g * i * (1 - i);
            gi[H + k] = dcr * s.cp[k] * f * (1 - f);
            gi[2 * H + k] = dcr * i * (1 - g * g);
            gi[3 * H + k] = dhc[k] * tc * o * (1 - o);
            dcp[k] = dcr * f;
        }
        gr = gi;
        break;
    }
    case RnnCell::Gru:
        gr.assign(size_t(G) * H, 0.0);
        for (int k = 0; k < H; ++k) {
            const double rg = s.act[k], z = s.act[H + k], n = s.act[2 * H + k];
            const double dn = dh[k] * (1 - z), dz = dh[k] * (s.hp[k] - n);
            dhp[k] += dh[k] * z;
            const double dan = dn * (1 - n * n);
            gi[2 * H + k] = dan;
            gr[2 * H + k] = dan * rg;
            const double dr = dan * s.rn[k];
            gi[k] = gr[k] = dr * rg * (1 - rg);
            gi[H + k] = gr[H + k] = dz * z * (1 - z);
        }
        break;
    }
    for (int g = 0; g < G; ++g) {
        const double *gig = &gi[size_t(g) * H], *grg = &gr[size_t(g) * H];
        if (w.m[g].empty()) {
            for (int k = 0; k < H; ++k) dxin[k] += gig[k];
        } else {
            gemv_t(w.m[g], H, width, gig, dxin);
            outer(dw.m[g], H, width, gig, s.xin.data());
        }
        if (!w.b[g].empty())
            for (int k = 0; k < H; ++k) dw.b[g][k] += gig[k];
        gemv_t(w.m[G + g], H, P, grg, dhp);
        outer(dw.m[G + g], H, P, grg, s.hp.data());
        if (!w.b[G + g].empty())
            for (int k = 0; k < H; ++k) dw.b[G + g][k] += grg[k];
    }
}

// The forward of every pseudo-layer over sequence b: y (its len * out_width
// values), hy / cy of the sequence, and, when asked, every step.
struct SequenceTrace {
    std::vector<std::vector<Step>> steps;  // [pseudo-layer][step in processing order]
};

std::vector<double> sequence_forward(const Rnn &p, const RnnWeights &w, int n, int b, int batch,
                                     const std::vector<double> &x, const std::vector<double> &hx,
                                     const std::vector<double> &cx, const RnnMasks &masks, double *hy, double *cy,
                                     SequenceTrace *trace) {
    const int H = p.hidden, P = p.proj, D = p.dirs(), OW = p.out_width();
    const bool lstm = p.cell == RnnCell::Lstm;
    std::vector<double> in = x;
    if (trace != nullptr) trace->steps.assign(p.pseudo_layers(), {});
    for (int layer = 0; layer < p.layers; ++layer) {
        const int width = p.layer_input(layer);
        std::vector<double> out(size_t(n) * OW, 0.0);
        for (int dir = 0; dir < D; ++dir) {
            const int pl = layer * D + dir;
            std::vector<double> h(P, 0.0), c(lstm ? H : 0, 0.0);
            const size_t hs = (size_t(pl) * batch + b) * P, cs = (size_t(pl) * batch + b) * H;
            if (!hx.empty()) h.assign(hx.begin() + hs, hx.begin() + hs + P);
            if (lstm && !cx.empty()) c.assign(cx.begin() + cs, cx.begin() + cs + H);
            for (int s = 0; s < n; ++s) {
                const int t = dir == 1 ? n - 1 - s : s;  // the reverse direction runs from the last valid step
                Step st = cell_forward(p, w[pl], layer, &in[size_t(t) * width], h.data(), c.data());
                h = st.h;
                if (lstm) c = st.c;
                for (int k = 0; k < P; ++k) out[size_t(t) * OW + dir * P + k] = h[k];
                if (trace != nullptr) trace->steps[pl].push_back(std::move(st));
            }
            for (int k = 0; k < P; ++k) hy[hs + k] = h[k];
            if (lstm)
                for (int k = 0; k < H; ++k) cy[cs + k] = c[k];
        }
        if (layer + 1 < p.layers && !masks.empty())
            for (size_t i = 0; i < out.size(); ++i) out[i] *= masks[layer][b][i];
        if (layer + 1 == p.layers) return out;
        in = std::move(out);
    }
    return in;
}

}  // namespace

RnnForwardResult rnn_forward(const Rnn &p, const RnnWeights &w, const std::vector<int> &len, const Seqs &x,
                             const std::vector<double> &hx, const std::vector<double> &cx, const RnnMasks &masks) {
    const int batch = int(len.size());
    RnnForwardResult r;
    r.y.resize(batch);
    r.hy.assign(size_t(p.pseudo_layers()) * batch * p.proj, 0.0);
    if (p.cell == RnnCell::Lstm) r.cy.assign(size_t(p.pseudo_layers()) * batch * p.hidden, 0.0);
    for (int b = 0; b < batch; ++b)
        r.y[b] = sequence_forward(p, w, len[b], b, batch, x[b], hx, cx, masks, r.hy.data(), r.cy.data(), nullptr);
    return r;
}

RnnGradients rnn_backward(const Rnn &p, const RnnWeights &w, const std::vector<int> &len, const Seqs &x,
                          const std::vector<double> &hx, const std::vector<double> &cx, const Seqs &dy,
                          const std::vector<double> &dhy, const std::vector<double> &dcy, const RnnMasks &masks) {
    const int batch = int(len.size()), H = p.hidden, P = p.proj, D = p.dirs(), OW = p.out_width();
    const bool lstm = p.cell == RnnCell::Lstm;
    RnnGradients g;
    g.dx.resize(batch);
    g.dhx.assign(size_t(p.pseudo_layers()) * batch * P, 0.0);
    if (lstm) g.dcx.assign(size_t(p.pseudo_layers()) * batch * H, 0.0);
    g.dw = rnn_zero_weights(p);
    std::vector<double> hy(g.dhx.size()), cy(g.dcx.size());
    for (int b = 0; b < batch; ++b) {
        const int n = len[b];
        SequenceTrace tr;
        sequence_forward(p, w, n, b, batch, x[b], hx, cx, masks, hy.data(), cy.data(), &tr);
        std::vector<double> dout = dy[b];  // the gradient of the current layer's output
        for (int layer = p.layers - 1; layer >= 0; --layer) {
            const int width = p.layer_input(layer);
            std::vector<double> din(size_t(n) * width, 0.0);
            for (int dir = 0; dir < D; ++dir) {
                const int pl = layer * D + dir;
                const size_t hs = (size_t(pl) * batch + b) * P, cs = (size_t(pl) * batch + b) * H;
                std::vector<double> dh(P, 0.0), dc(lstm ? H : 0, 0.0), dhp(P), dcp(lstm ? H : 0);
                if (!dhy.empty()) dh.assign(dhy.begin() + hs, dhy.begin() + hs + P);
                if (lstm && !dcy.empty()) dc.assign(dcy.begin() + cs, dcy.begin() + cs + H);
                for (int s = n - 1; s >= 0; --s) {
                    const int t = dir == 1 ? n - 1 - s : s;
                    for (int k = 0; k < P; ++k) dh[k] += dout[size_t(t) * OW + dir * P + k];
                    cell_backward(p, w[pl], layer, tr.steps[pl][s], dh.data(), dc.data(), &din[size_t(t) * width],
                                  dhp.data(), dcp.data(), g.dw[pl]);
                    dh = dhp;
                    dc = dcp;
                }
                for (int k = 0; k < P; ++k) g.dhx[hs + k] = dh[k];
                if (lstm)
                    for (int k = 0; k < H; ++k) g.dcx[cs + k] = dc[k];
            }
            if (layer == 0) {
                g.dx[b] = std::move(din);
            } else {
                if (!masks.empty())
                    for (size_t i = 0; i < din.size(); ++i) din[i] *= masks[layer - 1][b][i];
                dout = std::move(din);
            }
        }
    }
    return g;
}

void fill_uniform(RnnWeights &w, std::mt19937_64 &g, double scale) {
    std::uniform_real_distribution<double> u(-scale, scale);
    for (PseudoLayerWeights &pl : w) {
        for (std::vector<double> &m : pl.m)
            for (double &v : m) v = u(g);
        for (std::vector<double> &b : pl.b)
            for (double &v : b) v = u(g);
    }
}

Seqs uniform_seqs(const std::vector<int> &len, int width, std::mt19937_64 &g, double scale) {
    std::uniform_real_distribution<double> u(-scale, scale);
    Seqs s(len.size());
    for (size_t b = 0; b < len.size(); ++b) {
        s[b].resize(size_t(len[b]) * width);
        for (double &v : s[b]) v = u(g);
    }
    return s;
}

}  // namespace anydnn_test::ref
