// The RNN API's own quick checks: descriptor round trips and every
// documented BAD_PARAM, the weight-space queries, the size queries, a
// forward pass of each cell against plain per-sequence loops in double, and
// the backward passes against central differences of the forward pass.
// (tests/test_rnn.cpp holds the full suite against tests/reference/.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "anydnn/anydnn.h"
#include "common/test_util.hpp"

using namespace anydnn_test;

namespace {

struct RnnDesc {
    anydnnRNNDescriptor_t d = nullptr;
    RnnDesc() { anydnnCreateRNNDescriptor(&d); }
    ~RnnDesc() { anydnnDestroyRNNDescriptor(d); }
    operator anydnnRNNDescriptor_t() const { return d; }
};
struct DataDesc {
    anydnnRNNDataDescriptor_t d = nullptr;
    DataDesc() { anydnnCreateRNNDataDescriptor(&d); }
    ~DataDesc() { anydnnDestroyRNNDataDescriptor(d); }
    operator anydnnRNNDataDescriptor_t() const { return d; }
};
struct TensorDesc {
    anydnnTensorDescriptor_t d = nullptr;
    TensorDesc() { anydnnCreateTensorDescriptor(&d); }
    ~TensorDesc() { anydnnDestroyTensorDescriptor(d); }
    operator anydnnTensorDescriptor_t() const { return d; }
};

// Everything one test problem needs.
struct Cfg {
    anydnnRNNMode_t mode = ANYDNN_LSTM;
    anydnnRNNBiasMode_t bias = ANYDNN_RNN_DOUBLE_BIAS;
    anydnnDirectionMode_t dir = ANYDNN_UNIDIRECTIONAL;
    anydnnRNNInputMode_t input_mode = ANYDNN_LINEAR_INPUT;
    anydnnDataType_t dt = ANYDNN_DATA_DOUBLE;
    int in = 3, hid = 4, proj = 4, layers = 1;
    anydnnRNNDataLayout_t layout = ANYDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED;
    int T = 3;
    std::vector<int> lengths = {3, 2};
    bool clip = false;
    double lclip = -0.6, rclip = 0.6;
    int dirs() const { return dir == ANYDNN_BIDIRECTIONAL ? 2 : 1; }
    int B() const { return static_cast<int>(lengths.size()); }
    int gates() const { return mode == ANYDNN_LSTM ? 4 : mode == ANYDNN_GRU ? 3 : 1; }
};

anydnnStatus_t set_rnn(anydnnRNNDescriptor_t d, const Cfg &c, anydnnDropoutDescriptor_t drop = nullptr) {
    const anydnnDataType_t prec = c.dt == ANYDNN_DATA_DOUBLE ? ANYDNN_DATA_DOUBLE : ANYDNN_DATA_FLOAT;
    anydnnStatus_t s = anydnnSetRNNDescriptor_v8(d, ANYDNN_RNN_ALGO_STANDARD, c.mode, c.bias, c.dir, c.input_mode,
                                                 c.dt, prec, ANYDNN_DEFAULT_MATH, c.in, c.hid, c.proj, c.layers,
                                                 drop, ANYDNN_RNN_PADDED_IO_ENABLED);
    if (s == ANYDNN_STATUS_SUCCESS && c.clip)
        s = anydnnRNNSetClip_v8(d, ANYDNN_RNN_CLIP_MINMAX, ANYDNN_NOT_PROPAGATE_NAN, c.lclip, c.rclip);
    return s;
}

// Plain double data of a problem: x[b][t][k], y[b][t][k], states [pl][b][k].
struct Data {
    std::vector<double> x, hx, cx, y, hy, cy;
};

double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng()); }

// The position of (b, t) in the caller's layout.
int64_t position(const Cfg &c, int b, int t) {
    switch (c.layout) {
    case ANYDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED: return int64_t{t} * c.B() + b;
    case ANYDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED: return int64_t{b} * c.T + t;
    default: {
        int64_t p = 0;
        for (int s = 0; s < t; ++s)
            for (int j = 0; j < c.B(); ++j) p += c.lengths[j] > s;
        for (int j = 0; j < b; ++j) p += c.lengths[j] > t;
        return p;
    }
    }
}
int64_t positions(const Cfg &c) {
    if (c.layout != ANYDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED) return int64_t{c.T} * c.B();
    int64_t n = 0;
    for (int l : c.lengths) n += l;
    return n;
}

double sigm(double v) { return 1 / (1 + std::exp(-v)); }

// The whole API run of one problem, with the weights and data as doubles.
struct Problem {
    Cfg c;
    Handle h;
    RnnDesc rnn;
    DataDesc xd, yd;
    TensorDesc hd, cd;
    size_t wbytes = 0, ws_bytes = 0, rs_bytes = 0;
    std::vector<unsigned char> w, ws, rs;
    size_t esize;
    std::unique_ptr<Tensor> scratch;  // one element: HALF / BFLOAT16 conversions

    explicit Problem(const Cfg &cfg, anydnnDropoutDescriptor_t drop = nullptr, const std::string &isa = "generic",
                     int threads = 2)
        : c(cfg), h(isa, threads) {
        if (!h.available) return;  // the caller skips
        esize = dtype_size(c.dt);
        scratch = std::make_unique<Tensor>(packed({1, 1, 1}), c.dt);
        EXPECT_OK(set_rnn(rnn, c, drop));
        const int P = c.proj, L = c.layers * c.dirs();
        double fill = -7;
        float fillf = -7;
        void *fp = c.dt == ANYDNN_DATA_DOUBLE ? static_cast<void *>(&fill) : static_cast<void *>(&fillf);
        EXPECT_OK(anydnnSetRNNDataDescriptor(xd, c.dt, c.layout, c.T, c.B(), c.in, c.lengths.data(), fp));
        EXPECT_OK(anydnnSetRNNDataDescriptor(yd, c.dt, c.layout, c.T, c.B(), P * c.dirs(), c.lengths.data(), fp));
        const int hdims[3] = {L, c.B(), P}, cdims[3] = {L, c.B(), c.hid};
        EXPECT_OK(anydnnSetTensorNdDescriptorEx(hd, ANYDNN_TENSOR_NCHW, c.dt, 3, hdims));
        EXPECT_OK(anydnnSetTensorNdDescriptorEx(cd, ANYDNN_TENSOR_NCHW, c.dt, 3, cdims));
        EXPECT_OK(anydnnGetRNNWeightSpaceSize(h, rnn, &wbytes));
        EXPECT_OK(anydnnGetRNNTempSpaceSizes(h, rnn, ANYDNN_FWD_MODE_TRAINING, xd, &ws_bytes, &rs_bytes));
        w.resize(wbytes);
        ws.resize(ws_bytes);
        rs.resize(rs_bytes);
        for (size_t i = 0; i < wbytes / esize; ++i) set(w.data(), i, uniform(-0.6, 0.6));
    }
    double get(const void *p, size_t i) const {
        if (esize == 8) return static_cast<const double *>(p)[i];
        if (esize == 4) return static_cast<const float *>(p)[i];
        std::memcpy(scratch->data(), static_cast<const unsigned char *>(p) + 2 * i, 2);
        return scratch->at_offset(0);
    }
    void set(void *p, size_t i, double v) const {
        if (esize == 8) {
            static_cast<double *>(p)[i] = v;
        } else if (esize == 4) {
            static_cast<float *>(p)[i] = static_cast<float>(v);
        } else {
            scratch->set_offset(0, v);
            std::memcpy(static_cast<unsigned char *>(p) + 2 * i, scratch->data(), 2);
        }
    }
    // Matrix or bias (rows x cols) of a linLayerID as doubles; empty when absent.
    std::vector<double> piece(int pl, int id, bool bias, const std::vector<unsigned char> &space, int *rows,
                              int *cols) const {
        TensorDesc md, bd;
        void *ma = nullptr, *ba = nullptr;
        EXPECT_OK(anydnnGetRNNWeightParams(h, rnn, pl, wbytes, space.data(), id, md, &ma, bd, &ba));
        anydnnDataType_t dt;
        int nd, dims[3] = {}, strides[3];
        EXPECT_OK(anydnnGetTensorNdDescriptor(bias ? bd : md, 3, &dt, &nd, dims, strides));
        void *a = bias ? ba : ma;
        if (a == nullptr) {
            EXPECT_EQ(nd, 0);
            *rows = *cols = 0;
            return {};
        }
        *rows = dims[1];
        *cols = dims[2];
        std::vector<double> v(size_t(dims[1]) * dims[2]);
        const size_t off = (static_cast<unsigned char *>(a) - space.data()) / esize;
        for (size_t i = 0; i < v.size(); ++i) v[i] = get(space.data(), off + i);
        return v;
    }

    // The reference: each sequence on its own, plain loops in double.
    void reference(const Data &in, Data *out, bool drop_all = false) const {
        const int P = c.proj, H = c.hid, G = c.gates(), D = c.dirs(), B = c.B();
        out->y.assign(size_t(B) * c.T * P * D, 0);
        out->hy.assign(size_t(c.layers) * D * B * P, 0);
        out->cy.assign(size_t(c.layers) * D * B * H, 0);
        for (int b = 0; b < B; ++b) {
            const int len = c.lengths[b];
            int width = c.in;
            std::vector<std::vector<double>> u(len);
            for (int t = 0; t < len; ++t)
                u[t].assign(in.x.begin() + (size_t(b) * c.T + t) * c.in,
                            in.x.begin() + (size_t(b) * c.T + t + 1) * c.in);
            for (int l = 0; l < c.layers; ++l) {
                std::vector<std::vector<double>> o(len, std::vector<double>(size_t(P) * D));
                for (int d = 0; d < D; ++d) {
                    const int pl = l * D + d;
                    int r, k;
                    std::vector<std::vector<double>> W(2 * G), bias(2 * G);
                    for (int id = 0; id < 2 * G; ++id) {
                        W[id] = piece(pl, id, false, w, &r, &k);
                        bias[id] = piece(pl, id, true, w, &r, &k);
                        if (bias[id].empty()) bias[id].assign(H, 0);
                    }
                    std::vector<double> Pm;
                    if (c.mode == ANYDNN_LSTM) Pm = piece(pl, 2 * G, false, w, &r, &k);
                    std::vector<double> hv(in.hx.begin() + (size_t(pl) * B + b) * P,
                                           in.hx.begin() + (size_t(pl) * B + b + 1) * P);
                    std::vector<double> cv(H, 0);
                    if (c.mode == ANYDNN_LSTM)
                        cv.assign(in.cx.begin() + (size_t(pl) * B + b) * H,
                                  in.cx.begin() + (size_t(pl) * B + b + 1) * H);
                    for (int s = 0; s < len; ++s) {
                        const int t = d == 0 ? s : len - 1 - s;
                        std::vector<double> wx(size_t(G) * H), rh(size_t(G) * H);
                        for (int g = 0; g < G; ++g)
                            for (int j = 0; j < H; ++j) {
                                double a = bias[g][j], e = bias[G + g][j];
                                if (W[g].empty()) a += u[t][j];
                                else
                                    for (int q = 0; q < width; ++q) a += W[g][size_t(j) * width + q] * u[t][q];
                                for (int q = 0; q < P; ++q) e += W[G + g][size_t(j) * P + q] * hv[q];
                                wx[size_t(g) * H + j] = a;
                                rh[size_t(g) * H + j] = e;
                            }
                        std::vector<double> hn(H);
                        for (int j = 0; j < H; ++j) {
                            auto at = [&](int g) { return wx[size_t(g) * H + j] + rh[size_t(g) * H + j]; };
                            if (c.mode == ANYDNN_RNN_RELU) hn[j] = std::max(0.0, at(0));
                            else if (c.mode == ANYDNN_RNN_TANH) hn[j] = std::tanh(at(0));
                            else if (c.mode == ANYDNN_LSTM) {
                                double cn = sigm(at(1)) * cv[j] + sigm(at(0)) * std::tanh(at(2));
                                if (c.clip) cn = std::min(c.rclip, std::max(c.lclip, cn));
                                cv[j] = cn;
                                hn[j] = sigm(at(3)) * std::tanh(cn);
                            } else {
                                const double rr = sigm(at(0)), z = sigm(at(1));
                                const double n = std::tanh(wx[2 * H + j] + rr * rh[2 * H + j]);
                                hn[j] = (1 - z) * n + z * hv[j];
                            }
                        }
                        if (!Pm.empty()) {
                            std::vector<double> hp(P, 0);
                            for (int q = 0; q < P; ++q)
                                for (int j = 0; j < H; ++j) hp[q] += Pm[size_t(q) * H + j] * hn[j];
                            hn = hp;
                        }
                        hv = hn;
                        for (int q = 0; q < P; ++q) o[t][size_t(d) * P + q] = hv[q];
                    }
                    for (int q = 0; q < P; ++q) out->hy[(size_t(pl) * B + b) * P + q] = hv[q];
                    if (c.mode == ANYDNN_LSTM)
                        for (int j = 0; j < H; ++j) out->cy[(size_t(pl) * B + b) * H + j] = cv[j];
                }
                u = o;
                if (drop_all && l + 1 < c.layers)
                    for (auto &v : u) std::fill(v.begin(), v.end(), 0.0);
                width = P * D;
            }
            for (int t = 0; t < len; ++t)
                for (int q = 0; q < P * D; ++q) out->y[(size_t(b) * c.T + t) * P * D + q] = u[t][q];
        }
    }

    // Canonical [b][t][k] <-> the caller's layout.
    std::vector<unsigned char> to_layout(const std::vector<double> &v, int k) const {
        std::vector<unsigned char> o(positions(c) * k * esize);
        for (int b = 0; b < c.B(); ++b)
            for (int t = 0; t < c.lengths[b]; ++t)
                for (int q = 0; q < k; ++q) set(o.data(), position(c, b, t) * k + q, v[(size_t(b) * c.T + t) * k + q]);
        return o;
    }
    std::vector<double> from_layout(const std::vector<unsigned char> &o, int k) const {
        std::vector<double> v(size_t(c.B()) * c.T * k, 0);
        for (int b = 0; b < c.B(); ++b)
            for (int t = 0; t < c.lengths[b]; ++t)
                for (int q = 0; q < k; ++q) v[(size_t(b) * c.T + t) * k + q] = get(o.data(), position(c, b, t) * k + q);
        return v;
    }
    std::vector<unsigned char> raw(const std::vector<double> &v) const {
        std::vector<unsigned char> o(v.size() * esize);
        for (size_t i = 0; i < v.size(); ++i) set(o.data(), i, v[i]);
        return o;
    }
    std::vector<double> cooked(const std::vector<unsigned char> &o) const {
        std::vector<double> v(o.size() / esize);
        for (size_t i = 0; i < v.size(); ++i) v[i] = get(o.data(), i);
        return v;
    }

    Data random_data() const {
        Data d;
        const int P = c.proj, L = c.layers * c.dirs();
        d.x.resize(size_t(c.B()) * c.T * c.in);
        for (double &v : d.x) v = uniform(-1, 1);
        d.hx.resize(size_t(L) * c.B() * P);
        for (double &v : d.hx) v = uniform(-1, 1);
        d.cx.resize(size_t(L) * c.B() * c.hid);
        for (double &v : d.cx) v = uniform(-1, 1);
        return d;
    }

    // The library's forward pass; y in canonical order, padding checked.
    anydnnStatus_t forward(anydnnForwardMode_t mode, const Data &in, Data *out) {
        const int P = c.proj, D = c.dirs();
        auto x = to_layout(in.x, c.in);
        auto hx = raw(in.hx), cx = raw(in.cx);
        std::vector<unsigned char> y(positions(c) * P * D * esize, 0xff), hy(hx.size(), 0xff), cy(cx.size(), 0xff);
        const anydnnStatus_t s =
            anydnnRNNForward(h, rnn, mode, nullptr, xd, x.data(), yd, y.data(), hd, hx.data(), hy.data(), cd,
                             cx.data(), cy.data(), wbytes, w.data(), ws_bytes, ws.data(), rs_bytes, rs.data());
        if (s != ANYDNN_STATUS_SUCCESS) return s;
        out->y = from_layout(y, P * D);
        out->hy = cooked(hy);
        if (c.mode == ANYDNN_LSTM) out->cy = cooked(cy);
        else out->cy.clear();  // cy is LSTM's only
        if (c.layout != ANYDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED) {
            for (int b = 0; b < c.B(); ++b)
                for (int t = c.lengths[b]; t < c.T; ++t)
                    for (int q = 0; q < P * D; ++q)
                        EXPECT_EQ(get(y.data(), position(c, b, t) * P * D + q), -7.0)
                            << "padding b " << b << " t " << t;
        }
        return s;
    }
};

void expect_near_all(const std::vector<double> &got, const std::vector<double> &want, double tol, const char *what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (size_t i = 0; i < got.size(); ++i)
        EXPECT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i]))) << what << "[" << i << "]";
}

// ---- Descriptors ------------------------------------------------------------------------

TEST(RnnApi, DescriptorRoundTrip) {
    RnnDesc d;
    EXPECT_STATUS(anydnnGetRNNDescriptor_v8(d, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                            nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr),
                  ANYDNN_STATUS_BAD_PARAM);
    anydnnDropoutDescriptor_t drop;
    ASSERT_OK(anydnnCreateDropoutDescriptor(&drop));
    ASSERT_OK(anydnnSetRNNDescriptor_v8(d, ANYDNN_RNN_ALGO_PERSIST_STATIC, ANYDNN_LSTM, ANYDNN_RNN_SINGLE_REC_BIAS,
                                        ANYDNN_BIDIRECTIONAL, ANYDNN_LINEAR_INPUT, ANYDNN_DATA_HALF,
                                        ANYDNN_DATA_HALF, ANYDNN_TENSOR_OP_MATH, 5, 8, 3, 2, drop,
                                        ANYDNN_RNN_PADDED_IO_ENABLED));
    anydnnRNNAlgo_t algo;
    anydnnRNNMode_t mode;
    anydnnRNNBiasMode_t bias;
    anydnnDirectionMode_t dir;
    anydnnRNNInputMode_t im;
    anydnnDataType_t dt, prec;
    anydnnMathType_t mt;
    int32_t in, hid, proj, layers;
    anydnnDropoutDescriptor_t dd;
    uint32_t aux;
    ASSERT_OK(anydnnGetRNNDescriptor_v8(d, &algo, &mode, &bias, &dir, &im, &dt, &prec, &mt, &in, &hid, &proj,
                                        &layers, &dd, &aux));
    EXPECT_EQ(algo, ANYDNN_RNN_ALGO_PERSIST_STATIC);
    EXPECT_EQ(mode, ANYDNN_LSTM);
    EXPECT_EQ(bias, ANYDNN_RNN_SINGLE_REC_BIAS);
    EXPECT_EQ(dir, ANYDNN_BIDIRECTIONAL);
    EXPECT_EQ(im, ANYDNN_LINEAR_INPUT);
    EXPECT_EQ(dt, ANYDNN_DATA_HALF);
    EXPECT_EQ(prec, ANYDNN_DATA_HALF);
    EXPECT_EQ(mt, ANYDNN_TENSOR_OP_MATH);
    EXPECT_EQ(in, 5);
    EXPECT_EQ(hid, 8);
    EXPECT_EQ(proj, 3);
    EXPECT_EQ(layers, 2);
    EXPECT_EQ(dd, drop);
    EXPECT_EQ(aux, ANYDNN_RNN_PADDED_IO_ENABLED);
    anydnnDestroyDropoutDescriptor(drop);
}

TEST(RnnApi, SetDescriptorBadParams) {
    RnnDesc d;
    Cfg ok;
    ok.dt = ANYDNN_DATA_FLOAT;
    ASSERT_OK(set_rnn(d, ok));
    auto bad = [&](const char *what, auto &&change) {
        anydnnRNNAlgo_t algo = ANYDNN_RNN_ALGO_STANDARD;
        anydnnRNNMode_t mode = ANYDNN_LSTM;
        anydnnRNNBiasMode_t bias = ANYDNN_RNN_DOUBLE_BIAS;
        anydnnDirectionMode_t dir = ANYDNN_UNIDIRECTIONAL;
        anydnnRNNInputMode_t im = ANYDNN_LINEAR_INPUT;
        anydnnDataType_t dt = ANYDNN_DATA_FLOAT, prec = ANYDNN_DATA_FLOAT;
        anydnnMathType_t mt = ANYDNN_DEFAULT_MATH;
        int32_t in = 6, hid = 6, proj = 6, layers = 1;
        uint32_t aux = 0;
        change(algo, mode, bias, dir, im, dt, prec, mt, in, hid, proj, layers, aux);
        SCOPED_TRACE(what);
        EXPECT_STATUS(anydnnSetRNNDescriptor_v8(d, algo, mode, bias, dir, im, dt, prec, mt, in, hid, proj, layers,
                                                nullptr, aux),
                      ANYDNN_STATUS_BAD_PARAM);
        int32_t got_in;
        ASSERT_OK(anydnnGetRNNDescriptor_v8(d, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                            nullptr, &got_in, nullptr, nullptr, nullptr, nullptr, nullptr));
        EXPECT_EQ(got_in, ok.in) << what << ": a failed set changed the descriptor";
    };
    bad("algo", [](auto &a, auto &...) { a = static_cast<anydnnRNNAlgo_t>(7); });
    bad("mode", [](auto &, auto &m, auto &...) { m = static_cast<anydnnRNNMode_t>(4); });
    bad("bias", [](auto &, auto &, auto &b, auto &...) { b = static_cast<anydnnRNNBiasMode_t>(-1); });
    bad("dir", [](auto &, auto &, auto &, auto &d, auto &...) { d = static_cast<anydnnDirectionMode_t>(2); });
    bad("input", [](auto &, auto &, auto &, auto &, auto &i, auto &...) { i = static_cast<anydnnRNNInputMode_t>(2); });
    bad("dt", [](auto &, auto &, auto &, auto &, auto &, auto &dt, auto &...) { dt = ANYDNN_DATA_INT8; });
    bad("prec", [](auto &, auto &, auto &, auto &, auto &, auto &, auto &p, auto &...) { p = ANYDNN_DATA_DOUBLE; });
    bad("math", [](auto &, auto &, auto &, auto &, auto &, auto &, auto &, auto &m, auto &...) {
        m = static_cast<anydnnMathType_t>(9);
    });
    bad("in", [](auto &, auto &, auto &, auto &, auto &, auto &, auto &, auto &, auto &in, auto &...) { in = 0; });
    bad("hid", [](auto &, auto &, auto &, auto &, auto &, auto &, auto &, auto &, auto &, auto &h, auto &...) {
        h = 0;
    });
    bad("proj>hid", [](auto &, auto &, auto &, auto &, auto &, auto &, auto &, auto &, auto &, auto &, auto &p,
                       auto &...) { p = 7; });
    bad("proj0", [](auto &, auto &, auto &, auto &, auto &, auto &, auto &, auto &, auto &, auto &, auto &p,
                    auto &...) { p = 0; });
    bad("proj non-LSTM", [](auto &, auto &m, auto &, auto &, auto &, auto &, auto &, auto &, auto &, auto &, auto &p,
                            auto &...) {
        m = ANYDNN_GRU;
        p = 3;
    });
    bad("layers", [](auto &, auto &, auto &, auto &, auto &, auto &, auto &, auto &, auto &, auto &, auto &,
                     auto &l, auto &) { l = 0; });
    bad("skip", [](auto &, auto &, auto &, auto &, auto &im, auto &, auto &, auto &, auto &in, auto &...) {
        im = ANYDNN_SKIP_INPUT;
        in = 5;
    });
    bad("aux", [](auto &, auto &, auto &, auto &, auto &, auto &, auto &, auto &, auto &, auto &, auto &, auto &,
                  auto &a) { a = 6; });
    bad("bf16/half", [](auto &, auto &, auto &, auto &, auto &, auto &dt, auto &p, auto &...) {
        dt = ANYDNN_DATA_BFLOAT16;
        p = ANYDNN_DATA_HALF;
    });
    EXPECT_STATUS(anydnnSetRNNDescriptor_v8(nullptr, ANYDNN_RNN_ALGO_STANDARD, ANYDNN_LSTM, ANYDNN_RNN_NO_BIAS,
                                            ANYDNN_UNIDIRECTIONAL, ANYDNN_LINEAR_INPUT, ANYDNN_DATA_FLOAT,
                                            ANYDNN_DATA_FLOAT, ANYDNN_DEFAULT_MATH, 1, 1, 1, 1, nullptr, 0),
                  ANYDNN_STATUS_BAD_PARAM);
}

TEST(RnnApi, Clip) {
    RnnDesc d;
    anydnnRNNClipMode_t m;
    anydnnNanPropagation_t n;
    double l, r;
    ASSERT_OK(anydnnRNNSetClip_v8(d, ANYDNN_RNN_CLIP_MINMAX, ANYDNN_PROPAGATE_NAN, -2, 3));
    ASSERT_OK(anydnnRNNGetClip_v8(d, &m, &n, &l, &r));
    EXPECT_EQ(m, ANYDNN_RNN_CLIP_MINMAX);
    EXPECT_EQ(n, ANYDNN_PROPAGATE_NAN);
    EXPECT_EQ(l, -2);
    EXPECT_EQ(r, 3);
    EXPECT_STATUS(anydnnRNNSetClip_v8(d, ANYDNN_RNN_CLIP_MINMAX, ANYDNN_PROPAGATE_NAN, 3, -2), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnRNNSetClip_v8(d, ANYDNN_RNN_CLIP_MINMAX, ANYDNN_PROPAGATE_NAN, NAN, 1),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnRNNSetClip_v8(d, static_cast<anydnnRNNClipMode_t>(5), ANYDNN_PROPAGATE_NAN, 0, 1),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnRNNSetClip_v8(d, ANYDNN_RNN_CLIP_NONE, static_cast<anydnnNanPropagation_t>(5), 0, 1),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnRNNSetClip_v8(nullptr, ANYDNN_RNN_CLIP_NONE, ANYDNN_PROPAGATE_NAN, 0, 1),
                  ANYDNN_STATUS_BAD_PARAM);
    ASSERT_OK(anydnnRNNGetClip_v8(d, &m, &n, &l, &r));
    EXPECT_EQ(l, -2);
    Handle h("generic");
    EXPECT_STATUS(anydnnBuildRNNDynamic(h, d, 4), ANYDNN_STATUS_BAD_PARAM);  // never set
    Cfg c;
    ASSERT_OK(set_rnn(d, c));
    EXPECT_OK(anydnnBuildRNNDynamic(h, d, 4));
    EXPECT_STATUS(anydnnBuildRNNDynamic(h, d, 0), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnBuildRNNDynamic(nullptr, d, 1), ANYDNN_STATUS_BAD_PARAM);
}

TEST(RnnApi, DataDescriptor) {
    DataDesc d;
    const int lengths[3] = {4, 0, 2};
    float fill = 1.5f;
    EXPECT_STATUS(anydnnGetRNNDataDescriptor(d, nullptr, nullptr, nullptr, nullptr, nullptr, 0, nullptr, nullptr),
                  ANYDNN_STATUS_BAD_PARAM);
    ASSERT_OK(anydnnSetRNNDataDescriptor(d, ANYDNN_DATA_FLOAT, ANYDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED, 4, 3, 7,
                                         lengths, &fill));
    anydnnDataType_t dt;
    anydnnRNNDataLayout_t layout;
    int T, B, V, got[3] = {9, 9, 9};
    float f = 0;
    ASSERT_OK(anydnnGetRNNDataDescriptor(d, &dt, &layout, &T, &B, &V, 2, got, &f));
    EXPECT_EQ(dt, ANYDNN_DATA_FLOAT);
    EXPECT_EQ(layout, ANYDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED);
    EXPECT_EQ(T, 4);
    EXPECT_EQ(B, 3);
    EXPECT_EQ(V, 7);
    EXPECT_EQ(got[0], 4);
    EXPECT_EQ(got[1], 0);
    EXPECT_EQ(got[2], 9);
    EXPECT_EQ(f, 1.5f);
    EXPECT_STATUS(anydnnGetRNNDataDescriptor(d, nullptr, nullptr, nullptr, nullptr, nullptr, -1, nullptr, nullptr),
                  ANYDNN_STATUS_BAD_PARAM);
    auto set = [&](anydnnDataType_t t, int layout_, int Tm, int Bn, int Vn, const int *l) {
        return anydnnSetRNNDataDescriptor(d, t, static_cast<anydnnRNNDataLayout_t>(layout_), Tm, Bn, Vn, l, nullptr);
    };
    const int inc[3] = {1, 2, 2}, too_long[3] = {5, 1, 1}, negative[3] = {1, -1, 1};
    EXPECT_STATUS(set(ANYDNN_DATA_FLOAT, 0, 4, 3, 7, nullptr), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(set(ANYDNN_DATA_INT32, 0, 4, 3, 7, lengths), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(set(ANYDNN_DATA_FLOAT, 3, 4, 3, 7, lengths), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(set(ANYDNN_DATA_FLOAT, 0, 0, 3, 7, lengths), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(set(ANYDNN_DATA_FLOAT, 0, 4, 0, 7, lengths), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(set(ANYDNN_DATA_FLOAT, 0, 4, 3, 0, lengths), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(set(ANYDNN_DATA_FLOAT, 0, 4, 3, 7, too_long), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(set(ANYDNN_DATA_FLOAT, 0, 4, 3, 7, negative), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(set(ANYDNN_DATA_FLOAT, 1, 4, 3, 7, inc), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_OK(set(ANYDNN_DATA_FLOAT, 0, 4, 3, 7, inc));
    ASSERT_OK(anydnnGetRNNDataDescriptor(d, nullptr, nullptr, nullptr, nullptr, nullptr, 3, got, &f));
    EXPECT_EQ(got[0], 1);
    EXPECT_EQ(f, 0.0f);  // no fill set
}

// ---- Weights and sizes -------------------------------------------------------------------

TEST(RnnApi, WeightParams) {
    Handle h("generic");
    RnnDesc d;
    Cfg c;
    c.dt = ANYDNN_DATA_FLOAT;
    c.in = 5;
    c.hid = 6;
    c.proj = 4;
    c.layers = 2;
    c.dir = ANYDNN_BIDIRECTIONAL;
    c.bias = ANYDNN_RNN_SINGLE_INP_BIAS;
    ASSERT_OK(set_rnn(d, c));
    size_t bytes = 0;
    ASSERT_OK(anydnnGetRNNWeightSpaceSize(h, d, &bytes));
    // Per pseudo-layer: W 4H x in, R 4H x P, proj P x H, bW 4H.
    const size_t l0 = 24 * 5 + 24 * 4 + 4 * 6 + 24, l1 = 24 * 8 + 24 * 4 + 4 * 6 + 24;
    EXPECT_EQ(bytes, 4 * (2 * l0 + 2 * l1));
    std::vector<unsigned char> w(bytes);
    TensorDesc md, bd;
    void *ma, *ba;
    anydnnDataType_t dt;
    int nd, dims[3], strides[3];
    std::vector<std::pair<void *, size_t>> seen;
    for (int pl = 0; pl < 4; ++pl)
        for (int id = 0; id < 9; ++id) {
            ASSERT_OK(anydnnGetRNNWeightParams(h, d, pl, bytes, w.data(), id, md, &ma, bd, &ba));
            ASSERT_OK(anydnnGetTensorNdDescriptor(md, 3, &dt, &nd, dims, strides));
            ASSERT_NE(ma, nullptr);
            EXPECT_EQ(nd, 3);
            EXPECT_EQ(dt, ANYDNN_DATA_FLOAT);
            const int rows = id == 8 ? 4 : 6, cols = id == 8 ? 6 : id >= 4 ? 4 : pl < 2 ? 5 : 8;
            EXPECT_EQ(dims[0], 1);
            EXPECT_EQ(dims[1], rows) << pl << " " << id;
            EXPECT_EQ(dims[2], cols) << pl << " " << id;
            EXPECT_EQ(strides[1], cols);
            EXPECT_EQ(strides[2], 1);
            seen.push_back({ma, size_t(rows) * cols * 4});
            ASSERT_OK(anydnnGetTensorNdDescriptor(bd, 3, &dt, &nd, dims, strides));
            if (id < 4) {
                ASSERT_NE(ba, nullptr);
                EXPECT_EQ(nd, 3);
                EXPECT_EQ(dims[1], 6);
                EXPECT_EQ(dims[2], 1);
                seen.push_back({ba, 24});
            } else {
                EXPECT_EQ(ba, nullptr);
                EXPECT_EQ(nd, 0);
            }
        }
    // Disjoint pieces covering the space exactly.
    std::sort(seen.begin(), seen.end());
    unsigned char *at = w.data();
    for (auto &[p, n] : seen) {
        EXPECT_EQ(static_cast<unsigned char *>(p), at);
        at = static_cast<unsigned char *>(p) + n;
    }
    EXPECT_EQ(at, w.data() + bytes);
    EXPECT_STATUS(anydnnGetRNNWeightParams(h, d, 4, bytes, w.data(), 0, md, &ma, bd, &ba), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnGetRNNWeightParams(h, d, -1, bytes, w.data(), 0, md, &ma, bd, &ba), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnGetRNNWeightParams(h, d, 0, bytes, w.data(), 9, md, &ma, bd, &ba), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnGetRNNWeightParams(h, d, 0, bytes - 1, w.data(), 0, md, &ma, bd, &ba),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnGetRNNWeightParams(h, d, 0, bytes, nullptr, 0, md, &ma, bd, &ba), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnGetRNNWeightParams(nullptr, d, 0, bytes, w.data(), 0, md, &ma, bd, &ba),
                  ANYDNN_STATUS_BAD_PARAM);
    RnnDesc unset;
    EXPECT_STATUS(anydnnGetRNNWeightParams(h, unset, 0, bytes, w.data(), 0, md, &ma, bd, &ba), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnGetRNNWeightSpaceSize(h, unset, &bytes), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnGetRNNWeightSpaceSize(h, d, nullptr), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_OK(anydnnGetRNNWeightParams(h, d, 0, bytes, w.data(), 0, nullptr, nullptr, nullptr, nullptr));

    // SKIP_INPUT: no first-layer input matrices; GRU's ids stop at 5.
    c.mode = ANYDNN_GRU;
    c.proj = c.hid = c.in = 6;
    c.input_mode = ANYDNN_SKIP_INPUT;
    c.bias = ANYDNN_RNN_NO_BIAS;
    c.layers = 1;
    c.dir = ANYDNN_UNIDIRECTIONAL;
    ASSERT_OK(set_rnn(d, c));
    ASSERT_OK(anydnnGetRNNWeightSpaceSize(h, d, &bytes));
    EXPECT_EQ(bytes, 4u * 18 * 6);
    ASSERT_OK(anydnnGetRNNWeightParams(h, d, 0, bytes, w.data(), 1, md, &ma, bd, &ba));
    ASSERT_OK(anydnnGetTensorNdDescriptor(md, 3, &dt, &nd, dims, strides));
    EXPECT_EQ(ma, nullptr);
    EXPECT_EQ(nd, 0);
    ASSERT_OK(anydnnGetRNNWeightParams(h, d, 0, bytes, w.data(), 4, md, &ma, bd, &ba));
    EXPECT_EQ(ma, w.data() + 4 * 36);
    EXPECT_EQ(ba, nullptr);
    EXPECT_STATUS(anydnnGetRNNWeightParams(h, d, 0, bytes, w.data(), 6, md, &ma, bd, &ba), ANYDNN_STATUS_BAD_PARAM);
}

TEST(RnnApi, TempSpaceSizes) {
    Handle h("generic");
    RnnDesc d;
    Cfg c;
    c.dt = ANYDNN_DATA_FLOAT;
    ASSERT_OK(set_rnn(d, c));
    DataDesc x, x2, bad_v, bad_t;
    const int l1[2] = {3, 2}, l2[2] = {1, 0};
    ASSERT_OK(anydnnSetRNNDataDescriptor(x, ANYDNN_DATA_FLOAT, ANYDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, 3, 2, 3, l1,
                                         nullptr));
    ASSERT_OK(anydnnSetRNNDataDescriptor(x2, ANYDNN_DATA_FLOAT, ANYDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED, 3, 2, 3,
                                         l2, nullptr));
    ASSERT_OK(anydnnSetRNNDataDescriptor(bad_v, ANYDNN_DATA_FLOAT, ANYDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, 3, 2,
                                         4, l1, nullptr));
    ASSERT_OK(anydnnSetRNNDataDescriptor(bad_t, ANYDNN_DATA_DOUBLE, ANYDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, 3, 2,
                                         3, l1, nullptr));
    size_t ws = 0, rs = 7, ws2 = 0, rs2 = 0;
    ASSERT_OK(anydnnGetRNNTempSpaceSizes(h, d, ANYDNN_FWD_MODE_INFERENCE, x, &ws, &rs));
    EXPECT_GT(ws, 0u);
    EXPECT_EQ(rs, 0u);
    ASSERT_OK(anydnnGetRNNTempSpaceSizes(h, d, ANYDNN_FWD_MODE_TRAINING, x, &ws, &rs));
    EXPECT_GT(rs, 0u);
    ASSERT_OK(anydnnGetRNNTempSpaceSizes(h, d, ANYDNN_FWD_MODE_TRAINING, x2, &ws2, &rs2));
    EXPECT_EQ(ws, ws2);  // lengths and layout do not matter
    EXPECT_EQ(rs, rs2);
    EXPECT_OK(anydnnGetRNNTempSpaceSizes(h, d, ANYDNN_FWD_MODE_TRAINING, x, nullptr, nullptr));
    EXPECT_STATUS(anydnnGetRNNTempSpaceSizes(h, d, static_cast<anydnnForwardMode_t>(2), x, &ws, &rs),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnGetRNNTempSpaceSizes(h, d, ANYDNN_FWD_MODE_TRAINING, bad_v, &ws, &rs),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnGetRNNTempSpaceSizes(h, d, ANYDNN_FWD_MODE_TRAINING, bad_t, &ws, &rs),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnGetRNNTempSpaceSizes(h, d, ANYDNN_FWD_MODE_TRAINING, nullptr, &ws, &rs),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnGetRNNTempSpaceSizes(nullptr, d, ANYDNN_FWD_MODE_TRAINING, x, &ws, &rs),
                  ANYDNN_STATUS_BAD_PARAM);
    RnnDesc unset;
    EXPECT_STATUS(anydnnGetRNNTempSpaceSizes(h, unset, ANYDNN_FWD_MODE_TRAINING, x, &ws, &rs),
                  ANYDNN_STATUS_BAD_PARAM);
}

TEST(RnnApi, ForwardBadParams) {
    Cfg c;
    Problem p(c);
    Data in = p.random_data(), out;
    ASSERT_OK(p.forward(ANYDNN_FWD_MODE_TRAINING, in, &out));
    auto x = p.to_layout(in.x, c.in);
    std::vector<unsigned char> y(positions(c) * c.proj * 8, 0x5a), hx(p.raw(in.hx)), cx(p.raw(in.cx));
    const std::vector<unsigned char> y0 = y;
    auto run = [&](anydnnForwardMode_t mode, const int32_t *dev, anydnnRNNDataDescriptor_t xd, const void *xp,
                   anydnnRNNDataDescriptor_t yd, anydnnTensorDescriptor_t hd, anydnnTensorDescriptor_t cd,
                   size_t wb, const void *w, size_t wsb, size_t rsb) {
        return anydnnRNNForward(p.h, p.rnn, mode, dev, xd, xp, yd, y.data(), hd, hx.data(), nullptr, cd, cx.data(),
                                nullptr, wb, w, wsb, p.ws.data(), rsb, p.rs.data());
    };
    const auto T = ANYDNN_FWD_MODE_TRAINING;
    const int32_t wrong_len[2] = {3, 1};
    EXPECT_STATUS(run(static_cast<anydnnForwardMode_t>(3), nullptr, p.xd, x.data(), p.yd, p.hd, p.cd, p.wbytes,
                      p.w.data(), p.ws_bytes, p.rs_bytes),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(run(T, wrong_len, p.xd, x.data(), p.yd, p.hd, p.cd, p.wbytes, p.w.data(), p.ws_bytes, p.rs_bytes),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(run(T, nullptr, p.xd, nullptr, p.yd, p.hd, p.cd, p.wbytes, p.w.data(), p.ws_bytes, p.rs_bytes),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(run(T, nullptr, p.xd, x.data(), p.xd, p.hd, p.cd, p.wbytes, p.w.data(), p.ws_bytes, p.rs_bytes),
                  ANYDNN_STATUS_BAD_PARAM);  // y's vectorSize is x's (3), not projSize (4)
    TensorDesc wrong;
    const int wdims[3] = {2, 2, 4};
    ASSERT_OK(anydnnSetTensorNdDescriptorEx(wrong, ANYDNN_TENSOR_NCHW, c.dt, 3, wdims));
    EXPECT_STATUS(run(T, nullptr, p.xd, x.data(), p.yd, wrong, p.cd, p.wbytes, p.w.data(), p.ws_bytes, p.rs_bytes),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(run(T, nullptr, p.xd, x.data(), p.yd, p.hd, wrong, p.wbytes, p.w.data(), p.ws_bytes, p.rs_bytes),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(run(T, nullptr, p.xd, x.data(), p.yd, p.hd, nullptr, p.wbytes, p.w.data(), p.ws_bytes, p.rs_bytes),
                  ANYDNN_STATUS_BAD_PARAM);  // LSTM needs cDesc
    EXPECT_STATUS(run(T, nullptr, p.xd, x.data(), p.yd, nullptr, p.cd, p.wbytes, p.w.data(), p.ws_bytes, p.rs_bytes),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(run(T, nullptr, p.xd, x.data(), p.yd, p.hd, p.cd, p.wbytes - 1, p.w.data(), p.ws_bytes, p.rs_bytes),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(run(T, nullptr, p.xd, x.data(), p.yd, p.hd, p.cd, p.wbytes, nullptr, p.ws_bytes, p.rs_bytes),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(run(T, nullptr, p.xd, x.data(), p.yd, p.hd, p.cd, p.wbytes, p.w.data(), p.ws_bytes - 1, p.rs_bytes),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(run(T, nullptr, p.xd, x.data(), p.yd, p.hd, p.cd, p.wbytes, p.w.data(), p.ws_bytes, p.rs_bytes - 1),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_EQ(y, y0) << "a failed call wrote y";
    // Unpacked layouts need PADDED_IO_ENABLED.
    const anydnnDataType_t prec = ANYDNN_DATA_DOUBLE;
    ASSERT_OK(anydnnSetRNNDescriptor_v8(p.rnn, ANYDNN_RNN_ALGO_STANDARD, c.mode, c.bias, c.dir, c.input_mode, c.dt,
                                        prec, ANYDNN_DEFAULT_MATH, c.in, c.hid, c.proj, c.layers, nullptr, 0));
    EXPECT_STATUS(run(T, nullptr, p.xd, x.data(), p.yd, p.hd, p.cd, p.wbytes, p.w.data(), p.ws_bytes, p.rs_bytes),
                  ANYDNN_STATUS_BAD_PARAM);
    // Dropout 0 < p < 1 without states.
    anydnnDropoutDescriptor_t drop;
    ASSERT_OK(anydnnCreateDropoutDescriptor(&drop));
    ASSERT_OK(anydnnSetDropoutDescriptor(drop, p.h, 0.5f, nullptr, 0, 1));
    ASSERT_OK(anydnnSetRNNDescriptor_v8(p.rnn, ANYDNN_RNN_ALGO_STANDARD, c.mode, c.bias, c.dir, c.input_mode, c.dt,
                                        prec, ANYDNN_DEFAULT_MATH, c.in, c.hid, c.proj, c.layers, drop,
                                        ANYDNN_RNN_PADDED_IO_ENABLED));
    EXPECT_STATUS(run(T, nullptr, p.xd, x.data(), p.yd, p.hd, p.cd, p.wbytes, p.w.data(), p.ws_bytes, p.rs_bytes),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_OK(run(ANYDNN_FWD_MODE_INFERENCE, nullptr, p.xd, x.data(), p.yd, p.hd, p.cd, p.wbytes, p.w.data(),
                  p.ws_bytes, 0));
    anydnnDestroyDropoutDescriptor(drop);
}

// ---- Forward against the per-sequence loops ----------------------------------------------

struct FwdCase {
    const char *name;
    Cfg c;
};

std::vector<FwdCase> forward_cases() {
    std::vector<FwdCase> v;
    for (anydnnRNNMode_t m : {ANYDNN_RNN_RELU, ANYDNN_RNN_TANH, ANYDNN_LSTM, ANYDNN_GRU}) {
        Cfg c;
        c.mode = m;
        v.push_back({"uni", c});
        c.dir = ANYDNN_BIDIRECTIONAL;
        c.layers = 2;
        c.lengths = {2, 3, 0, 1};
        c.T = 4;
        c.layout = ANYDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED;
        v.push_back({"bidir2", c});
        c.layout = ANYDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED;
        c.lengths = {4, 3, 3, 1};
        c.bias = ANYDNN_RNN_SINGLE_REC_BIAS;
        v.push_back({"packed", c});
        c.dir = ANYDNN_UNIDIRECTIONAL;
        c.input_mode = ANYDNN_SKIP_INPUT;
        c.in = c.hid;
        c.bias = ANYDNN_RNN_SINGLE_INP_BIAS;
        v.push_back({"skip", c});
        c.input_mode = ANYDNN_LINEAR_INPUT;
        c.bias = ANYDNN_RNN_NO_BIAS;
        c.in = 5;
        c.layers = 3;
        v.push_back({"three", c});
    }
    Cfg c;
    c.proj = 2;
    c.dir = ANYDNN_BIDIRECTIONAL;
    c.layers = 2;
    v.push_back({"lstm proj", c});
    c.clip = true;
    v.push_back({"lstm proj clip", c});
    return v;
}

TEST(RnnApi, ForwardMatchesLoops) {
    for (const std::string &isa : isa_levels())
    for (anydnnDataType_t dt : {ANYDNN_DATA_DOUBLE, ANYDNN_DATA_FLOAT})
        for (const FwdCase &fc : forward_cases()) {
            Cfg c = fc.c;
            c.dt = dt;
            SCOPED_TRACE(isa + " " + fc.name + " mode " + std::to_string(c.mode) + " dt " + std::to_string(dt));
            Problem p(c, nullptr, isa);
            if (!p.h.available) continue;
            Data in = p.random_data(), got, want;
            p.reference(in, &want);
            const double tol = dt == ANYDNN_DATA_DOUBLE ? 1e-12 : 2e-5;
            for (anydnnForwardMode_t mode : {ANYDNN_FWD_MODE_INFERENCE, ANYDNN_FWD_MODE_TRAINING}) {
                ASSERT_OK(p.forward(mode, in, &got));
                expect_near_all(got.y, want.y, tol, "y");
                expect_near_all(got.hy, want.hy, tol, "hy");
                if (c.mode == ANYDNN_LSTM) expect_near_all(got.cy, want.cy, tol, "cy");
            }
        }
}

// A batch large enough that the GEMMs, the cell and the row passes split
// over threads: against the loops, and bitwise the same on 1 and 2 threads
// through the backward passes.
TEST(RnnApi, LargeBatchThreads) {
    for (anydnnRNNMode_t m : {ANYDNN_LSTM, ANYDNN_GRU}) {
        SCOPED_TRACE("mode " + std::to_string(m));
        Cfg c;
        c.mode = m;
        c.dt = ANYDNN_DATA_FLOAT;
        c.in = 40;
        c.hid = c.proj = 96;  // cell rows split at ~43 rows per thread
        c.layers = 2;
        c.dir = ANYDNN_BIDIRECTIONAL;
        c.T = 4;
        c.lengths.resize(120);
        for (int &l : c.lengths) l = static_cast<int>(rng()() % 4) + 1;
        c.lengths[7] = 0;
        Problem p(c, nullptr, "generic", 2);
        Data in = p.random_data(), got, want;
        p.reference(in, &want);
        ASSERT_OK(p.forward(ANYDNN_FWD_MODE_TRAINING, in, &got));
        expect_near_all(got.y, want.y, 1e-4, "y");
        expect_near_all(got.hy, want.hy, 1e-4, "hy");
        // The same problem on 1 thread, through the backward passes.
        Problem q(c, nullptr, "generic", 1);
        q.w = p.w;
        Data got1;
        ASSERT_OK(q.forward(ANYDNN_FWD_MODE_TRAINING, in, &got1));
        EXPECT_EQ(got.y, got1.y);
        std::vector<std::vector<unsigned char>> grads;
        for (Problem *r : {&p, &q}) {
            auto x = r->to_layout(in.x, c.in), y = r->to_layout(got.y, c.proj * 2), dy = y;
            auto hx = r->raw(in.hx), cx = r->raw(in.cx);
            std::vector<unsigned char> dx(x.size()), dhx(hx.size()), dcx(cx.size()), dw(r->wbytes);
            ASSERT_OK(anydnnRNNBackwardData_v8(r->h, r->rnn, nullptr, r->yd, y.data(), dy.data(), r->xd, dx.data(),
                                               r->hd, hx.data(), hx.data(), dhx.data(), r->cd, cx.data(), cx.data(),
                                               dcx.data(), r->wbytes, r->w.data(), r->ws_bytes, r->ws.data(),
                                               r->rs_bytes, r->rs.data()));
            ASSERT_OK(anydnnRNNBackwardWeights_v8(r->h, r->rnn, ANYDNN_WGRAD_MODE_SET, nullptr, r->xd, x.data(), r->hd,
                                                  hx.data(), r->yd, y.data(), r->wbytes, dw.data(), r->ws_bytes,
                                                  r->ws.data(), r->rs_bytes, r->rs.data()));
            for (auto *v : {&dx, &dhx, &dcx, &dw}) grads.push_back(*v);
        }
        for (size_t i = 0; i < 4; ++i) EXPECT_EQ(grads[i], grads[i + 4]) << "gradient " << i;
    }
}

// HALF and BFLOAT16 storage, computed in float: the outputs are one
// rounding away from the double loops on the rounded inputs.
TEST(RnnApi, HalfAndBfloat16) {
    for (anydnnDataType_t dt : {ANYDNN_DATA_HALF, ANYDNN_DATA_BFLOAT16})
        for (anydnnRNNMode_t m : {ANYDNN_LSTM, ANYDNN_GRU}) {
            SCOPED_TRACE(std::string(dtype_name(dt)) + " mode " + std::to_string(m));
            Cfg c;
            c.dt = dt;
            c.mode = m;
            c.dir = ANYDNN_BIDIRECTIONAL;
            c.layers = 2;
            if (m == ANYDNN_LSTM) c.proj = 3;
            Problem p(c);
            Data in = p.random_data(), got, want;
            for (auto *v : {&in.x, &in.hx, &in.cx})
                for (double &e : *v) e = round_to(dt, e);
            p.reference(in, &want);
            const double tol = dt == ANYDNN_DATA_HALF ? 4e-3 : 2e-2;
            ASSERT_OK(p.forward(ANYDNN_FWD_MODE_TRAINING, in, &got));
            expect_near_all(got.y, want.y, tol, "y");
            expect_near_all(got.hy, want.hy, tol, "hy");
            if (m == ANYDNN_LSTM) expect_near_all(got.cy, want.cy, tol, "cy");
            // The backward passes run and write finite gradients.
            auto x = p.to_layout(in.x, c.in), y = p.to_layout(got.y, c.proj * 2), dy = y;
            std::vector<unsigned char> dx(x.size()), dw(p.wbytes);
            ASSERT_OK(anydnnRNNBackwardData_v8(p.h, p.rnn, nullptr, p.yd, y.data(), dy.data(), p.xd, dx.data(), p.hd,
                                               nullptr, nullptr, nullptr, p.cd, nullptr, nullptr, nullptr, p.wbytes,
                                               p.w.data(), p.ws_bytes, p.ws.data(), p.rs_bytes, p.rs.data()));
            ASSERT_OK(anydnnRNNBackwardWeights_v8(p.h, p.rnn, ANYDNN_WGRAD_MODE_SET, nullptr, p.xd, x.data(), p.hd,
                                                  nullptr, p.yd, y.data(), p.wbytes, dw.data(), p.ws_bytes,
                                                  p.ws.data(), p.rs_bytes, p.rs.data()));
            double norm = 0;
            for (size_t i = 0; i < p.wbytes / 2; ++i) norm += std::fabs(p.get(dw.data(), i));
            EXPECT_TRUE(std::isfinite(norm));
            EXPECT_GT(norm, 0);
        }
}

TEST(RnnApi, DropoutBetweenLayers) {
    Handle h("generic");
    anydnnDropoutDescriptor_t drop;
    ASSERT_OK(anydnnCreateDropoutDescriptor(&drop));
    size_t sbytes;
    ASSERT_OK(anydnnDropoutGetStatesSize(h, &sbytes));
    std::vector<unsigned char> states(sbytes);
    Cfg c;
    c.mode = ANYDNN_GRU;
    c.layers = 3;
    // p = 1 drops every element: the layers above the first see zeros.
    ASSERT_OK(anydnnSetDropoutDescriptor(drop, h, 1.0f, states.data(), sbytes, 5));
    {
        Problem p(c, drop);
        Data in = p.random_data(), got, want, plain;
        p.reference(in, &want, true);
        p.reference(in, &plain);
        ASSERT_OK(p.forward(ANYDNN_FWD_MODE_TRAINING, in, &got));
        expect_near_all(got.y, want.y, 1e-12, "y");
        ASSERT_OK(p.forward(ANYDNN_FWD_MODE_INFERENCE, in, &got));  // inference never drops
        expect_near_all(got.y, plain.y, 1e-12, "y");
    }
    // 0 < p < 1: the states advance one call per training call, and a
    // restored copy repeats the masks.
    ASSERT_OK(anydnnSetDropoutDescriptor(drop, h, 0.5f, states.data(), sbytes, 5));
    Problem p(c, drop);
    Data in = p.random_data(), a, b, again;
    const std::vector<unsigned char> saved = states;
    ASSERT_OK(p.forward(ANYDNN_FWD_MODE_TRAINING, in, &a));
    ASSERT_OK(p.forward(ANYDNN_FWD_MODE_TRAINING, in, &b));
    EXPECT_NE(a.y, b.y);
    uint64_t counter;
    std::memcpy(&counter, states.data() + 16, 8);
    EXPECT_EQ(counter, 2u);
    states = saved;
    ASSERT_OK(p.forward(ANYDNN_FWD_MODE_TRAINING, in, &again));
    EXPECT_EQ(a.y, again.y);
    anydnnDestroyDropoutDescriptor(drop);
}

// ---- Backward against central differences ------------------------------------------------

// loss = sum(y .* wy) + sum(hy .* wh) + sum(cy .* wc) on valid y positions.
struct Loss {
    std::vector<double> wy, wh, wc;
    double operator()(const Data &o) const {
        double s = 0;
        for (size_t i = 0; i < wy.size(); ++i) s += o.y[i] * wy[i];
        for (size_t i = 0; i < wh.size(); ++i) s += o.hy[i] * wh[i];
        for (size_t i = 0; i < wc.size(); ++i) s += o.cy[i] * wc[i];
        return s;
    }
};

void check_gradients(const Cfg &c) {
    Problem p(c);
    Data in = p.random_data(), out;
    ASSERT_OK(p.forward(ANYDNN_FWD_MODE_INFERENCE, in, &out));
    Loss loss;
    loss.wy.resize(out.y.size());
    loss.wh.resize(out.hy.size());
    loss.wc.resize(out.cy.size());
    for (auto *v : {&loss.wy, &loss.wh, &loss.wc})
        for (double &e : *v) e = uniform(-1, 1);
    for (int b = 0; b < c.B(); ++b)  // padding positions carry no loss
        for (int t = c.lengths[b]; t < c.T; ++t)
            for (int q = 0; q < c.proj * c.dirs(); ++q) loss.wy[(size_t(b) * c.T + t) * c.proj * c.dirs() + q] = 0;

    // Analytic: training forward, backward data, backward weights (SET, then ADD).
    ASSERT_OK(p.forward(ANYDNN_FWD_MODE_TRAINING, in, &out));
    auto x = p.to_layout(in.x, c.in);
    auto y = p.to_layout(out.y, c.proj * c.dirs());
    auto dy = p.to_layout(loss.wy, c.proj * c.dirs());
    auto dhy = p.raw(loss.wh), dcy = p.raw(loss.wc), hx = p.raw(in.hx), cx = p.raw(in.cx);
    std::vector<unsigned char> dx(x.size()), dhx(hx.size()), dcx(cx.size()), dw(p.wbytes);
    ASSERT_OK(anydnnRNNBackwardData_v8(p.h, p.rnn, nullptr, p.yd, y.data(), dy.data(), p.xd, dx.data(), p.hd,
                                       hx.data(), dhy.data(), dhx.data(), p.cd, cx.data(), dcy.data(), dcx.data(),
                                       p.wbytes, p.w.data(), p.ws_bytes, p.ws.data(), p.rs_bytes, p.rs.data()));
    for (size_t i = 0; i < p.wbytes / 8; ++i) p.set(dw.data(), i, 1e30);  // SET must overwrite
    ASSERT_OK(anydnnRNNBackwardWeights_v8(p.h, p.rnn, ANYDNN_WGRAD_MODE_SET, nullptr, p.xd, x.data(), p.hd, hx.data(),
                                          p.yd, y.data(), p.wbytes, dw.data(), p.ws_bytes, p.ws.data(), p.rs_bytes,
                                          p.rs.data()));
    std::vector<unsigned char> dw2(p.wbytes);
    for (size_t i = 0; i < p.wbytes / 8; ++i) p.set(dw2.data(), i, 0.25);
    ASSERT_OK(anydnnRNNBackwardWeights_v8(p.h, p.rnn, ANYDNN_WGRAD_MODE_ADD, nullptr, p.xd, x.data(), p.hd, hx.data(),
                                          p.yd, y.data(), p.wbytes, dw2.data(), p.ws_bytes, p.ws.data(), p.rs_bytes,
                                          p.rs.data()));
    for (size_t i = 0; i < p.wbytes / 8; ++i) EXPECT_NEAR(p.get(dw2.data(), i), p.get(dw.data(), i) + 0.25, 1e-12);

    const double eps = 1e-6, tol = 1e-6;
    auto numeric = [&](double *v) {
        const double keep = *v;
        Data o;
        *v = keep + eps;
        EXPECT_OK(p.forward(ANYDNN_FWD_MODE_INFERENCE, in, &o));
        const double up = loss(o);
        *v = keep - eps;
        EXPECT_OK(p.forward(ANYDNN_FWD_MODE_INFERENCE, in, &o));
        const double down = loss(o);
        *v = keep;
        return (up - down) / (2 * eps);
    };
    if (c.layout != ANYDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED) {  // dx's padding gets xDesc's fill
        for (int b = 0; b < c.B(); ++b)
            for (int t = c.lengths[b]; t < c.T; ++t)
                for (int q = 0; q < c.in; ++q) EXPECT_EQ(p.get(dx.data(), position(c, b, t) * c.in + q), -7.0);
    }
    const std::vector<double> gx = p.from_layout(dx, c.in);
    for (int b = 0; b < c.B(); ++b)
        for (int t = 0; t < c.lengths[b]; ++t)
            for (int q = 0; q < c.in; ++q) {
                const size_t i = (size_t(b) * c.T + t) * c.in + q;
                EXPECT_NEAR(gx[i], numeric(&in.x[i]), tol) << "dx b " << b << " t " << t << " k " << q;
            }
    const std::vector<double> ghx = p.cooked(dhx), gcx = p.cooked(dcx);
    for (size_t i = 0; i < in.hx.size(); ++i) EXPECT_NEAR(ghx[i], numeric(&in.hx[i]), tol) << "dhx " << i;
    if (c.mode == ANYDNN_LSTM) {
        for (size_t i = 0; i < in.cx.size(); ++i) EXPECT_NEAR(gcx[i], numeric(&in.cx[i]), tol) << "dcx " << i;
    }
    double *w = reinterpret_cast<double *>(p.w.data());
    for (size_t i = 0; i < p.wbytes / 8; ++i) EXPECT_NEAR(p.get(dw.data(), i), numeric(&w[i]), tol) << "dw " << i;
}

TEST(RnnApi, BackwardMatchesFiniteDifferences) {
    for (anydnnRNNMode_t m : {ANYDNN_RNN_RELU, ANYDNN_RNN_TANH, ANYDNN_LSTM, ANYDNN_GRU}) {
        SCOPED_TRACE("mode " + std::to_string(m));
        Cfg c;
        c.mode = m;
        c.dir = ANYDNN_BIDIRECTIONAL;
        c.layers = 2;
        c.lengths = {2, 3, 0};
        c.layout = ANYDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED;
        check_gradients(c);
        c.dir = ANYDNN_UNIDIRECTIONAL;
        c.layers = 1;
        c.input_mode = ANYDNN_SKIP_INPUT;
        c.in = c.hid;
        c.bias = ANYDNN_RNN_SINGLE_REC_BIAS;
        c.layout = ANYDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED;
        c.lengths = {3, 3, 1};
        check_gradients(c);
    }
    Cfg c;
    c.proj = 2;
    c.layers = 2;
    c.bias = ANYDNN_RNN_SINGLE_INP_BIAS;
    SCOPED_TRACE("lstm proj clip");
    c.clip = true;
    check_gradients(c);
}

}  // namespace
