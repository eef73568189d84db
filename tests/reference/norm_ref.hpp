// Reference normalizations (batch, layer, instance, group, RMS): plain loops
// in double over x's elements in row-major index order (as
// Tensor::values()), independent of the library's code. Small tensors
// (scale, bias, means, variances) are in row-major order of their own
// shapes (the shapes anydnnDeriveNormTensorDescriptor documents).
#pragma once

#include <vector>

namespace anydnn_test::ref {

enum class NormKind { per_activation, spatial, layer, instance, group, rms };

struct Norm {
    NormKind kind = NormKind::spatial;
    int groups = 1;  // GROUP only
    bool add = false, relu = false;
};

// The shapes of the statistics (mean/var) and parameter (scale/bias) tensors for x.
std::vector<int> norm_stat_dims(const Norm &n, const std::vector<int> &dims);
std::vector<int> norm_param_dims(const Norm &n, const std::vector<int> &dims);

struct NormStats {
    std::vector<double> mean, var, inv;  // var biased (1/m); RMS: mean 0, var = mean(x^2)
    long long m = 0;                     // elements per statistics group
};
NormStats norm_stats(const Norm &n, const std::vector<int> &dims, const std::vector<double> &x, double eps);

// y = alpha * act(scale * xhat + bias [+ z]) + beta * y0 (beta == 0: y0 unused),
// with the given statistics. pre: the value before the activation, if wanted.
std::vector<double> norm_forward(const Norm &n, const std::vector<int> &dims, const std::vector<double> &x,
                                 const std::vector<double> &z, const std::vector<double> &scale,
                                 const std::vector<double> &bias, const std::vector<double> &mean,
                                 const std::vector<double> &inv, double alpha, double beta,
                                 const std::vector<double> &y0, std::vector<double> *pre = nullptr);

struct NormGrads {
    std::vector<double> dx, dscale, dbias;
};
// The gradients of norm_forward (training statistics) for the gradient dy
// of its output before blending (dy already masked by the activation):
// dx blended with alpha/beta into dx0, dscale/dbias with alpha_p/beta_p.
NormGrads norm_backward(const Norm &n, const std::vector<int> &dims, const std::vector<double> &x,
                        const std::vector<double> &dy, const std::vector<double> &scale,
                        const std::vector<double> &mean, const std::vector<double> &inv, double alpha, double beta,
                        const std::vector<double> &dx0, double alpha_p, double beta_p,
                        const std::vector<double> &dscale0, const std::vector<double> &dbias0);

}  // namespace anydnn_test::ref
