// Tensor-ops kernels (transform, fill, op-tensor), compiled once per ISA level.
#include "cpu/kernels/util/common.hpp"
#include "cpu/kernels/util/streaming_store.hpp"
#include "cpu/tensor_ops.hpp"

namespace anydnn::cpu::ANYDNN_ISA_NS {
namespace {

template <class TY, class TX>
using pair_compute_t = std::conditional_t<std::is_same_v<compute_t<TY>, double> || std::is_same_v<compute_t<TX>, double>,
                                          double, float>;

template <class TY, class TX>
void transform_typed(const ExecContext &ctx, const TransformArgs &a) {
    using C = pair_compute_t<TY, TX>;
    const StridedLoop &L = a.loop;
    const C alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
    const TX *x = static_cast<const TX *>(a.x);
    TY *y = static_cast<TY *>(a.y);
    const int64_t sy = L.inner_stride(0), sx = L.inner_stride(1);
    parallel_ranges(ctx, L.total(), kElementwiseGrain, [&](int64_t begin, int64_t end) {
        for_each_run(L, begin, end, [&](const int64_t *off, int64_t n) {
            TY *yp = y + off[0];
            const TX *xp = x + off[1];
            if (sy == 1 && sx == 1) {
                if (beta == C(0))
                    for (int64_t i = 0; i < n; ++i) store(yp + i, alpha * load<C>(xp + i));
                else
                    for (int64_t i = 0; i < n; ++i) store(yp + i, alpha * load<C>(xp + i) + beta * load<C>(yp + i));
            } else if (sy == 1 && sx == 0) {  // a broadcast scalar, e.g. a per-channel bias in NCHW
                const C v = alpha * load<C>(xp);
                if (beta == C(0))
                    for (int64_t i = 0; i < n; ++i) store(yp + i, v);
                else
                    for (int64_t i = 0; i < n; ++i) store(yp + i, v + beta * load<C>(yp + i));
            } else {
                if (beta == C(0))
                    for (int64_t i = 0; i < n; ++i) store(yp + i * sy, alpha * load<C>(xp + i * sx));
                else
                    for (int64_t i = 0; i < n; ++i)
                        store(yp + i * sy, alpha * load<C>(xp + i * sx) + beta * load<C>(yp + i * sy));
            }
        });
    });
}

void transform(const ExecContext &ctx, const TransformArgs &a) {
    visit_dtype(a.ydt, [&](auto ytag) {
        visit_dtype(a.xdt, [&](auto xtag) {
            transform_typed<typename decltype(ytag)::type, typename decltype(xtag)::type>(ctx, a);
        });
    });
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

template <class T, anydnnOpTensorOp_t Op, bool PropagateNan>
void op_tensor_typed(const ExecContext &ctx, const OpTensorArgs &a) {
    using C = compute_t<T>;
    constexpr bool unary = Op == ANYDNN_OP_TENSOR_SQRT || Op == ANYDNN_OP_TENSOR_NOT;
    const StridedLoop &L = a.loop;
    const C alpha1 = static_cast<C>(a.alpha1), alpha2 = static_cast<C>(a.alpha2), beta = static_cast<C>(a.beta);
    const T *A = static_cast<const T *>(a.a);
    const T *B = static_cast<const T *>(a.b);
    T *Cp = static_cast<T *>(a.c);
    const int64_t sc = L.inner_stride(0), sa = L.inner_stride(1), sb = unary ? 0 : L.inner_stride(2);
    const bool stream = use_streaming_stores(L.total() * int64_t(sizeof(T)), Cp, A, unary ? nullptr : B);
    parallel_ranges(ctx, L.total(), kElementwiseGrain, [&](int64_t begin, int64_t end) {
        for_each_run(L, begin, end, [&](const int64_t *off, int64_t n) {
            T *cp = Cp + off[0];
            const T *ap = A + off[1];
            const T *bp = unary ? ap : B + off[2];
            auto body = [&](auto unit, auto bcast_b) {
                constexpr bool U = decltype(unit)::value, Z = decltype(bcast_b)::value;
                const int64_t c_s = U ? 1 : sc, a_s = U ? 1 : sa, b_s = Z ? 0 : (U ? 1 : sb);
                auto plain = [&](T *out, int64_t out_s, int64_t i0, int64_t count) {
                    for (int64_t i = i0; i < i0 + count; ++i) {
                        const C bv = unary ? C(0) : alpha2 * load<C>(bp + i * b_s);
                        store(out + (i - i0) * out_s, apply_op<Op, PropagateNan>(alpha1 * load<C>(ap + i * a_s), bv));
                    }
                };
                if (beta == C(0) && U && stream && n >= kStreamingMinRun) {
                    staged_run(cp, n, [&](T *buf, int64_t i, int64_t count) { plain(buf, 1, i, count); });
                } else if (beta == C(0)) {
                    plain(cp, c_s, 0, n);
                } else {
                    for (int64_t i = 0; i < n; ++i) {
                        const C bv = unary ? C(0) : alpha2 * load<C>(bp + i * b_s);
                        store(cp + i * c_s, apply_op<Op, PropagateNan>(alpha1 * load<C>(ap + i * a_s), bv) +
                                                beta * load<C>(cp + i * c_s));
                    }
                }
            };
            using T1 = std::true_type;
            using F0 = std::false_type;
            if (sc == 1 && sa == 1 && (sb == 1 || unary)) body(T1{}, F0{});
            else if (sc == 1 && sa == 1 && sb == 0) body(T1{}, T1{});
            else body(F0{}, F0{});
        });
    });
}

template <class T, anydnnOpTensorOp_t Op>
void op_tensor_nan(const ExecContext &ctx, const OpTensorArgs &a) {
    if (a.propagate_nan) op_tensor_typed<T, Op, true>(ctx, a);
    else op_tensor_typed<T, Op, false>(ctx, a);
}

void op_tensor(const ExecContext &ctx, const OpTensorArgs &a) {
    visit_float_dtype(a.dt, [&](auto tag) {
        using T = typename decltype(tag)::type;
        switch (a.op) {
        case ANYDNN_OP_TENSOR_ADD: op_tensor_nan<T, ANYDNN_OP_TENSOR_ADD>(ctx, a); break;
        case ANYDNN_OP_TENSOR_MUL: op_tensor_nan<T, ANYDNN_OP_TENSOR_MUL>(ctx, a); break;
        case ANYDNN_OP_TENSOR_MIN: op_tensor_nan<T, ANYDNN_OP_TENSOR_MIN>(ctx, a); break;
        case ANYDNN_OP_TENSOR_MAX: op_tensor_nan<T, ANYDNN_OP_TENSOR_MAX>(ctx, a); break;
        case ANYDNN_OP_TENSOR_SQRT: op_tensor_nan<T, ANYDNN_OP_TENSOR_SQRT>(ctx, a); break;
        case ANYDNN_OP_TENSOR_NOT: op_tensor_nan<T, ANYDNN_OP_TENSOR_NOT>(ctx, a); break;
        }
    });
}

}  // namespace

extern const TensorOpsKernels tensor_ops = {transform, fill, op_tensor};

}  // namespace anydnn::cpu::ANYDNN_ISA_NS
