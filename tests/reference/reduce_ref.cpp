#include "reference/reduce_ref.hpp"

#include <cmath>

namespace anydnn_test::ref {

namespace {

bool selects(anydnnReduceTensorOp_t op) {
    return op == ANYDNN_REDUCE_TENSOR_MIN || op == ANYDNN_REDUCE_TENSOR_MAX || op == ANYDNN_REDUCE_TENSOR_AMAX;
}

// True when x (met after best) replaces best.
bool replaces(anydnnReduceTensorOp_t op, bool propagate_nan, double x, double best) {
    if (std::isnan(best)) return propagate_nan ? false : !std::isnan(x);
    if (std::isnan(x)) return propagate_nan;
    return op == ANYDNN_REDUCE_TENSOR_MIN ? x < best : x > best;
}

}  // namespace

std::vector<double> reduce(anydnnReduceTensorOp_t op, bool propagate_nan, double alpha, const Tensor &a,
                           double beta, const Tensor &c, std::vector<uint32_t> *indices) {
    const std::vector<int> &ad = a.shape().dims, &cd = c.shape().dims;
    const int nd = static_cast<int>(ad.size());
    // The reduced dimensions, outermost first, and the size of their set.
    std::vector<int> red;
    int64_t n = 1;
    for (int i = 0; i < nd; ++i)
        if (cd[i] == 1 && ad[i] != 1) {
            red.push_back(i);
            n *= ad[i];
        }
    std::vector<double> out;
    if (indices != nullptr) indices->clear();
    for_each_index(cd, [&](const std::vector<int> &cidx) {
        std::vector<int> aidx(cidx);
        double acc = (op == ANYDNN_REDUCE_TENSOR_MUL || op == ANYDNN_REDUCE_TENSOR_MUL_NO_ZEROS) ? 1.0 : 0.0;
        double best = 0;
        int64_t best_at = -1;
        for (int64_t f = 0; f < n; ++f) {
            int64_t rest = f;
            for (int k = static_cast<int>(red.size()) - 1; k >= 0; --k) {
                aidx[red[k]] = static_cast<int>(rest % ad[red[k]]);
                rest /= ad[red[k]];
            }
            const double x = a.at(aidx);
            switch (op) {
            case ANYDNN_REDUCE_TENSOR_ADD:
            case ANYDNN_REDUCE_TENSOR_AVG: acc += x; break;
            case ANYDNN_REDUCE_TENSOR_NORM1: acc += std::fabs(x); break;
            case ANYDNN_REDUCE_TENSOR_NORM2: acc += x * x; break;
            case ANYDNN_REDUCE_TENSOR_MUL: acc *= x; break;
            case ANYDNN_REDUCE_TENSOR_MUL_NO_ZEROS: acc *= x == 0 ? 1.0 : x; break;
            default: {
                const double key = op == ANYDNN_REDUCE_TENSOR_AMAX ? std::fabs(x) : x;
                if (best_at < 0 || replaces(op, propagate_nan, key, best)) {
                    best = key;
                    best_at = f;
                }
            }
            }
        }
        double r = acc;
        if (op == ANYDNN_REDUCE_TENSOR_AVG) r = acc / static_cast<double>(n);
        else if (op == ANYDNN_REDUCE_TENSOR_NORM2) r = std::sqrt(acc);
        else if (selects(op)) r = best;
        r *= alpha;
        if (beta != 0) r += beta * c.at(cidx);
        out.push_back(round_to(c.dtype(), r));
        if (indices != nullptr && selects(op)) indices->push_back(static_cast<uint32_t>(best_at));
    });
    return out;
}

}  // namespace anydnn_test::ref
