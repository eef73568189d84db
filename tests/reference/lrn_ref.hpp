// Reference LRN, divisive normalization and the dropout generator: plain
// loops in double over row-major values (as Tensor::values()), independent
// of the library's code (its window order, rings and box sums).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace anydnn_test::ref {

// The descriptor's values; the window of lrnN positions around i is
// [i - (n-1)/2, i + n - 1 - (n-1)/2].
struct Lrn {
    int n = 5;
    double alpha = 1e-4, beta = 0.75, k = 2;
};

// dims: N, C, spatial...; every vector has prod(dims) values, row-major.
// y = a * x * (k + alpha/n sum_window x^2)^-beta + b * y0 (b == 0: y0 unused).
std::vector<double> lrn_forward(const Lrn &p, const std::vector<int> &dims, const std::vector<double> &x, double a,
                                double b, const std::vector<double> &y0);
// dx = a * dLRN + b * dx0, with y as given (the forward's output).
std::vector<double> lrn_backward(const Lrn &p, const std::vector<int> &dims, const std::vector<double> &x,
                                 const std::vector<double> &y, const std::vector<double> &dy, double a, double b,
                                 const std::vector<double> &dx0);

// Divisive normalization over the 2 or 3 spatial dimensions; means empty: 0.
std::vector<double> divnorm_forward(const Lrn &p, const std::vector<int> &dims, const std::vector<double> &x,
                                    const std::vector<double> &means, double a, double b,
                                    const std::vector<double> &y0);
// The gradient with respect to u = x - means (dx = a * du + b * dx0; dMeans
// = -a * du + b * dm0 is the caller's).
std::vector<double> divnorm_backward_du(const Lrn &p, const std::vector<int> &dims, const std::vector<double> &x,
                                        const std::vector<double> &means, const std::vector<double> &dy);

// Philox4x32-10 of one counter and key (Random123's philox4x32_R(10, ...)).
std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> ctr, std::array<uint32_t, 2> key);
// Whether element e is kept by the forward call `call` of states seeded with `seed` at drop probability p.
bool dropout_keeps(uint64_t seed, uint64_t call, uint64_t e, double p);

}  // namespace anydnn_test::ref
