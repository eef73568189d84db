// Reference (batch-reduce) GEMM: plain loops in double over row-major
// matrices with leading dimensions, as cblas_?gemm(RowMajor) defines them.
#pragma once

#include <cstdint>
#include <vector>

namespace anydnn_test::ref {

enum class Bias { none, per_row, per_col };

struct GemmRefProblem {
    bool trans_a = false, trans_b = false;
    int64_t m = 0, n = 0, k = 0;
    int64_t lda = 0, ldb = 0, ldc = 0;
    double alpha = 1, beta = 0;
    Bias bias = Bias::none;
};

// The expected C (dense m x n, row-major) and, per element, the sum of the
// magnitudes of its terms |alpha * a * b| + |beta * c| + |bias|, which scales
// the rounding error a correct floating-point evaluation may make.
struct GemmRefResult {
    std::vector<double> c, magnitude;
};

// C = alpha * sum_i op(A_i) op(B_i) + beta * C0 + bias over the pairs
// (a[i], b[i]); beta == 0 ignores C0 (which may hold NaN).
template <class T>
GemmRefResult gemm(const GemmRefProblem &p, const std::vector<const T *> &a, const std::vector<const T *> &b,
                   const T *c0, const T *bias);

}  // namespace anydnn_test::ref
