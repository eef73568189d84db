#include "cpu/strided_loop.hpp"

#include <algorithm>

namespace anydnn::cpu {

StridedLoop make_strided_loop(int nd, const int64_t *dims, int nops, const int64_t *const *strides) {
    StridedLoop L;
    L.nops = nops;
    // Keep the dimensions that iterate, ordered outermost first by the output's
    // stride (ties broken by the first input's, then by position).
    int order[kMaxDims];
    int n = 0;
    for (int i = 0; i < nd; ++i)
        if (dims[i] > 1) order[n++] = i;
    std::stable_sort(order, order + n, [&](int a, int b) {
        for (int k = 0; k < nops; ++k)
            if (strides[k][a] != strides[k][b]) return strides[k][a] > strides[k][b];
        return false;
    });
    int m = 0;
    for (int j = 0; j < n; ++j) {
        const int i = order[j];
        if (m > 0) {
            // Merge into the previous (outer) loop when it steps exactly one
            // inner run in every operand.
            bool contiguous = true;
            for (int k = 0; k < nops && contiguous; ++k)
                contiguous = L.strides[k][m - 1] == strides[k][i] * dims[i];
            if (contiguous) {
                L.dims[m - 1] *= dims[i];
                for (int k = 0; k < nops; ++k) L.strides[k][m - 1] = strides[k][i];
                continue;
            }
        }
        L.dims[m] = dims[i];
        for (int k = 0; k < nops; ++k) L.strides[k][m] = strides[k][i];
        ++m;
    }
    if (m == 0) {  // a single element
        L.nd = 1;
        L.dims[0] = 1;
        for (int k = 0; k < nops; ++k) L.strides[k][0] = 1;
        return L;
    }
    L.nd = m;
    return L;
}

void broadcast_strides(const TensorLayout &in, const TensorLayout &out, int64_t *strides) {
    for (int i = 0; i < out.nd; ++i) strides[i] = (in.dims[i] == out.dims[i] && out.dims[i] > 1) ? in.strides[i] : 0;
}

}  // namespace anydnn::cpu
