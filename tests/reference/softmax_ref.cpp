#include "reference/softmax_ref.hpp"

#include <cmath>
#include <limits>

namespace anydnn_test::ref {

namespace {

// The softmax an element belongs to: the row-major number of its indices in
// the dimensions the mode does not normalize over.
size_t group_of(anydnnSoftmaxMode_t mode, const std::vector<int> &dims, const std::vector<int> &idx) {
    size_t g = 0;
    for (size_t i = 0; i < dims.size(); ++i) {
        const bool reduced = mode == ANYDNN_SOFTMAX_MODE_INSTANCE ? i >= 1 : i == 1;
        if (!reduced) g = g * dims[i] + idx[i];
    }
    return g;
}

// An upper bound of the number of softmaxes: the number of elements.
size_t group_bound(const std::vector<int> &dims) {
    size_t n = 1;
    for (int d : dims) n *= d;
    return n;
}

}  // namespace

std::vector<double> softmax_forward(anydnnSoftmaxAlgorithm_t algo, anydnnSoftmaxMode_t mode, double alpha,
                                    const Tensor &x, double beta, const Tensor &y) {
    const std::vector<int> &dims = x.shape().dims;
    std::vector<double> max(group_bound(dims), -std::numeric_limits<double>::infinity()), sum(max.size(), 0.0);
    for_each_index(dims, [&](const std::vector<int> &idx) {
        double &m = max[group_of(mode, dims, idx)];
        m = std::fmax(m, x.at(idx));
    });
    for_each_index(dims, [&](const std::vector<int> &idx) {
        const size_t g = group_of(mode, dims, idx);
        sum[g] += std::exp(x.at(idx) - max[g]);
    });
    std::vector<double> out;
    for_each_index(dims, [&](const std::vector<int> &idx) {
        const size_t g = group_of(mode, dims, idx);
        const double d = x.at(idx) - max[g];
        double v = alpha * (algo == ANYDNN_SOFTMAX_LOG ? d - std::log(sum[g]) : std::exp(d) / sum[g]);
        if (beta != 0) v += beta * y.at(idx);
        out.push_back(round_to(y.dtype(), v));
    });
    return out;
}

std::vector<double> softmax_backward(anydnnSoftmaxAlgorithm_t algo, anydnnSoftmaxMode_t mode, double alpha,
                                     const Tensor &y, const Tensor &dy, double beta, const Tensor &dx) {
    const std::vector<int> &dims = y.shape().dims;
    const bool log = algo == ANYDNN_SOFTMAX_LOG;
    std::vector<double> dot(group_bound(dims), 0.0);
    for_each_index(dims, [&](const std::vector<int> &idx) {
        dot[group_of(mode, dims, idx)] += log ? dy.at(idx) : dy.at(idx) * y.at(idx);
    });
    std::vector<double> out;
    for_each_index(dims, [&](const std::vector<int> &idx) {
        const double d = dot[group_of(mode, dims, idx)], g = dy.at(idx), v = y.at(idx);
        double r = alpha * (log ? g - std::exp(v) * d : v * (g - d));
        if (beta != 0) r += beta * dx.at(idx);
        out.push_back(round_to(dx.dtype(), r));
    });
    return out;
}

}  // namespace anydnn_test::ref
