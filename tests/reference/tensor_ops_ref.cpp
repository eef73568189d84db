#include "reference/tensor_ops_ref.hpp"

#include <cmath>

namespace anydnn_test::ref {

double broadcast_at(const Tensor &in, const std::vector<int> &idx) {
    std::vector<int> j(idx);
    for (size_t i = 0; i < j.size(); ++i)
        if (in.shape().dims[i] == 1) j[i] = 0;
    return in.at(j);
}

std::vector<double> transform(double alpha, const Tensor &x, double beta, const Tensor &y) {
    std::vector<double> out;
    for_each_index(y.shape().dims, [&](const std::vector<int> &idx) {
        double v = alpha * broadcast_at(x, idx);
        if (beta != 0) v += beta * y.at(idx);
        out.push_back(round_to(y.dtype(), v));
    });
    return out;
}

std::vector<double> op_tensor(anydnnOpTensorOp_t op, bool propagate_nan, double alpha1, const Tensor &a,
                              double alpha2, const Tensor *b, double beta, const Tensor &c) {
    std::vector<double> out;
    for_each_index(c.shape().dims, [&](const std::vector<int> &idx) {
        const double av = alpha1 * a.at(idx);
        const double bv = b != nullptr ? alpha2 * broadcast_at(*b, idx) : 0.0;
        double r = 0;
        switch (op) {
        case ANYDNN_OP_TENSOR_ADD: r = av + bv; break;
        case ANYDNN_OP_TENSOR_MUL: r = av * bv; break;
        case ANYDNN_OP_TENSOR_MIN:
            r = (std::isnan(av) || std::isnan(bv)) ? (propagate_nan ? NAN : std::fmin(av, bv)) : std::fmin(av, bv);
            break;
        case ANYDNN_OP_TENSOR_MAX:
            r = (std::isnan(av) || std::isnan(bv)) ? (propagate_nan ? NAN : std::fmax(av, bv)) : std::fmax(av, bv);
            break;
        case ANYDNN_OP_TENSOR_SQRT: r = std::sqrt(av); break;
        case ANYDNN_OP_TENSOR_NOT: r = 1.0 - av; break;
        }
        if (beta != 0) r += beta * c.at(idx);
        out.push_back(round_to(c.dtype(), r));
    });
    return out;
}

}  // namespace anydnn_test::ref
