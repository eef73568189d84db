// Softmax kernels, compiled once per ISA level.
//
// Each softmax is a few passes over its elements (max, sum of exponentials,
// output; backward: a dot product, output), done one softmax (or one block of
// them) at a time so that the passes after the first read from cache. Two
// ways to vectorize, picked per problem:
// - rows: the elements of one softmax are contiguous in every operand
//   (CHANNEL mode in NHWC, INSTANCE mode of packed tensors); reductions run
//   in kLanes independent partial results, which GCC vectorizes without
//   reassociating anything. Strided rows (the general fallback) take the
//   same code with strided loads.
// - columns: the softmaxes are contiguous and their elements strided (CHANNEL
//   mode in NCHW: C has stride H*W); a block of up to kColumns neighbouring
//   softmaxes advances together, one vector lane per softmax.
// FAST and ACCURATE store each e^(x - max) into y when y holds the compute
// type and beta is 0, and scale it in the last pass instead of computing the
// exponential twice. On tensors beyond the cache (streaming_store.hpp) a
// contiguous row of up to kStreamingChunk elements is staged in L1 instead
// and streamed to y, so y is written once and never read.
#include "cpu/kernels/util/common.hpp"
#include "cpu/kernels/util/streaming_store.hpp"
#include "cpu/kernels/util/vmath.hpp"
#include "cpu/softmax.hpp"

namespace anydnn::cpu::ANYDNN_ISA_NS {
namespace {

constexpr int kLanes = 16;          // partial results of a row reduction
constexpr int64_t kColumns = 64;    // softmaxes per column block
constexpr int64_t kGrain = 4096;    // elements per thread, at least (exp makes them dear)

enum class Alg { fast, accurate, log };

// Calls body(off, n) for each run of the row whose first element is at
// offsets base: off[k] is operand k's offset at the run's first element, and
// the run steps row.inner_stride(k).
template <class Body>
inline void row_runs(const StridedLoop &row, const int64_t *base, Body &&body) {
    int64_t off[kMaxOperands] = {};
    if (row.nd == 1) {
        for (int k = 0; k < row.nops; ++k) off[k] = base[k];
        body(off, row.dims[0]);
        return;
    }
    for_each_run(row, 0, row.total(), [&](const int64_t *o, int64_t n) {
        for (int k = 0; k < row.nops; ++k) off[k] = base[k] + o[k];
        body(off, n);
    });
}

// acc[i % kLanes] op= v(i) for i in [0, n), in a fixed order.
template <class C, class V>
inline void lanes_add(C *acc, int64_t n, V &&v) {
    int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes)
        for (int j = 0; j < kLanes; ++j) acc[j] += v(i + j);
    for (int j = 0; i + j < n; ++j) acc[j] += v(i + j);
}

template <class C, class V>
inline void lanes_max(C *acc, int64_t n, V &&v) {
    int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes)
        for (int j = 0; j < kLanes; ++j) {
            const C e = v(i + j);
            acc[j] = e > acc[j] ? e : acc[j];  // a NaN never becomes the max; it reaches the sum
        }
    for (int j = 0; i + j < n; ++j) {
        const C e = v(i + j);
        acc[j] = e > acc[j] ? e : acc[j];
    }
}

template <class C>
inline C lanes_sum(const C *acc) {
    C s = 0;
    for (int j = 0; j < kLanes; ++j) s += acc[j];
    return s;
}

template <class C>
inline C lanes_fold_max(const C *acc) {
    C m = acc[0];
    for (int j = 1; j < kLanes; ++j) m = acc[j] > m ? acc[j] : m;
    return m;
}

// ---- Forward ---------------------------------------------------------------

// One softmax whose elements are the row at offsets base (0 = y, 1 = x).
// Store: e^(x - max) goes to y in the sum pass (beta is 0).
template <Alg A, bool Unit, bool Blend, bool Store, class T, class C>
void forward_row(const StridedLoop &row, const int64_t *base, const T *x, T *y, C alpha, C beta) {
    const int64_t sy = Unit ? 1 : row.inner_stride(0), sx = Unit ? 1 : row.inner_stride(1);
    C m = 0;  // FAST does not subtract the max
    if constexpr (A != Alg::fast) {
        C acc[kLanes];
        for (int j = 0; j < kLanes; ++j) acc[j] = -std::numeric_limits<C>::infinity();
        row_runs(row, base, [&](const int64_t *off, int64_t n) {
            const T *xp = x + off[1];
            lanes_max(acc, n, [&](int64_t i) { return load<C>(xp + i * sx); });
        });
        m = lanes_fold_max(acc);
    }
    C acc[kLanes] = {};
    row_runs(row, base, [&](const int64_t *off, int64_t n) {
        const T *xp = x + off[1];
        T *yp = y + off[0];
        lanes_add(acc, n, [&](int64_t i) {
            const C e = vexp(load<C>(xp + i * sx) - m);
            if constexpr (Store) store(yp + i * sy, e);
            return e;
        });
    });
    const C sum = lanes_sum(acc);
    if constexpr (A == Alg::log) {
        const C log_sum = vlog(sum);
        row_runs(row, base, [&](const int64_t *off, int64_t n) {
            const T *xp = x + off[1];
            T *yp = y + off[0];
            for (int64_t i = 0; i < n; ++i) {
                const C v = alpha * ((load<C>(xp + i * sx) - m) - log_sum);
                store(yp + i * sy, Blend ? v + beta * load<C>(yp + i * sy) : v);
            }
        });
    } else {
        const C scale = alpha / sum;
        row_runs(row, base, [&](const int64_t *off, int64_t n) {
            const T *xp = x + off[1];
            T *yp = y + off[0];
            for (int64_t i = 0; i < n; ++i) {
                const C e = Store ? load<C>(yp + i * sy) : vexp(load<C>(xp + i * sx) - m);
                store(yp + i * sy, Blend ? e * scale + beta * load<C>(yp + i * sy) : e * scale);
            }
        });
    }
}

// One contiguous row of n <= kStreamingChunk elements at x and y, beta 0:
// the e^(x - max) (or, for LOG, the results) are staged in L1 and stream to y.
template <Alg A, class C>
void forward_row_streamed(const C *x, C *y, int64_t n, C alpha) {
    alignas(64) C buf[kStreamingChunk];
    C m = 0;
    if constexpr (A != Alg::fast) {
        C acc[kLanes];
        for (int j = 0; j < kLanes; ++j) acc[j] = -std::numeric_limits<C>::infinity();
        lanes_max(acc, n, [&](int64_t i) { return x[i]; });
        m = lanes_fold_max(acc);
    }
    C acc[kLanes] = {};
    lanes_add(acc, n, [&](int64_t i) {
        const C e = vexp(x[i] - m);
        if constexpr (A != Alg::log) buf[i] = e;
        return e;
    });
    const C sum = lanes_sum(acc);
    if constexpr (A == Alg::log) {
        const C log_sum = vlog(sum);
        for (int64_t i = 0; i < n; ++i) buf[i] = alpha * ((x[i] - m) - log_sum);
    } else {
        const C scale = alpha / sum;
        for (int64_t i = 0; i < n; ++i) buf[i] *= scale;
    }
    stream_copy(y, buf, n);
    streaming_fence();
}

// nb <= kColumns neighbouring softmaxes, contiguous in every operand from
// offsets base; row steps through their elements.
template <Alg A, bool Blend, bool Store, class T, class C>
void forward_columns(const StridedLoop &row, const int64_t *base, int64_t nb, const T *x, T *y, C alpha, C beta) {
    const int64_t sy = row.inner_stride(0), sx = row.inner_stride(1);
    C m[kColumns], s[kColumns];
    for (int64_t l = 0; l < nb; ++l) {
        m[l] = A == Alg::fast ? C(0) : -std::numeric_limits<C>::infinity();
        s[l] = 0;
    }
    if constexpr (A != Alg::fast) {
        row_runs(row, base, [&](const int64_t *off, int64_t n) {
            for (int64_t i = 0; i < n; ++i) {
                const T *xp = x + off[1] + i * sx;
                for (int64_t l = 0; l < nb; ++l) {
                    const C v = load<C>(xp + l);
                    m[l] = v > m[l] ? v : m[l];
                }
            }
        });
    }
    row_runs(row, base, [&](const int64_t *off, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
            const T *xp = x + off[1] + i * sx;
            T *yp = y + off[0] + i * sy;
            for (int64_t l = 0; l < nb; ++l) {
                const C e = vexp(load<C>(xp + l) - m[l]);
                if constexpr (Store) store(yp + l, e);
                s[l] += e;
            }
        }
    });
    for (int64_t l = 0; l < nb; ++l) s[l] = A == Alg::log ? vlog(s[l]) : alpha / s[l];
    row_runs(row, base, [&](const int64_t *off, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
            const T *xp = x + off[1] + i * sx;
            T *yp = y + off[0] + i * sy;
            for (int64_t l = 0; l < nb; ++l) {
                C v;
                if constexpr (A == Alg::log) v = alpha * ((load<C>(xp + l) - m[l]) - s[l]);
                else v = (Store ? load<C>(yp + l) : vexp(load<C>(xp + l) - m[l])) * s[l];
                store(yp + l, Blend ? v + beta * load<C>(yp + l) : v);
            }
        }
    });
}

// ---- Backward --------------------------------------------------------------

// dx = alpha * y (dy - sum(dy y)), or for LOG alpha * (dy - e^y sum(dy)).
// Offsets: 0 = dx, 1 = dy, 2 = y.
template <bool Log, bool Unit, bool Blend, class T, class C>
void backward_row(const StridedLoop &row, const int64_t *base, const T *y, const T *dy, T *dx, C alpha, C beta) {
    const int64_t sdx = Unit ? 1 : row.inner_stride(0), sdy = Unit ? 1 : row.inner_stride(1),
                  sy = Unit ? 1 : row.inner_stride(2);
    C acc[kLanes] = {};
    row_runs(row, base, [&](const int64_t *off, int64_t n) {
        const T *dyp = dy + off[1], *yp = y + off[2];
        if constexpr (Log) lanes_add(acc, n, [&](int64_t i) { return load<C>(dyp + i * sdy); });
        else lanes_add(acc, n, [&](int64_t i) { return load<C>(dyp + i * sdy) * load<C>(yp + i * sy); });
    });
    const C d = lanes_sum(acc);
    row_runs(row, base, [&](const int64_t *off, int64_t n) {
        const T *dyp = dy + off[1], *yp = y + off[2];
        T *dxp = dx + off[0];
        for (int64_t i = 0; i < n; ++i) {
            const C g = load<C>(dyp + i * sdy), v = load<C>(yp + i * sy);
            const C r = alpha * (Log ? g - vexp(v) * d : v * (g - d));
            store(dxp + i * sdx, Blend ? r + beta * load<C>(dxp + i * sdx) : r);
        }
    });
}

template <bool Log, bool Blend, class T, class C>
void backward_columns(const StridedLoop &row, const int64_t *base, int64_t nb, const T *y, const T *dy, T *dx,
                      C alpha, C beta) {
    const int64_t sdx = row.inner_stride(0), sdy = row.inner_stride(1), sy = row.inner_stride(2);
    C d[kColumns];
    for (int64_t l = 0; l < nb; ++l) d[l] = 0;
    row_runs(row, base, [&](const int64_t *off, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
            const T *dyp = dy + off[1] + i * sdy, *yp = y + off[2] + i * sy;
            for (int64_t l = 0; l < nb; ++l) d[l] += Log ? load<C>(dyp + l) : load<C>(dyp + l) * load<C>(yp + l);
        }
    });
    row_runs(row, base, [&](const int64_t *off, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
            const T *dyp = dy + off[1] + i * sdy, *yp = y + off[2] + i * sy;
            T *dxp = dx + off[0] + i * sdx;
            for (int64_t l = 0; l < nb; ++l) {
                const C g = load<C>(dyp + l), v = load<C>(yp + l);
                const C r = alpha * (Log ? g - vexp(v) * d[l] : v * (g - d[l]));
                store(dxp + l, Blend ? r + beta * load<C>(dxp + l) : r);
            }
        }
    });
}

// ---- Drivers -----------------------------------------------------------------

bool unit_inner(const StridedLoop &L) {
    for (int k = 0; k < L.nops; ++k)
        if (L.inner_stride(k) != 1) return false;
    return true;
}

// Runs one_row(base) for every softmax, or one_block(base, nb) for every
// block of neighbouring softmaxes when columns, over the handle's threads.
template <class Row, class Block>
void for_each_softmax(const ExecContext &ctx, const SoftmaxLoops &loops, bool columns, Row &&one_row,
                      Block &&one_block) {
    const StridedLoop &outer = loops.outer;
    const int64_t len = loops.row.total();
    if (!columns) {
        const int64_t grain = imin_(outer.total(), kGrain / len + 1);
        parallel_ranges(ctx, outer.total(), grain, [&](int64_t begin, int64_t end) {
            for_each_run(outer, begin, end, [&](const int64_t *off, int64_t n) {
                int64_t base[kMaxOperands];
                for (int64_t i = 0; i < n; ++i) {
                    for (int k = 0; k < outer.nops; ++k) base[k] = off[k] + i * outer.inner_stride(k);
                    one_row(base);
                }
            });
        });
        return;
    }
    const int64_t inner = outer.inner(), blocks = (inner + kColumns - 1) / kColumns;
    const int64_t items = outer.total() / inner * blocks;
    const int64_t grain = imin_(items, kGrain / (len * kColumns) + 1);
    parallel_ranges(ctx, items, grain, [&](int64_t begin, int64_t end) {
        for (int64_t item = begin; item < end; ++item) {
            const int64_t first = item / blocks * inner + item % blocks * kColumns;
            const int64_t last = first + imin_(kColumns, inner - item % blocks * kColumns);
            for_each_run(outer, first, last, [&](const int64_t *off, int64_t n) { one_block(off, n); });
        }
    });
}

// Columns pay off when the softmaxes are contiguous and their elements are not.
bool use_columns(const SoftmaxLoops &loops) {
    return !unit_inner(loops.row) && unit_inner(loops.outer) && loops.outer.inner() >= 8;
}

template <class T, Alg A>
void forward_typed(const ExecContext &ctx, const SoftmaxForwardArgs &a) {
    using C = compute_t<T>;
    const C alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
    const T *x = static_cast<const T *>(a.x);
    T *y = static_cast<T *>(a.y);
    const StridedLoop &row = a.loops.row;
    const bool columns = use_columns(a.loops), unit = unit_inner(row), blend = beta != C(0);
    if constexpr (std::is_same_v<T, C>) {
        if (!blend && !columns && unit && row.nd == 1 && row.total() <= kStreamingChunk &&
            use_streaming_stores(a.loops.outer.total() * row.total() * int64_t(sizeof(T)), y, x)) {
            for_each_softmax(
                ctx, a.loops, false,
                [&](const int64_t *base) { forward_row_streamed<A>(x + base[1], y + base[0], row.total(), alpha); },
                [](const int64_t *, int64_t) {});
            return;
        }
    }
    auto run = [&](auto blend_c, auto store_c) {
        constexpr bool B = decltype(blend_c)::value, S = decltype(store_c)::value;
        for_each_softmax(
            ctx, a.loops, columns,
            [&](const int64_t *base) {
                if (unit) forward_row<A, true, B, S>(row, base, x, y, alpha, beta);
                else forward_row<A, false, B, S>(row, base, x, y, alpha, beta);
            },
            [&](const int64_t *base, int64_t nb) { forward_columns<A, B, S>(row, base, nb, x, y, alpha, beta); });
    };
    using T1 = std::true_type;
    using F0 = std::false_type;
    // Storing e^(x - max) in y needs y to hold it exactly and nothing in y to keep.
    constexpr bool can_store = A != Alg::log && std::is_same_v<T, C>;
    if (blend) run(T1{}, F0{});
    else run(F0{}, std::bool_constant<can_store>{});
}

template <class T, bool Log>
void backward_typed(const ExecContext &ctx, const SoftmaxBackwardArgs &a) {
    using C = compute_t<T>;
    const C alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
    const T *y = static_cast<const T *>(a.y), *dy = static_cast<const T *>(a.dy);
    T *dx = static_cast<T *>(a.dx);
    const StridedLoop &row = a.loops.row;
    const bool columns = use_columns(a.loops), unit = unit_inner(row), blend = beta != C(0);
    auto run = [&](auto blend_c) {
        constexpr bool B = decltype(blend_c)::value;
        for_each_softmax(
            ctx, a.loops, columns,
            [&](const int64_t *base) {
                if (unit) backward_row<Log, true, B>(row, base, y, dy, dx, alpha, beta);
                else backward_row<Log, false, B>(row, base, y, dy, dx, alpha, beta);
            },
            [&](const int64_t *base, int64_t nb) { backward_columns<Log, B>(row, base, nb, y, dy, dx, alpha, beta); });
    };
    if (blend) run(std::true_type{});
    else run(std::false_type{});
}

void forward(const ExecContext &ctx, const SoftmaxForwardArgs &a) {
    visit_float_dtype(a.dt, [&](auto tag) {
        using T = typename decltype(tag)::type;
        switch (a.algo) {
        case ANYDNN_SOFTMAX_FAST: forward_typed<T, Alg::fast>(ctx, a); break;
        case ANYDNN_SOFTMAX_ACCURATE: forward_typed<T, Alg::accurate>(ctx, a); break;
        case ANYDNN_SOFTMAX_LOG: forward_typed<T, Alg::log>(ctx, a); break;
        }
    });
}

void backward(const ExecContext &ctx, const SoftmaxBackwardArgs &a) {
    visit_float_dtype(a.dt, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if (a.algo == ANYDNN_SOFTMAX_LOG) backward_typed<T, true>(ctx, a);
        else backward_typed<T, false>(ctx, a);
    });
}

}  // namespace

extern const SoftmaxKernels softmax = {forward, backward};

}  // namespace anydnn::cpu::ANYDNN_ISA_NS
