// The reference RNN (tests/reference/rnn_reference) on its own, with no
// library call, so it runs before any implementation exists: each cell's
// equations on scalar sizes computed here by hand (forward and reverse
// direction, hy / cy, a 0-length sequence), the data layouts' positions,
// and central finite differences (fp64) of rnn_forward against
// rnn_backward's hand-written backpropagation through time for every cell,
// bias mode, both directions, 1-2 layers, SKIP_INPUT, LSTM projection and
// clipping, dropout masks and sequences of different lengths (0 included).
//
// Finite differences: step 1e-5, so the truncation error (~1e-10 times the
// third derivative) and the rounding (~1e-16 / 1e-5) both stay far below
// the bound 1e-7 + 1e-6 |g|, while a wrong term in a gradient is O(1e-2).
// ReLU's kink and the clamp's edges are never within a step of a random
// pre-activation at these sizes (fixed seed).
#include <cmath>

#include "common/test_util.hpp"
#include "reference/rnn_reference.hpp"

using namespace anydnn_test;
using ref::Rnn;
using ref::RnnCell;

namespace {

double sig(double v) { return 1 / (1 + std::exp(-v)); }

// A scalar network (input = hidden = proj = 1) with every weight given.
Rnn scalar_rnn(RnnCell cell, bool bidirectional) {
    Rnn p;
    p.cell = cell;
    p.input = p.hidden = p.proj = 1;
    p.bidirectional = bidirectional;
    return p;
}

// Matrix / bias linLayerID id of every pseudo-layer := W[id] / bias[id].
ref::RnnWeights scalar_weights(const Rnn &p, const std::vector<double> &m, const std::vector<double> &b) {
    ref::RnnWeights w = ref::rnn_zero_weights(p);
    for (auto &pl : w)
        for (size_t id = 0; id < m.size(); ++id) {
            pl.m[id] = {m[id]};
            pl.b[id] = {b[id]};
        }
    return w;
}

TEST(RnnReference, HandCheckedRnnCells) {
    const std::vector<double> x = {0.5, -0.3}, hx = {0.3, -0.2};  // hx: forward, reverse pseudo-layer
    for (RnnCell cell : {RnnCell::Relu, RnnCell::Tanh}) {
        const Rnn p = scalar_rnn(cell, true);
        const ref::RnnWeights w = scalar_weights(p, {0.7, -0.4}, {0.1, 0.2});
        const auto act = [&](double v) { return cell == RnnCell::Relu ? std::fmax(v, 0.0) : std::tanh(v); };
        const auto step = [&](double xt, double h) { return act(0.7 * xt + 0.1 - 0.4 * h + 0.2); };
        const ref::RnnForwardResult r = ref::rnn_forward(p, w, {2, 0}, {x, {}}, {0.3, 0.9, -0.2, 0.4}, {});
        // Forward: t = 0 then 1; reverse: t = 1 then 0, its hy after t = 0.
        const double f0 = step(x[0], hx[0]), f1 = step(x[1], f0);
        const double r1 = step(x[1], hx[1]), r0 = step(x[0], r1);
        ASSERT_EQ(r.y[0].size(), 4u);
        EXPECT_NEAR(r.y[0][0], f0, 1e-15);
        EXPECT_NEAR(r.y[0][1], r0, 1e-15);
        EXPECT_NEAR(r.y[0][2], f1, 1e-15);
        EXPECT_NEAR(r.y[0][3], r1, 1e-15);
        // hy {pseudo-layer, batch, 1}: the 0-length sequence 1 passes hx through.
        EXPECT_NEAR(r.hy[0], f1, 1e-15);
        EXPECT_EQ(r.hy[1], 0.9);
        EXPECT_NEAR(r.hy[2], r0, 1e-15);
        EXPECT_EQ(r.hy[3], 0.4);
        EXPECT_TRUE(r.y[1].empty());
    }
}

TEST(RnnReference, HandCheckedLstm) {
    // linLayerIDs 0-3 W_i, W_f, W_g, W_o; 4-7 R_i, R_f, R_g, R_o.
    const std::vector<double> m = {0.5, -0.6, 0.8, 0.3, -0.2, 0.4, 0.7, -0.9};
    const std::vector<double> b = {0.1, -0.1, 0.2, 0.05, 0.3, 0.15, -0.25, 0.1};
    const std::vector<double> x = {0.9, -0.7, 0.4};
    for (bool clip : {false, true}) {
        Rnn p = scalar_rnn(RnnCell::Lstm, false);
        p.clip = clip;
        p.lclip = -0.3;
        p.rclip = 0.35;
        const ref::RnnWeights w = scalar_weights(p, m, b);
        double h = -0.4, c = 0.6;
        const ref::RnnForwardResult r = ref::rnn_forward(p, w, {3}, {x}, {h}, {c});
        bool clamped = false;
        for (int t = 0; t < 3; ++t) {
            const auto pre = [&](int g) { return m[g] * x[t] + b[g] + m[4 + g] * h + b[4 + g]; };
            const double i = sig(pre(0)), f = sig(pre(1)), g = std::tanh(pre(2)), o = sig(pre(3));
            c = f * c + i * g;
            if (clip && (c < p.lclip || c > p.rclip)) {
                c = std::fmin(std::fmax(c, p.lclip), p.rclip);
                clamped = true;
            }
            h = o * std::tanh(c);
            EXPECT_NEAR(r.y[0][t], h, 1e-15) << "t=" << t << " clip=" << clip;
        }
        EXPECT_NEAR(r.hy[0], h, 1e-15);
        EXPECT_NEAR(r.cy[0], c, 1e-15);
        if (clip) {
            EXPECT_TRUE(clamped) << "the example should reach the clamp";
        }
    }
}

TEST(RnnReference, HandCheckedLstmProjection) {
    Rnn p;
    p.cell = RnnCell::Lstm;
    p.input = 1;
    p.hidden = 2;
    p.proj = 1;
    ref::RnnWeights w = ref::rnn_zero_weights(p);
    ASSERT_EQ(w[0].m[8].size(), 2u);  // P: 1 x 2
    ASSERT_EQ(w[0].m[4].size(), 2u);  // R: 2 x 1 (hidden x proj)
    ASSERT_TRUE(w[0].b[8].empty());
    std::mt19937_64 g(7);
    ref::fill_uniform(w, g, 0.8);
    const double x = 0.6, h0 = -0.5;
    const double c0[2] = {0.2, -0.7};
    double hc[2], c1[2];
    for (int k = 0; k < 2; ++k) {
        const auto pre = [&](int gate) {
            return w[0].m[gate][k] * x + w[0].b[gate][k] + w[0].m[4 + gate][k] * h0 + w[0].b[4 + gate][k];
        };
        c1[k] = sig(pre(1)) * c0[k] + sig(pre(0)) * std::tanh(pre(2));
        hc[k] = sig(pre(3)) * std::tanh(c1[k]);
    }
    const ref::RnnForwardResult r = ref::rnn_forward(p, w, {1}, {{x}}, {h0}, {c0[0], c0[1]});
    const double h1 = w[0].m[8][0] * hc[0] + w[0].m[8][1] * hc[1];
    ASSERT_EQ(r.y[0].size(), 1u);
    EXPECT_NEAR(r.y[0][0], h1, 1e-15);
    EXPECT_NEAR(r.hy[0], h1, 1e-15);
    EXPECT_NEAR(r.cy[0], c1[0], 1e-15);
    EXPECT_NEAR(r.cy[1], c1[1], 1e-15);
}

TEST(RnnReference, HandCheckedGru) {
    // linLayerIDs 0-2 W_r, W_z, W_n; 3-5 R_r, R_z, R_n.
    const std::vector<double> m = {0.5, -0.6, 0.8, 0.3, -0.2, 0.4};
    const std::vector<double> b = {0.1, -0.1, 0.2, 0.05, 0.3, 0.15};
    const std::vector<double> x = {0.9, -0.7};
    const Rnn p = scalar_rnn(RnnCell::Gru, false);
    const ref::RnnWeights w = scalar_weights(p, m, b);
    double h = 0.35;
    const ref::RnnForwardResult r = ref::rnn_forward(p, w, {2}, {x}, {h}, {});
    for (int t = 0; t < 2; ++t) {
        const double rg = sig(m[0] * x[t] + b[0] + m[3] * h + b[3]);
        const double z = sig(m[1] * x[t] + b[1] + m[4] * h + b[4]);
        const double n = std::tanh(m[2] * x[t] + b[2] + rg * (m[5] * h + b[5]));  // linear before reset
        h = (1 - z) * n + z * h;
        EXPECT_NEAR(r.y[0][t], h, 1e-15) << "t=" << t;
    }
    EXPECT_NEAR(r.hy[0], h, 1e-15);
    EXPECT_TRUE(r.cy.empty());
}

// SKIP_INPUT: W x_t is x_t for every gate; the input biases remain.
TEST(RnnReference, HandCheckedSkipInput) {
    Rnn p = scalar_rnn(RnnCell::Tanh, false);
    p.skip_input = true;
    ref::RnnWeights w = ref::rnn_zero_weights(p);
    EXPECT_TRUE(w[0].m[0].empty());
    ASSERT_EQ(w[0].b[0].size(), 1u);
    w[0].b[0] = {0.1};
    w[0].m[1] = {-0.4};
    w[0].b[1] = {0.2};
    const ref::RnnForwardResult r = ref::rnn_forward(p, w, {1}, {{0.5}}, {0.3}, {});
    EXPECT_NEAR(r.y[0][0], std::tanh(0.5 + 0.1 - 0.4 * 0.3 + 0.2), 1e-15);
}

TEST(RnnReference, DataPositions) {
    using ref::RnnLayout;
    const std::vector<int> len = {3, 2, 2, 0};
    // Packed, time major: t = 0 {b0, b1, b2}, t = 1 {b0, b1, b2}, t = 2 {b0}.
    EXPECT_EQ(ref::rnn_data_vectors(RnnLayout::SeqMajorPacked, 3, len), 7);
    EXPECT_EQ(ref::rnn_data_position(RnnLayout::SeqMajorPacked, 3, len, 0, 0), 0);
    EXPECT_EQ(ref::rnn_data_position(RnnLayout::SeqMajorPacked, 3, len, 2, 0), 2);
    EXPECT_EQ(ref::rnn_data_position(RnnLayout::SeqMajorPacked, 3, len, 1, 1), 4);
    EXPECT_EQ(ref::rnn_data_position(RnnLayout::SeqMajorPacked, 3, len, 0, 2), 6);
    EXPECT_EQ(ref::rnn_data_vectors(RnnLayout::SeqMajorUnpacked, 3, len), 12);
    EXPECT_EQ(ref::rnn_data_position(RnnLayout::SeqMajorUnpacked, 3, len, 2, 1), 1 * 4 + 2);
    EXPECT_EQ(ref::rnn_data_position(RnnLayout::BatchMajorUnpacked, 3, len, 2, 1), 2 * 3 + 1);
}

TEST(RnnReference, WeightShapes) {
    Rnn p;
    p.cell = RnnCell::Lstm;
    p.input = 3;
    p.hidden = 5;
    p.proj = 2;
    p.layers = 2;
    p.bidirectional = true;
    p.input_bias = false;
    const ref::RnnWeights w = ref::rnn_zero_weights(p);
    ASSERT_EQ(w.size(), 4u);
    EXPECT_EQ(w[1].m[0].size(), 5u * 3);  // layer 0: hidden x input
    EXPECT_EQ(w[2].m[3].size(), 5u * 4);  // layer 1: hidden x (proj * 2)
    EXPECT_EQ(w[3].m[7].size(), 5u * 2);  // recurrent: hidden x proj
    EXPECT_EQ(w[3].m[8].size(), 2u * 5);  // projection: proj x hidden
    EXPECT_TRUE(w[0].b[0].empty());
    EXPECT_EQ(w[0].b[4].size(), 5u);
    EXPECT_TRUE(w[0].b[8].empty());
}

struct FdCase {
    const char *name;
    Rnn p;
    std::vector<int> len;
    bool masks = false;
};

Rnn make(RnnCell cell, int input, int hidden, int proj, int layers, bool bidir, bool inp_bias = true,
         bool rec_bias = true, bool skip = false) {
    Rnn p;
    p.cell = cell;
    p.input = input;
    p.hidden = hidden;
    p.proj = proj;
    p.layers = layers;
    p.bidirectional = bidir;
    p.input_bias = inp_bias;
    p.recurrent_bias = rec_bias;
    p.skip_input = skip;
    return p;
}

Rnn clipped(Rnn p, double lo, double hi) {
    p.clip = true;
    p.lclip = lo;
    p.rclip = hi;
    return p;
}

std::vector<FdCase> fd_cases() {
    std::vector<FdCase> cases;
    const std::vector<int> len = {3, 1, 0, 4};
    const struct {
        const char *name;
        RnnCell cell;
    } cells[] = {{"relu", RnnCell::Relu}, {"tanh", RnnCell::Tanh}, {"lstm", RnnCell::Lstm}, {"gru", RnnCell::Gru}};
    for (const auto &c : cells) {
        cases.push_back({c.name, make(c.cell, 3, 4, 4, 1, false), len});
        cases.push_back({c.name, make(c.cell, 3, 4, 4, 2, true), len});
        cases.push_back({c.name, make(c.cell, 2, 3, 3, 1, true, true, false), len});   // SINGLE_INP_BIAS
        cases.push_back({c.name, make(c.cell, 2, 3, 3, 2, false, false, true), len});  // SINGLE_REC_BIAS
        cases.push_back({c.name, make(c.cell, 3, 3, 3, 1, false, false, false), len});  // NO_BIAS
        cases.push_back({c.name, make(c.cell, 3, 3, 3, 2, true, true, true, true), len});  // SKIP_INPUT
        cases.push_back({c.name, make(c.cell, 3, 4, 4, 2, false), len, true});             // dropout masks
    }
    cases.push_back({"lstm proj", make(RnnCell::Lstm, 3, 5, 2, 1, false), len});
    cases.push_back({"lstm proj", make(RnnCell::Lstm, 3, 5, 3, 2, true), len, true});
    cases.push_back({"lstm clip", clipped(make(RnnCell::Lstm, 3, 4, 4, 2, true), -0.25, 0.3), len});
    cases.push_back({"lstm proj clip", clipped(make(RnnCell::Lstm, 3, 5, 2, 2, true, false, true), -0.2, 0.35), len});
    return cases;
}

std::string describe(const FdCase &c) {
    const Rnn &p = c.p;
    return std::string(c.name) + " in=" + std::to_string(p.input) + " hidden=" + std::to_string(p.hidden) +
           " proj=" + std::to_string(p.proj) + " layers=" + std::to_string(p.layers) + (p.bidirectional ? " bi" : "") +
           (p.input_bias ? " bW" : "") + (p.recurrent_bias ? " bR" : "") + (p.skip_input ? " skip" : "") +
           (p.clip ? " clip" : "") + (c.masks ? " masks" : "") + " seed=" + std::to_string(seed());
}

std::vector<double> uniform(size_t n, double scale = 1.0) {
    std::uniform_real_distribution<double> u(-scale, scale);
    std::vector<double> v(n);
    for (double &e : v) e = u(rng());
    return v;
}

double dot(const std::vector<double> &a, const std::vector<double> &b) {
    double s = 0;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) s += a[i] * b[i];
    return s;
}

TEST(RnnReference, FiniteDifferences) {
    for (const FdCase &c : fd_cases()) {
        SCOPED_TRACE(describe(c));
        const Rnn &p = c.p;
        const int batch = int(c.len.size());
        const bool lstm = p.cell == RnnCell::Lstm;
        ref::RnnWeights w = ref::rnn_zero_weights(p);
        ref::fill_uniform(w, rng(), 0.7);
        ref::Seqs x = ref::uniform_seqs(c.len, p.input, rng());
        std::vector<double> hx = uniform(size_t(p.pseudo_layers()) * batch * p.proj);
        std::vector<double> cx = lstm ? uniform(size_t(p.pseudo_layers()) * batch * p.hidden) : std::vector<double>{};
        const ref::Seqs dy = ref::uniform_seqs(c.len, p.out_width(), rng());
        const std::vector<double> dhy = uniform(hx.size()), dcy = uniform(cx.size());
        ref::RnnMasks masks;
        if (c.masks) {
            std::bernoulli_distribution keep(0.6);
            masks.resize(p.layers - 1);
            for (ref::Seqs &m : masks) {
                m = ref::uniform_seqs(c.len, p.out_width(), rng());
                for (auto &s : m)
                    for (double &v : s) v = keep(rng()) ? 1 / 0.6 : 0.0;
            }
        }
        if (p.clip) {  // the clamp must change something, or its branch goes untested
            Rnn unclipped = p;
            unclipped.clip = false;
            EXPECT_NE(ref::rnn_forward(p, w, c.len, x, hx, cx, masks).cy,
                      ref::rnn_forward(unclipped, w, c.len, x, hx, cx, masks).cy);
        }
        const ref::RnnGradients g = ref::rnn_backward(p, w, c.len, x, hx, cx, dy, dhy, dcy, masks);
        const auto objective = [&] {
            const ref::RnnForwardResult r = ref::rnn_forward(p, w, c.len, x, hx, cx, masks);
            double f = dot(dhy, r.hy) + dot(dcy, r.cy);
            for (int b = 0; b < batch; ++b) f += dot(dy[b], r.y[b]);
            return f;
        };
        const double eps = 1e-5;
        const auto fd = [&](double &v) {
            const double v0 = v;
            v = v0 + eps;
            const double fp = objective();
            v = v0 - eps;
            const double fm = objective();
            v = v0;
            return (fp - fm) / (2 * eps);
        };
        const auto check = [&](std::vector<double> &param, const std::vector<double> &grad, const std::string &what) {
            ASSERT_EQ(param.size(), grad.size()) << what;
            std::vector<double> num(param.size());
            for (size_t i = 0; i < param.size(); ++i) num[i] = fd(param[i]);
            expect_close(grad, num, 1e-6, 1e-7, what);
        };
        for (int b = 0; b < batch; ++b) check(x[b], g.dx[b], "dx b=" + std::to_string(b));
        check(hx, g.dhx, "dhx");
        if (lstm) check(cx, g.dcx, "dcx");
        for (int pl = 0; pl < p.pseudo_layers(); ++pl)
            for (int id = 0; id < p.lin_layers(); ++id) {
                const std::string at = " pseudoLayer=" + std::to_string(pl) + " linLayerID=" + std::to_string(id);
                check(w[pl].m[id], g.dw[pl].m[id], "dW" + at);
                check(w[pl].b[id], g.dw[pl].b[id], "db" + at);
            }
    }
}

}  // namespace
