// Activation kernels (forward and backward of every mode), compiled once per
// ISA level. Each mode is a template argument, so that each loop body is one
// straight-line expression of vmath calls and selects, which GCC vectorizes.
#include "cpu/activation.hpp"
#include "cpu/kernels/util/act_math.hpp"
#include "cpu/kernels/util/common.hpp"
#include "cpu/kernels/util/streaming_store.hpp"
#include "cpu/kernels/util/vmath.hpp"

namespace anydnn::cpu::ANYDNN_ISA_NS {
namespace {

// One run of n elements. Unit: every stride is 1 (the vectorized case);
// Blend: beta != 0, so the old output is read.
template <Act M, bool Unit, bool Blend, class T, class C>
inline void forward_run(const T *x, int64_t sx, T *y, int64_t sy, int64_t n, C alpha, C beta, Params<C> p) {
    if constexpr (Unit) sx = sy = 1;
    for (int64_t i = 0; i < n; ++i) {
        const C f = alpha * act_forward<M>(load<C>(x + i * sx), p);
        if constexpr (Blend) store(y + i * sy, f + beta * load<C>(y + i * sy));
        else store(y + i * sy, f);
    }
}

template <class T, Act M>
void forward_typed(const ExecContext &ctx, const ActivationForwardArgs &a) {
    using C = compute_t<T>;
    const StridedLoop &L = a.loop;
    const Params<C> p{static_cast<C>(a.op.coef), static_cast<C>(a.op.swish_beta)};
    const C alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
    const T *x = static_cast<const T *>(a.x);
    T *y = static_cast<T *>(a.y);
    const int64_t sy = L.inner_stride(0), sx = L.inner_stride(1);
    const bool unit = sy == 1 && sx == 1, blend = beta != C(0);
    const bool stream = unit && !blend && use_streaming_stores(L.total() * int64_t(sizeof(T)), y, x);
    parallel_ranges(ctx, L.total(), kElementwiseGrain, [&](int64_t begin, int64_t end) {
        for_each_run(L, begin, end, [&](const int64_t *off, int64_t n) {
            const T *xp = x + off[1];
            T *yp = y + off[0];
            if (stream && n >= kStreamingMinRun)
                staged_run(yp, n, [&](T *buf, int64_t i, int64_t c) {
                    forward_run<M, true, false>(xp + i, 1, buf, 1, c, alpha, beta, p);
                });
            else if (unit && !blend) forward_run<M, true, false>(xp, sx, yp, sy, n, alpha, beta, p);
            else if (unit) forward_run<M, true, true>(xp, sx, yp, sy, n, alpha, beta, p);
            else if (!blend) forward_run<M, false, false>(xp, sx, yp, sy, n, alpha, beta, p);
            else forward_run<M, false, true>(xp, sx, yp, sy, n, alpha, beta, p);
        });
    });
}

template <Act M, bool Unit, bool Blend, class T, class C>
inline void backward_run(const T *dy, const T *y, const T *x, T *dx, const int64_t *s, int64_t n, C alpha, C beta,
                         Params<C> p) {
    int64_t sdx = s[0], sdy = s[1], sy = s[2], sx = s[3];
    if constexpr (Unit) sdx = sdy = sy = sx = 1;
    for (int64_t i = 0; i < n; ++i) {
        const C g = alpha * act_backward<M>(load<C>(x + i * sx), load<C>(y + i * sy), load<C>(dy + i * sdy), p);
        if constexpr (Blend) store(dx + i * sdx, g + beta * load<C>(dx + i * sdx));
        else store(dx + i * sdx, g);
    }
}

template <class T, Act M>
void backward_typed(const ExecContext &ctx, const ActivationBackwardArgs &a) {
    using C = compute_t<T>;
    const StridedLoop &L = a.loop;
    const Params<C> p{static_cast<C>(a.op.coef), static_cast<C>(a.op.swish_beta)};
    const C alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
    const T *dy = static_cast<const T *>(a.dy);
    const T *y = static_cast<const T *>(a.y);
    const T *x = static_cast<const T *>(a.x);
    T *dx = static_cast<T *>(a.dx);
    const int64_t s[4] = {L.inner_stride(0), L.inner_stride(1), L.inner_stride(2), L.inner_stride(3)};
    const bool unit = s[0] == 1 && s[1] == 1 && s[2] == 1 && s[3] == 1, blend = beta != C(0);
    const bool stream = unit && !blend && use_streaming_stores(L.total() * int64_t(sizeof(T)), dx, dy, y, x);
    parallel_ranges(ctx, L.total(), kElementwiseGrain, [&](int64_t begin, int64_t end) {
        for_each_run(L, begin, end, [&](const int64_t *off, int64_t n) {
            const T *dyp = dy + off[1], *yp = y + off[2], *xp = x + off[3];
            T *dxp = dx + off[0];
            if (stream && n >= kStreamingMinRun)
                staged_run(dxp, n, [&](T *buf, int64_t i, int64_t c) {
                    backward_run<M, true, false>(dyp + i, yp + i, xp + i, buf, s, c, alpha, beta, p);
                });
            else if (unit && !blend) backward_run<M, true, false>(dyp, yp, xp, dxp, s, n, alpha, beta, p);
            else if (unit) backward_run<M, true, true>(dyp, yp, xp, dxp, s, n, alpha, beta, p);
            else if (!blend) backward_run<M, false, false>(dyp, yp, xp, dxp, s, n, alpha, beta, p);
            else backward_run<M, false, true>(dyp, yp, xp, dxp, s, n, alpha, beta, p);
        });
    });
}

void forward(const ExecContext &ctx, const ActivationForwardArgs &a) {
    visit_float_dtype(a.dt, [&](auto tag) {
        visit_act(a.op, [&](auto mode) { forward_typed<typename decltype(tag)::type, decltype(mode)::value>(ctx, a); });
    });
}

void backward(const ExecContext &ctx, const ActivationBackwardArgs &a) {
    visit_float_dtype(a.dt, [&](auto tag) {
        visit_act(a.op,
                  [&](auto mode) { backward_typed<typename decltype(tag)::type, decltype(mode)::value>(ctx, a); });
    });
}

}  // namespace

extern const ActivationKernels activation = {forward, backward};

}  // namespace anydnn::cpu::ANYDNN_ISA_NS
