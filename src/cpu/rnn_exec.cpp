#include "cpu/rnn_exec.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <utility>
#include <vector>

#include <omp.h>

#include "cpu/dropout_exec.hpp"
#include "cpu/gemm.hpp"
#include "cpu/rnn_cell.hpp"
#include "cpu/rnn_rows.hpp"
#include "cpu/types.hpp"

namespace anydnn::cpu {

namespace {

constexpr std::size_t kAlign = 64;
// The fewest rows of a step worth a thread of their own (Run::step_slots):
// a part of fewer rows than the GEMM tile's 8 computes them on the few-rows
// path, and every part reads all of R where a column split reads a share.
// With 4 (speech_in80_h256_t100, batch 8: two parts of 4 rows) the LSTM
// forward took 8.3 ms against 3.8 ms for the column split.
constexpr int64_t kStepRowsPerThread = 8;
constexpr std::size_t kNone = SIZE_MAX;

// The sizes of a shape, in elements; R = maxSeqLength * batchSize bounds
// the rows (valid steps) of any call of the shape, so one layout serves
// every set of lengths.
struct Dims {
    int64_t T, B, R, H, P, G, GH, L, dirs, in0, ycols, max_in, welems;
    bool lstm, gru, proj, training;
    bool convert;  // HALF / BFLOAT16 storage: the weights are converted to float

    explicit Dims(const ops::RnnShape &s) {
        const ops::RnnConfig &c = s.c;
        T = s.max_seq;
        B = s.batch;
        R = T * B;
        H = c.hidden_size;
        P = c.proj_size;
        G = c.gates();
        GH = G * H;
        L = c.num_layers;
        dirs = c.dirs();
        in0 = c.input_size;
        ycols = P * dirs;
        max_in = std::max(in0, ycols);
        welems = ops::rnn_weight_layout(c).elements;
        lstm = c.mode == ANYDNN_LSTM;
        gru = c.mode == ANYDNN_GRU;
        proj = c.has_proj();
        training = s.training;
        convert = c.dt == ANYDNN_DATA_HALF || c.dt == ANYDNN_DATA_BFLOAT16;
    }
};

// Byte offsets of one pseudo-layer's buffers, R rows each (kNone: absent).
//   g      the gate activations (rows x GH)
//   hr     GRU: h_{t-1} R^T + bR (rows x GH)
//   c      LSTM: c_t; cprev: c_{t-1} (rows x H)
//   hprev  h_{t-1} of every row (rows x P): the recurrent GEMMs' A, dR's B
//   htil   LSTM with projection: o * tanh(c_t) (rows x H)
//   dg     training: the gradient of the input-side pre-activations
//   dgr    GRU: of the recurrent side; dhp: projection: of h_t (rows x P)
struct Block {
    std::size_t g = kNone, hr = kNone, c = kNone, cprev = kNone, hprev = kNone, htil = kNone, dg = kNone,
                dgr = kNone, dhp = kNone;
};

// What the reserve space starts with: the dropout the forward call applied.
struct ReserveHeader {
    double dropout_p;
};

// Where everything lies. blocks, out, drop and x0 are in the reserve space
// for training (the backward calls read them) and in the work space for
// inference (one block reused by every pseudo-layer, two layer outputs used
// in turn); the rest is work space.
struct Plan {
    std::vector<Block> blocks;
    std::vector<std::size_t> out;   // layer outputs (rows x ycols)
    std::vector<std::size_t> drop;  // training: dropout's output of layer l < L - 1 (rows x ycols)
    std::size_t x0 = kNone;         // x gathered (rows x in0)
    std::size_t masks = kNone;      // training: dropout's bytes, (L - 1) * R * ycols
    std::size_t bias = kNone, h0 = kNone, c0 = kNone, w = kNone;     // work space, forward
    std::size_t dy0 = kNone, dy1 = kNone, dhs = kNone, dcs = kNone;  // work space, backward
    std::size_t dht = kNone, dhtil = kNone, ones = kNone, dw = kNone;
    std::size_t gemm = kNone, gemm_bytes = 0;
    std::size_t rpack = kNone;  // R packed once per layer for the steps' products (more than one step or row sliver)
    std::size_t ws_bytes = 0, reserve_bytes = 0;
};

struct Bump {
    std::size_t at = 0;
    std::size_t take(std::size_t bytes) {
        const std::size_t o = at;
        at += (bytes + kAlign - 1) / kAlign * kAlign;
        return o;
    }
};

// Sized for at least as many threads as the machine has cores, so that a
// query made before anydnnSetNumThreads still answers enough.
template <class C>
std::size_t gemm_bytes(const Handle &h, const Dims &d) {
    const ExecContext ctx{std::max(h.threads(), omp_get_num_procs())};
    const GemmKernels<C> &k = gemm_kernels<C>(h.isa);
    std::size_t m = 0;
    auto need = [&](int64_t rows, int64_t cols, int64_t red) {
        m = std::max(m, k.workspace_size(ctx, rows, cols, red));
    };
    need(d.R, d.GH, d.max_in);  // input projection
    need(d.B, d.GH, d.P);       // recurrent step
    if (d.proj) need(d.B, d.P, d.H);
    if (d.training) {
        need(d.B, d.P, d.GH);       // dh_{t-1} = dG R
        need(d.R, d.max_in, d.GH);  // dx = dG W
        need(d.GH, d.max_in, d.R);  // dW
        need(d.GH, d.P, d.R);       // dR
        need(1, d.GH, d.R);         // db
        if (d.proj) {
            need(d.B, d.H, d.P);
            need(d.P, d.H, d.R);
        }
    }
    return m;
}

template <class C>
Plan make_plan(const Handle &h, const Dims &d) {
    const std::size_t e = sizeof(C);
    Plan p;
    Bump ws, res;
    if (d.training) res.take(sizeof(ReserveHeader));
    Bump &keep = d.training ? res : ws;
    const int64_t nblocks = d.training ? d.L * d.dirs : 1;
    for (int64_t i = 0; i < nblocks; ++i) {
        Block b;
        b.g = keep.take(d.R * d.GH * e);
        if (d.gru) b.hr = keep.take(d.R * d.GH * e);
        if (d.lstm) {
            b.c = keep.take(d.R * d.H * e);
            b.cprev = keep.take(d.R * d.H * e);
        }
        b.hprev = keep.take(d.R * d.P * e);
        if (d.proj) b.htil = keep.take(d.R * d.H * e);
        if (d.training) {
            b.dg = keep.take(d.R * d.GH * e);
            if (d.gru) b.dgr = keep.take(d.R * d.GH * e);
            if (d.proj) b.dhp = keep.take(d.R * d.P * e);
        }
        p.blocks.push_back(b);
    }
    const int64_t nout = d.training ? d.L : std::min<int64_t>(d.L, 2);
    for (int64_t i = 0; i < nout; ++i) p.out.push_back(keep.take(d.R * d.ycols * e));
    if (d.training)
        for (int64_t l = 0; l + 1 < d.L; ++l) p.drop.push_back(keep.take(d.R * d.ycols * e));
    p.x0 = keep.take(d.R * d.in0 * e);
    if (d.training && d.L > 1) p.masks = res.take(static_cast<std::size_t>((d.L - 1) * d.R * d.ycols));
    p.bias = ws.take(d.GH * e);
    p.h0 = ws.take(d.B * d.P * e);
    if (d.lstm) p.c0 = ws.take(d.B * d.H * e);
    if (d.convert) p.w = ws.take(d.welems * e);
    if (d.training) {
        p.dy0 = ws.take(d.R * d.max_in * e);
        p.dy1 = ws.take(d.R * d.max_in * e);
        p.dhs = ws.take(d.B * d.P * e);
        if (d.lstm) p.dcs = ws.take(d.B * d.H * e);
        p.dht = ws.take(d.B * d.P * e);
        if (d.proj) p.dhtil = ws.take(d.B * d.H * e);
        p.ones = ws.take(d.R * e);
        if (d.convert) p.dw = ws.take(d.welems * e);
    }
    // One step with few rows reads R once in place: packing it would double that.
    if (d.T > 1 || d.B > kGemmFewRows) {
        const GemmKernels<C> &k = gemm_kernels<C>(h.isa);
        std::size_t bytes = k.packed_b_size(d.GH, d.P);                 // forward: h R^T
        if (d.training) bytes = std::max(bytes, k.packed_b_size(d.P, d.GH));  // backward: dG R
        p.rpack = ws.take(bytes);
    }
    p.gemm_bytes = gemm_bytes<C>(h, d);
    p.gemm = ws.take(p.gemm_bytes);
    // The caller's pointers may have any alignment: kAlign more to align them.
    p.ws_bytes = ws.at + kAlign;
    p.reserve_bytes = d.training ? res.at + kAlign : 0;
    return p;
}

char *align_up(void *p) {
    const auto u = reinterpret_cast<uintptr_t>(p);
    return reinterpret_cast<char *>((u + kAlign - 1) / kAlign * kAlign);
}

// The batch sorted by length, longest first (stable), so that step t's
// active sequences are the first bt[t] ranks; rows (valid steps) in time
// order, step t's rows [off[t], off[t] + bt[t]).
struct Seq {
    int64_t rows = 0;
    std::vector<int64_t> rank_to_batch, len, bt, off;
    std::vector<int64_t> pos;  // per row: the step's vector index in the caller's layout
    std::vector<int64_t> pad;  // unpacked layouts: the vector indices of the padding

    Seq(const ops::RnnData &x) {
        const int64_t T = x.max_seq, B = x.batch;
        rank_to_batch.resize(B);
        std::iota(rank_to_batch.begin(), rank_to_batch.end(), int64_t{0});
        std::stable_sort(rank_to_batch.begin(), rank_to_batch.end(),
                         [&](int64_t a, int64_t b) { return x.lengths[a] > x.lengths[b]; });
        for (int64_t j = 0; j < B; ++j) len.push_back(x.lengths[rank_to_batch[j]]);
        bt.assign(T, 0);
        off.assign(T + 1, 0);
        for (int64_t t = 0; t < T; ++t) {
            while (bt[t] < B && len[bt[t]] > t) ++bt[t];
            off[t + 1] = off[t] + bt[t];
        }
        rows = off[T];
        pos.resize(rows);
        for (int64_t t = 0; t < T; ++t)
            for (int64_t j = 0; j < bt[t]; ++j) {
                const int64_t b = rank_to_batch[j];
                switch (x.layout) {
                case ANYDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED: pos[off[t] + j] = t * B + b; break;
                case ANYDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED: pos[off[t] + j] = b * T + t; break;
                default: pos[off[t] + j] = off[t] + j; break;  // non-increasing lengths: rank j is sequence j
                }
            }
        if (x.unpacked())
            for (int64_t b = 0; b < B; ++b)
                for (int64_t t = x.lengths[b]; t < T; ++t)
                    pad.push_back(x.layout == ANYDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED ? t * B + b : b * T + t);
    }
};

std::vector<int64_t> scaled(const std::vector<int64_t> &v, int64_t s) {
    std::vector<int64_t> o(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) o[i] = v[i] * s;
    return o;
}

template <class C>
GemmArgs<C> mm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const C *a, int64_t lda, const C *b, int64_t ldb,
               C beta, C *c, int64_t ldc) {
    GemmArgs<C> g;
    g.trans_a = ta;
    g.trans_b = tb;
    g.m = m;
    g.n = n;
    g.k = k;
    g.a = a;
    g.lda = lda;
    g.b = b;
    g.ldb = ldb;
    g.beta = beta;
    g.c = c;
    g.ldc = ldc;
    return g;
}

// One call's run: the plan over the caller's buffers, in compute type C.
template <class C>
class Run {
public:
    Run(const Handle &h, const ops::RnnProblem &p, void *workspace, const void *reserve)
        : h_(h), p_(p), c_(p.shape.c), ctx_{h.threads()}, d_(p.shape), plan_(make_plan<C>(h, d_)),
          wl_(ops::rnn_weight_layout(c_)), seq_(p.x), ws_(align_up(workspace)),
          res_(reserve != nullptr ? align_up(const_cast<void *>(reserve)) : nullptr),
          keep_(d_.training ? res_ : ws_) {}

    void forward(const RnnDropout &drop, const RnnForwardBuffers &b);
    void backward_data(const RnnBackwardDataBuffers &b);
    void backward_weights(const RnnBackwardWeightsBuffers &b);

private:
    static constexpr anydnnDataType_t kDt = sizeof(C) == 4 ? ANYDNN_DATA_FLOAT : ANYDNN_DATA_DOUBLE;

    C *ws(std::size_t off) const { return reinterpret_cast<C *>(ws_ + off); }
    C *keep(std::size_t off) const { return reinterpret_cast<C *>(keep_ + off); }
    const Block &block(int64_t pl) const { return plan_.blocks[d_.training ? pl : 0]; }
    int64_t step_t(int64_t dir, int64_t step, bool backward) const {
        return (dir == 0) != backward ? step : d_.T - 1 - step;
    }

    // Inside a step's parallel region (step_forward), thread `slot` of
    // `slots` runs its GEMM on ExecContext{1} in its own slice of the pack
    // buffers; outside, slots is 1.
    void gemm(const GemmArgs<C> &a, const ExecContext &cx, int slot = 0, int slots = 1) const {
        if (a.m <= 0 || a.n <= 0) return;
        // The plan sized the pack buffers for the largest GEMM of each kind;
        // should a smaller one need more (the engine's split may differ),
        // the engine's own cached buffer (one per thread) serves it.
        const std::size_t slice = plan_.gemm_bytes / slots / kAlign * kAlign;
        if (gemm_workspace_size(h_.isa, cx, a) <= slice)
            gemm_kernels<C>(h_.isa).gemm(cx, a, ws(plan_.gemm + slot * slice));
        else
            cpu::gemm(h_.isa, cx, a);
    }
    void gemm(const GemmArgs<C> &a) const { gemm(a, ctx_); }
    // R as op(B) of the steps' products, packed once for all of them; null
    // for a single step with few rows (the GEMM reads R in place).
    const C *packed_r(bool trans_b, int64_t n, int64_t k, const C *r, int64_t ldr) const {
        if (plan_.rpack == kNone) return nullptr;
        C *dst = ws(plan_.rpack);
        gemm_kernels<C>(h_.isa).pack_b(ctx_, trans_b, n, k, 1, &r, ldr, dst);
        return dst;
    }
    void copy(anydnnDataType_t sdt, const void *src, const int64_t *soff, int64_t sld, anydnnDataType_t ddt, void *dst,
              const int64_t *doff, int64_t dld, int64_t rows, int64_t cols) const {
        copy(ctx_, sdt, src, soff, sld, ddt, dst, doff, dld, rows, cols);
    }
    void copy(const ExecContext &cx, anydnnDataType_t sdt, const void *src, const int64_t *soff, int64_t sld,
              anydnnDataType_t ddt, void *dst, const int64_t *doff, int64_t dld, int64_t rows, int64_t cols) const {
        RnnCopyArgs a;
        a.src_dt = sdt;
        a.dst_dt = ddt;
        a.src = src;
        a.dst = dst;
        a.src_off = soff;
        a.dst_off = doff;
        a.src_ld = sld;
        a.dst_ld = dld;
        a.rows = rows;
        a.cols = cols;
        rnn_rows_kernels(h_.isa).copy(cx, a);
    }
    void fill(C *dst, int64_t rows, int64_t cols, C v) const {
        rnn_rows_kernels(h_.isa).fill(ctx_, kDt, dst, nullptr, cols, rows, cols, v);
    }
    void add(int64_t rows, int64_t cols, const C *a, int64_t lda, const C *b, int64_t ldb, C *o, int64_t ldo) const {
        rnn_rows_kernels(h_.isa).add(ctx_, kDt, rows, cols, a, lda, b, ldb, o, ldo);
    }

    // The weights in C: the caller's, or converted into the work space.
    void load_weights(const void *w) {
        if (!d_.convert) {
            w_ = static_cast<const C *>(w);
            return;
        }
        copy(c_.dt, w, nullptr, 0, kDt, ws(plan_.w), nullptr, 0, 1, d_.welems);
        w_ = ws(plan_.w);
    }
    // Pseudo-layer pl's slice of a state tensor {L * dirs, B, cols} of the
    // caller, in rank order, into dst (B x cols); zeros when src is NULL.
    void load_state(const void *src, int64_t pl, int64_t cols, C *dst) const {
        if (src == nullptr) return fill(dst, d_.B, cols, C(0));
        copy(c_.dt, src, state_offsets(pl, cols).data(), 0, kDt, dst, nullptr, cols, d_.B, cols);
    }
    void store_state(const C *src, int64_t pl, int64_t cols, void *dst) const {
        if (dst == nullptr) return;
        copy(kDt, src, nullptr, cols, c_.dt, dst, state_offsets(pl, cols).data(), 0, d_.B, cols);
    }
    std::vector<int64_t> state_offsets(int64_t pl, int64_t cols) const {
        std::vector<int64_t> o(d_.B);
        for (int64_t j = 0; j < d_.B; ++j) o[j] = (pl * d_.B + seq_.rank_to_batch[j]) * cols;
        return o;
    }
    // A layer's rows from the caller's layout (x, dy) and back (y, dx, with
    // the padding fill).
    void gather(const void *src, int64_t cols, C *dst) const {
        copy(c_.dt, src, scaled(seq_.pos, cols).data(), 0, kDt, dst, nullptr, cols, seq_.rows, cols);
    }
    void scatter(const C *src, int64_t cols, void *dst, bool has_fill, double fill_value) const {
        copy(kDt, src, nullptr, cols, c_.dt, dst, scaled(seq_.pos, cols).data(), 0, seq_.rows, cols);
        if (has_fill && !seq_.pad.empty())
            rnn_rows_kernels(h_.isa).fill(ctx_, c_.dt, dst, scaled(seq_.pad, cols).data(), 0,
                                          static_cast<int64_t>(seq_.pad.size()), cols, fill_value);
    }
    // Copies rows [0, b) of a step's h_{t-1} (or c_{t-1}): the first nc
    // continue from step s's rows of `prev` (column col0, ld ld_prev), the
    // rest start from the initial state `init` (ld cols).
    // Rows [q0, q1) of step t's h_{t-1} (or c_{t-1}) into dst (step t's
    // first row at dst): the first nc rows continue step s, the rest start
    // from init.
    void prev_rows(const ExecContext &cx, int64_t t, int64_t s, int64_t nc, const C *prev, int64_t ld_prev,
                   const C *init, int64_t cols, C *dst, int64_t q0, int64_t q1) const {
        const int64_t b = std::min(q1, seq_.bt[t]), split = std::clamp(nc, q0, b);
        if (split > q0)
            copy(cx, kDt, prev + (seq_.off[s] + q0) * ld_prev, nullptr, ld_prev, kDt, dst + q0 * cols, nullptr, cols,
                 split - q0, cols);
        if (b > split)
            copy(cx, kDt, init + split * cols, nullptr, cols, kDt, dst + split * cols, nullptr, cols, b - split, cols);
    }
    // The rows of step t that continue from the step before it in dir's order.
    int64_t continuing(int64_t dir, int64_t t, int64_t *s) const {
        *s = dir == 0 ? t - 1 : t + 1;
        if (*s < 0 || *s >= d_.T) return 0;
        return std::min(seq_.bt[*s], seq_.bt[t]);
    }
    const C *layer_input(int64_t l, const ReserveHeader &hdr) const {
        if (l == 0) return keep(plan_.x0);
        return hdr.dropout_p > 0 ? keep(plan_.drop[l - 1]) : keep(plan_.out[l - 1]);
    }
    RnnCellArgs<C> cell_args(const Block &bk, int64_t t) const;
    ops::DropoutProblem dropout_problem(double p) const {
        ops::DropoutProblem q;
        q.dt = kDt;
        q.p = p;
        q.nd = 1;
        q.dims[0] = seq_.rows * d_.ycols;
        q.out_strides[0] = q.in_strides[0] = 1;
        q.elements = q.dims[0];
        return q;
    }

    struct Step;
    int step_slots(int64_t rows) const;
    void step_rows(const Step &st, int64_t q0, int64_t q1, const ExecContext &cx, int slot, int slots) const;
    void layer_forward(int64_t l, int64_t dir, const C *in, C *out, const RnnForwardBuffers &b);
    void layer_backward(int64_t l, int64_t dir, const C *dy, C *dx, const RnnBackwardDataBuffers &b);

    const Handle &h_;
    const ops::RnnProblem &p_;
    const ops::RnnConfig &c_;
    ExecContext ctx_;
    Dims d_;
    Plan plan_;
    ops::RnnWeightLayout wl_;
    Seq seq_;
    char *ws_, *res_, *keep_;
    const C *w_ = nullptr;
};

template <class C>
RnnCellArgs<C> Run<C>::cell_args(const Block &bk, int64_t t) const {
    const int64_t r0 = seq_.off[t];
    RnnCellArgs<C> a;
    a.mode = c_.mode == ANYDNN_RNN_RELU ? RnnCellMode::relu
             : c_.mode == ANYDNN_RNN_TANH ? RnnCellMode::tanh
             : c_.mode == ANYDNN_LSTM     ? RnnCellMode::lstm
                                          : RnnCellMode::gru;
    a.rows = seq_.bt[t];
    a.hidden = d_.H;
    a.g = keep(bk.g) + r0 * d_.GH;
    a.ldg = d_.GH;
    if (d_.gru) a.hr = keep(bk.hr) + r0 * d_.GH;
    a.h_prev = keep(bk.hprev) + r0 * d_.P;
    a.ld_h_prev = d_.P;
    if (d_.lstm) {
        a.c_prev = keep(bk.cprev) + r0 * d_.H;
        a.c = keep(bk.c) + r0 * d_.H;
    }
    a.clip = p_.lstm_clip();
    a.propagate_nan = p_.clip.nan == ANYDNN_PROPAGATE_NAN;
    a.lclip = static_cast<C>(p_.clip.lclip);
    a.rclip = static_cast<C>(p_.clip.rclip);
    return a;
}

// What a forward step's rows need: the pseudo-layer, step t (s: the step
// it continues, nc: how many of its rows do), the layer output y (this
// direction's columns), the initial states and R (packed, or null).
template <class C>
struct Run<C>::Step {
    const Block &bk;
    const ops::RnnLayerWeights &lw;
    int64_t t, s, nc;
    C *y;
    const C *h0, *c0, *r, *r_packed;
};

// The threads a step's rows are split over: a step's rows are independent
// (h_{t-1} rows, the GEMM's rows, the cell's rows), so each thread can run
// all of them on its own rows, one parallel region per step instead of one
// per part and a serial cell. Only with R packed: then every row's GEMM has
// the tile's bits whatever the split (the GEMM engine's few-rows contract),
// so results do not depend on the thread count; not with a projection
// (its matrix is not packed).
template <class C>
int Run<C>::step_slots(int64_t rows) const {
    if (plan_.rpack == kNone || d_.proj || ctx_.threads <= 1) return 1;
    return static_cast<int>(std::clamp<int64_t>(rows / kStepRowsPerThread, 1, ctx_.threads));
}

// Rows [q0, q1) of a forward step on context cx: h_{t-1} (and c_{t-1}),
// G += h_{t-1} R^T (GRU: HR = h_{t-1} R^T + bR), the cell, the projection.
template <class C>
void Run<C>::step_rows(const Step &st, int64_t q0, int64_t q1, const ExecContext &cx, int slot, int slots) const {
    const int64_t H = d_.H, P = d_.P, GH = d_.GH, ycols = d_.ycols, r0 = seq_.off[st.t], rows = q1 - q0;
    if (rows <= 0) return;
    C *hp = keep(st.bk.hprev) + r0 * P;
    prev_rows(cx, st.t, st.s, st.nc, st.y, ycols, st.h0, P, hp, q0, q1);
    if (d_.lstm) prev_rows(cx, st.t, st.s, st.nc, keep(st.bk.c), H, st.c0, H, keep(st.bk.cprev) + r0 * H, q0, q1);
    const int64_t first = r0 + q0;  // the part's first row in the layer
    GemmArgs<C> a = mm<C>(false, true, rows, GH, P, hp + q0 * P, P, st.r, P, 1, keep(st.bk.g) + first * GH, GH);
    if (d_.gru) {
        a.beta = 0;
        a.c = keep(st.bk.hr) + first * GH;
        if (st.lw.br >= 0) a.epilogue.bias_kind = GemmBias::per_col, a.epilogue.bias = w_ + st.lw.br;
    }
    a.b_packed = st.r_packed;
    gemm(a, cx, slot, slots);
    RnnCellArgs<C> c = cell_args(st.bk, st.t);
    c.rows = rows;
    c.g += q0 * GH;
    if (c.hr != nullptr) c.hr += q0 * GH;
    c.h_prev += q0 * P;
    if (d_.lstm) c.c_prev += q0 * H, c.c += q0 * H;
    if (d_.proj) {
        c.h = keep(st.bk.htil) + first * H;
        c.ldh = H;
    } else {
        c.h = st.y + first * ycols;
        c.ldh = ycols;
    }
    rnn_cell_kernels<C>(h_.isa).forward(cx, c);
    if (d_.proj) gemm(mm<C>(false, true, rows, P, H, c.h, H, w_ + st.lw.proj, H, 0, st.y + first * ycols, ycols), cx);
}

template <class C>
void Run<C>::layer_forward(int64_t l, int64_t dir, const C *in, C *out, const RnnForwardBuffers &b) {
    const int64_t pl = l * d_.dirs + dir, in_cols = c_.in_cols(static_cast<int>(l)), rows = seq_.rows;
    const int64_t H = d_.H, P = d_.P, GH = d_.GH, ycols = d_.ycols;
    const Block &bk = block(pl);
    const ops::RnnLayerWeights &lw = wl_.layers[pl];
    C *g = keep(bk.g);
    C *y = out + dir * P;  // this direction's columns of the layer output

    // The biases outside the recurrence fold into the input projection:
    // bW + bR, but GRU's bR stays with R h (r multiplies R_n h + bR_n).
    const C *bias = nullptr;
    if (lw.bw >= 0 && lw.br >= 0 && !d_.gru) {
        add(1, GH, w_ + lw.bw, 0, w_ + lw.br, 0, ws(plan_.bias), 0);
        bias = ws(plan_.bias);
    } else if (lw.bw >= 0) {
        bias = w_ + lw.bw;
    } else if (lw.br >= 0 && !d_.gru) {
        bias = w_ + lw.br;
    }
    if (lw.w >= 0) {
        GemmArgs<C> a = mm<C>(false, true, rows, GH, in_cols, in, in_cols, w_ + lw.w, in_cols, 0, g, GH);
        if (bias != nullptr) a.epilogue.bias_kind = GemmBias::per_col, a.epilogue.bias = bias;
        gemm(a);
    } else {  // SKIP_INPUT: W x_t is x_t for every gate
        for (int64_t gate = 0; gate < d_.G; ++gate)
            copy(kDt, in, nullptr, in_cols, kDt, g + gate * H, nullptr, GH, rows, H);
        if (bias != nullptr) add(rows, GH, g, GH, bias, 0, g, GH);
    }

    C *h0 = ws(plan_.h0), *c0 = d_.lstm ? ws(plan_.c0) : nullptr;
    load_state(b.hx, pl, P, h0);
    if (d_.lstm) load_state(b.cx, pl, H, c0);
    Step st{bk, lw, 0, 0, 0, y, h0, c0, w_ + lw.r, nullptr};
    st.r_packed = packed_r(true, GH, P, st.r, P);
    for (int64_t step = 0; step < d_.T; ++step) {
        st.t = step_t(dir, step, false);
        const int64_t bt = seq_.bt[st.t];
        if (bt == 0) continue;
        st.nc = continuing(dir, st.t, &st.s);
        const int slots = step_slots(bt);
        if (slots == 1) {
            step_rows(st, 0, bt, ctx_, 0, 1);
            continue;
        }
#pragma omp parallel num_threads(slots)
        {
            // A smaller team than asked for (nested parallelism) takes several slots each.
            for (int q = omp_get_thread_num(); q < slots; q += omp_get_num_threads())
                step_rows(st, bt * q / slots, bt * (q + 1) / slots, ExecContext{1}, q, slots);
        }
    }

    // The final states: each sequence's last step in this direction's order
    // (a sequence of length 0 passes its initial state through).
    std::vector<int64_t> src, dst, src0, dst0;
    for (int64_t j = 0; j < d_.B; ++j) {
        const int64_t o = (pl * d_.B + seq_.rank_to_batch[j]);
        if (seq_.len[j] == 0) {
            src0.push_back(j);
            dst0.push_back(o);
        } else {
            src.push_back(seq_.off[dir == 0 ? seq_.len[j] - 1 : 0] + j);
            dst.push_back(o);
        }
    }
    auto final_state = [&](const C *from, int64_t ld, const C *init, int64_t cols, void *to) {
        if (to == nullptr) return;
        copy(kDt, from, scaled(src, ld).data(), 0, c_.dt, to, scaled(dst, cols).data(), 0,
             static_cast<int64_t>(src.size()), cols);
        copy(kDt, init, scaled(src0, cols).data(), 0, c_.dt, to, scaled(dst0, cols).data(), 0,
             static_cast<int64_t>(src0.size()), cols);
    };
    final_state(y, ycols, h0, P, b.hy);
    if (d_.lstm) final_state(keep(bk.c), H, c0, H, b.cy);
}

template <class C>
void Run<C>::forward(const RnnDropout &drop, const RnnForwardBuffers &b) {
    load_weights(b.w);
    ReserveHeader hdr{d_.training && d_.L > 1 ? drop.p : 0.0};
    if (d_.training) std::memcpy(res_, &hdr, sizeof(hdr));
    C *x0 = keep(plan_.x0);
    gather(b.x, d_.in0, x0);
    const C *in = x0;
    C *out = nullptr;
    for (int64_t l = 0; l < d_.L; ++l) {
        out = keep(plan_.out[d_.training ? l : l % 2]);
        for (int64_t dir = 0; dir < d_.dirs; ++dir) layer_forward(l, dir, in, out, b);
        in = out;
        if (l + 1 < d_.L && hdr.dropout_p > 0) {
            // Each layer draws its own part of the call's stream.
            const int64_t first = l * d_.R * d_.ycols;
            C *dropped = keep(plan_.drop[l]);
            execute_dropout_forward(h_, dropout_problem(hdr.dropout_p), drop.seed, drop.call, out, dropped,
                                    res_ + plan_.masks + first, first);
            in = dropped;
        }
    }
    scatter(out, d_.ycols, b.y, p_.y_has_fill, p_.y_fill);
}

template <class C>
void Run<C>::layer_backward(int64_t l, int64_t dir, const C *dy, C *dx, const RnnBackwardDataBuffers &b) {
    const int64_t pl = l * d_.dirs + dir, in_cols = c_.in_cols(static_cast<int>(l)), rows = seq_.rows;
    const int64_t H = d_.H, P = d_.P, GH = d_.GH, ycols = d_.ycols;
    const Block &bk = block(pl);
    const ops::RnnLayerWeights &lw = wl_.layers[pl];
    C *dhs = ws(plan_.dhs), *dcs = d_.lstm ? ws(plan_.dcs) : nullptr;
    load_state(b.dhy, pl, P, dhs);
    if (d_.lstm) load_state(b.dcy, pl, H, dcs);
    C *dg = keep(bk.dg), *dgr = d_.gru ? keep(bk.dgr) : dg;
    const C *r_packed = packed_r(false, P, GH, w_ + lw.r, P);
    for (int64_t step = 0; step < d_.T; ++step) {
        const int64_t t = step_t(dir, step, true), bt = seq_.bt[t], r0 = seq_.off[t];
        if (bt == 0) continue;
        // The gradient of h_t: from the output and from the later step (or dhy).
        C *dh = d_.proj ? keep(bk.dhp) + r0 * P : ws(plan_.dht);
        add(bt, P, dhs, P, dy + r0 * ycols + dir * P, ycols, dh, P);
        RnnCellArgs<C> a = cell_args(bk, t);
        a.dh = dh;
        a.ld_dh = P;
        if (d_.proj) {
            C *dht = ws(plan_.dhtil);
            gemm(mm<C>(false, false, bt, H, P, dh, P, w_ + lw.proj, H, 0, dht, H));
            a.dh = dht;
            a.ld_dh = H;
        }
        a.dc = dcs;
        a.dg = dg + r0 * GH;
        if (d_.gru) a.dgr = dgr + r0 * GH;
        a.dh_prev = dhs;
        a.ld_dh_prev = P;
        rnn_cell_kernels<C>(h_.isa).backward(ctx_, a);
        GemmArgs<C> dr = mm<C>(false, false, bt, P, GH, dgr + r0 * GH, GH, w_ + lw.r, P, d_.gru ? 1 : 0, dhs, P);
        dr.b_packed = r_packed;
        gemm(dr);
    }
    store_state(dhs, pl, P, b.dhx);
    if (d_.lstm) store_state(dcs, pl, H, b.dcx);
    // Both directions read the same input: the second adds its gradient.
    if (lw.w >= 0) {
        gemm(mm<C>(false, false, rows, in_cols, GH, dg, GH, w_ + lw.w, in_cols, dir == 0 ? 0 : 1, dx, in_cols));
    } else {
        for (int64_t gate = 0; gate < d_.G; ++gate) {
            if (dir == 0 && gate == 0) copy(kDt, dg, nullptr, GH, kDt, dx, nullptr, in_cols, rows, H);
            else add(rows, H, dx, in_cols, dg + gate * H, GH, dx, in_cols);
        }
    }
}

template <class C>
void Run<C>::backward_data(const RnnBackwardDataBuffers &b) {
    load_weights(b.w);
    ReserveHeader hdr;
    std::memcpy(&hdr, res_, sizeof(hdr));
    C *dy = ws(plan_.dy0), *dx = ws(plan_.dy1);
    gather(b.dy, d_.ycols, dy);
    for (int64_t l = d_.L - 1; l >= 0; --l) {
        for (int64_t dir = 0; dir < d_.dirs; ++dir) layer_backward(l, dir, dy, dx, b);
        if (l == 0) break;
        if (hdr.dropout_p > 0)
            execute_dropout_backward(h_, dropout_problem(hdr.dropout_p), dx, dy,
                                     res_ + plan_.masks + (l - 1) * d_.R * d_.ycols);
        else
            std::swap(dy, dx);
    }
    scatter(dx, d_.in0, b.dx, p_.x.has_fill, p_.x.fill);
}

template <class C>
void Run<C>::backward_weights(const RnnBackwardWeightsBuffers &b) {
    ReserveHeader hdr;
    std::memcpy(&hdr, res_, sizeof(hdr));
    C *dw = d_.convert ? ws(plan_.dw) : static_cast<C *>(b.dw);
    if (d_.convert && b.add) copy(c_.dt, b.dw, nullptr, 0, kDt, dw, nullptr, 0, 1, d_.welems);
    const C beta = b.add ? 1 : 0;
    const int64_t rows = seq_.rows, H = d_.H, P = d_.P, GH = d_.GH;
    C *ones = ws(plan_.ones);
    fill(ones, 1, std::max<int64_t>(rows, 1), C(1));
    for (int64_t l = 0; l < d_.L; ++l) {
        const C *in = layer_input(l, hdr);
        const int64_t in_cols = c_.in_cols(static_cast<int>(l));
        for (int64_t dir = 0; dir < d_.dirs; ++dir) {
            const int64_t pl = l * d_.dirs + dir;
            const Block &bk = block(pl);
            const ops::RnnLayerWeights &lw = wl_.layers[pl];
            const C *dg = keep(bk.dg), *dgr = d_.gru ? keep(bk.dgr) : dg;
            // Every step at once: dW = dG^T X, dR = dG^T H_{t-1}, db = 1^T dG.
            if (lw.w >= 0) gemm(mm<C>(true, false, GH, in_cols, rows, dg, GH, in, in_cols, beta, dw + lw.w, in_cols));
            gemm(mm<C>(true, false, GH, P, rows, dgr, GH, keep(bk.hprev), P, beta, dw + lw.r, P));
            if (lw.bw >= 0) gemm(mm<C>(false, false, 1, GH, rows, ones, rows, dg, GH, beta, dw + lw.bw, GH));
            if (lw.br >= 0) gemm(mm<C>(false, false, 1, GH, rows, ones, rows, dgr, GH, beta, dw + lw.br, GH));
            if (d_.proj)
                gemm(mm<C>(true, false, P, H, rows, keep(bk.dhp), P, keep(bk.htil), H, beta, dw + lw.proj, H));
        }
    }
    if (d_.convert) copy(kDt, dw, nullptr, 0, c_.dt, b.dw, nullptr, 0, 1, d_.welems);
}

template <class Fn>
void visit_compute(anydnnDataType_t dt, Fn &&fn) {
    if (dt == ANYDNN_DATA_DOUBLE) fn(TypeTag<double>{});
    else fn(TypeTag<float>{});
}

}  // namespace

RnnSizes rnn_sizes(const Handle &h, const ops::RnnShape &s) {
    RnnSizes r;
    visit_compute(s.c.dt, [&](auto tag) {
        using C = typename decltype(tag)::type;
        const Plan p = make_plan<C>(h, Dims(s));
        r.workspace = p.ws_bytes;
        r.reserve = p.reserve_bytes;
        if (s.training) {
            // Inference keeps in the work space what training keeps in the
            // reserve: a training-sized work space must serve it too.
            ops::RnnShape inference = s;
            inference.training = false;
            r.workspace = std::max(r.workspace, make_plan<C>(h, Dims(inference)).ws_bytes);
        }
    });
    return r;
}

void execute_rnn_forward(const Handle &h, const ops::RnnProblem &p, const RnnDropout &dropout,
                         const RnnForwardBuffers &b) {
    visit_compute(p.shape.c.dt, [&](auto tag) {
        Run<typename decltype(tag)::type>(h, p, b.workspace, b.reserve).forward(dropout, b);
    });
}

void execute_rnn_backward_data(const Handle &h, const ops::RnnProblem &p, const RnnBackwardDataBuffers &b) {
    visit_compute(p.shape.c.dt, [&](auto tag) {
        Run<typename decltype(tag)::type>(h, p, b.workspace, b.reserve).backward_data(b);
    });
}

void execute_rnn_backward_weights(const Handle &h, const ops::RnnProblem &p, const RnnBackwardWeightsBuffers &b) {
    visit_compute(p.shape.c.dt, [&](auto tag) {
        Run<typename decltype(tag)::type>(h, p, b.workspace, b.reserve).backward_weights(b);
    });
}

}  // namespace anydnn::cpu
