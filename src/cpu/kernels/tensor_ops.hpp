// Tensor-ops kernels (transform, fill, op-tensor), compiled once per ISA level.
#include "cpu/kernels/util/common.hpp"
#include "cpu/kernels/util/staging.hpp"
#include "cpu/kernels/util/transpose.hpp"
#include "cpu/tensor_ops.hpp"

namespace anydnn::cpu::ANYDNN_ISA_NS {
namespace {

// The math of a transform on n contiguous elements of the compute type:
// out = alpha * x, plus beta * out when blend (in place: a second input
// pointer equal to out would fail GCC's overlap check and run the scalar
// loop); x steps sx, 0 (a broadcast scalar, e.g. a per-channel bias in
// NCHW) or 1. The loops
// around it depend on the storage types only through the staging copies,
// which come as pointers: compiling the loops for each of the 8 x 8 type
// pairs, each with its stride and beta cases, cost the unit most of its
// compile time (docs/ARCHITECTURE.md, "Compile time").
template <class C>
[[gnu::noinline]] void transform_math(const C *x, int64_t sx, C *out, int64_t n, C alpha, C beta, bool blend) {
    if (sx == 0) {
        const C v = alpha * x[0];
        if (blend)
            for (int64_t i = 0; i < n; ++i) out[i] = v + beta * out[i];
        else
            for (int64_t i = 0; i < n; ++i) out[i] = v;
    } else if (blend) {
        for (int64_t i = 0; i < n; ++i) out[i] = alpha * x[i] + beta * out[i];
    } else {
        for (int64_t i = 0; i < n; ++i) out[i] = alpha * x[i];
    }
}

// staged_in and staged_out of one storage type, behind untyped pointers.
template <class C>
using StageIn = const C *(*)(const void *p, int64_t s, int64_t n, C *buf);
template <class C>
using StageOut = void (*)(void *p, int64_t s, const C *r, int64_t n, C beta, bool blend, bool stream);

template <class C, class T>
const C *stage_in(const void *p, int64_t s, int64_t n, C *buf) {
    return staged_in(static_cast<const T *>(p), s, n, buf);
}

template <class T, class C>
void stage_out(void *p, int64_t s, const C *r, int64_t n, C beta, bool blend, bool stream) {
    staged_out(static_cast<T *>(p), s, r, n, beta, blend, stream);
}

// One storage type's side of a transform: its staging copy, its element
// size, and whether it is the compute type itself (then the math reads or
// writes it directly where it is contiguous).
template <class Stage>
struct TransformSide {
    Stage stage;
    int64_t size;
    bool is_compute;
};

template <class C>
void transform_compute(const ExecContext &ctx, const TransformArgs &a) {
    TransformSide<StageIn<C>> in{};
    TransformSide<StageOut<C>> out{};
    visit_dtype(a.xdt, [&](auto tag) {
        using T = typename decltype(tag)::type;
        in = {&stage_in<C, T>, int64_t(sizeof(T)), std::is_same_v<T, C>};
    });
    visit_dtype(a.ydt, [&](auto tag) {
        using T = typename decltype(tag)::type;
        out = {&stage_out<T, C>, int64_t(sizeof(T)), std::is_same_v<T, C>};
    });
    const StridedLoop &L = a.loop;
    const C alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
    const bool blend = beta != C(0);
    // A plain conversion or copy (a cast, a reorder) skips the math's pass:
    // x's staging copy writes y, or feeds y's directly.
    const bool convert = alpha == C(1) && !blend;
    const bool stream = !blend && use_streaming_stores(L.total() * out.size, a.y, a.x);
    const int64_t sy = L.inner_stride(0);
    // y in the compute type and contiguous: the math writes (and blends) it in place.
    const bool y_contiguous = out.is_compute && sy == 1;
    // n elements of y at yp, from x at xp stepping sx (byte pointers);
    // stream_run: with streaming stores (y contiguous).
    auto run = [&](const char *xp, int64_t sx, char *yp, int64_t n, bool stream_run) {
        const bool y_direct = y_contiguous && !stream_run;
        // A broadcast scalar is staged once and stays one element.
        alignas(64) C xb[kStage], ob[kStage];
        const int64_t mx = sx == 0 ? 0 : 1;
        const C *xv = sx == 0 ? in.stage(xp, 0, 1, xb) : nullptr;
        if (y_direct && (sx == 0 || (in.is_compute && sx == 1))) {
            C *yc = reinterpret_cast<C *>(yp);
            if (sx != 0) xv = reinterpret_cast<const C *>(xp);
            return transform_math(xv, mx, yc, n, alpha, beta, blend);
        }
        for (int64_t i = 0; i < n; i += kStage) {
            const int64_t c = imin_(kStage, n - i);
            if (convert && sx != 0) {
                const char *xi = xp + i * sx * in.size;
                if (y_direct) in.stage(xi, sx, c, reinterpret_cast<C *>(yp) + i);
                else out.stage(yp + i * sy * out.size, sy, in.stage(xi, sx, c, xb), c, beta, false, stream_run);
                continue;
            }
            if (sx != 0) xv = in.stage(xp + i * sx * in.size, sx, c, xb);
            if (y_direct) {
                C *yc = reinterpret_cast<C *>(yp) + i;
                transform_math(xv, mx, yc, c, alpha, beta, blend);
            } else {
                transform_math(xv, mx, ob, c, alpha, beta, false);
                out.stage(yp + i * sy * out.size, sy, ob, c, beta, blend, stream_run);
            }
        }
    };
    const char *x = static_cast<const char *>(a.x);
    char *y = static_cast<char *>(a.y);
    const TransposePlan tp = plan_transpose(L, in.size);
    if (tp.j >= 0) {
        // y's runs cross x's: move blocks through L1 (util/transpose.hpp);
        // a copy needs no pass after the transpose (one that streams, where
        // the transpose streams whole lines itself: 10-15% less time than
        // through the buffer and stream_copy).
        const bool direct = a.xdt == a.ydt && convert && (!stream || kTransposeStreams);
        const int64_t grain = kElementwiseGrain / (L.total() / tp.items) + 1;
        parallel_ranges(ctx, tp.items, grain, [&](int64_t begin, int64_t end) {
            for_each_transposed_run(L, tp, in.size, out.size, x, y, begin, end, direct, stream,
                                    [&](const void *xr, void *yr, int64_t n) {
                                        // The buffer is the staging: even short rows stream.
                                        run(static_cast<const char *>(xr), 1, static_cast<char *>(yr), n, stream);
                                    });
            if (stream) streaming_fence();
        });
        return;
    }
    const int64_t sx = L.inner_stride(1);
    parallel_ranges(ctx, L.total(), kElementwiseGrain, [&](int64_t begin, int64_t end) {
        for_each_run(L, begin, end, [&](const int64_t *off, int64_t n) {
            run(x + off[1] * in.size, sx, y + off[0] * out.size, n, stream && sy == 1 && n >= kStreamingMinRun);
        });
        if (stream) streaming_fence();
    });
}

// The pair computes in double when either side's type does (a float cannot
// hold every int32, int64 or double exactly), in float otherwise.
void transform(const ExecContext &ctx, const TransformArgs &a) {
    bool wide = false;
    for (anydnnDataType_t dt : {a.xdt, a.ydt})
        visit_dtype(dt, [&](auto tag) { wide |= std::is_same_v<compute_t<typename decltype(tag)::type>, double>; });
    if (wide) transform_compute<double>(ctx, a);
    else transform_compute<float>(ctx, a);
}

template <class T>
void fill_typed(const ExecContext &ctx, const StridedLoop &L, T v, T *y) {
    const int64_t sy = L.inner_stride(0);
    parallel_ranges(ctx, L.total(), kElementwiseGrain, [&](int64_t begin, int64_t end) {
        for_each_run(L, begin, end, [&](const int64_t *off, int64_t n) {
            T *yp = y + off[0];
            if (sy == 1)
                for (int64_t i = 0; i < n; ++i) yp[i] = v;
            else
                for (int64_t i = 0; i < n; ++i) yp[i * sy] = v;
        });
    });
}

template <class T>
void fill_bytes(const ExecContext &ctx, const FillArgs &a) {
    T v;
    std::memcpy(&v, a.value, sizeof v);
    fill_typed(ctx, a.loop, v, static_cast<T *>(a.y));
}

void fill(const ExecContext &ctx, const FillArgs &a) {
    switch (a.elem_size) {
    case 1: fill_bytes<uint8_t>(ctx, a); break;
    case 2: fill_bytes<uint16_t>(ctx, a); break;
    case 4: fill_bytes<uint32_t>(ctx, a); break;
    default: fill_bytes<uint64_t>(ctx, a); break;
    }
}

template <class C>
inline C nan_of(C a, C b) {
    return a != a ? a : b;  // the NaN among a and b (b when a is not)
}

// op(a, b) for the binary ops; MIN/MAX follow the NaN option (fmin/fmax
// semantics without propagation: a NaN loses to a number).
template <anydnnOpTensorOp_t Op, bool PropagateNan, class C>
inline C apply_op(C a, C b) {
    if constexpr (Op == ANYDNN_OP_TENSOR_ADD) return a + b;
    else if constexpr (Op == ANYDNN_OP_TENSOR_MUL) return a * b;
    else if constexpr (Op == ANYDNN_OP_TENSOR_SQRT) return std::sqrt(a);
    else if constexpr (Op == ANYDNN_OP_TENSOR_NOT) return C(1) - a;
    else {
        const bool any_nan = (a != a) || (b != b);
        const C r = Op == ANYDNN_OP_TENSOR_MIN ? (a < b ? a : b) : (a > b ? a : b);
        if (!any_nan) return r;
        if constexpr (PropagateNan) return nan_of(a, b);
        else return a != a ? b : a;
    }
}

template <anydnnOpTensorOp_t Op>
constexpr bool kUnary = Op == ANYDNN_OP_TENSOR_SQRT || Op == ANYDNN_OP_TENSOR_NOT;

template <anydnnOpTensorOp_t Op, bool PropagateNan, class C>
inline void op_loop(const C *a, const C *b, int64_t sb, C *out, int64_t n, C alpha1, C alpha2) {
    if constexpr (kUnary<Op>) {
        for (int64_t i = 0; i < n; ++i) out[i] = apply_op<Op, PropagateNan>(alpha1 * a[i], C(0));
    } else if (sb == 0) {
        const C bv = alpha2 * b[0];
        for (int64_t i = 0; i < n; ++i) out[i] = apply_op<Op, PropagateNan>(alpha1 * a[i], bv);
    } else {
        for (int64_t i = 0; i < n; ++i) out[i] = apply_op<Op, PropagateNan>(alpha1 * a[i], alpha2 * b[i]);
    }
}

// The math of one op on n contiguous elements of the compute type: out =
// op(alpha1 * a, alpha2 * b), b stepping sb (0, a broadcast scalar, or 1;
// b unread for the unary ops). Compiled once
// per op and compute type; the NaN option, which only MIN and MAX read,
// picks one of their two loops.
template <class C>
using OpMath = void (*)(const C *a, const C *b, int64_t sb, C *out, int64_t n, C alpha1, C alpha2,
                       bool propagate_nan);

template <anydnnOpTensorOp_t Op, class C>
void op_math(const C *a, const C *b, int64_t sb, C *out, int64_t n, C alpha1, C alpha2, bool propagate_nan) {
    if constexpr (Op == ANYDNN_OP_TENSOR_MIN || Op == ANYDNN_OP_TENSOR_MAX) {
        if (propagate_nan) return op_loop<Op, true>(a, b, sb, out, n, alpha1, alpha2);
    }
    op_loop<Op, false>(a, b, sb, out, n, alpha1, alpha2);
}

// The loops around the math, which depend on the storage type only: strides
// (b broadcast), 16-bit storage, beta != 0 and streaming stores go through
// the staging buffers; the compute type, contiguous and unblended, calls
// the math on the operands.
template <class T, class C = compute_t<T>>
void op_tensor_typed(const ExecContext &ctx, const OpTensorArgs &a, OpMath<C> math, bool unary) {
    const StridedLoop &L = a.loop;
    const C alpha1 = static_cast<C>(a.alpha1), alpha2 = static_cast<C>(a.alpha2), beta = static_cast<C>(a.beta);
    const bool blend = beta != C(0), nan = a.propagate_nan;
    const T *A = static_cast<const T *>(a.a);
    const T *B = static_cast<const T *>(a.b);
    T *Cp = static_cast<T *>(a.c);
    const int64_t sc = L.inner_stride(0), sa = L.inner_stride(1), sb = unary ? 0 : L.inner_stride(2);
    const bool stream = !blend && use_streaming_stores(L.total() * int64_t(sizeof(T)), Cp, A, unary ? nullptr : B);
    parallel_ranges(ctx, L.total(), kElementwiseGrain, [&](int64_t begin, int64_t end) {
        for_each_run(L, begin, end, [&](const int64_t *off, int64_t n) {
            T *cp = Cp + off[0];
            const T *ap = A + off[1];
            const T *bp = unary ? nullptr : B + off[2];
            const bool stream_run = stream && sc == 1 && n >= kStreamingMinRun;
            const bool c_direct = std::is_same_v<T, C> && sc == 1 && !blend && !stream_run;
            // A broadcast b is staged once and stays one element.
            alignas(64) C ab[kStage], bb[kStage], ob[kStage];
            const int64_t mb = sb == 0 ? 0 : 1;
            const C *bv = unary || sb != 0 ? nullptr : staged_in(bp, 0, 1, bb);
            if constexpr (std::is_same_v<T, C>) {
                if (c_direct && sa == 1 && (sb == 0 || sb == 1))
                    return math(ap, sb == 1 ? bp : bv, mb, cp, n, alpha1, alpha2, nan);
            }
            for (int64_t i = 0; i < n; i += kStage) {
                const int64_t c = imin_(kStage, n - i);
                const C *av = staged_in(ap + i * sa, sa, c, ab);
                if (!unary && sb != 0) bv = staged_in(bp + i * sb, sb, c, bb);
                if constexpr (std::is_same_v<T, C>) {
                    if (c_direct) {
                        math(av, bv, mb, cp + i, c, alpha1, alpha2, nan);
                        continue;
                    }
                }
                math(av, bv, mb, ob, c, alpha1, alpha2, nan);
                staged_out(cp + i * sc, sc, ob, c, beta, blend, stream_run);
            }
            if (stream_run) streaming_fence();
        });
    });
}

template <class C>
OpMath<C> op_math_of(anydnnOpTensorOp_t op) {
    switch (op) {
    case ANYDNN_OP_TENSOR_ADD: return &op_math<ANYDNN_OP_TENSOR_ADD, C>;
    case ANYDNN_OP_TENSOR_MUL: return &op_math<ANYDNN_OP_TENSOR_MUL, C>;
    case ANYDNN_OP_TENSOR_MIN: return &op_math<ANYDNN_OP_TENSOR_MIN, C>;
    case ANYDNN_OP_TENSOR_MAX: return &op_math<ANYDNN_OP_TENSOR_MAX, C>;
    case ANYDNN_OP_TENSOR_SQRT: return &op_math<ANYDNN_OP_TENSOR_SQRT, C>;
    default: return &op_math<ANYDNN_OP_TENSOR_NOT, C>;
    }
}

void op_tensor(const ExecContext &ctx, const OpTensorArgs &a) {
    const bool unary = a.op == ANYDNN_OP_TENSOR_SQRT || a.op == ANYDNN_OP_TENSOR_NOT;
    visit_float_dtype(a.dt, [&](auto tag) {
        using T = typename decltype(tag)::type;
        op_tensor_typed<T>(ctx, a, op_math_of<compute_t<T>>(a.op), unary);
    });
}

}  // namespace

extern const TensorOpsKernels tensor_ops = {transform, fill, op_tensor};

}  // namespace anydnn::cpu::ANYDNN_ISA_NS
