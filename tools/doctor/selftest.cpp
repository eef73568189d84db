#include "selftest.hpp"

#include "system.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace doctor {
namespace {

// A failed call or a wrong number: the message names which.
struct Failure : std::runtime_error {
    using std::runtime_error::runtime_error;
};
// The library answers NOT_SUPPORTED for this algorithm and problem.
struct NotSupported {};

using Floats = std::vector<float>;
using Doubles = std::vector<double>;

Floats random_floats(size_t n, uint64_t seed) {
    Floats v(n);
    for (float &x : v) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        x = static_cast<float>(static_cast<int64_t>(seed >> 40) % 2000) / 1000.0f;  // [-2, 2), 1e-3 steps
        x *= 0.5f;
    }
    return v;
}

void expect_close(const std::string &what, const Floats &got, const Doubles &want, double tolerance = 2e-3) {
    for (size_t i = 0; i < want.size(); ++i) {
        if (std::fabs(got[i] - want[i]) <= tolerance * (1 + std::fabs(want[i]))) continue;
        std::ostringstream msg;
        msg << what << "[" << i << "] is " << got[i] << ", expected " << want[i];
        throw Failure(msg.str());
    }
}

// One handle on one ISA level and the descriptors of one test, destroyed with it.
class Session {
  public:
    Session(const Api &api, anydnnHandle_t handle) : api(api), handle(handle) {}
    ~Session() {
        for (auto it = cleanup_.rbegin(); it != cleanup_.rend(); ++it) (*it)();
    }
    Session(const Session &) = delete;
    Session &operator=(const Session &) = delete;

    void check(anydnnStatus_t status, const char *call) const {
        if (status == ANYDNN_STATUS_SUCCESS) return;
        if (status == ANYDNN_STATUS_NOT_SUPPORTED && allow_not_supported) throw NotSupported{};
        char message[512];
        api.anydnnGetLastErrorString(message, sizeof message);
        throw Failure(std::string(call) + " returned " + api.anydnnGetErrorString(status) + ": " + message);
    }

    anydnnTensorDescriptor_t tensor(int n, int c, int h, int w, anydnnTensorFormat_t format = ANYDNN_TENSOR_NCHW) {
        anydnnTensorDescriptor_t d;
        check(api.anydnnCreateTensorDescriptor(&d), "anydnnCreateTensorDescriptor");
        cleanup_.push_back([this, d] { api.anydnnDestroyTensorDescriptor(d); });
        check(api.anydnnSetTensor4dDescriptor(d, format, ANYDNN_DATA_FLOAT, n, c, h, w), "anydnnSetTensor4dDescriptor");
        return d;
    }
    anydnnFilterDescriptor_t filter(int k, int c, int r, int s) {
        anydnnFilterDescriptor_t d;
        check(api.anydnnCreateFilterDescriptor(&d), "anydnnCreateFilterDescriptor");
        cleanup_.push_back([this, d] { api.anydnnDestroyFilterDescriptor(d); });
        check(api.anydnnSetFilter4dDescriptor(d, ANYDNN_DATA_FLOAT, ANYDNN_TENSOR_NCHW, k, c, r, s),
              "anydnnSetFilter4dDescriptor");
        return d;
    }
    anydnnActivationDescriptor_t activation(anydnnActivationMode_t mode) {
        anydnnActivationDescriptor_t d;
        check(api.anydnnCreateActivationDescriptor(&d), "anydnnCreateActivationDescriptor");
        cleanup_.push_back([this, d] { api.anydnnDestroyActivationDescriptor(d); });
        check(api.anydnnSetActivationDescriptor(d, mode, ANYDNN_NOT_PROPAGATE_NAN, 0.0),
              "anydnnSetActivationDescriptor");
        return d;
    }
    // A descriptor made by create and destroyed with the session.
    template <class D>
    D owned(anydnnStatus_t (*create)(D *), anydnnStatus_t (*destroy)(D), const char *name) {
        D d;
        check(create(&d), name);
        cleanup_.push_back([destroy, d] { destroy(d); });
        return d;
    }

    const Api &api;
    anydnnHandle_t handle;
    bool allow_not_supported = false;

  private:
    std::vector<std::function<void()>> cleanup_;
};

const float kOne = 1.0f, kZero = 0.0f, kHalf = 0.5f;

// ---- tensor ops, reduction, activation, softmax --------------------------------------------

void test_tensor_ops(Session &s) {
    const int n = 2, c = 3, h = 4, w = 5, count = n * c * h * w;
    const auto xd = s.tensor(n, c, h, w), bd = s.tensor(1, c, 1, 1), nhwc = s.tensor(n, c, h, w, ANYDNN_TENSOR_NHWC);
    const Floats x = random_floats(count, 1), b = random_floats(c, 2);
    Floats y(count);
    const float value = 1.5f, two = 2.0f;
    s.check(s.api.anydnnSetTensor(s.handle, xd, y.data(), &value), "anydnnSetTensor");
    s.check(s.api.anydnnScaleTensor(s.handle, xd, y.data(), &two), "anydnnScaleTensor");
    expect_close("SetTensor then ScaleTensor", y, Doubles(count, 3.0));

    y = x;
    s.check(s.api.anydnnAddTensor(s.handle, &kOne, bd, b.data(), &kOne, xd, y.data()), "anydnnAddTensor");
    Doubles want(count);
    for (int i = 0; i < count; ++i) want[i] = double(x[i]) + b[i / (h * w) % c];
    expect_close("AddTensor (bias)", y, want);

    const auto op = s.owned(s.api.anydnnCreateOpTensorDescriptor, s.api.anydnnDestroyOpTensorDescriptor,
                            "anydnnCreateOpTensorDescriptor");
    s.check(s.api.anydnnSetOpTensorDescriptor(op, ANYDNN_OP_TENSOR_MUL, ANYDNN_DATA_FLOAT, ANYDNN_NOT_PROPAGATE_NAN),
            "anydnnSetOpTensorDescriptor");
    const Floats x2 = random_floats(count, 3);
    s.check(s.api.anydnnOpTensor(s.handle, op, &kOne, xd, x.data(), &kOne, xd, x2.data(), &kZero, xd, y.data()),
            "anydnnOpTensor");
    for (int i = 0; i < count; ++i) want[i] = double(x[i]) * x2[i];
    expect_close("OpTensor MUL", y, want);

    s.check(s.api.anydnnTransformTensor(s.handle, &kOne, xd, x.data(), &kZero, nhwc, y.data()), "anydnnTransformTensor");
    for (int i = 0; i < count; ++i) {
        const int iw = i % w, ih = i / w % h, ic = i / (h * w) % c, in = i / (c * h * w);
        want[((in * h + ih) * w + iw) * c + ic] = x[i];
    }
    expect_close("TransformTensor NCHW -> NHWC", y, want);
}

void test_reduce(Session &s) {
    const int n = 3, c = 4, h = 5, w = 6;
    const auto ad = s.tensor(n, c, h, w), cd = s.tensor(1, c, 1, 1);
    const auto rd = s.owned(s.api.anydnnCreateReduceTensorDescriptor, s.api.anydnnDestroyReduceTensorDescriptor,
                            "anydnnCreateReduceTensorDescriptor");
    s.check(s.api.anydnnSetReduceTensorDescriptor(rd, ANYDNN_REDUCE_TENSOR_ADD, ANYDNN_DATA_FLOAT,
                                                  ANYDNN_NOT_PROPAGATE_NAN, ANYDNN_REDUCE_TENSOR_NO_INDICES,
                                                  ANYDNN_32BIT_INDICES),
            "anydnnSetReduceTensorDescriptor");
    size_t workspace_size = 0;
    s.check(s.api.anydnnGetReductionWorkspaceSize(s.handle, rd, ad, cd, &workspace_size),
            "anydnnGetReductionWorkspaceSize");
    std::vector<unsigned char> workspace(workspace_size);
    const Floats a = random_floats(n * c * h * w, 4);
    Floats out(c, 7.0f);
    s.check(s.api.anydnnReduceTensor(s.handle, rd, nullptr, 0, workspace.data(), workspace_size, &kOne, ad, a.data(),
                                     &kHalf, cd, out.data()),
            "anydnnReduceTensor");
    Doubles want(c, 3.5);
    for (size_t i = 0; i < a.size(); ++i) want[i / (h * w) % c] += a[i];
    expect_close("ReduceTensor ADD over N, H, W (beta 0.5)", out, want);
}

void test_activation(Session &s) {
    const int n = 2, c = 3, h = 5, w = 7, count = n * c * h * w;
    const auto d = s.tensor(n, c, h, w);
    const Floats x = random_floats(count, 5), dy = random_floats(count, 6);
    Floats y(count), dx(count);
    const auto relu = s.activation(ANYDNN_ACTIVATION_RELU), tanh_act = s.activation(ANYDNN_ACTIVATION_TANH);
    s.check(s.api.anydnnActivationForward(s.handle, relu, &kOne, d, x.data(), &kZero, d, y.data()),
            "anydnnActivationForward");
    Doubles want(count);
    for (int i = 0; i < count; ++i) want[i] = x[i] > 0 ? x[i] : 0.0;
    expect_close("RELU forward", y, want);
    s.check(s.api.anydnnActivationBackward(s.handle, relu, &kOne, d, y.data(), d, dy.data(), d, x.data(), &kZero, d,
                                           dx.data()),
            "anydnnActivationBackward");
    for (int i = 0; i < count; ++i) want[i] = x[i] > 0 ? dy[i] : 0.0;
    expect_close("RELU backward", dx, want);
    s.check(s.api.anydnnActivationForward(s.handle, tanh_act, &kOne, d, x.data(), &kZero, d, y.data()),
            "anydnnActivationForward");
    for (int i = 0; i < count; ++i) want[i] = std::tanh(double(x[i]));
    expect_close("TANH forward", y, want);
}

void test_softmax(Session &s) {
    const int n = 2, c = 10, h = 3, w = 2, hw = h * w, count = n * c * hw;
    const auto d = s.tensor(n, c, h, w);
    const Floats x = random_floats(count, 7), dy = random_floats(count, 8);
    Floats y(count), dx(count);
    s.check(s.api.anydnnSoftmaxForward(s.handle, ANYDNN_SOFTMAX_ACCURATE, ANYDNN_SOFTMAX_MODE_CHANNEL, &kOne, d,
                                       x.data(), &kZero, d, y.data()),
            "anydnnSoftmaxForward");
    Doubles want(count), grad(count);
    for (int in = 0; in < n; ++in)
        for (int p = 0; p < hw; ++p) {
            auto at = [&](int ic) { return (in * c + ic) * hw + p; };
            double sum = 0, dot = 0;
            for (int ic = 0; ic < c; ++ic) sum += std::exp(double(x[at(ic)]));
            for (int ic = 0; ic < c; ++ic) want[at(ic)] = std::exp(double(x[at(ic)])) / sum;
            for (int ic = 0; ic < c; ++ic) dot += want[at(ic)] * dy[at(ic)];
            for (int ic = 0; ic < c; ++ic) grad[at(ic)] = want[at(ic)] * (dy[at(ic)] - dot);
        }
    expect_close("softmax forward (channel)", y, want);
    s.check(s.api.anydnnSoftmaxBackward(s.handle, ANYDNN_SOFTMAX_ACCURATE, ANYDNN_SOFTMAX_MODE_CHANNEL, &kOne, d,
                                        y.data(), d, dy.data(), &kZero, d, dx.data()),
            "anydnnSoftmaxBackward");
    expect_close("softmax backward (channel)", dx, grad);
}

// ---- pooling --------------------------------------------------------------------------------

void test_pooling(Session &s, anydnnPoolingMode_t mode, int window, int pad, int stride) {
    const int n = 2, c = 3, h = 6, w = 7;
    const int oh = (h + 2 * pad - window) / stride + 1, ow = (w + 2 * pad - window) / stride + 1;
    const auto xd = s.tensor(n, c, h, w), yd = s.tensor(n, c, oh, ow);
    const auto pd = s.owned(s.api.anydnnCreatePoolingDescriptor, s.api.anydnnDestroyPoolingDescriptor,
                            "anydnnCreatePoolingDescriptor");
    s.check(s.api.anydnnSetPooling2dDescriptor(pd, mode, ANYDNN_NOT_PROPAGATE_NAN, window, window, pad, pad, stride,
                                               stride),
            "anydnnSetPooling2dDescriptor");
    const Floats x = random_floats(n * c * h * w, 9), dy = random_floats(n * c * oh * ow, 10);
    Floats y(dy.size()), dx(x.size());
    Doubles want(y.size()), grad(x.size(), 0.0);
    for (int plane = 0; plane < n * c; ++plane)
        for (int i = 0; i < oh; ++i)
            for (int j = 0; j < ow; ++j) {
                const int out = (plane * oh + i) * ow + j;
                double best = -INFINITY, sum = 0;
                int best_at = -1;
                for (int r = 0; r < window; ++r)
                    for (int q = 0; q < window; ++q) {
                        const int ih = i * stride - pad + r, iw = j * stride - pad + q;
                        if (ih < 0 || ih >= h || iw < 0 || iw >= w) continue;
                        const int at = (plane * h + ih) * w + iw;
                        sum += x[at];
                        if (x[at] > best) best = x[at], best_at = at;
                        if (mode != ANYDNN_POOLING_MAX) grad[at] += dy[out] / (window * window);
                    }
                want[out] = mode == ANYDNN_POOLING_MAX ? best : sum / (window * window);
                if (mode == ANYDNN_POOLING_MAX) grad[best_at] += dy[out];
            }
    const std::string name = mode == ANYDNN_POOLING_MAX ? "max pooling" : "average pooling";
    s.check(s.api.anydnnPoolingForward(s.handle, pd, &kOne, xd, x.data(), &kZero, yd, y.data()),
            "anydnnPoolingForward");
    expect_close(name + " forward", y, want);
    s.check(s.api.anydnnPoolingBackward(s.handle, pd, &kOne, yd, y.data(), yd, dy.data(), xd, x.data(), &kZero, xd,
                                        dx.data()),
            "anydnnPoolingBackward");
    expect_close(name + " backward", dx, grad);
}

// ---- batch normalization and the normalization modes ---------------------------------------

// Batch normalization, SPATIAL, through the legacy calls: training forward
// (statistics, running averages with factor 1, saved mean and inverse
// deviation), backward (dx, dscale, dbias) and inference.
void test_batchnorm(Session &s) {
    const int n = 3, c = 4, h = 5, w = 6, plane = h * w, total = n * c * plane, m = n * plane;
    const double eps = 1e-5;
    const auto xd = s.tensor(n, c, h, w), pd = s.tensor(1, c, 1, 1);
    const Floats x = random_floats(total, 25), dy = random_floats(total, 26), scale = random_floats(c, 27),
                 bias = random_floats(c, 28);
    Floats y(total), dx(total), run_mean(c, 0.0f), run_var(c, 1.0f), save_mean(c), save_inv(c), dscale(c), dbias(c);
    s.check(s.api.anydnnBatchNormalizationForwardTraining(s.handle, ANYDNN_BATCHNORM_SPATIAL, &kOne, &kZero, xd,
                                                          x.data(), xd, y.data(), pd, scale.data(), bias.data(), 1.0,
                                                          run_mean.data(), run_var.data(), eps, save_mean.data(),
                                                          save_inv.data()),
            "anydnnBatchNormalizationForwardTraining");
    Doubles mean(c, 0), var(c, 0), inv(c), want(total), unbiased(c), grad(total), want_dscale(c, 0), want_dbias(c, 0);
    auto channel = [&](int i) { return i / plane % c; };
    for (int i = 0; i < total; ++i) mean[channel(i)] += x[i] / double(m);
    for (int i = 0; i < total; ++i) var[channel(i)] += (x[i] - mean[channel(i)]) * (x[i] - mean[channel(i)]) / m;
    for (int k = 0; k < c; ++k) inv[k] = 1 / std::sqrt(var[k] + eps), unbiased[k] = var[k] * m / (m - 1);
    auto xhat = [&](int i) { return (x[i] - mean[channel(i)]) * inv[channel(i)]; };
    for (int i = 0; i < total; ++i) want[i] = scale[channel(i)] * xhat(i) + bias[channel(i)];
    expect_close("training forward y", y, want);
    expect_close("saved mean", save_mean, mean);
    expect_close("saved inverse deviation", save_inv, inv);
    expect_close("running mean", run_mean, mean);
    expect_close("running variance (unbiased)", run_var, unbiased);

    s.check(s.api.anydnnBatchNormalizationBackward(s.handle, ANYDNN_BATCHNORM_SPATIAL, &kOne, &kZero, &kOne, &kZero,
                                                   xd, x.data(), xd, dy.data(), xd, dx.data(), pd, scale.data(),
                                                   dscale.data(), dbias.data(), eps, save_mean.data(),
                                                   save_inv.data()),
            "anydnnBatchNormalizationBackward");
    for (int i = 0; i < total; ++i) want_dbias[channel(i)] += dy[i], want_dscale[channel(i)] += dy[i] * xhat(i);
    for (int i = 0; i < total; ++i) {
        const int k = channel(i);
        grad[i] = scale[k] * inv[k] / m * (m * double(dy[i]) - want_dbias[k] - xhat(i) * want_dscale[k]);
    }
    expect_close("backward dx", dx, grad);
    expect_close("backward dscale", dscale, want_dscale);
    expect_close("backward dbias", dbias, want_dbias);

    s.check(s.api.anydnnBatchNormalizationForwardInference(s.handle, ANYDNN_BATCHNORM_SPATIAL, &kOne, &kZero, xd,
                                                           x.data(), xd, y.data(), pd, scale.data(), bias.data(),
                                                           dscale.data(), run_var.data(), eps),
            "anydnnBatchNormalizationForwardInference");
    for (int i = 0; i < total; ++i) {
        const int k = channel(i);
        want[i] = scale[k] * (x[i] - dscale[k]) / std::sqrt(double(run_var[k]) + eps) + bias[k];
    }
    expect_close("inference y", y, want);
}

// The inference pass of one mode of the generic API, with given statistics:
// checks which elements share a mean and which share a scale.
void test_normalization_mode(Session &s, anydnnNormMode_t mode, int groups) {
    const int n = 2, c = 6, h = 3, w = 4, plane = h * w, total = n * c * plane;
    const double eps = 1e-5;
    const auto xd = s.tensor(n, c, h, w), sbd = s.tensor(1, 1, 1, 1), mvd = s.tensor(1, 1, 1, 1);
    s.check(s.api.anydnnDeriveNormTensorDescriptor(sbd, mvd, xd, mode, groups), "anydnnDeriveNormTensorDescriptor");
    // (mean/var index, scale/bias index) of element i, per the header's table.
    auto stats_of = [&](int i) {
        const int in = i / (c * plane), ic = i / plane % c, e = i % (c * plane);
        switch (mode) {
        case ANYDNN_NORM_PER_ACTIVATION: return std::pair{e, e};
        case ANYDNN_NORM_PER_CHANNEL: return std::pair{ic, ic};
        case ANYDNN_NORM_INSTANCE: return std::pair{in * c + ic, ic};
        case ANYDNN_NORM_GROUP: return std::pair{in * groups + ic / (c / groups), ic};
        default: return std::pair{in, e};  // LAYER, RMS
        }
    };
    int stats_size = 0, params_size = 0;
    for (int i = 0; i < total; ++i) {
        stats_size = std::max(stats_size, stats_of(i).first + 1);
        params_size = std::max(params_size, stats_of(i).second + 1);
    }
    Floats mean = random_floats(stats_size, 29), var = random_floats(stats_size, 30);
    for (float &v : var) v = std::fabs(v) + 0.25f;
    if (mode == ANYDNN_NORM_RMS) mean.assign(stats_size, 0.0f);  // RMS subtracts no mean
    const Floats x = random_floats(total, 31), scale = random_floats(params_size, 32),
                 bias = random_floats(params_size, 33);
    Floats y(total);
    s.check(s.api.anydnnNormalizationForwardInference(s.handle, mode, ANYDNN_NORM_OPS_NORM, ANYDNN_NORM_ALGO_STANDARD,
                                                      &kOne, &kZero, xd, x.data(), sbd, scale.data(), bias.data(),
                                                      mvd, mean.data(), var.data(), nullptr, nullptr, nullptr, xd,
                                                      y.data(), eps, groups),
            "anydnnNormalizationForwardInference");
    Doubles want(total);
    for (int i = 0; i < total; ++i) {
        const auto [g, e] = stats_of(i);
        want[i] = scale[e] * (x[i] - mean[g]) / std::sqrt(double(var[g]) + eps) + bias[e];
    }
    expect_close("y", y, want);
}

// ---- LRN, divisive normalization, dropout -----------------------------------------------------

// y = u * s^-beta with s = k + alpha / count * (the sum of u^2 over a window):
// LRN's window runs over channels, divisive normalization's over h and w.
struct WindowNorm {
    int n, c, h, w;
    int size;  // odd: the window is centred
    double alpha, beta, k;
    bool across_channels;
    int count() const { return across_channels ? size : size * size; }
    template <class F>
    void each_in_window(int i, F f) const {
        const int iw = i % w, ih = i / w % h, ic = i / (h * w) % c, in = i / (c * h * w), r = size / 2;
        for (int dc = across_channels ? -r : 0; dc <= (across_channels ? r : 0); ++dc)
            for (int dh = across_channels ? 0 : -r; dh <= (across_channels ? 0 : r); ++dh)
                for (int dw = across_channels ? 0 : -r; dw <= (across_channels ? 0 : r); ++dw) {
                    const int jc = ic + dc, jh = ih + dh, jw = iw + dw;
                    if (jc >= 0 && jc < c && jh >= 0 && jh < h && jw >= 0 && jw < w)
                        f(((in * c + jc) * h + jh) * w + jw);
                }
    }
    // y and, for the incoming gradient dy, du.
    void reference(const Doubles &u, const Floats &dy, Doubles &y, Doubles &du) const {
        const size_t total = u.size();
        Doubles scale(total);
        y.assign(total, 0), du.assign(total, 0);
        for (size_t i = 0; i < total; ++i) {
            double sum = 0;
            each_in_window(int(i), [&](int j) { sum += u[j] * u[j]; });
            scale[i] = k + alpha / count() * sum;
            y[i] = u[i] * std::pow(scale[i], -beta);
            du[i] += dy[i] * std::pow(scale[i], -beta);
        }
        for (size_t i = 0; i < total; ++i) {
            const double g = -2 * beta * alpha / count() * dy[i] * u[i] * std::pow(scale[i], -beta - 1);
            each_in_window(int(i), [&](int j) { du[j] += g * u[j]; });
        }
    }
};

anydnnLRNDescriptor_t lrn_descriptor(Session &s, const WindowNorm &norm) {
    const auto d = s.owned(s.api.anydnnCreateLRNDescriptor, s.api.anydnnDestroyLRNDescriptor,
                           "anydnnCreateLRNDescriptor");
    s.check(s.api.anydnnSetLRNDescriptor(d, unsigned(norm.size), norm.alpha, norm.beta, norm.k),
            "anydnnSetLRNDescriptor");
    return d;
}

void test_lrn(Session &s) {
    const WindowNorm norm{2, 7, 4, 5, 5, 0.8, 0.75, 2.0, true};
    const auto d = s.tensor(norm.n, norm.c, norm.h, norm.w);
    const auto lrn = lrn_descriptor(s, norm);
    const size_t total = size_t(norm.n) * norm.c * norm.h * norm.w;
    const Floats x = random_floats(total, 18), dy = random_floats(total, 19);
    Floats y(total), dx(total);
    Doubles want, grad;
    norm.reference(Doubles(x.begin(), x.end()), dy, want, grad);
    s.check(s.api.anydnnLRNCrossChannelForward(s.handle, lrn, ANYDNN_LRN_CROSS_CHANNEL_DIM1, &kOne, d, x.data(),
                                               &kZero, d, y.data()),
            "anydnnLRNCrossChannelForward");
    expect_close("LRN forward", y, want);
    s.check(s.api.anydnnLRNCrossChannelBackward(s.handle, lrn, ANYDNN_LRN_CROSS_CHANNEL_DIM1, &kOne, d, y.data(), d,
                                                dy.data(), d, x.data(), &kZero, d, dx.data()),
            "anydnnLRNCrossChannelBackward");
    expect_close("LRN backward", dx, grad);
}

void test_divisive_normalization(Session &s) {
    const WindowNorm norm{2, 3, 6, 5, 3, 0.8, 0.5, 1.5, false};
    const auto d = s.tensor(norm.n, norm.c, norm.h, norm.w);
    const auto lrn = lrn_descriptor(s, norm);
    const size_t total = size_t(norm.n) * norm.c * norm.h * norm.w;
    const Floats x = random_floats(total, 20), means = random_floats(total, 21), dy = random_floats(total, 22);
    Doubles u(total), want, grad;
    for (size_t i = 0; i < total; ++i) u[i] = double(x[i]) - means[i];
    norm.reference(u, dy, want, grad);
    Floats y(total), dx(total), dmeans(total), temp(total), temp2(total);
    s.check(s.api.anydnnDivisiveNormalizationForward(s.handle, lrn, ANYDNN_DIVNORM_PRECOMPUTED_MEANS, &kOne, d,
                                                     x.data(), means.data(), temp.data(), temp2.data(), &kZero, d,
                                                     y.data()),
            "anydnnDivisiveNormalizationForward");
    expect_close("divisive normalization forward", y, want);
    s.check(s.api.anydnnDivisiveNormalizationBackward(s.handle, lrn, ANYDNN_DIVNORM_PRECOMPUTED_MEANS, &kOne, d,
                                                      x.data(), means.data(), dy.data(), temp.data(), temp2.data(),
                                                      &kZero, d, dx.data(), dmeans.data()),
            "anydnnDivisiveNormalizationBackward");
    expect_close("divisive normalization backward dx", dx, grad);
    for (double &g : grad) g = -g;
    expect_close("divisive normalization backward dMeans", dmeans, grad);
}

// p = 0.5 on 24,000 elements: each y is 0 or 2x, the kept share within 5
// sigma of a half, backward replays the mask, and every ISA level draws the
// same mask from the same seed (first_mask holds the first level's).
// ---- recurrent networks -----------------------------------------------------------------

double sigmoid(double v) { return 1 / (1 + std::exp(-v)); }

// A one-layer LSTM over two sequences of lengths 3 and 2 (sequence-major,
// padded), against the cell equations of anydnn_adv.h in double.
void test_lstm(Session &s) {
    const int in = 3, hid = 4, T = 3, B = 2, lengths[B] = {3, 2};
    const auto rnn = s.owned(s.api.anydnnCreateRNNDescriptor, s.api.anydnnDestroyRNNDescriptor,
                             "anydnnCreateRNNDescriptor");
    s.check(s.api.anydnnSetRNNDescriptor_v8(rnn, ANYDNN_RNN_ALGO_STANDARD, ANYDNN_LSTM, ANYDNN_RNN_DOUBLE_BIAS,
                                            ANYDNN_UNIDIRECTIONAL, ANYDNN_LINEAR_INPUT, ANYDNN_DATA_FLOAT,
                                            ANYDNN_DATA_FLOAT, ANYDNN_DEFAULT_MATH, in, hid, hid, 1, nullptr,
                                            ANYDNN_RNN_PADDED_IO_ENABLED),
            "anydnnSetRNNDescriptor_v8");
    auto data = [&](int vec) {
        const auto d = s.owned(s.api.anydnnCreateRNNDataDescriptor, s.api.anydnnDestroyRNNDataDescriptor,
                               "anydnnCreateRNNDataDescriptor");
        s.check(s.api.anydnnSetRNNDataDescriptor(d, ANYDNN_DATA_FLOAT, ANYDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, T,
                                                 B, vec, lengths, nullptr),
                "anydnnSetRNNDataDescriptor");
        return d;
    };
    const auto xd = data(in), yd = data(hid);
    const auto hd = s.owned(s.api.anydnnCreateTensorDescriptor, s.api.anydnnDestroyTensorDescriptor,
                            "anydnnCreateTensorDescriptor");
    const int hdims[3] = {1, B, hid}, hstrides[3] = {B * hid, hid, 1};
    s.check(s.api.anydnnSetTensorNdDescriptor(hd, ANYDNN_DATA_FLOAT, 3, hdims, hstrides),
            "anydnnSetTensorNdDescriptor");
    size_t wbytes = 0, ws_bytes = 0, rs_bytes = 0;
    s.check(s.api.anydnnGetRNNWeightSpaceSize(s.handle, rnn, &wbytes), "anydnnGetRNNWeightSpaceSize");
    s.check(s.api.anydnnGetRNNTempSpaceSizes(s.handle, rnn, ANYDNN_FWD_MODE_INFERENCE, xd, &ws_bytes, &rs_bytes),
            "anydnnGetRNNTempSpaceSizes");
    Floats w = random_floats(wbytes / sizeof(float), 31), work(ws_bytes / sizeof(float) + 1);
    // Gate g's matrices and biases, wherever the library keeps them.
    const float *W[8], *bias[8];
    for (int id = 0; id < 8; ++id) {
        void *m = nullptr, *b = nullptr;
        s.check(s.api.anydnnGetRNNWeightParams(s.handle, rnn, 0, wbytes, w.data(), id, nullptr, &m, nullptr, &b),
                "anydnnGetRNNWeightParams");
        if (m == nullptr || b == nullptr) throw Failure("anydnnGetRNNWeightParams: no matrix or bias for an LSTM gate");
        W[id] = static_cast<const float *>(m);
        bias[id] = static_cast<const float *>(b);
    }
    const Floats x = random_floats(T * B * in, 32), hx = random_floats(B * hid, 33), cx = random_floats(B * hid, 34);
    Floats y(T * B * hid), hy(B * hid), cy(B * hid);
    s.check(s.api.anydnnRNNForward(s.handle, rnn, ANYDNN_FWD_MODE_INFERENCE, nullptr, xd, x.data(), yd, y.data(), hd,
                                   hx.data(), hy.data(), hd, cx.data(), cy.data(), wbytes, w.data(), ws_bytes,
                                   work.data(), 0, nullptr),
            "anydnnRNNForward");
    Doubles want_y(T * B * hid, 0.0), want_h(B * hid), want_c(B * hid);
    for (int b = 0; b < B; ++b) {
        Doubles h(hx.begin() + b * hid, hx.begin() + (b + 1) * hid);
        Doubles c(cx.begin() + b * hid, cx.begin() + (b + 1) * hid);
        for (int t = 0; t < lengths[b]; ++t) {
            const float *xt = &x[(t * B + b) * in];
            Doubles a(4 * hid);
            for (int g = 0; g < 4; ++g)
                for (int j = 0; j < hid; ++j) {
                    double v = double(bias[g][j]) + bias[4 + g][j];
                    for (int k = 0; k < in; ++k) v += double(W[g][j * in + k]) * xt[k];
                    for (int k = 0; k < hid; ++k) v += double(W[4 + g][j * hid + k]) * h[k];
                    a[g * hid + j] = v;
                }
            for (int j = 0; j < hid; ++j) {
                c[j] = sigmoid(a[hid + j]) * c[j] + sigmoid(a[j]) * std::tanh(a[2 * hid + j]);
                h[j] = sigmoid(a[3 * hid + j]) * std::tanh(c[j]);
                want_y[(t * B + b) * hid + j] = h[j];
            }
        }
        for (int j = 0; j < hid; ++j) {
            want_h[b * hid + j] = h[j];
            want_c[b * hid + j] = c[j];
        }
    }
    expect_close("LSTM y", y, want_y);  // the padding (t 2 of sequence 1) too: left as it was, 0
    expect_close("LSTM hy", hy, want_h);
    expect_close("LSTM cy", cy, want_c);
}

void test_dropout(Session &s, std::vector<unsigned char> &first_mask) {
    const int n = 4, c = 6, h = 25, w = 40, total = n * c * h * w;
    const float p = 0.5f;
    const auto d = s.tensor(n, c, h, w);
    const auto dropout = s.owned(s.api.anydnnCreateDropoutDescriptor, s.api.anydnnDestroyDropoutDescriptor,
                                 "anydnnCreateDropoutDescriptor");
    size_t states_size = 0, reserve_size = 0;
    s.check(s.api.anydnnDropoutGetStatesSize(s.handle, &states_size), "anydnnDropoutGetStatesSize");
    s.check(s.api.anydnnDropoutGetReserveSpaceSize(d, &reserve_size), "anydnnDropoutGetReserveSpaceSize");
    std::vector<unsigned char> states(states_size), reserve(reserve_size);
    s.check(s.api.anydnnSetDropoutDescriptor(dropout, s.handle, p, states.data(), states_size, 1234),
            "anydnnSetDropoutDescriptor");
    Floats x = random_floats(total, 23), y(total), dx(total);
    for (float &v : x) v = v == 0 ? 1.0f : v;  // a kept element is never 0
    const Floats dy = random_floats(total, 24);
    s.check(s.api.anydnnDropoutForward(s.handle, dropout, d, x.data(), d, y.data(), reserve.data(), reserve_size),
            "anydnnDropoutForward");
    s.check(s.api.anydnnDropoutBackward(s.handle, dropout, d, dy.data(), d, dx.data(), reserve.data(), reserve_size),
            "anydnnDropoutBackward");
    std::vector<unsigned char> mask(total);
    Doubles want_y(total), want_dx(total);
    int kept = 0;
    for (int i = 0; i < total; ++i) {
        mask[i] = y[i] != 0;
        kept += mask[i];
        want_y[i] = mask[i] ? 2.0 * x[i] : 0.0;
        want_dx[i] = mask[i] ? 2.0 * dy[i] : 0.0;
    }
    expect_close("dropout forward (y is 0 or x / (1 - p))", y, want_y, 1e-6);
    expect_close("dropout backward (the forward's mask)", dx, want_dx, 1e-6);
    const double sigma = std::sqrt(total * p * (1 - p));
    if (std::fabs(kept - total * (1 - p)) > 5 * sigma)
        throw Failure("dropout kept " + std::to_string(kept) + " of " + std::to_string(total) + " at p = 0.5");
    if (first_mask.empty())
        first_mask = mask;
    else if (mask != first_mask)
        throw Failure("dropout's mask differs from the first ISA level's for the same seed");
}

// ---- convolution ----------------------------------------------------------------------------

struct ConvShape {
    int n, c, h, w, k, r, s, pad, stride, groups;
    int oh() const { return (h + 2 * pad - r) / stride + 1; }
    int ow() const { return (w + 2 * pad - s) / stride + 1; }
    int cg() const { return c / groups; }  // input channels per group (the filter's C)
    // Calls f(x index, w index, y index) for every product of the convolution.
    template <class F>
    void each_product(F f) const {
        const int kg = k / groups;
        for (int in = 0; in < n; ++in)
            for (int ik = 0; ik < k; ++ik)
                for (int i = 0; i < oh(); ++i)
                    for (int j = 0; j < ow(); ++j)
                        for (int jc = 0; jc < cg(); ++jc)
                            for (int p = 0; p < r; ++p)
                                for (int q = 0; q < s; ++q) {
                                    const int ih = i * stride - pad + p, iw = j * stride - pad + q;
                                    if (ih < 0 || ih >= h || iw < 0 || iw >= w) continue;
                                    const int ic = ik / kg * cg() + jc;
                                    f(((in * c + ic) * h + ih) * w + iw, ((ik * cg() + jc) * r + p) * s + q,
                                      ((in * k + ik) * oh() + i) * ow() + j);
                                }
    }
    std::string text() const {
        return std::to_string(n) + "x" + std::to_string(c) + "x" + std::to_string(h) + "x" + std::to_string(w) +
               " * " + std::to_string(k) + "x" + std::to_string(cg()) + "x" + std::to_string(r) + "x" +
               std::to_string(s) + " pad " + std::to_string(pad) + " stride " + std::to_string(stride) +
               (groups > 1 ? " groups " + std::to_string(groups) : "");
    }
};

// 3x3, strided, 1x1 and depthwise: between them every algorithm anydnn has takes one.
const ConvShape kConvShapes[] = {{2, 5, 9, 8, 6, 3, 3, 1, 1, 1},
                                 {2, 4, 9, 7, 3, 3, 3, 1, 2, 1},
                                 {1, 8, 5, 5, 16, 1, 1, 0, 1, 1},
                                 {2, 8, 6, 7, 8, 3, 3, 1, 1, 8}};

struct ConvData {
    ConvShape shape;
    anydnnTensorDescriptor_t xd, yd, bias_d;
    anydnnFilterDescriptor_t wd;
    anydnnConvolutionDescriptor_t cd;
    Floats x, w, y0, dy;  // y0: what y holds before a call (beta = 0.5 reads it)
    ConvData(Session &s, const ConvShape &shape) : shape(shape) {
        xd = s.tensor(shape.n, shape.c, shape.h, shape.w);
        yd = s.tensor(shape.n, shape.k, shape.oh(), shape.ow());
        bias_d = s.tensor(1, shape.k, 1, 1);
        wd = s.filter(shape.k, shape.cg(), shape.r, shape.s);
        cd = s.owned(s.api.anydnnCreateConvolutionDescriptor, s.api.anydnnDestroyConvolutionDescriptor,
                     "anydnnCreateConvolutionDescriptor");
        s.check(s.api.anydnnSetConvolution2dDescriptor(cd, shape.pad, shape.pad, shape.stride, shape.stride, 1, 1,
                                                       ANYDNN_CROSS_CORRELATION, ANYDNN_DATA_FLOAT),
                "anydnnSetConvolution2dDescriptor");
        s.check(s.api.anydnnSetConvolutionGroupCount(cd, shape.groups), "anydnnSetConvolutionGroupCount");
        const size_t ysize = size_t(shape.n) * shape.k * shape.oh() * shape.ow();
        x = random_floats(size_t(shape.n) * shape.c * shape.h * shape.w, 11);
        w = random_floats(size_t(shape.k) * shape.cg() * shape.r * shape.s, 12);
        y0 = random_floats(ysize, 13);
        dy = random_floats(ysize, 14);
    }
};

// One direction of one algorithm: out = (the direction's sums) + 0.5 * out0.
// workspace_size(size_t *) and run(workspace, size, out) make the two calls;
// product(want, x index, w index, y index) adds one product to the reference.
template <class WorkspaceSize, class Run, class Product>
void check_conv_direction(Session &s, const ConvData &d, const char *name, size_t out_size, uint64_t seed,
                          WorkspaceSize workspace_size, Run run, Product product) {
    size_t size = 0;
    s.allow_not_supported = true;
    workspace_size(&size);
    std::vector<unsigned char> workspace(size);
    const Floats out0 = random_floats(out_size, seed);
    Floats out = out0;
    run(workspace.data(), size, out.data());
    Doubles want(out_size);
    for (size_t i = 0; i < out_size; ++i) want[i] = 0.5 * out0[i];
    d.shape.each_product([&](int xi, int wi, int yi) { product(want, xi, wi, yi); });
    expect_close(name, out, want);
}

void test_conv_forward(Session &s, const ConvData &d, anydnnConvolutionFwdAlgo_t algo) {
    check_conv_direction(
        s, d, "y", d.dy.size(), 13,
        [&](size_t *size) {
            s.check(s.api.anydnnGetConvolutionForwardWorkspaceSize(s.handle, d.xd, d.wd, d.cd, d.yd, algo, size),
                    "anydnnGetConvolutionForwardWorkspaceSize");
        },
        [&](void *workspace, size_t size, float *y) {
            s.check(s.api.anydnnConvolutionForward(s.handle, &kOne, d.xd, d.x.data(), d.wd, d.w.data(), d.cd, algo,
                                                   workspace, size, &kHalf, d.yd, y),
                    "anydnnConvolutionForward");
        },
        [&](Doubles &want, int xi, int wi, int yi) { want[yi] += double(d.x[xi]) * d.w[wi]; });
}

// y = relu(conv(x, w) + 0.5 * z + bias), z = y0, in place (z is y).
void test_conv_bias_activation(Session &s, const ConvData &d) {
    const anydnnConvolutionFwdAlgo_t algo = ANYDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    size_t size = 0;
    s.check(s.api.anydnnGetConvolutionForwardWorkspaceSize(s.handle, d.xd, d.wd, d.cd, d.yd, algo, &size),
            "anydnnGetConvolutionForwardWorkspaceSize");
    std::vector<unsigned char> workspace(size);
    const Floats bias = random_floats(d.shape.k, 15);
    Floats y = d.y0;
    const auto relu = s.activation(ANYDNN_ACTIVATION_RELU);
    s.check(s.api.anydnnConvolutionBiasActivationForward(s.handle, &kOne, d.xd, d.x.data(), d.wd, d.w.data(), d.cd,
                                                         algo, workspace.data(), size, &kHalf, d.yd, y.data(),
                                                         d.bias_d, bias.data(), relu, d.yd, y.data()),
            "anydnnConvolutionBiasActivationForward");
    const int plane = d.shape.oh() * d.shape.ow();
    Doubles want(y.size());
    for (size_t i = 0; i < y.size(); ++i) want[i] = 0.5 * d.y0[i] + bias[i / plane % d.shape.k];
    d.shape.each_product([&](int xi, int wi, int yi) { want[yi] += double(d.x[xi]) * d.w[wi]; });
    for (double &v : want) v = v > 0 ? v : 0;
    expect_close("y", y, want);
}

void test_conv_backward_data(Session &s, const ConvData &d, anydnnConvolutionBwdDataAlgo_t algo) {
    check_conv_direction(
        s, d, "dx", d.x.size(), 16,
        [&](size_t *size) {
            s.check(s.api.anydnnGetConvolutionBackwardDataWorkspaceSize(s.handle, d.wd, d.yd, d.cd, d.xd, algo, size),
                    "anydnnGetConvolutionBackwardDataWorkspaceSize");
        },
        [&](void *workspace, size_t size, float *dx) {
            s.check(s.api.anydnnConvolutionBackwardData(s.handle, &kOne, d.wd, d.w.data(), d.yd, d.dy.data(), d.cd,
                                                        algo, workspace, size, &kHalf, d.xd, dx),
                    "anydnnConvolutionBackwardData");
        },
        [&](Doubles &want, int xi, int wi, int yi) { want[xi] += double(d.w[wi]) * d.dy[yi]; });
}

void test_conv_backward_filter(Session &s, const ConvData &d, anydnnConvolutionBwdFilterAlgo_t algo) {
    check_conv_direction(
        s, d, "dw", d.w.size(), 17,
        [&](size_t *size) {
            s.check(
                s.api.anydnnGetConvolutionBackwardFilterWorkspaceSize(s.handle, d.xd, d.yd, d.cd, d.wd, algo, size),
                "anydnnGetConvolutionBackwardFilterWorkspaceSize");
        },
        [&](void *workspace, size_t size, float *dw) {
            s.check(s.api.anydnnConvolutionBackwardFilter(s.handle, &kOne, d.xd, d.x.data(), d.yd, d.dy.data(), d.cd,
                                                          algo, workspace, size, &kHalf, d.wd, dw),
                    "anydnnConvolutionBackwardFilter");
        },
        [&](Doubles &want, int xi, int wi, int yi) { want[wi] += double(d.x[xi]) * d.dy[yi]; });
}

void test_conv_backward_bias(Session &s, const ConvData &d) {
    Floats db(d.shape.k, 1.0f);
    s.check(s.api.anydnnConvolutionBackwardBias(s.handle, &kOne, d.yd, d.dy.data(), &kHalf, d.bias_d, db.data()),
            "anydnnConvolutionBackwardBias");
    const int plane = d.shape.oh() * d.shape.ow();
    Doubles want(d.shape.k, 0.5);
    for (size_t i = 0; i < d.dy.size(); ++i) want[i / plane % d.shape.k] += d.dy[i];
    expect_close("db", db, want);
}

const char *const kFwdAlgoNames[] = {"IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM",     "DIRECT",
                                     "FFT",           "FFT_TILING",            "WINOGRAD", "WINOGRAD_NONFUSED"};
const char *const kBwdDataAlgoNames[] = {"ALGO_0", "ALGO_1", "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
const char *const kBwdFilterAlgoNames[] = {"ALGO_0",   "ALGO_1",           "FFT",       "ALGO_3",
                                           "WINOGRAD", "WINOGRAD_NONFUSED", "FFT_TILING"};
static_assert(std::size(kFwdAlgoNames) == ANYDNN_CONVOLUTION_FWD_ALGO_COUNT);
static_assert(std::size(kBwdDataAlgoNames) == ANYDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT);
static_assert(std::size(kBwdFilterAlgoNames) == ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT);

// ---- the runner -----------------------------------------------------------------------------

struct Case {
    std::string name;
    std::function<void(Session &)> run;
};

std::vector<Case> all_cases() {
    std::vector<Case> cases = {
        {"tensor ops (Set, Scale, Add, Op, Transform)", test_tensor_ops},
        {"ReduceTensor", test_reduce},
        {"activation forward / backward", test_activation},
        {"softmax forward / backward", test_softmax},
        {"max pooling forward / backward", [](Session &s) { test_pooling(s, ANYDNN_POOLING_MAX, 2, 0, 2); }},
        {"average pooling forward / backward",
         [](Session &s) { test_pooling(s, ANYDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, 3, 1, 1); }},
        {"batch normalization training / backward / inference", test_batchnorm},
        {"normalization PER_ACTIVATION", [](Session &s) { test_normalization_mode(s, ANYDNN_NORM_PER_ACTIVATION, 1); }},
        {"normalization PER_CHANNEL", [](Session &s) { test_normalization_mode(s, ANYDNN_NORM_PER_CHANNEL, 1); }},
        {"normalization LAYER", [](Session &s) { test_normalization_mode(s, ANYDNN_NORM_LAYER, 1); }},
        {"normalization INSTANCE", [](Session &s) { test_normalization_mode(s, ANYDNN_NORM_INSTANCE, 1); }},
        {"normalization GROUP", [](Session &s) { test_normalization_mode(s, ANYDNN_NORM_GROUP, 3); }},
        {"normalization RMS", [](Session &s) { test_normalization_mode(s, ANYDNN_NORM_RMS, 1); }},
        {"LRN cross-channel forward / backward", test_lrn},
        {"divisive normalization forward / backward", test_divisive_normalization},
        {"dropout forward / backward",
         [first_mask = std::make_shared<std::vector<unsigned char>>()](Session &s) { test_dropout(s, *first_mask); }},
        {"LSTM forward", test_lstm},
    };
    // One case per algorithm: it passes when every shape it takes is right,
    // and says "not implemented" when it takes none.
    auto conv_case = [&](std::string name, std::function<void(Session &, const ConvData &)> body) {
        cases.push_back({std::move(name), [body](Session &s) {
                             int ran = 0;
                             for (const ConvShape &shape : kConvShapes) {
                                 const ConvData data(s, shape);
                                 try {
                                     body(s, data);
                                     ++ran;
                                 } catch (const NotSupported &) {
                                 } catch (const Failure &f) {
                                     throw Failure(shape.text() + ": " + f.what());
                                 }
                                 s.allow_not_supported = false;
                             }
                             if (ran == 0) throw NotSupported{};
                         }});
    };
    for (int a = 0; a < ANYDNN_CONVOLUTION_FWD_ALGO_COUNT; ++a)
        conv_case(std::string("convolution forward ") + kFwdAlgoNames[a], [a](Session &s, const ConvData &d) {
            test_conv_forward(s, d, static_cast<anydnnConvolutionFwdAlgo_t>(a));
        });
    conv_case("convolution + bias + activation forward", test_conv_bias_activation);
    for (int a = 0; a < ANYDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT; ++a)
        conv_case(std::string("convolution backward data ") + kBwdDataAlgoNames[a],
                  [a](Session &s, const ConvData &d) {
                      test_conv_backward_data(s, d, static_cast<anydnnConvolutionBwdDataAlgo_t>(a));
                  });
    for (int a = 0; a < ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT; ++a)
        conv_case(std::string("convolution backward filter ") + kBwdFilterAlgoNames[a],
                  [a](Session &s, const ConvData &d) {
                      test_conv_backward_filter(s, d, static_cast<anydnnConvolutionBwdFilterAlgo_t>(a));
                  });
    conv_case("convolution backward bias", test_conv_backward_bias);
    return cases;
}

// The ISA levels this library has kernels for and this CPU runs, lowest first.
std::vector<std::string> runnable_isa_levels(const std::string &info) {
    static const char *const order[] = {"generic", "avx2", "avx512"};
    const std::string compiled = " " + build_info_line(info, "cpu isa compiled") + " ";
    const std::string detected = build_info_line(info, "cpu isa detected");
    std::vector<std::string> levels;
    for (const char *level : order) {
        std::string word = " ";  // built by appending: GCC 12 warns falsely on " " + std::string
        word += level;
        word += ' ';
        if (compiled.find(word) != std::string::npos) levels.push_back(level);
        if (detected == level) break;
    }
    return levels;
}

}  // namespace

void run_self_test(const Api &api, Report &report) {
    const std::string section = "self-test";
    const std::vector<std::string> levels = runnable_isa_levels(api.anydnnGetBuildInfo());
    if (levels.empty()) {
        report.problem(section, "ISA levels", "the build info names no ISA level this CPU can run",
                       "reinstall anydnn; its build info is: " + std::string(api.anydnnGetBuildInfo()));
        return;
    }
    // Each level in turn through ANYDNN_MAX_ISA, which a handle reads when created.
    const char *saved = std::getenv("ANYDNN_MAX_ISA");
    const std::string saved_value = saved != nullptr ? saved : "";
    const std::vector<Case> cases = all_cases();
    std::map<std::string, std::string> failures, passed, unsupported;
    for (const std::string &level : levels) {
        setenv("ANYDNN_MAX_ISA", level.c_str(), 1);
        anydnnHandle_t handle = nullptr;
        const anydnnStatus_t status = api.anydnnCreateForVersion(&handle, ANYDNN_VERSION);
        if (status != ANYDNN_STATUS_SUCCESS) {
            char message[512];
            api.anydnnGetLastErrorString(message, sizeof message);
            report.problem(section, "handle on " + level, std::string("anydnnCreate failed: ") + message,
                           "see the library and search-path findings above");
            continue;
        }
        for (const Case &c : cases) {
            std::string &list = passed[c.name];
            try {
                Session s(api, handle);
                c.run(s);
                list += (list.empty() ? "" : ", ") + level;
            } catch (const NotSupported &) {
                unsupported[c.name] = "not implemented for the self-test's shapes";
            } catch (const Failure &f) {
                failures[c.name] += (failures[c.name].empty() ? "" : "; ") + level + ": " + f.what();
            } catch (const std::exception &e) {
                failures[c.name] += (failures[c.name].empty() ? "" : "; ") + level + ": " + e.what();
            }
        }
        api.anydnnDestroy(handle);
    }
    if (saved != nullptr)
        setenv("ANYDNN_MAX_ISA", saved_value.c_str(), 1);
    else
        unsetenv("ANYDNN_MAX_ISA");
    for (const Case &c : cases) {
        if (failures.count(c.name) != 0)
            report.problem(section, c.name, "WRONG RESULT: " + failures[c.name],
                           "report it with this output and `anydnn-doctor --json` attached; meanwhile set "
                           "ANYDNN_MAX_ISA to a level that passes");
        else if (!passed[c.name].empty())
            report.pass(section, c.name, "matches the reference on " + passed[c.name]);
        else
            report.info(section, c.name, unsupported[c.name]);
    }
}

}  // namespace doctor
