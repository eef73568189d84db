#include "reference/conv_ref.hpp"

namespace anydnn_test::ref {

std::vector<int> conv_output_dims(const Conv &c, const std::vector<int> &x, const std::vector<int> &w) {
    std::vector<int> y = {x[0], w[0]};
    for (size_t j = 2; j < x.size(); ++j) {
        const int extent = (w[j] - 1) * c.dil[j - 2] + 1;
        y.push_back(1 + (x[j] + 2 * c.pad[j - 2] - extent) / c.stride[j - 2]);
    }
    return y;
}

std::vector<double> conv_forward_sums(const Conv &c, const Tensor &x, const Tensor &w, const std::vector<int> &y_dims,
                                      const std::vector<int64_t> &which) {
    const std::vector<int> &xd = x.shape().dims, &wd = w.shape().dims;
    const std::vector<double> xv = x.values(), wv = w.values();
    const int spatial = static_cast<int>(xd.size()) - 2;
    const int icg = wd[1], ocg = wd[0] / c.groups;
    int64_t taps = 1, in_pixels = 1;
    for (int j = 0; j < spatial; ++j) {
        taps *= wd[2 + j];
        in_pixels *= xd[2 + j];
    }
    std::vector<double> out;
    out.reserve(which.size());
    std::vector<int> yi(y_dims.size()), tap(spatial);
    for (int64_t lin : which) {
        for (int j = static_cast<int>(y_dims.size()) - 1; j >= 0; --j) {
            yi[j] = static_cast<int>(lin % y_dims[j]);
            lin /= y_dims[j];
        }
        const int n = yi[0], k = yi[1], grp = k / ocg;
        double sum = 0;
        for (int64_t t = 0; t < taps; ++t) {
            // Tap t of the filter (row-major over its spatial dims) and the input pixel it meets.
            int64_t rest = t, in_off = 0;
            bool inside = true;
            for (int j = spatial - 1; j >= 0; --j) {
                tap[j] = static_cast<int>(rest % wd[2 + j]);
                rest /= wd[2 + j];
            }
            int64_t scale = 1;
            for (int j = spatial - 1; j >= 0; --j) {
                const int kk = c.flip ? wd[2 + j] - 1 - tap[j] : tap[j];
                const int i = yi[2 + j] * c.stride[j] + kk * c.dil[j] - c.pad[j];
                if (i < 0 || i >= xd[2 + j]) inside = false;
                in_off += i * scale;
                scale *= xd[2 + j];
            }
            if (!inside) continue;
            for (int ci = 0; ci < icg; ++ci) {
                const double xval = xv[(static_cast<int64_t>(n) * xd[1] + grp * icg + ci) * in_pixels + in_off];
                sum += xval * wv[(static_cast<int64_t>(k) * icg + ci) * taps + t];
            }
        }
        out.push_back(sum);
    }
    return out;
}

}  // namespace anydnn_test::ref
