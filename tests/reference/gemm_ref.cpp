#include "reference/gemm_ref.hpp"

#include <cmath>
#include <cstddef>

namespace anydnn_test::ref {

template <class T>
GemmRefResult gemm(const GemmRefProblem &p, const std::vector<const T *> &a, const std::vector<const T *> &b,
                   const T *c0, const T *bias) {
    GemmRefResult r;
    r.c.assign(static_cast<size_t>(p.m * p.n), 0.0);
    r.magnitude.assign(r.c.size(), 0.0);
    for (int64_t i = 0; i < p.m; ++i)
        for (int64_t j = 0; j < p.n; ++j) {
            double sum = 0, mag = 0;
            for (size_t pair = 0; pair < a.size(); ++pair)
                for (int64_t q = 0; q < p.k; ++q) {
                    const double x = p.trans_a ? a[pair][q * p.lda + i] : a[pair][i * p.lda + q];
                    const double y = p.trans_b ? b[pair][j * p.ldb + q] : b[pair][q * p.ldb + j];
                    sum += x * y;
                    mag += std::fabs(x * y);
                }
            double v = p.alpha * sum;
            mag *= std::fabs(p.alpha);
            if (p.beta != 0) {
                const double c = c0[i * p.ldc + j];
                v += p.beta * c;
                mag += std::fabs(p.beta * c);
            }
            if (p.bias != Bias::none) {
                const double bv = bias[p.bias == Bias::per_row ? i : j];
                v += bv;
                mag += std::fabs(bv);
            }
            r.c[static_cast<size_t>(i * p.n + j)] = v;
            r.magnitude[static_cast<size_t>(i * p.n + j)] = mag;
        }
    return r;
}

template GemmRefResult gemm<float>(const GemmRefProblem &, const std::vector<const float *> &,
                                   const std::vector<const float *> &, const float *, const float *);
template GemmRefResult gemm<double>(const GemmRefProblem &, const std::vector<const double *> &,
                                    const std::vector<const double *> &, const double *, const double *);

}  // namespace anydnn_test::ref
