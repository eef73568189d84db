#include "reference/activation_ref.hpp"

#include <cmath>

namespace anydnn_test::ref {

namespace {

constexpr double kPi = 3.14159265358979323846;

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double softplus(double x) { return x > 30 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }
double phi(double x) { return std::exp(-0.5 * x * x) / std::sqrt(2 * kPi); }
double normcdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }
double gelu_tanh_u(double x) { return std::sqrt(2 / kPi) * (x + 0.044715 * x * x * x); }

}  // namespace

double activation_f(const Activation &a, double x) {
    switch (a.mode) {
    case ANYDNN_ACTIVATION_SIGMOID: return sigmoid(x);
    case ANYDNN_ACTIVATION_RELU:
        if (std::isnan(x)) return a.propagate_nan ? x : 0.0;
        return x > 0 ? x : 0.0;
    case ANYDNN_ACTIVATION_TANH: return std::tanh(x);
    case ANYDNN_ACTIVATION_CLIPPED_RELU:
        if (std::isnan(x)) return a.propagate_nan ? x : std::fmin(0.0, a.coef);
        return std::fmin(std::fmax(x, 0.0), a.coef);
    case ANYDNN_ACTIVATION_ELU: return x > 0 ? x : a.coef * std::expm1(x);
    case ANYDNN_ACTIVATION_IDENTITY: return x;
    case ANYDNN_ACTIVATION_SWISH: return x * sigmoid(a.swish_beta * x);
    case ANYDNN_ACTIVATION_GELU: return x * normcdf(x);
    // 0.5 (1 + tanh(u)) = sigmoid(2u), which keeps its relative accuracy where tanh(u) rounds to -1.
    case ANYDNN_ACTIVATION_GELU_TANH: return x * sigmoid(2 * gelu_tanh_u(x));
    case ANYDNN_ACTIVATION_LEAKY_RELU: return x > 0 ? x : a.coef * x;
    case ANYDNN_ACTIVATION_HARDSWISH: return x * std::fmin(std::fmax(x + 3, 0.0), 6.0) / 6;
    case ANYDNN_ACTIVATION_MISH: return x * std::tanh(softplus(x));
    case ANYDNN_ACTIVATION_SOFTPLUS: return softplus(x);
    }
    return NAN;
}

double activation_df(const Activation &a, double x) {
    if (a.mode == ANYDNN_ACTIVATION_IDENTITY) return 1.0;
    if (std::isnan(x)) {
        const bool drops = (a.mode == ANYDNN_ACTIVATION_RELU || a.mode == ANYDNN_ACTIVATION_CLIPPED_RELU) &&
                           !a.propagate_nan;
        return drops ? 0.0 : x;
    }
    switch (a.mode) {
    case ANYDNN_ACTIVATION_SIGMOID: return sigmoid(x) * (1 - sigmoid(x));
    case ANYDNN_ACTIVATION_RELU: return x > 0 ? 1.0 : 0.0;
    case ANYDNN_ACTIVATION_TANH: return 1 - std::tanh(x) * std::tanh(x);
    case ANYDNN_ACTIVATION_CLIPPED_RELU: return x > 0 && x < a.coef ? 1.0 : 0.0;
    case ANYDNN_ACTIVATION_ELU: return x > 0 ? 1.0 : a.coef * std::exp(x);
    case ANYDNN_ACTIVATION_IDENTITY: return 1.0;
    case ANYDNN_ACTIVATION_SWISH: {
        const double s = sigmoid(a.swish_beta * x);
        return s + a.swish_beta * x * s * (1 - s);
    }
    case ANYDNN_ACTIVATION_GELU: return normcdf(x) + x * phi(x);
    case ANYDNN_ACTIVATION_GELU_TANH: {
        // With s = sigmoid(2u): f' = s + 2 x s (1 - s) u', 1 - s = sigmoid(-2u).
        const double u = gelu_tanh_u(x), s = sigmoid(2 * u);
        return s + 2 * x * s * sigmoid(-2 * u) * std::sqrt(2 / kPi) * (1 + 3 * 0.044715 * x * x);
    }
    case ANYDNN_ACTIVATION_LEAKY_RELU: return x > 0 ? 1.0 : a.coef;
    case ANYDNN_ACTIVATION_HARDSWISH: return x < -3 ? 0.0 : x > 3 ? 1.0 : (2 * x + 3) / 6;
    case ANYDNN_ACTIVATION_MISH: {
        const double t = std::tanh(softplus(x));
        return t + x * sigmoid(x) * (1 - t * t);
    }
    case ANYDNN_ACTIVATION_SOFTPLUS: return sigmoid(x);
    }
    return NAN;
}

std::vector<double> activation_forward(const Activation &a, double alpha, const Tensor &x, double beta,
                                       const Tensor &y) {
    std::vector<double> out;
    for_each_index(y.shape().dims, [&](const std::vector<int> &idx) {
        double v = alpha * activation_f(a, x.at(idx));
        if (beta != 0) v += beta * y.at(idx);
        out.push_back(round_to(y.dtype(), v));
    });
    return out;
}

std::vector<double> activation_backward(const Activation &a, double alpha, const Tensor &x, const Tensor &dy,
                                        double beta, const Tensor &dx) {
    std::vector<double> out;
    for_each_index(dx.shape().dims, [&](const std::vector<int> &idx) {
        double v = alpha * activation_df(a, x.at(idx)) * dy.at(idx);
        if (beta != 0) v += beta * dx.at(idx);
        out.push_back(round_to(dx.dtype(), v));
    });
    return out;
}

}  // namespace anydnn_test::ref
