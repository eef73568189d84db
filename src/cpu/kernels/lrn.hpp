// LRN and divisive normalization kernels, compiled once per ISA level.
//
// LRN across channels: a work item is one image's block of up to kLanes
// pixels along the grid's last dimension (contiguous in NCHW; strided loads
// in NHWC), all channels. A ring of the squares of the last lrnN channels
// gives each channel's window sum, re-added in ascending channel order for
// every channel (lrnN <= 16 adds per element, in registers), which costs
// less than the exp and log of the power and never cancels as a running sum
// (add the entering square, subtract the leaving one) would. The backward
// pass runs the same ring plus rings of dy y / s and of s^-beta, writing dx
// `before` channels behind: see backward_item.
//
// Divisive normalization: a work item is one (n, c) plane; the window sums
// are separable box sums (along w, then h, then d) of u^2 in a scratch of
// three planes, each output the sum of its window in ascending order.
#include "cpu/kernels/util/common.hpp"
#include "cpu/kernels/util/vmath.hpp"
#include "cpu/lrn.hpp"

namespace anydnn::cpu::ANYDNN_ISA_NS {
namespace {

constexpr int64_t kLanes = 64;     // pixels side by side in an LRN work item
constexpr int64_t kGrain = 16384;  // elements per thread, at least
constexpr int kMaxN = ANYDNN_LRN_MAX_N;

// s^-beta for s >= lrnK > 0 (vectorizable for float, libm for double).
template <class C>
ANYDNN_ALWAYS_INLINE C neg_pow(C s, C neg_beta) {
    return vexp(neg_beta * vlog(s));
}

// 1 / sqrt(s) for a positive normal s: the classic bit estimate (3.4e-2
// relative) and three Newton steps (1.8e-3, 4.7e-6, then 3e-11: float
// rounding dominates).
ANYDNN_ALWAYS_INLINE float rsqrt_newton(float s) {
    float y = f32_from_bits(0x5f375a86u - (f32_bits(s) >> 1));
    const float h = 0.5f * s;
    y = y * (1.5f - h * y * y);
    y = y * (1.5f - h * y * y);
    return y * (1.5f - h * y * y);
}

// s^-beta, with beta = 0.75 (AlexNet's, GoogLeNet's) as r r / sqrt(r) for
// r = 1 / sqrt(s): about half the operations of exp and log (std::sqrt does
// not vectorize while it may set errno). s = inf gives 0, as exp(-beta
// log s) does.
template <bool B075, class C>
ANYDNN_ALWAYS_INLINE C lrn_pow(C s, C neg_beta) {
    if constexpr (B075 && sizeof(C) == 4) {
        const float r = rsqrt_newton(s);
        const float p = r * r * rsqrt_newton(r);
        return s == std::numeric_limits<float>::infinity() ? 0.0f : p;
    } else {
        return neg_pow(s, neg_beta);
    }
}

// The work items of an LRN call: (n, outer pixel, lane block), and each
// operand's offset of an item's lane 0.
struct LrnItems {
    int64_t outer = 1, blocks = 1;
    int64_t count(const ops::LrnGrid &g) const { return g.n * outer * blocks; }
};

inline LrnItems lrn_items(const ops::LrnGrid &g) {
    LrnItems it;
    for (int d = 0; d < g.nd - 1; ++d) it.outer *= g.dims[d];
    it.blocks = (g.dims[g.nd - 1] + kLanes - 1) / kLanes;
    return it;
}

// Offsets of item `item` for operands [0, nops); returns its lane count.
inline int64_t item_offsets(const ops::LrnGrid &g, const LrnItems &it, int64_t item, int64_t *off) {
    const int64_t b = item % it.blocks, rest = item / it.blocks;
    int64_t o = rest % it.outer;
    const int64_t n = rest / it.outer;
    const int last = g.nd - 1;
    for (int k = 0; k < g.nops; ++k) off[k] = n * g.sn[k] + b * kLanes * g.s[k][last];
    for (int d = last - 1; d >= 0; --d) {
        const int64_t cd = o % g.dims[d];
        o /= g.dims[d];
        for (int k = 0; k < g.nops; ++k) off[k] += cd * g.s[k][d];
    }
    return imin_(kLanes, g.dims[last] - b * kLanes);
}

// The square of channel ch of the item (0 outside [0, C)) into slot.
template <bool Unit, class T, class C>
inline void enter_square(const T *x, int64_t sxc, int64_t sxl, int64_t channels, int64_t ch, int64_t nb,
                         C *__restrict slot) {
    if (ch < 0 || ch >= channels) {
        for (int64_t l = 0; l < kLanes; ++l) slot[l] = 0;
        return;
    }
    const T *xp = x + ch * sxc;
    for (int64_t l = 0; l < nb; ++l) {
        const C v = load<C>(xp + l * (Unit ? 1 : sxl));
        slot[l] = v * v;
    }
    // Lanes past the block hold 0, so that ring_sum can add whole slots.
    for (int64_t l = nb; l < kLanes; ++l) slot[l] = 0;
}

// r[l] = the sum of rows[0..K)[l], in that order: the rows are a constant
// count of pointers, so the lane loop is one vector loop with K loads (a
// loop over a run-time count of slots around it was unrolled and jammed by
// GCC into scalar code that cost a third of the forward pass).
template <int K, int64_t Lanes = kLanes, class C>
inline void sum_rows(const C *const *rows, C *__restrict r) {
    for (int64_t l = 0; l < Lanes; ++l) {
        C acc = rows[0][l];
#pragma GCC unroll 16
        for (int j = 1; j < K; ++j) acc += rows[j][l];
        r[l] = acc;
    }
}

// sum_rows for the window width n: K = n for the common 3 and 5, else 4, 8
// or 16 with the rows past n zeros (the same sums either way).
template <int64_t Lanes = kLanes, class C>
inline void sum_window(const C *const *rows, int n, C *__restrict r) {
    if (n == 3) sum_rows<3, Lanes>(rows, r);
    else if (n == 5) sum_rows<5, Lanes>(rows, r);
    else if (n <= 4) sum_rows<4, Lanes>(rows, r);
    else if (n <= 8) sum_rows<8, Lanes>(rows, r);
    else sum_rows<16, Lanes>(rows, r);
}

// r = the sum of the n ring slots first, first + 1, ... (mod n), in that
// order, over all kLanes lanes; rows past n are `zeros`, and adding 0
// changes no sum.
template <class C>
inline void ring_sum(const C (*ring)[kLanes], int n, int64_t first, const C *zeros, C *__restrict r) {
    const C *rows[kMaxN];
    for (int j = 0; j < kMaxN; ++j) rows[j] = j < n ? ring[(first + j) % n] : zeros;
    sum_window(rows, n, r);
}

// The ring holds the square of channel ch in slot (ch + before) % n.
template <bool Unit, bool B075, class T, class C>
void forward_item(const LrnArgs &a, const int64_t *off, int64_t nb) {
    const ops::LrnGrid &g = a.g;
    const int n = a.lrn.n, before = a.lrn.before, after = a.lrn.after;
    const int last = g.nd - 1;
    const int64_t sxc = g.sc[0], syc = g.sc[1], sxl = Unit ? 1 : g.s[0][last], syl = Unit ? 1 : g.s[1][last];
    const T *x = static_cast<const T *>(a.x) + off[0];
    T *y = static_cast<T *>(a.out) + off[1];
    const C alpha_n = static_cast<C>(a.lrn.alpha_n), k = static_cast<C>(a.lrn.k);
    const C neg_beta = static_cast<C>(-a.lrn.beta), alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
    C sq[kMaxN][kLanes], r[kLanes], zeros[kLanes] = {};
    for (int64_t ch = -before; ch < after; ++ch)
        enter_square<Unit, T>(x, sxc, sxl, g.c, ch, nb, sq[(ch + before) % n]);
    for (int64_t c = 0; c < g.c; ++c) {
        enter_square<Unit, T>(x, sxc, sxl, g.c, c + after, nb, sq[(c + n - 1) % n]);
        ring_sum<C>(sq, n, c, zeros, r);
        // x[c] is read before y[c] is written, and no later channel reads it
        // again (its square is in the ring): y may be x's buffer.
        const T *xp = x + c * sxc;
        T *yp = y + c * syc;
        if (a.beta != 0) {
            for (int64_t l = 0; l < nb; ++l) {
                const C v = alpha * load<C>(xp + l * sxl) * lrn_pow<B075>(k + alpha_n * r[l], neg_beta);
                store(yp + l * syl, v + beta * load<C>(yp + l * syl));
            }
        } else {
            for (int64_t l = 0; l < nb; ++l)
                store(yp + l * syl, alpha * load<C>(xp + l * sxl) * lrn_pow<B075>(k + alpha_n * r[l], neg_beta));
        }
    }
}

// Channel m's window sum s_m needs the squares up to m + after; dx_c needs
// q_c' = dy_c' y_c' / s_c' for c' in [c - after, c + before] (the channels
// whose windows hold c), so dx of channel c = m - before is final at step m.
// Rings: squares as in the forward pass; q_m and s_m^-beta in slot m % n
// (slots of channels below 0 stay 0: written only from step m = their slot).
template <bool Unit, bool B075, class T, class C>
void backward_item(const LrnArgs &a, const int64_t *off, int64_t nb) {
    const ops::LrnGrid &g = a.g;
    const int n = a.lrn.n, before = a.lrn.before, after = a.lrn.after;
    const int last = g.nd - 1;
    const int64_t sxc = g.sc[0], syc = g.sc[1], sdyc = g.sc[2], sdxc = g.sc[3];
    const int64_t sxl = Unit ? 1 : g.s[0][last], syl = Unit ? 1 : g.s[1][last];
    const int64_t sdyl = Unit ? 1 : g.s[2][last], sdxl = Unit ? 1 : g.s[3][last];
    const T *x = static_cast<const T *>(a.x) + off[0], *y = static_cast<const T *>(a.y) + off[1];
    const T *dy = static_cast<const T *>(a.dy) + off[2];
    T *dx = static_cast<T *>(a.out) + off[3];
    const C alpha_n = static_cast<C>(a.lrn.alpha_n), k = static_cast<C>(a.lrn.k);
    const C neg_beta = static_cast<C>(-a.lrn.beta), alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
    const C two_beta_alpha_n = static_cast<C>(2 * a.lrn.beta * a.lrn.alpha_n);
    C sq[kMaxN][kLanes], q[kMaxN][kLanes], pw[kMaxN][kLanes], r[kLanes], zeros[kLanes] = {};
    for (int i = 0; i < n; ++i)
        for (int64_t l = 0; l < kLanes; ++l) q[i][l] = 0;
    for (int64_t ch = -before; ch < after; ++ch)
        enter_square<Unit, T>(x, sxc, sxl, g.c, ch, nb, sq[(ch + before) % n]);
    for (int64_t m = 0; m < g.c + before; ++m) {
        C *__restrict qm = q[m % n];
        if (m < g.c) {
            enter_square<Unit, T>(x, sxc, sxl, g.c, m + after, nb, sq[(m + n - 1) % n]);
            ring_sum<C>(sq, n, m, zeros, r);
            C *__restrict pm = pw[m % n];
            const T *yp = y + m * syc, *dyp = dy + m * sdyc;
            for (int64_t l = 0; l < nb; ++l) {
                const C s = k + alpha_n * r[l];
                pm[l] = lrn_pow<B075>(s, neg_beta);
                qm[l] = load<C>(dyp + l * sdyl) * load<C>(yp + l * syl) / s;
            }
            for (int64_t l = nb; l < kLanes; ++l) qm[l] = 0;
        } else {
            for (int64_t l = 0; l < kLanes; ++l) qm[l] = 0;
        }
        if (m < before) continue;
        const int64_t c = m - before;
        ring_sum<C>(q, n, m + 1, zeros, r);  // slots of c' = m - n + 1 .. m, ascending
        const C *pc = pw[c % n];
        const T *xp = x + c * sxc, *dyp = dy + c * sdyc;
        T *dxp = dx + c * sdxc;
        for (int64_t l = 0; l < nb; ++l) {
            C v = alpha * (load<C>(dyp + l * sdyl) * pc[l] - two_beta_alpha_n * load<C>(xp + l * sxl) * r[l]);
            if (a.beta != 0) v += beta * load<C>(dxp + l * sdxl);
            store(dxp + l * sdxl, v);
        }
    }
}

template <bool Backward, class T>
void lrn_typed(const ExecContext &ctx, const LrnArgs &a) {
    using C = compute_t<T>;
    const ops::LrnGrid &g = a.g;
    const LrnItems it = lrn_items(g);
    const int last = g.nd - 1;
    bool unit = true;
    for (int k = 0; k < g.nops; ++k) unit = unit && (g.s[k][last] == 1 || g.dims[last] == 1);
    const int64_t per_item = g.c * imin_(kLanes, g.dims[last]);
    const bool b075 = a.lrn.beta == 0.75;  // the fast power: unit strides only, to bound the instantiations
    parallel_ranges(ctx, it.count(g), kGrain / per_item + 1, [&](int64_t begin, int64_t end) {
        int64_t off[ops::kLrnMaxOperands];
        for (int64_t item = begin; item < end; ++item) {
            const int64_t nb = item_offsets(g, it, item, off);
            if constexpr (Backward) {
                if (unit && b075) backward_item<true, true, T, C>(a, off, nb);
                else if (unit) backward_item<true, false, T, C>(a, off, nb);
                else backward_item<false, false, T, C>(a, off, nb);
            } else {
                if (unit && b075) forward_item<true, true, T, C>(a, off, nb);
                else if (unit) forward_item<true, false, T, C>(a, off, nb);
                else forward_item<false, false, T, C>(a, off, nb);
            }
        }
    });
}

// ---- Channel lanes (NHWC) ------------------------------------------------------
//
// A work item is one pixel of one image; its channels, contiguous, are the
// lanes, in blocks of kLanes. The squares of a block and its window's halo
// go to a buffer with zeros outside [0, C), and channel c's window sum is
// the sum of the buffer at c - before + j for j = 0 .. n-1 in that order:
// the same sums, in the same order, as the pixel lanes' ring.

constexpr int64_t kHalo = kMaxN - 1;

// buf[i] = x[first + i]^2 for the channels first + i in [0, C) and i < count,
// 0 for every other i < Size.
template <int64_t Size, bool Unit, class T, class C>
inline void square_block(const T *x, int64_t sxc, int64_t channels, int64_t first, int64_t count,
                         C *__restrict buf) {
    const int64_t i0 = first < 0 ? -first : 0;
    const int64_t i1 = imin_(count, channels - first);
    for (int64_t i = 0; i < Size; ++i) buf[i] = 0;
    for (int64_t i = i0; i < i1; ++i) {
        const C v = load<C>(x + (first + i) * (Unit ? 1 : sxc));
        buf[i] = v * v;
    }
}

template <int64_t Lanes, class C>
inline void window_sums(const C *buf, int n, const C *zeros, C *__restrict r) {
    const C *rows[kMaxN];
    for (int j = 0; j < kMaxN; ++j) rows[j] = j < n ? buf + j : zeros;
    sum_window<Lanes>(rows, n, r);
}

template <bool Unit, bool B075, class T, class C>
void forward_pixel(const LrnArgs &a, const int64_t *off) {
    const ops::LrnGrid &g = a.g;
    const int n = a.lrn.n, before = a.lrn.before;
    const int64_t sxc = Unit ? 1 : g.sc[0], syc = Unit ? 1 : g.sc[1];
    const T *x = static_cast<const T *>(a.x) + off[0];
    T *y = static_cast<T *>(a.out) + off[1];
    const C alpha_n = static_cast<C>(a.lrn.alpha_n), k = static_cast<C>(a.lrn.k);
    const C neg_beta = static_cast<C>(-a.lrn.beta), alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
    C sq[kLanes + kHalo + 1], r[kLanes], zeros[kLanes + kHalo + 1] = {};
    for (int64_t c0 = 0; c0 < g.c; c0 += kLanes) {
        const int64_t nb = imin_(kLanes, g.c - c0);
        square_block<kLanes + kHalo + 1, Unit, T>(x, sxc, g.c, c0 - before, nb + n - 1, sq);
        window_sums<kLanes>(sq, n, zeros, r);
        const T *xp = x + c0 * sxc;
        T *yp = y + c0 * syc;
        for (int64_t l = 0; l < nb; ++l) {
            C v = alpha * load<C>(xp + l * sxc) * lrn_pow<B075>(k + alpha_n * r[l], neg_beta);
            if (a.beta != 0) v += beta * load<C>(yp + l * syc);
            store(yp + l * syc, v);
        }
    }
}

// The block's dx needs q = dy y / s at the channels [c0 - after, c0 + nb +
// before), whose window sums need the squares of [c0 - (n-1), c0 + nb + n - 1).
template <bool Unit, bool B075, class T, class C>
void backward_pixel(const LrnArgs &a, const int64_t *off) {
    const ops::LrnGrid &g = a.g;
    const int n = a.lrn.n, after = a.lrn.after;
    const int64_t sxc = Unit ? 1 : g.sc[0], syc = Unit ? 1 : g.sc[1];
    const int64_t sdyc = Unit ? 1 : g.sc[2], sdxc = Unit ? 1 : g.sc[3];
    const T *x = static_cast<const T *>(a.x) + off[0], *y = static_cast<const T *>(a.y) + off[1];
    const T *dy = static_cast<const T *>(a.dy) + off[2];
    T *dx = static_cast<T *>(a.out) + off[3];
    const C alpha_n = static_cast<C>(a.lrn.alpha_n), k = static_cast<C>(a.lrn.k);
    const C neg_beta = static_cast<C>(-a.lrn.beta), alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
    const C two_beta_alpha_n = static_cast<C>(2 * a.lrn.beta * a.lrn.alpha_n);
    constexpr int64_t kWide = kLanes + kHalo + 1;  // the channels of q
    C sq[kWide + kHalo + 1], s[kWide], q[kWide], r[kLanes], zeros[kWide] = {};
    for (int64_t c0 = 0; c0 < g.c; c0 += kLanes) {
        const int64_t nb = imin_(kLanes, g.c - c0), first = c0 - after;  // q[t]: channel first + t
        square_block<kWide + kHalo + 1, Unit, T>(x, sxc, g.c, first - a.lrn.before, nb + 2 * (n - 1), sq);
        window_sums<kWide>(sq, n, zeros, s);
        const int64_t t0 = first < 0 ? -first : 0, t1 = imin_(nb + n - 1, g.c - first);
        for (int64_t t = 0; t < kWide; ++t) q[t] = 0;
        for (int64_t t = t0; t < t1; ++t) {
            const int64_t c = first + t;
            s[t] = k + alpha_n * s[t];
            q[t] = load<C>(dy + c * sdyc) * load<C>(y + c * syc) / s[t];
        }
        window_sums<kLanes>(q, n, zeros, r);
        for (int64_t l = 0; l < nb; ++l) {
            const int64_t c = c0 + l;
            const C pw = lrn_pow<B075>(s[l + after], neg_beta);
            C v = alpha * (load<C>(dy + c * sdyc) * pw - two_beta_alpha_n * load<C>(x + c * sxc) * r[l]);
            if (a.beta != 0) v += beta * load<C>(dx + c * sdxc);
            store(dx + c * sdxc, v);
        }
    }
}

template <bool Backward, class T>
void lrn_channels(const ExecContext &ctx, const LrnArgs &a) {
    using C = compute_t<T>;
    const ops::LrnGrid &g = a.g;
    const int64_t pixels = g.pixels();
    bool unit = true;
    for (int k = 0; k < g.nops; ++k) unit = unit && g.sc[k] == 1;
    const bool b075 = a.lrn.beta == 0.75;
    parallel_ranges(ctx, g.n * pixels, kGrain / g.c + 1, [&](int64_t begin, int64_t end) {
        int64_t off[ops::kLrnMaxOperands];
        for (int64_t item = begin; item < end; ++item) {
            int64_t p = item % pixels;
            for (int k = 0; k < g.nops; ++k) off[k] = item / pixels * g.sn[k];
            for (int d = g.nd - 1; d >= 0; --d) {
                const int64_t cd = p % g.dims[d];
                p /= g.dims[d];
                for (int k = 0; k < g.nops; ++k) off[k] += cd * g.s[k][d];
            }
            if constexpr (Backward) {
                if (unit && b075) backward_pixel<true, true, T, C>(a, off);
                else if (unit) backward_pixel<true, false, T, C>(a, off);
                else backward_pixel<false, false, T, C>(a, off);
            } else {
                if (unit && b075) forward_pixel<true, true, T, C>(a, off);
                else if (unit) forward_pixel<true, false, T, C>(a, off);
                else forward_pixel<false, false, T, C>(a, off);
            }
        }
    });
}

void forward(const ExecContext &ctx, const LrnArgs &a) {
    visit_float_dtype(a.g.dt, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if (a.channel_lanes) lrn_channels<false, T>(ctx, a);
        else lrn_typed<false, T>(ctx, a);
    });
}

void backward(const ExecContext &ctx, const LrnArgs &a) {
    visit_float_dtype(a.g.dt, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if (a.channel_lanes) lrn_channels<true, T>(ctx, a);
        else lrn_typed<true, T>(ctx, a);
    });
}

// ---- Divisive normalization --------------------------------------------------

// out[o][i][q] = sum of in[o][j][q] over j in [i - lo, i + hi] inside [0, L),
// in ascending j, for a plane seen as outer x L x inner.
template <class C>
void box_axis(const C *__restrict in, C *__restrict out, int64_t outer, int64_t L, int64_t inner, int64_t lo,
              int64_t hi) {
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < L; ++i) {
            const int64_t j0 = i - lo < 0 ? 0 : i - lo, j1 = i + hi > L - 1 ? L - 1 : i + hi;
            C *op = out + (o * L + i) * inner;
            for (int64_t q = 0; q < inner; ++q) op[q] = 0;
            for (int64_t j = j0; j <= j1; ++j) {
                const C *ip = in + (o * L + j) * inner;
                for (int64_t q = 0; q < inner; ++q) op[q] += ip[q];
            }
        }
}

// The window sums of plane a (d x h x w) into b (a is overwritten): along
// w, h, then d.
template <class C>
void box_3d(C *a, C *b, const int64_t *dims, int64_t lo, int64_t hi) {
    box_axis(a, b, dims[0] * dims[1], dims[2], 1, lo, hi);
    box_axis(b, a, dims[0], dims[1], dims[2], lo, hi);
    box_axis(a, b, 1, dims[0], dims[1] * dims[2], lo, hi);
}

// Calls fn(p, offsets) for each pixel p of the (n, c) plane, in d, h, w
// order, with the offsets of the 4 operands.
template <class Fn>
inline void for_each_pixel(const ops::LrnGrid &g, int64_t n, int64_t c, Fn &&fn) {
    int64_t p = 0;
    for (int64_t d = 0; d < g.dims[0]; ++d)
        for (int64_t h = 0; h < g.dims[1]; ++h)
            for (int64_t w = 0; w < g.dims[2]; ++w, ++p) {
                int64_t off[4];
                for (int k = 0; k < 4; ++k)
                    off[k] = n * g.sn[k] + c * g.sc[k] + d * g.s[k][0] + h * g.s[k][1] + w * g.s[k][2];
                fn(p, off);
            }
}

template <bool Backward, class T>
void divnorm_typed(const ExecContext &ctx, const DivNormArgs &a) {
    using C = compute_t<T>;
    const ops::LrnGrid &g = a.g;
    const int64_t P = g.dims[0] * g.dims[1] * g.dims[2], planes = g.n * g.c;
    const T *x = static_cast<const T *>(a.x), *m = static_cast<const T *>(a.means);
    const T *dy = static_cast<const T *>(a.dy);
    T *out = static_cast<T *>(a.out), *dm = static_cast<T *>(a.dmeans);
    const C alpha_n = static_cast<C>(a.lrn.alpha_n), k = static_cast<C>(a.lrn.k);
    const C neg_beta = static_cast<C>(-a.lrn.beta), alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
    const C two_beta_alpha_n = static_cast<C>(2 * a.lrn.beta * a.lrn.alpha_n);
    const bool blend = a.beta != 0;
    const int64_t before = a.lrn.before, after = a.lrn.after;
    C *scratch = static_cast<C *>(a.scratch);
    parallel_ranges(ctx, a.slots, 1, [&](int64_t begin, int64_t end) {
        for (int64_t s = begin; s < end; ++s) {
            C *A = scratch + s * 3 * P, *B = A + P, *W = B + P;
            for (int64_t plane = planes * s / a.slots; plane < planes * (s + 1) / a.slots; ++plane) {
                const int64_t n = plane / g.c, c = plane % g.c;
                auto u_at = [&](const int64_t *off) {
                    const C v = load<C>(x + off[0]);
                    return m ? v - load<C>(m + off[1]) : v;
                };
                for_each_pixel(g, n, c, [&](int64_t p, const int64_t *off) {
                    const C u = u_at(off);
                    A[p] = u * u;
                });
                box_3d(A, B, g.dims, before, after);  // B: window sums
                if constexpr (!Backward) {
                    for_each_pixel(g, n, c, [&](int64_t p, const int64_t *off) {
                        C v = alpha * u_at(off) * neg_pow(k + alpha_n * B[p], neg_beta);
                        if (blend) v += beta * load<C>(out + off[3]);
                        store(out + off[3], v);
                    });
                } else {
                    // W = s^-beta; A = dy u s^-beta / s, summed over the
                    // transposed window (the pixels whose windows hold p).
                    for_each_pixel(g, n, c, [&](int64_t p, const int64_t *off) {
                        const C sum = k + alpha_n * B[p];
                        W[p] = neg_pow(sum, neg_beta);
                        A[p] = load<C>(dy + off[2]) * u_at(off) * W[p] / sum;
                    });
                    box_3d(A, B, g.dims, after, before);
                    for_each_pixel(g, n, c, [&](int64_t p, const int64_t *off) {
                        const C du = load<C>(dy + off[2]) * W[p] - two_beta_alpha_n * u_at(off) * B[p];
                        C v = alpha * du;
                        if (blend) v += beta * load<C>(out + off[3]);
                        store(out + off[3], v);
                        if (dm) {
                            C w = -alpha * du;
                            if (blend) w += beta * load<C>(dm + off[3]);
                            store(dm + off[3], w);
                        }
                    });
                }
            }
        }
    });
}

void divnorm_forward(const ExecContext &ctx, const DivNormArgs &a) {
    visit_float_dtype(a.g.dt, [&](auto tag) { divnorm_typed<false, typename decltype(tag)::type>(ctx, a); });
}

void divnorm_backward(const ExecContext &ctx, const DivNormArgs &a) {
    visit_float_dtype(a.g.dt, [&](auto tag) { divnorm_typed<true, typename decltype(tag)::type>(ctx, a); });
}

}  // namespace

extern const LrnKernels lrn = {forward, backward, divnorm_forward, divnorm_backward};

}  // namespace anydnn::cpu::ANYDNN_ISA_NS
