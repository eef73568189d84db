// The activation functions f(x) and f'(x) * dy of every mode, as inline
// templates on one element, compiled once per ISA level: the activation
// kernels and the fused epilogues (convolution) both use them.
#pragma once

#include <type_traits>

#include "cpu/activation.hpp"
#include "cpu/kernels/util/common.hpp"
#include "cpu/kernels/util/vmath.hpp"

namespace anydnn::cpu::ANYDNN_ISA_NS {

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
    return g == 0 ? C{} : x * g;
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

// The modes whose act_forward also takes vec_t<C> (C float): those whose
// math is bound by the division of a rational fit, which vmath's divide does
// faster on vectors than GCC's vectorized loop can (see there).
template <Act M, class C>
constexpr bool kVectorForward = std::is_same_v<C, float> && (M == Act::tanh || M == Act::gelu);

// C: the compute type, or vec_t<P> where kVectorForward<M, P>.
template <Act M, class C, class P>
ANYDNN_ALWAYS_INLINE C act_forward(C x, Params<P> p) {
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
    else if constexpr (M == Act::gelu)
        // x Phi(x) with x clamped to the finite floats: Phi(x) is 0 only far
        // below 0, where the product is then -0 rather than -inf * 0 (one
        // vmaxps, where gated's select takes two operations).
        return vmath_detail::max_lanes(C{} - std::numeric_limits<P>::max(), x) * vnormcdf(x);
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

}  // namespace anydnn::cpu::ANYDNN_ISA_NS
