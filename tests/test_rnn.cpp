// anydnnRNNForward, anydnnRNNBackwardData_v8 and anydnnRNNBackwardWeights_v8
// against the fp64 reference (tests/reference/rnn_reference, itself checked
// by finite differences in test_rnn_reference.cpp) on every ISA level:
// every cell x bias mode x direction with 1-3 layers, LSTM projection and
// clipping (and its NaN option), SKIP_INPUT, the three data layouts with
// unequal, unsorted and 0 lengths, padding fill or none, devSeqLengths or
// NULL, hx / cx / hy / cy / dhy / dcy / dhx / dcx NULL, f32 / f64 / f16 /
// bf16, 1, 2 and 4 threads, INFERENCE and TRAINING giving the same y, the weight gradient SET
// and ADD (onto a non-zero dweightSpace), dropout between layers (p = 0,
// p = 1, determinism, ignored in INFERENCE) and central finite differences
// through the library itself (f64, dropout included, whose masks must then
// agree between the forward and the backward calls). The weights are read
// through anydnnGetRNNWeightParams, which is checked on the way (shapes,
// types, inside the weight space, no two regions overlapping). The error
// statuses are tests/test_rnn_api.cpp's.
//
// Inputs are random (seeded; the seed is in every trace), outputs poisoned
// (NaN) before each call, and the padding of x and dy is NaN, which the
// library must never read.
//
// Tolerances (relative per element, plus an absolute slack for values that
// cancel, and the same relative bound on the whole tensor), forward /
// gradients: f64 1e-12 / 1e-11; f32 2e-5 / 1e-4 (float products of length
// <= 2 * 32 compounded over <= 16 steps); f16 and bf16 (computed in float,
// stored at each output) a few storage roundings compounded over the steps:
// f16 1e-2 / 3e-2, bf16 6e-2 / 1.5e-1.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>

#include "common/test_util.hpp"
#include "reference/rnn_reference.hpp"

using namespace anydnn_test;
using ref::Rnn;
using ref::RnnCell;
using ref::RnnLayout;

namespace {

struct Tol {
    double rel, abs;
};
Tol forward_tol(anydnnDataType_t dt) {
    switch (dt) {
    case ANYDNN_DATA_DOUBLE: return {1e-12, 1e-13};
    case ANYDNN_DATA_HALF: return {1e-2, 2e-3};
    case ANYDNN_DATA_BFLOAT16: return {6e-2, 1.6e-2};
    default: return {2e-5, 2e-6};
    }
}
Tol gradient_tol(anydnnDataType_t dt) {
    switch (dt) {
    case ANYDNN_DATA_DOUBLE: return {1e-11, 1e-12};
    case ANYDNN_DATA_HALF: return {3e-2, 6e-3};
    case ANYDNN_DATA_BFLOAT16: return {1.5e-1, 4e-2};
    default: return {1e-4, 1e-5};
    }
}

// The padding fill: exact in every storage type.
constexpr double kFill = -3.25;

anydnnRNNMode_t api_cell(RnnCell c) {
    switch (c) {
    case RnnCell::Relu: return ANYDNN_RNN_RELU;
    case RnnCell::Tanh: return ANYDNN_RNN_TANH;
    case RnnCell::Lstm: return ANYDNN_LSTM;
    default: return ANYDNN_GRU;
    }
}
const char *cell_name(RnnCell c) {
    switch (c) {
    case RnnCell::Relu: return "relu";
    case RnnCell::Tanh: return "tanh";
    case RnnCell::Lstm: return "lstm";
    default: return "gru";
    }
}
anydnnRNNBiasMode_t api_bias(const Rnn &p) {
    if (p.input_bias && p.recurrent_bias) return ANYDNN_RNN_DOUBLE_BIAS;
    if (p.input_bias) return ANYDNN_RNN_SINGLE_INP_BIAS;
    if (p.recurrent_bias) return ANYDNN_RNN_SINGLE_REC_BIAS;
    return ANYDNN_RNN_NO_BIAS;
}
const char *layout_name(RnnLayout l) {
    switch (l) {
    case RnnLayout::SeqMajorUnpacked: return "seq_major_unpacked";
    case RnnLayout::SeqMajorPacked: return "seq_major_packed";
    default: return "batch_major_unpacked";
    }
}

Rnn make_rnn(RnnCell cell, int input, int hidden, int layers, bool bidir,
             anydnnRNNBiasMode_t bias = ANYDNN_RNN_DOUBLE_BIAS) {
    Rnn p;
    p.cell = cell;
    p.input = input;
    p.hidden = p.proj = hidden;
    p.layers = layers;
    p.bidirectional = bidir;
    p.input_bias = bias == ANYDNN_RNN_DOUBLE_BIAS || bias == ANYDNN_RNN_SINGLE_INP_BIAS;
    p.recurrent_bias = bias == ANYDNN_RNN_DOUBLE_BIAS || bias == ANYDNN_RNN_SINGLE_REC_BIAS;
    return p;
}

// One problem: the network, the data's type, layout and lengths, and which
// optional pointers are given.
struct Config {
    Rnn p;
    anydnnDataType_t dt = ANYDNN_DATA_FLOAT;
    anydnnDataType_t math = ANYDNN_DATA_FLOAT;  // DOUBLE for DOUBLE data (with_type)
    RnnLayout layout = RnnLayout::SeqMajorUnpacked;
    int max_t = 5;
    std::vector<int> len = {3, 5, 0, 2};  // unsorted, a 0-length sequence
    bool fill = true;                     // the data descriptors have a paddingFill
    bool dev_lengths = true;              // devSeqLengths given, else NULL
    bool hx = true, cx = true, hy = true, cy = true, dhy = true, dcy = true, dhx = true, dcx = true;
    anydnnWgradMode_t wgrad = ANYDNN_WGRAD_MODE_SET;
    anydnnRNNAlgo_t algo = ANYDNN_RNN_ALGO_STANDARD;

    Config with_type(anydnnDataType_t t) const {
        Config c = *this;
        c.dt = t;
        c.math = t == ANYDNN_DATA_DOUBLE ? ANYDNN_DATA_DOUBLE : ANYDNN_DATA_FLOAT;
        return c;
    }
    // PACKED needs non-increasing lengths.
    Config with_layout(RnnLayout l) const {
        Config c = *this;
        c.layout = l;
        if (l == RnnLayout::SeqMajorPacked) std::sort(c.len.begin(), c.len.end(), std::greater<>());
        return c;
    }
    bool lstm() const { return p.cell == RnnCell::Lstm; }
    int batch() const { return int(len.size()); }
    std::string to_string() const {
        std::string s = std::string(cell_name(p.cell)) + " in=" + std::to_string(p.input) +
                        " hidden=" + std::to_string(p.hidden) + " proj=" + std::to_string(p.proj) +
                        " layers=" + std::to_string(p.layers) + (p.bidirectional ? " bidirectional" : "") +
                        (p.input_bias ? " bW" : "") + (p.recurrent_bias ? " bR" : "") +
                        (p.skip_input ? " skip_input" : "") +
                        (p.clip ? " clip[" + std::to_string(p.lclip) + "," + std::to_string(p.rclip) + "]" : "") +
                        " " + dtype_name(dt) + "/" + dtype_name(math) + " " + layout_name(layout) +
                        " maxT=" + std::to_string(max_t) + " lengths=";
        for (size_t b = 0; b < len.size(); ++b) s += (b ? "," : "") + std::to_string(len[b]);
        s += std::string(fill ? " fill" : " nofill") + (dev_lengths ? "" : " devSeqLengths=NULL");
        const std::pair<bool, const char *> nulls[] = {{hx, "hx"},   {cx, "cx"},   {hy, "hy"},   {cy, "cy"},
                                                       {dhy, "dhy"}, {dcy, "dcy"}, {dhx, "dhx"}, {dcx, "dcx"}};
        for (const auto &n : nulls)
            if (!n.first) s += std::string(" ") + n.second + "=NULL";
        s += wgrad == ANYDNN_WGRAD_MODE_ADD ? " wgrad=ADD" : " wgrad=SET";
        return s + " seed=" + std::to_string(seed());
    }
};

struct DropoutDesc {
    anydnnDropoutDescriptor_t d = nullptr;
    std::vector<unsigned char> states;
    DropoutDesc(anydnnHandle_t h, float p, unsigned long long seed) {
        EXPECT_OK(anydnnCreateDropoutDescriptor(&d));
        size_t n = 0;
        EXPECT_OK(anydnnDropoutGetStatesSize(h, &n));
        states.assign(n, 0);
        EXPECT_OK(anydnnSetDropoutDescriptor(d, h, p, states.data(), states.size(), seed));
    }
    ~DropoutDesc() { anydnnDestroyDropoutDescriptor(d); }
    DropoutDesc(const DropoutDesc &) = delete;
    DropoutDesc &operator=(const DropoutDesc &) = delete;
};

// A network's descriptors, buffers and calls. Buffers are Tensors (guard
// bytes, typed element access); the RNN data buffers are {vectors, width, 1}.
class RnnProblem {
public:
    RnnProblem(anydnnHandle_t h, const Config &c, anydnnDropoutDescriptor_t dropout = nullptr) : h_(h), c_(c) {
        const Rnn &p = c.p;
        const bool unpacked = c.layout != RnnLayout::SeqMajorPacked;
        EXPECT_OK(anydnnCreateRNNDescriptor(&rnn_));
        const uint32_t aux = unpacked ? ANYDNN_RNN_PADDED_IO_ENABLED : ANYDNN_RNN_PADDED_IO_DISABLED;
        EXPECT_OK(anydnnSetRNNDescriptor_v8(
            rnn_, c.algo, api_cell(p.cell), api_bias(p), p.bidirectional ? ANYDNN_BIDIRECTIONAL : ANYDNN_UNIDIRECTIONAL,
            p.skip_input ? ANYDNN_SKIP_INPUT : ANYDNN_LINEAR_INPUT, c.dt, c.math, ANYDNN_DEFAULT_MATH, p.input,
            p.hidden, p.proj, p.layers, dropout, aux));
        if (p.clip) {
            EXPECT_OK(anydnnRNNSetClip_v8(rnn_, ANYDNN_RNN_CLIP_MINMAX,
                                          p.clip_nan_propagate ? ANYDNN_PROPAGATE_NAN : ANYDNN_NOT_PROPAGATE_NAN,
                                          p.lclip, p.rclip));
        }
        xd_ = data_desc(p.input);
        yd_ = data_desc(p.out_width());
        const int64_t vectors = std::max<int64_t>(1, ref::rnn_data_vectors(c.layout, c.max_t, c.len));
        x = buffer({int(vectors), p.input, 1});
        dx = buffer({int(vectors), p.input, 1});
        y = buffer({int(vectors), p.out_width(), 1});
        y_inference = buffer({int(vectors), p.out_width(), 1});
        dy = buffer({int(vectors), p.out_width(), 1});
        const std::vector<int> hdims = {p.pseudo_layers(), c.batch(), p.proj};
        const std::vector<int> cdims = {p.pseudo_layers(), c.batch(), p.hidden};
        for (auto *t : {&hx, &hy, &dhy, &dhx}) *t = buffer(hdims);
        for (auto *t : {&cx, &cy, &dcy, &dcx}) *t = buffer(cdims);
        EXPECT_OK(anydnnGetRNNWeightSpaceSize(h, rnn_, &weight_bytes_));
        const int welems = int((weight_bytes_ + dtype_size(c.dt) - 1) / dtype_size(c.dt));
        w = buffer({std::max(welems, 1), 1, 1});
        dw = buffer({std::max(welems, 1), 1, 1});
        size_t ws = 0, rs = 0;
        EXPECT_OK(anydnnGetRNNTempSpaceSizes(h, rnn_, ANYDNN_FWD_MODE_TRAINING, xd_, &ws, &rs));
        work_.assign(ws, 0xff);
        reserve_.assign(rs, 0xff);
        EXPECT_OK(anydnnGetRNNTempSpaceSizes(h, rnn_, ANYDNN_FWD_MODE_INFERENCE, xd_, &ws, &rs));
        EXPECT_EQ(rs, 0u) << "INFERENCE needs no reserve space";
        work_inference_.assign(ws, 0xff);
        read_weight_layout();
    }
    ~RnnProblem() {
        anydnnDestroyRNNDataDescriptor(xd_);
        anydnnDestroyRNNDataDescriptor(yd_);
        anydnnDestroyRNNDescriptor(rnn_);
    }
    RnnProblem(const RnnProblem &) = delete;
    RnnProblem &operator=(const RnnProblem &) = delete;

    // Random inputs (weights uniform in +-1/sqrt(hidden), as frameworks
    // initialize them), NaN in the padding of x and dy, outputs poisoned.
    void fill_inputs() {
        x->fill_random();
        pad_with_nan(*x, c_.p.input);
        for (auto *t : {&hx, &cx, &dhy, &dcy}) (*t)->fill_random();
        const double s = 1 / std::sqrt(double(c_.p.hidden));
        w->fill_random(-s, s);
        dy->fill_random();
        pad_with_nan(*dy, c_.p.out_width());
        if (c_.wgrad == ANYDNN_WGRAD_MODE_ADD) dw->fill_random();
        else dw->poison();
        for (auto *t : {&y, &y_inference, &dx, &hy, &cy, &dhx, &dcx}) (*t)->poison();
    }

    anydnnStatus_t forward(anydnnForwardMode_t mode, Tensor *out = nullptr) {
        const bool train = mode == ANYDNN_FWD_MODE_TRAINING;
        std::vector<unsigned char> &work = train ? work_ : work_inference_;
        Tensor &yo = out != nullptr ? *out : *y;
        return anydnnRNNForward(h_, rnn_, mode, lengths(), xd_, x->data(), yd_, yo.data(), hx->desc(), opt(c_.hx, *hx),
                                opt(c_.hy, *hy), cdesc(), opt(c_.lstm() && c_.cx, *cx), opt(c_.lstm() && c_.cy, *cy),
                                weight_bytes_, w->data(), work.size(), work.data(), train ? reserve_.size() : 0,
                                train ? reserve_.data() : nullptr);
    }
    anydnnStatus_t backward_data() {
        return anydnnRNNBackwardData_v8(h_, rnn_, lengths(), yd_, y->data(), dy->data(), xd_, dx->data(), hx->desc(),
                                        opt(c_.hx, *hx), opt(c_.dhy, *dhy), opt(c_.dhx, *dhx), cdesc(),
                                        opt(c_.lstm() && c_.cx, *cx), opt(c_.lstm() && c_.dcy, *dcy),
                                        opt(c_.lstm() && c_.dcx, *dcx), weight_bytes_, w->data(), work_.size(),
                                        work_.data(), reserve_.size(), reserve_.data());
    }
    anydnnStatus_t backward_weights() {
        return anydnnRNNBackwardWeights_v8(h_, rnn_, c_.wgrad, lengths(), xd_, x->data(), hx->desc(),
                                           opt(c_.hx, *hx), yd_, y->data(), weight_bytes_, dw->data(), work_.size(),
                                           work_.data(), reserve_.size(), reserve_.data());
    }

    // What the reference reads: the valid steps of a data buffer, the
    // weights at anydnnGetRNNWeightParams' positions, a state (empty: NULL).
    ref::Seqs seqs(const Tensor &buf, int width) const {
        ref::Seqs s(c_.len.size());
        for (int b = 0; b < c_.batch(); ++b)
            for (int t = 0; t < c_.len[b]; ++t) {
                const int64_t pos = ref::rnn_data_position(c_.layout, c_.max_t, c_.len, b, t);
                for (int i = 0; i < width; ++i) s[b].push_back(buf.at_offset(pos * width + i));
            }
        return s;
    }
    ref::RnnWeights weights(const Tensor &space) const {
        ref::RnnWeights wt = ref::rnn_zero_weights(c_.p);
        for (int pl = 0; pl < c_.p.pseudo_layers(); ++pl)
            for (int id = 0; id < c_.p.lin_layers(); ++id) {
                for (size_t i = 0; i < wt[pl].m[id].size(); ++i)
                    wt[pl].m[id][i] = space.at_offset(m_off_[pl][id] + int64_t(i));
                for (size_t i = 0; i < wt[pl].b[id].size(); ++i)
                    wt[pl].b[id][i] = space.at_offset(b_off_[pl][id] + int64_t(i));
            }
        return wt;
    }
    std::vector<double> state(bool given, const Tensor &t) const { return given ? t.values() : std::vector<double>{}; }
    std::vector<double> hx_values() const { return state(c_.hx, *hx); }
    std::vector<double> cx_values() const { return state(c_.lstm() && c_.cx, *cx); }

    // Every position of a weight, in order: (element offset in the weight space).
    std::vector<int64_t> weight_offsets() const {
        std::vector<int64_t> offs;
        const ref::RnnWeights shape = ref::rnn_zero_weights(c_.p);
        for (int pl = 0; pl < c_.p.pseudo_layers(); ++pl)
            for (int id = 0; id < c_.p.lin_layers(); ++id) {
                for (size_t i = 0; i < shape[pl].m[id].size(); ++i) offs.push_back(m_off_[pl][id] + int64_t(i));
                for (size_t i = 0; i < shape[pl].b[id].size(); ++i) offs.push_back(b_off_[pl][id] + int64_t(i));
            }
        return offs;
    }

    // The padding of an output: *paddingFill when the descriptor has one, else untouched (still poisoned).
    void expect_padding(const Tensor &buf, int width, const std::string &what) const {
        if (c_.layout == RnnLayout::SeqMajorPacked) return;
        int bad = 0;
        for (int b = 0; b < c_.batch(); ++b)
            for (int t = c_.len[b]; t < c_.max_t; ++t) {
                const int64_t pos = c_.layout == RnnLayout::SeqMajorUnpacked ? int64_t(t) * c_.batch() + b
                                                                              : int64_t(b) * c_.max_t + t;
                for (int i = 0; i < width; ++i) {
                    const double v = buf.at_offset(pos * width + i);
                    const bool ok = c_.fill ? v == kFill : std::isnan(v);
                    if (!ok && bad++ < 3)
                        ADD_FAILURE() << what << " padding of sequence " << b << " step " << t << " element " << i
                                      << " is " << v << ", expected " << (c_.fill ? "the fill " : "untouched ")
                                      << (c_.fill ? std::to_string(kFill) : std::string("(poison)"));
                }
            }
        EXPECT_EQ(bad, 0) << what << ": padding wrong at " << bad << " elements";
    }

    const Config &config() const { return c_; }
    anydnnRNNDescriptor_t desc() const { return rnn_; }
    size_t weight_bytes() const { return weight_bytes_; }

    std::unique_ptr<Tensor> x, dx, y, y_inference, dy, hx, cx, hy, cy, dhy, dcy, dhx, dcx, w, dw;

private:
    anydnnRNNDataDescriptor_t data_desc(int width) {
        anydnnRNNDataDescriptor_t d = nullptr;
        EXPECT_OK(anydnnCreateRNNDataDescriptor(&d));
        float ff = float(kFill);
        double fd = kFill;
        void *fill = c_.fill ? (c_.dt == ANYDNN_DATA_DOUBLE ? static_cast<void *>(&fd) : &ff) : nullptr;
        EXPECT_OK(anydnnSetRNNDataDescriptor(d, c_.dt, anydnnRNNDataLayout_t(c_.layout), c_.max_t, c_.batch(), width,
                                             c_.len.data(), fill));
        return d;
    }
    std::unique_ptr<Tensor> buffer(const std::vector<int> &dims) const {
        return std::make_unique<Tensor>(packed(dims), c_.dt);
    }
    void pad_with_nan(Tensor &buf, int width) const {
        if (c_.layout == RnnLayout::SeqMajorPacked) return;
        for (int b = 0; b < c_.batch(); ++b)
            for (int t = c_.len[b]; t < c_.max_t; ++t) {
                const int64_t pos = c_.layout == RnnLayout::SeqMajorUnpacked ? int64_t(t) * c_.batch() + b
                                                                              : int64_t(b) * c_.max_t + t;
                for (int i = 0; i < width; ++i) buf.set_offset(pos * width + i, NAN);
            }
    }
    const int32_t *lengths() const { return c_.dev_lengths ? c_.len.data() : nullptr; }
    anydnnTensorDescriptor_t cdesc() const { return c_.lstm() ? cx->desc() : nullptr; }
    static void *opt(bool given, Tensor &t) { return given ? t.data() : nullptr; }

    // anydnnGetRNNWeightParams for every pseudo-layer and linLayerID: the
    // descriptors say {1, rows, cols} / {1, rows, 1}, packed, of the data
    // type (nbDims 0 and a NULL address where the reference has nothing),
    // every region lies inside the weight space, aligned to the element
    // size, and no two overlap.
    void read_weight_layout() {
        const Rnn &p = c_.p;
        anydnnTensorDescriptor_t md, bd;
        ASSERT_OK(anydnnCreateTensorDescriptor(&md));
        ASSERT_OK(anydnnCreateTensorDescriptor(&bd));
        const int64_t es = int64_t(dtype_size(c_.dt)), total = int64_t(weight_bytes_) / es;
        std::vector<int> owner(size_t(std::max<int64_t>(total, 0)), -1);
        m_off_.assign(p.pseudo_layers(), std::vector<int64_t>(p.lin_layers(), -1));
        b_off_ = m_off_;
        const auto *base = static_cast<const unsigned char *>(w->data());
        int region = 0;  // regions numbered in the order read
        for (int pl = 0; pl < p.pseudo_layers(); ++pl)
            for (int id = 0; id < p.lin_layers(); ++id) {
                SCOPED_TRACE("pseudoLayer " + std::to_string(pl) + " linLayerID " + std::to_string(id));
                void *ma = reinterpret_cast<void *>(1), *ba = reinterpret_cast<void *>(1);
                ASSERT_OK(anydnnGetRNNWeightParams(h_, rnn_, pl, weight_bytes_, w->data(), id, md, &ma, bd, &ba));
                const Rnn::Dims m = p.matrix(pl / p.dirs(), id);
                const int brows = p.bias_rows(pl / p.dirs(), id);
                const struct {
                    const char *what;
                    anydnnTensorDescriptor_t desc;
                    void *addr;
                    int rows, cols;
                    int64_t *off;
                } parts[] = {{"matrix", md, ma, m.rows, m.cols, &m_off_[pl][id]},
                             {"bias", bd, ba, brows, brows > 0 ? 1 : 0, &b_off_[pl][id]}};
                for (const auto &part : parts) {
                    SCOPED_TRACE(part.what);
                    anydnnDataType_t dt{};
                    int nb = -1, dims[8] = {}, strides[8] = {};
                    ASSERT_OK(anydnnGetTensorNdDescriptor(part.desc, 8, &dt, &nb, dims, strides));
                    if (part.rows == 0) {
                        EXPECT_EQ(part.addr, nullptr);
                        EXPECT_EQ(nb, 0);
                        continue;
                    }
                    ASSERT_NE(part.addr, nullptr);
                    EXPECT_EQ(dt, c_.dt);
                    ASSERT_EQ(nb, 3);
                    EXPECT_EQ(dims[0], 1);
                    EXPECT_EQ(dims[1], part.rows);
                    EXPECT_EQ(dims[2], part.cols);
                    EXPECT_EQ(strides[1], part.cols);
                    EXPECT_EQ(strides[2], 1);
                    const int64_t bytes = static_cast<const unsigned char *>(part.addr) - base;
                    ASSERT_EQ(bytes % es, 0) << "misaligned";
                    const int64_t off = bytes / es, n = int64_t(part.rows) * part.cols;
                    ASSERT_GE(off, 0);
                    ASSERT_LE(off + n, total) << "outside the weight space";
                    for (int64_t i = off; i < off + n; ++i) {
                        ASSERT_EQ(owner[i], -1) << "overlaps region " << owner[i];
                        owner[i] = region;
                    }
                    ++region;
                    *part.off = off;
                }
            }
        anydnnDestroyTensorDescriptor(md);
        anydnnDestroyTensorDescriptor(bd);
    }

    anydnnHandle_t h_;
    Config c_;
    anydnnRNNDescriptor_t rnn_ = nullptr;
    anydnnRNNDataDescriptor_t xd_ = nullptr, yd_ = nullptr;
    size_t weight_bytes_ = 0;
    std::vector<unsigned char> work_, work_inference_, reserve_;
    std::vector<std::vector<int64_t>> m_off_, b_off_;  // element offsets, -1: absent
};

// Flattens per-sequence data for expect_close.
std::vector<double> flat(const ref::Seqs &s) {
    std::vector<double> v;
    for (const auto &q : s) v.insert(v.end(), q.begin(), q.end());
    return v;
}
std::vector<double> flat(const ref::RnnWeights &w) {
    std::vector<double> v;
    for (const auto &pl : w)
        for (size_t id = 0; id < pl.m.size(); ++id) {
            v.insert(v.end(), pl.m[id].begin(), pl.m[id].end());
            v.insert(v.end(), pl.b[id].begin(), pl.b[id].end());
        }
    return v;
}
// A buffer's bytes, padding included, to see that an input was left alone.
std::vector<unsigned char> bytes_of(const Tensor &t) {
    const auto *p = static_cast<const unsigned char *>(t.data());
    return {p, p + t.shape().span() * int64_t(dtype_size(t.dtype()))};
}

std::vector<double> plus(std::vector<double> a, const std::vector<double> &b) {
    for (size_t i = 0; i < a.size(); ++i) a[i] += b[i];
    return a;
}

// The whole training step (and an inference forward) of one problem against
// the reference; masks: the reference's view of the dropout the library
// applies (empty: none).
void check_rnn(anydnnHandle_t h, const Config &c, anydnnDropoutDescriptor_t dropout = nullptr,
               const ref::RnnMasks &masks = {}) {
    SCOPED_TRACE(c.to_string());
    RnnProblem pr(h, c, dropout);
    if (::testing::Test::HasFatalFailure()) return;
    pr.fill_inputs();
    const Rnn &p = c.p;
    const std::vector<const Tensor *> inputs = {pr.x.get(),  pr.hx.get(),  pr.cx.get(), pr.w.get(),
                                                pr.dy.get(), pr.dhy.get(), pr.dcy.get()};
    std::vector<std::vector<unsigned char>> before;
    for (const Tensor *t : inputs) before.push_back(bytes_of(*t));
    const ref::RnnWeights w = pr.weights(*pr.w);
    const ref::Seqs x = pr.seqs(*pr.x, p.input);
    const std::vector<double> hx = pr.hx_values(), cx = pr.cx_values();
    const Tol ft = forward_tol(c.dt), gt = gradient_tol(c.dt);

    // INFERENCE: no dropout, no reserve space.
    const ref::RnnForwardResult plain = ref::rnn_forward(p, w, c.len, x, hx, cx);
    ASSERT_OK(pr.forward(ANYDNN_FWD_MODE_INFERENCE, pr.y_inference.get()));
    expect_close(flat(pr.seqs(*pr.y_inference, p.out_width())), flat(plain.y), ft.rel, ft.abs, "inference y");
    pr.expect_padding(*pr.y_inference, p.out_width(), "inference y");
    if (c.hy) expect_close(pr.hy->values(), plain.hy, ft.rel, ft.abs, "inference hy");
    if (c.lstm() && c.cy) expect_close(pr.cy->values(), plain.cy, ft.rel, ft.abs, "inference cy");

    const ref::RnnForwardResult r = ref::rnn_forward(p, w, c.len, x, hx, cx, masks);
    pr.hy->poison();
    pr.cy->poison();
    ASSERT_OK(pr.forward(ANYDNN_FWD_MODE_TRAINING));
    const std::vector<double> y = flat(pr.seqs(*pr.y, p.out_width()));
    expect_close(y, flat(r.y), ft.rel, ft.abs, "training y");
    pr.expect_padding(*pr.y, p.out_width(), "training y");
    if (c.hy) expect_close(pr.hy->values(), r.hy, ft.rel, ft.abs, "training hy");
    if (c.lstm() && c.cy) expect_close(pr.cy->values(), r.cy, ft.rel, ft.abs, "training cy");
    if (masks.empty()) {  // the same y from both modes, to the last bits of the type
        const Tol same = {4 * storage_tol(c.dt), 4 * storage_tol(c.dt)};
        expect_close(flat(pr.seqs(*pr.y_inference, p.out_width())), y, same.rel, same.abs, "inference vs training y");
    }

    const ref::Seqs dy = pr.seqs(*pr.dy, p.out_width());
    const std::vector<double> dhy = pr.state(c.dhy, *pr.dhy), dcy = pr.state(c.lstm() && c.dcy, *pr.dcy);
    const ref::RnnGradients g = ref::rnn_backward(p, w, c.len, x, hx, cx, dy, dhy, dcy, masks);
    ASSERT_OK(pr.backward_data());
    expect_close(flat(pr.seqs(*pr.dx, p.input)), flat(g.dx), gt.rel, gt.abs, "dx");
    pr.expect_padding(*pr.dx, p.input, "dx");
    if (c.dhx) expect_close(pr.dhx->values(), g.dhx, gt.rel, gt.abs, "dhx");
    if (c.lstm() && c.dcx) expect_close(pr.dcx->values(), g.dcx, gt.rel, gt.abs, "dcx");

    const std::vector<double> dw0 = flat(pr.weights(*pr.dw));
    ASSERT_OK(pr.backward_weights());
    const std::vector<double> want = c.wgrad == ANYDNN_WGRAD_MODE_ADD ? plus(dw0, flat(g.dw)) : flat(g.dw);
    expect_close(flat(pr.weights(*pr.dw)), want, gt.rel, gt.abs,
                 c.wgrad == ANYDNN_WGRAD_MODE_ADD ? "dw (ADD)" : "dw (SET)");

    for (const Tensor *t : {pr.x.get(), pr.y.get(), pr.y_inference.get(), pr.dx.get(), pr.dy.get(), pr.hy.get(),
                            pr.cy.get(), pr.dhx.get(), pr.dcx.get(), pr.w.get(), pr.dw.get()})
        EXPECT_TRUE(t->guards_intact()) << "a write outside a buffer";
    for (size_t i = 0; i < inputs.size(); ++i)
        EXPECT_TRUE(bytes_of(*inputs[i]) == before[i]) << "input " << i << " (x, hx, cx, w, dy, dhy, dcy) changed";
}

class RnnIsa : public ::testing::TestWithParam<std::string> {};

const RnnCell kCells[] = {RnnCell::Relu, RnnCell::Tanh, RnnCell::Lstm, RnnCell::Gru};
const anydnnRNNBiasMode_t kBiasModes[] = {ANYDNN_RNN_DOUBLE_BIAS, ANYDNN_RNN_SINGLE_INP_BIAS,
                                          ANYDNN_RNN_SINGLE_REC_BIAS, ANYDNN_RNN_NO_BIAS};
const RnnLayout kLayouts[] = {RnnLayout::SeqMajorUnpacked, RnnLayout::SeqMajorPacked, RnnLayout::BatchMajorUnpacked};

// Every cell x bias mode x direction; the layers (1-3), layout, weight
// gradient mode and algorithm vary with the case, f32 and f64 each.
TEST_P(RnnIsa, CellsBiasModesAndDirections) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    int n = 0;
    for (RnnCell cell : kCells)
        for (anydnnRNNBiasMode_t bias : kBiasModes)
            for (bool bidir : {false, true}) {
                Config c;
                c.p = make_rnn(cell, 5, 6, 1 + n % 3, bidir, bias);
                c.wgrad = n % 2 ? ANYDNN_WGRAD_MODE_ADD : ANYDNN_WGRAD_MODE_SET;
                c.algo = anydnnRNNAlgo_t(n % ANYDNN_RNN_ALGO_COUNT);
                const Config base = c.with_layout(kLayouts[(n / 2) % 3]);
                ++n;
                for (anydnnDataType_t dt : {ANYDNN_DATA_FLOAT, ANYDNN_DATA_DOUBLE}) check_rnn(h, base.with_type(dt));
            }
}

// LSTM with a projection (proj < hidden, down to 1), clipping active in
// every layer, both directions, 1-2 layers.
TEST_P(RnnIsa, LstmProjectionAndClipping) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    for (int proj : {1, 3, 7})
        for (bool bidir : {false, true})
            for (int layers : {1, 2})
                for (bool clip : {false, true}) {
                    Config c;
                    c.p = make_rnn(RnnCell::Lstm, 4, 8, layers, bidir);
                    c.p.proj = proj;
                    c.p.clip = clip;
                    c.p.lclip = -0.3;
                    c.p.rclip = 0.25;
                    c.wgrad = layers == 2 ? ANYDNN_WGRAD_MODE_ADD : ANYDNN_WGRAD_MODE_SET;
                    for (anydnnDataType_t dt : {ANYDNN_DATA_FLOAT, ANYDNN_DATA_DOUBLE}) check_rnn(h, c.with_type(dt));
                }
}

// SKIP_INPUT (inputSize = hiddenSize): the first layer adds x_t itself.
TEST_P(RnnIsa, SkipInput) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    for (RnnCell cell : kCells)
        for (bool bidir : {false, true})
            for (int layers : {1, 2}) {
                Config c;
                c.p = make_rnn(cell, 6, 6, layers, bidir, bidir ? ANYDNN_RNN_SINGLE_INP_BIAS : ANYDNN_RNN_DOUBLE_BIAS);
                c.p.skip_input = true;
                for (anydnnDataType_t dt : {ANYDNN_DATA_FLOAT, ANYDNN_DATA_DOUBLE}) check_rnn(h, c.with_type(dt));
            }
}

// The three layouts with lengths unequal (unsorted where allowed), 0, all
// equal to maxSeqLength, all 0, a single step and a single sequence; the
// padding fill or none; devSeqLengths or NULL.
TEST_P(RnnIsa, LayoutsLengthsAndPadding) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const struct {
        int max_t;
        std::vector<int> len;
    } shapes[] = {{5, {3, 5, 0, 2}}, {4, {4, 4, 4}}, {6, {1, 6, 2, 6, 0}}, {1, {1, 0, 1}},
                  {3, {0, 0}},       {7, {7}},       {4, {2}}};
    int n = 0;
    for (const auto &s : shapes)
        for (RnnLayout layout : kLayouts)
            for (bool fill : {true, false}) {
                Config c;
                const RnnCell cell = kCells[n % 4];
                c.p = make_rnn(cell, 3, 5, 1 + n % 2, n % 3 != 0);
                c.max_t = s.max_t;
                c.len = s.len;
                c.fill = fill;
                c.dev_lengths = n % 2 == 0;
                ++n;
                check_rnn(h, c.with_layout(layout).with_type(n % 2 ? ANYDNN_DATA_DOUBLE : ANYDNN_DATA_FLOAT));
            }
}

// Every optional state pointer NULL in turn (and all of them at once).
TEST_P(RnnIsa, NullStates) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    bool Config::*const members[] = {&Config::hx, &Config::cx, &Config::hy, &Config::cy,
                                     &Config::dhy, &Config::dcy, &Config::dhx, &Config::dcx};
    for (RnnCell cell : {RnnCell::Lstm, RnnCell::Gru, RnnCell::Tanh})
        for (int which = 0; which <= 8; ++which) {
            Config c;
            c.p = make_rnn(cell, 4, 5, 2, true);
            if (cell == RnnCell::Lstm) c.p.proj = 3;
            for (int m = 0; m < 8; ++m)
                if (which == 8 || which == m) c.*members[m] = false;
            check_rnn(h, c.with_type(ANYDNN_DATA_DOUBLE));
        }
}

// HALF (math FLOAT or HALF, both computed in float) and BFLOAT16.
TEST_P(RnnIsa, HalfAndBfloat16) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    for (RnnCell cell : kCells)
        for (bool bidir : {false, true}) {
            Config c;
            c.p = make_rnn(cell, 5, 7, bidir ? 1 : 2, bidir);
            if (cell == RnnCell::Lstm && bidir) c.p.proj = 4;
            c.max_t = 4;
            c.len = {4, 2, 0, 3};
            check_rnn(h, c.with_type(ANYDNN_DATA_HALF));
            Config half = c.with_type(ANYDNN_DATA_HALF);
            half.math = ANYDNN_DATA_HALF;
            check_rnn(h, half);
            check_rnn(h, c.with_type(ANYDNN_DATA_BFLOAT16));
        }
}

// Moderately sized f32: rnn_common.txt's odd_sizes (in 7, hidden 13, 16
// steps, batch 4) as 2 bidirectional layers of each cell, and an LSTM of
// hidden 64 (vector lengths past every tile) with batch 8.
TEST_P(RnnIsa, ModeratelySizedFloat) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    for (RnnCell cell : kCells) {
        Config c;
        c.p = make_rnn(cell, 7, 13, 2, true);
        c.max_t = 16;
        c.len = {16, 9, 16, 13};
        check_rnn(h, c);
    }
    Config c;
    c.p = make_rnn(RnnCell::Lstm, 48, 64, 1, false);
    c.max_t = 8;
    c.len = {8, 8, 7, 8, 5, 8, 1, 8};
    c.wgrad = ANYDNN_WGRAD_MODE_ADD;
    check_rnn(h, c.with_layout(RnnLayout::SeqMajorPacked));
}

// More threads than the default two over a batch of 13 unequal sequences
// (whatever the library splits, by rows, gates or sequences, has ragged
// edges), and one thread.
TEST_P(RnnIsa, ThreadCounts) {
    for (int threads : {1, 4}) {
        Handle h(GetParam(), threads);
        SKIP_IF_UNAVAILABLE(h);
        SCOPED_TRACE("threads=" + std::to_string(threads));
        for (RnnCell cell : {RnnCell::Lstm, RnnCell::Gru, RnnCell::Relu}) {
            Config c;
            c.p = make_rnn(cell, 9, 17, 2, true);
            if (cell == RnnCell::Lstm) c.p.proj = 11;
            c.max_t = 6;
            c.len = {6, 1, 0, 5, 6, 3, 2, 6, 4, 0, 1, 6, 5};
            c.wgrad = ANYDNN_WGRAD_MODE_ADD;
            check_rnn(h, c);
            check_rnn(h, c.with_layout(RnnLayout::SeqMajorPacked).with_type(ANYDNN_DATA_DOUBLE));
        }
    }
}

// The forward's bits for 1, 2 and 3 threads: the steps split their rows
// over the threads (each row's recurrent GEMM then has the tile's bits,
// whatever the part), the GEMMs split columns; neither may change a bit.
TEST_P(RnnIsa, ForwardBitsDoNotDependOnTheThreadCount) {
    for (RnnCell cell : kCells) {
        Config c;
        c.p = make_rnn(cell, 9, 53, 2, true);
        c.max_t = 5;
        // 26 rows at first (3 parts of >= 8 rows), then fewer: 2 parts, 1.
        c.len = {5, 1, 5, 3, 5, 5, 2, 4, 5, 0, 5, 4, 5, 5, 5, 3, 5, 5, 1, 4, 5, 2, 5, 5, 4, 3, 5};
        SCOPED_TRACE(c.to_string());
        const std::mt19937_64 saved = rng();
        std::vector<double> y[3], yi[3], hy[3];
        for (int threads : {1, 2, 3}) {
            Handle h(GetParam(), threads);
            SKIP_IF_UNAVAILABLE(h);
            RnnProblem pr(h, c);
            rng() = saved;  // the same inputs for every thread count
            pr.fill_inputs();
            ASSERT_OK(pr.forward(ANYDNN_FWD_MODE_INFERENCE, pr.y_inference.get()));
            ASSERT_OK(pr.forward(ANYDNN_FWD_MODE_TRAINING));
            y[threads - 1] = flat(pr.seqs(*pr.y, c.p.out_width()));
            yi[threads - 1] = flat(pr.seqs(*pr.y_inference, c.p.out_width()));
            hy[threads - 1] = pr.hy->values();
        }
        for (int t : {1, 2}) {
            EXPECT_EQ(y[t], y[0]) << t + 1 << " threads: training y differs from 1 thread";
            EXPECT_EQ(yi[t], yi[0]) << t + 1 << " threads: inference y differs from 1 thread";
            EXPECT_EQ(hy[t], hy[0]) << t + 1 << " threads: hy differs from 1 thread";
        }
    }
}

// clipNanOpt: a NaN c_{t-1} (cx) makes c_t NaN; NOT_PROPAGATE_NAN turns it
// into lclip (the sequence goes on finite), PROPAGATE_NAN keeps it. Forward only.
TEST_P(RnnIsa, LstmClipNanOption) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    for (bool propagate : {false, true}) {
        Config c = Config{}.with_type(ANYDNN_DATA_DOUBLE);
        c.p = make_rnn(RnnCell::Lstm, 3, 4, 1, false);
        c.p.clip = true;
        c.p.lclip = -0.5;
        c.p.rclip = 0.5;
        c.p.clip_nan_propagate = propagate;
        SCOPED_TRACE(c.to_string());
        RnnProblem pr(h, c);
        pr.fill_inputs();
        pr.cx->set({0, 1, 2}, NAN);  // sequence 1, element 2
        const ref::RnnForwardResult r =
            ref::rnn_forward(c.p, pr.weights(*pr.w), c.len, pr.seqs(*pr.x, 3), pr.hx_values(), pr.cx_values());
        ASSERT_OK(pr.forward(ANYDNN_FWD_MODE_INFERENCE));
        const Tol ft = forward_tol(c.dt);
        expect_close(flat(pr.seqs(*pr.y, 4)), flat(r.y), ft.rel, ft.abs, "y");
        expect_close(pr.hy->values(), r.hy, ft.rel, ft.abs, "hy");
        expect_close(pr.cy->values(), r.cy, ft.rel, ft.abs, "cy");
        EXPECT_EQ(std::isnan(r.cy[1 * 4 + 2]), propagate);
    }
}

INSTANTIATE_TEST_SUITE_P(Isa, RnnIsa, ::testing::ValuesIn(isa_levels()));

Config dropout_config() {
    Config c = Config{}.with_type(ANYDNN_DATA_DOUBLE);
    c.p = make_rnn(RnnCell::Lstm, 4, 5, 3, true);
    c.p.proj = 3;
    return c;
}

// p = 0 is no dropout; dropout is ignored by INFERENCE (check_rnn compares
// the inference forward with the reference without masks).
TEST(RnnDropout, ZeroIsNone) {
    Handle h("generic");
    DropoutDesc d0(h, 0.0f, 11);
    for (RnnCell cell : kCells)
        for (RnnLayout layout : kLayouts) {
            Config c = dropout_config().with_layout(layout);
            c.p.cell = cell;
            if (cell != RnnCell::Lstm) c.p.proj = c.p.hidden;
            check_rnn(h, c, d0.d);
        }
}

// p = 1: every layer but the first reads zeros (y itself is not dropped);
// the reference sees masks of zeros. The gradients follow the same masks.
TEST(RnnDropout, OneZeroesTheInnerLayerInputs) {
    Handle h("generic");
    DropoutDesc d1(h, 1.0f, 11);
    for (RnnCell cell : kCells)
        for (RnnLayout layout : kLayouts) {
            Config c = dropout_config().with_layout(layout);
            c.p.cell = cell;
            if (cell != RnnCell::Lstm) c.p.proj = c.p.hidden;
            if (layout == RnnLayout::BatchMajorUnpacked) c = c.with_type(ANYDNN_DATA_FLOAT);
            ref::RnnMasks zeros(c.p.layers - 1);
            for (ref::Seqs &m : zeros)
                for (int len : c.len) m.emplace_back(size_t(len) * c.p.out_width(), 0.0);
            check_rnn(h, c, d1.d, zeros);
        }
}

// 0 < p < 1: the same seed and states give bitwise the same y, gradients
// (the masks come from the states, and the backward calls use the forward
// call's); the next forward call on the advanced states draws other masks;
// INFERENCE ignores dropout.
TEST(RnnDropout, DeterministicForTheSameStates) {
    Handle h("generic");
    for (anydnnDataType_t dt : {ANYDNN_DATA_FLOAT, ANYDNN_DATA_DOUBLE}) {
        Config c = dropout_config().with_type(dt);
        SCOPED_TRACE(c.to_string());
        std::vector<double> y[3], dx[3], dw[3];
        const std::mt19937_64 saved = rng();
        for (int run = 0; run < 2; ++run) {
            DropoutDesc d(h, 0.5f, 1234);
            RnnProblem pr(h, c, d.d);
            rng() = saved;  // both runs get the same inputs
            pr.fill_inputs();
            ASSERT_OK(pr.forward(ANYDNN_FWD_MODE_TRAINING));
            ASSERT_OK(pr.backward_data());
            ASSERT_OK(pr.backward_weights());
            y[run] = flat(pr.seqs(*pr.y, c.p.out_width()));
            dx[run] = flat(pr.seqs(*pr.dx, c.p.input));
            dw[run] = flat(pr.weights(*pr.dw));
            if (run == 1) {
                // The states advanced: another draw. And INFERENCE has no dropout.
                ASSERT_OK(pr.forward(ANYDNN_FWD_MODE_TRAINING));
                y[2] = flat(pr.seqs(*pr.y, c.p.out_width()));
                ASSERT_OK(pr.forward(ANYDNN_FWD_MODE_INFERENCE, pr.y_inference.get()));
                const ref::RnnForwardResult r = ref::rnn_forward(
                    c.p, pr.weights(*pr.w), c.len, pr.seqs(*pr.x, c.p.input), pr.hx_values(), pr.cx_values());
                const Tol ft = forward_tol(dt);
                expect_close(flat(pr.seqs(*pr.y_inference, c.p.out_width())), flat(r.y), ft.rel, ft.abs,
                             "inference y with dropout set");
                EXPECT_NE(y[0], flat(r.y)) << "p = 0.5 should change y";
            }
        }
        EXPECT_EQ(y[0], y[1]);
        EXPECT_EQ(dx[0], dx[1]);
        EXPECT_EQ(dw[0], dw[1]);
        EXPECT_NE(y[1], y[2]) << "a second forward call should draw new masks";
    }
}

// Central finite differences of the library's forward against its backward
// calls, f64, one tiny case per cell (and LSTM projection, 2 bidirectional
// layers with dropout p = 0.5, the states restored before each forward
// call so that every call draws the same masks: the backward calls must
// use the masks of the forward call that filled the reserve space).
TEST(RnnLibrary, FiniteDifferences) {
    Handle h("generic");
    struct FdCase {
        Rnn p;
        float dropout;
    };
    std::vector<FdCase> cases;
    for (RnnCell cell : kCells) cases.push_back({make_rnn(cell, 2, 3, 1, false), 0.0f});
    Rnn proj = make_rnn(RnnCell::Lstm, 2, 4, 1, true);
    proj.proj = 2;
    cases.push_back({proj, 0.0f});
    for (RnnCell cell : {RnnCell::Lstm, RnnCell::Gru}) cases.push_back({make_rnn(cell, 2, 3, 2, true), 0.5f});
    Rnn gru_bm = make_rnn(RnnCell::Gru, 2, 3, 2, false);
    cases.push_back({gru_bm, 0.3f});  // the batch-major layout (below), padding between the sequences
    for (const FdCase &fc : cases) {
        Config c = Config{}.with_type(ANYDNN_DATA_DOUBLE);
        c.p = fc.p;
        c.max_t = 3;
        c.len = {3, 0, 2};
        if (&fc == &cases.back()) c = c.with_layout(RnnLayout::BatchMajorUnpacked);
        SCOPED_TRACE(c.to_string() + " dropout=" + std::to_string(fc.dropout));
        DropoutDesc d(h, fc.dropout, 99);
        const std::vector<unsigned char> states0 = d.states;
        const auto restore = [&] {
            d.states = states0;
            ASSERT_OK(anydnnRestoreDropoutDescriptor(d.d, h, fc.dropout, d.states.data(), d.states.size(), 0));
        };
        RnnProblem pr(h, c, fc.dropout > 0 ? d.d : nullptr);
        pr.fill_inputs();
        const int ow = c.p.out_width();
        const ref::Seqs dy = pr.seqs(*pr.dy, ow);
        const std::vector<double> dhy = pr.dhy->values(), dcy = c.lstm() ? pr.dcy->values() : std::vector<double>{};
        const auto objective = [&] {
            restore();
            EXPECT_OK(pr.forward(ANYDNN_FWD_MODE_TRAINING));
            const ref::Seqs y = pr.seqs(*pr.y, ow);
            double f = 0;
            for (size_t b = 0; b < y.size(); ++b)
                for (size_t i = 0; i < y[b].size(); ++i) f += dy[b][i] * y[b][i];
            const std::vector<double> hy = pr.hy->values();
            for (size_t i = 0; i < hy.size(); ++i) f += dhy[i] * hy[i];
            if (c.lstm()) {
                const std::vector<double> cy = pr.cy->values();
                for (size_t i = 0; i < cy.size(); ++i) f += dcy[i] * cy[i];
            }
            return f;
        };
        restore();
        ASSERT_OK(pr.forward(ANYDNN_FWD_MODE_TRAINING));
        ASSERT_OK(pr.backward_data());
        ASSERT_OK(pr.backward_weights());
        const double eps = 1e-5;
        // The numerical derivative with respect to element `off` of `t`.
        const auto fd = [&](Tensor &t, int64_t off) {
            const double v = t.at_offset(off);
            t.set_offset(off, v + eps);
            const double fp = objective();
            t.set_offset(off, v - eps);
            const double fm = objective();
            t.set_offset(off, v);
            return (fp - fm) / (2 * eps);
        };
        const auto check = [&](Tensor &param, const std::vector<int64_t> &offs, const Tensor &grad,
                               const std::string &what) {
            std::vector<double> num, got;
            for (int64_t off : offs) {
                num.push_back(fd(param, off));
                got.push_back(grad.at_offset(off));
            }
            expect_close(got, num, 1e-6, 1e-7, what);
        };
        std::vector<int64_t> xoffs, hoffs, coffs;
        for (int b = 0; b < c.batch(); ++b)
            for (int t = 0; t < c.len[b]; ++t)
                for (int i = 0; i < c.p.input; ++i)
                    xoffs.push_back(ref::rnn_data_position(c.layout, c.max_t, c.len, b, t) * c.p.input + i);
        for (int64_t i = 0; i < pr.hx->shape().elements(); ++i) hoffs.push_back(i);
        for (int64_t i = 0; i < pr.cx->shape().elements(); ++i) coffs.push_back(i);
        check(*pr.x, xoffs, *pr.dx, "dx");
        check(*pr.hx, hoffs, *pr.dhx, "dhx");
        if (c.lstm()) check(*pr.cx, coffs, *pr.dcx, "dcx");
        check(*pr.w, pr.weight_offsets(), *pr.dw, "dw");
    }
}

}  // namespace
