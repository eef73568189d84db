// Activation kernels (forward and backward of every mode), compiled once per
// ISA level. Each mode is a template argument, so that each loop body is one
// straight-line expression of vmath calls and selects, which GCC vectorizes.
#include "cpu/activation.hpp"
#include "cpu/kernels/util/common.hpp"
#include "cpu/kernels/util/streaming_store.hpp"
#include "cpu/kernels/util/vmath.hpp"

namespace anydnn::cpu::ANYDNN_ISA_NS {
namespace {

// The modes, with the NaN option of RELU and CLIPPED_RELU folded in.
enum class Act {
    sigmoid, relu, relu_nan, tanh, clipped_relu, clipped_relu_nan, elu, identity,
    swish, gelu, gelu_tanh, leaky_relu, hardswish, mish, softplus
};

template <class C>
struct Params {
    C coef, swish_beta;
};

// Arguments beyond which the results have converged in C: sigmoid(t) is 0 or
// 1 and t * sigmoid(-t) is 0 past kGate; Phi(x) and x * phi(x) likewise past
// kGelu; mish's e^x (e^x + 2) still fits below kMishHigh and its derivative
// is then exactly 1. Clamping to them keeps inf * 0 out of the derivatives.
template <class C> struct Sat;
template <> struct Sat<float> {
    static constexpr float kGate = 120, kGelu = 15, kMishHigh = 40;
};
template <> struct Sat<double> {
    static constexpr double kGate = 800, kGelu = 40, kMishHigh = 300;
};

// The compares keep a NaN x.
template <class C>
ANYDNN_ALWAYS_INLINE C clamp_(C x, C lo, C hi) {
    return x < lo ? lo : (x > hi ? hi : x);
}

// x * g for a gate g in [0, 1], with the limit 0 where g is 0 and x infinite.
template <class C>
ANYDNN_ALWAYS_INLINE C gated(C x, C g) {
    return g == C(0) ? C(0) : x * g;
}

// sigmoid(t) and 1 - sigmoid(t), both without cancellation, from one exp.
// (The two selects test different conditions, t >= 0 and t < 0: one bool
// used twice would make GCC branch instead of vectorizing.)
template <class C>
ANYDNN_ALWAYS_INLINE void sigmoid_pair(C t, C &s, C &one_minus_s) {
    const C e = vexp(-std::fabs(t));
    const C r = C(1) / (C(1) + e);
    s = t >= C(0) ? r : e * r;
    one_minus_s = t < C(0) ? r : e * r;
}

constexpr double kGeluTanhK = 0.79788456080286535588;  // sqrt(2 / pi)
constexpr double kGeluTanhC = 0.044715;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;

template <Act M, class C>
ANYDNN_ALWAYS_INLINE C act_forward(C x, Params<C> p) {
    if constexpr (M == Act::sigmoid) return vsigmoid(x);
    else if constexpr (M == Act::relu) return x > C(0) ? x : C(0);  // a NaN loses
    else if constexpr (M == Act::relu_nan) return x < C(0) ? C(0) : x;  // a NaN passes
    else if constexpr (M == Act::tanh) return vtanh(x);
    else if constexpr (M == Act::clipped_relu) {
        const C r = x > C(0) ? x : C(0);
        return r < p.coef ? r : p.coef;
    } else if constexpr (M == Act::clipped_relu_nan) {
        const C r = x < C(0) ? C(0) : x;
        return r > p.coef ? p.coef : r;
    } else if constexpr (M == Act::elu) return x > C(0) ? x : p.coef * vexpm1(x);
    else if constexpr (M == Act::identity) return x;
    else if constexpr (M == Act::swish) return gated(x, vsigmoid(p.swish_beta * x));
    else if constexpr (M == Act::gelu) return gated(x, vnormcdf(x));
    else if constexpr (M == Act::gelu_tanh)
        // 0.5 (1 + tanh(u)) = sigmoid(2u): no cancellation for x < 0.
        return gated(x, vsigmoid(C(2 * kGeluTanhK) * (x + C(kGeluTanhC) * (x * x * x))));
    else if constexpr (M == Act::leaky_relu) return x > C(0) ? x : p.coef * x;
    else if constexpr (M == Act::hardswish)
        return x <= C(-3) ? C(0) : (x >= C(3) ? x : x * (x + C(3)) * C(1.0 / 6.0));
    else if constexpr (M == Act::mish) {
        // tanh(softplus(x)) = n / (n + 2) with n = e^x (e^x + 2): no cancellation.
        const C e = vexp(x > Sat<C>::kMishHigh ? Sat<C>::kMishHigh : x);
        const C n = e * (e + C(2));
        return gated(x, n / (n + C(2)));
    } else {
        static_assert(M == Act::softplus);
        return fmax_(x, C(0)) + vlog1p(vexp(-std::fabs(x)));
    }
}

// f'(x) * dy. SIGMOID and TANH take f' from y; ELU branches on x and takes
// the value from y; the rest read x only (see anydnnActivationBackward).
template <Act M, class C>
ANYDNN_ALWAYS_INLINE C act_backward(C x, C y, C dy, Params<C> p) {
    if constexpr (M == Act::sigmoid) return dy * (y * (C(1) - y));
    else if constexpr (M == Act::relu) return x > C(0) ? dy : C(0);
    else if constexpr (M == Act::relu_nan) return x != x ? x : (x > C(0) ? dy : C(0));
    else if constexpr (M == Act::tanh) return dy * ((C(1) - y) * (C(1) + y));
    else if constexpr (M == Act::clipped_relu) return (x > C(0)) & (x < p.coef) ? dy : C(0);
    else if constexpr (M == Act::clipped_relu_nan) return x != x ? x : ((x > C(0)) & (x < p.coef) ? dy : C(0));
    else if constexpr (M == Act::elu) return x > C(0) ? dy : dy * (y + p.coef);
    else if constexpr (M == Act::identity) return dy;
    else if constexpr (M == Act::swish) {
        // d/dx x sigmoid(bx) = s (1 + t (1 - s)), t = bx, s = sigmoid(t).
        const C t = clamp_(p.swish_beta * x, -Sat<C>::kGate, Sat<C>::kGate);
        C s, s1;
        sigmoid_pair(t, s, s1);
        return dy * (s * (C(1) + t * s1));
    } else if constexpr (M == Act::gelu) {
        const C xc = clamp_(x, -Sat<C>::kGelu, Sat<C>::kGelu);
        return dy * (vnormcdf(xc) + xc * (C(kInvSqrt2Pi) * vgauss(xc)));
    } else if constexpr (M == Act::gelu_tanh) {
        // f = x s(2u): f' = s + x s (1 - s) 2u'.
        const C xc = clamp_(x, -Sat<C>::kGelu, Sat<C>::kGelu), x2 = xc * xc;
        C s, s1;
        sigmoid_pair(C(2 * kGeluTanhK) * (xc + C(kGeluTanhC) * (x2 * xc)), s, s1);
        return dy * (s + xc * (s * s1) * (C(2 * kGeluTanhK) * (C(1) + C(3 * kGeluTanhC) * x2)));
    } else if constexpr (M == Act::leaky_relu) return x != x ? x : (x > C(0) ? dy : p.coef * dy);
    else if constexpr (M == Act::hardswish)
        return x < C(-3) ? C(0) : (x > C(3) ? dy : dy * (x * C(1.0 / 3.0) + C(0.5)));
    else if constexpr (M == Act::mish) {
        // With t = tanh(softplus(x)) = n / (n + 2): f' = t + x sigmoid(x) (1 - t^2),
        // 1 - t^2 = 4 (n + 1) / (n + 2)^2, sigmoid(x) = e / (1 + e).
        const C xc = clamp_(x, -Sat<C>::kGate, Sat<C>::kMishHigh);
        const C e = vexp(xc), n = e * (e + C(2)), n2 = n + C(2);
        return dy * (n / n2 + xc * (e / (C(1) + e)) * (C(4) * (n + C(1)) / (n2 * n2)));
    } else {
        static_assert(M == Act::softplus);
        return dy * vsigmoid(x);
    }
}

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

// Calls fn(std::integral_constant<Act, M>) for the kernel mode of op.
template <class Fn>
void visit_act(const ActivationOp &op, Fn &&fn) {
    using A = Act;
    switch (op.mode) {
    case ANYDNN_ACTIVATION_SIGMOID: fn(std::integral_constant<A, A::sigmoid>{}); break;
    case ANYDNN_ACTIVATION_RELU:
        if (op.propagate_nan) fn(std::integral_constant<A, A::relu_nan>{});
        else fn(std::integral_constant<A, A::relu>{});
        break;
    case ANYDNN_ACTIVATION_TANH: fn(std::integral_constant<A, A::tanh>{}); break;
    case ANYDNN_ACTIVATION_CLIPPED_RELU:
        if (op.propagate_nan) fn(std::integral_constant<A, A::clipped_relu_nan>{});
        else fn(std::integral_constant<A, A::clipped_relu>{});
        break;
    case ANYDNN_ACTIVATION_ELU: fn(std::integral_constant<A, A::elu>{}); break;
    case ANYDNN_ACTIVATION_IDENTITY: fn(std::integral_constant<A, A::identity>{}); break;
    case ANYDNN_ACTIVATION_SWISH: fn(std::integral_constant<A, A::swish>{}); break;
    case ANYDNN_ACTIVATION_GELU: fn(std::integral_constant<A, A::gelu>{}); break;
    case ANYDNN_ACTIVATION_GELU_TANH: fn(std::integral_constant<A, A::gelu_tanh>{}); break;
    case ANYDNN_ACTIVATION_LEAKY_RELU: fn(std::integral_constant<A, A::leaky_relu>{}); break;
    case ANYDNN_ACTIVATION_HARDSWISH: fn(std::integral_constant<A, A::hardswish>{}); break;
    case ANYDNN_ACTIVATION_MISH: fn(std::integral_constant<A, A::mish>{}); break;
    case ANYDNN_ACTIVATION_SOFTPLUS: fn(std::integral_constant<A, A::softplus>{}); break;
    }
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
