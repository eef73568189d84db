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

namespace {

std::vector<int> unravel(int64_t lin, const std::vector<int> &dims) {
    std::vector<int> idx(dims.size());
    for (int j = static_cast<int>(dims.size()) - 1; j >= 0; --j) {
        idx[j] = static_cast<int>(lin % dims[j]);
        lin /= dims[j];
    }
    return idx;
}

// Calls fn(tap_linear, in_off, out_off) for every filter tap t (row-major
// over the filter's spatial dims) and output pixel o (row-major) such that
// o meets input pixel i through t; in_off/out_off are row-major spatial
// offsets (in_off is 0 when `in` is given). Restricted to the input pixel
// `in` or the tap `tap` when not NULL.
template <class Fn>
void for_each_meeting(const Conv &c, const std::vector<int> &xd, const std::vector<int> &wd,
                      const std::vector<int> &yd, const int *in, const int *tap, Fn &&fn) {
    const int spatial = static_cast<int>(xd.size()) - 2;
    int64_t taps = 1, outs = 1;
    for (int j = 0; j < spatial; ++j) {
        taps *= wd[2 + j];
        outs *= yd[2 + j];
    }
    std::vector<int> t(spatial), o(spatial);
    for (int64_t tl = 0; tl < taps; ++tl) {
        int64_t rest = tl;
        for (int j = spatial - 1; j >= 0; --j) {
            t[j] = static_cast<int>(rest % wd[2 + j]);
            rest /= wd[2 + j];
        }
        if (tap != nullptr && std::vector<int>(tap, tap + spatial) != t) continue;
        if (in != nullptr) {
            // The one output pixel (if any) that meets input pixel `in` through t.
            bool ok = true;
            int64_t out_off = 0;
            for (int j = 0; j < spatial && ok; ++j) {
                const int kk = c.flip ? wd[2 + j] - 1 - t[j] : t[j];
                const int num = in[j] + c.pad[j] - kk * c.dil[j];
                ok = num >= 0 && num % c.stride[j] == 0 && num / c.stride[j] < yd[2 + j];
                out_off = out_off * yd[2 + j] + (ok ? num / c.stride[j] : 0);
            }
            if (ok) fn(tl, int64_t{0}, out_off);
            continue;
        }
        for (int64_t ol = 0; ol < outs; ++ol) {
            rest = ol;
            for (int j = spatial - 1; j >= 0; --j) {
                o[j] = static_cast<int>(rest % yd[2 + j]);
                rest /= yd[2 + j];
            }
            bool ok = true;
            int64_t in_off = 0;
            for (int j = 0; j < spatial && ok; ++j) {
                const int kk = c.flip ? wd[2 + j] - 1 - t[j] : t[j];
                const int i = o[j] * c.stride[j] + kk * c.dil[j] - c.pad[j];
                ok = i >= 0 && i < xd[2 + j];
                in_off = in_off * xd[2 + j] + i;
            }
            if (ok) fn(tl, in_off, ol);
        }
    }
}

}  // namespace

std::vector<double> conv_backward_data_sums(const Conv &c, const Tensor &dy, const Tensor &w,
                                            const std::vector<int> &x_dims, const std::vector<int64_t> &which) {
    const std::vector<int> &yd = dy.shape().dims, &wd = w.shape().dims;
    const std::vector<double> dyv = dy.values(), wv = w.values();
    const int spatial = static_cast<int>(x_dims.size()) - 2;
    const int icg = wd[1], ocg = wd[0] / c.groups;
    int64_t taps = 1, outs = 1;
    for (int j = 0; j < spatial; ++j) {
        taps *= wd[2 + j];
        outs *= yd[2 + j];
    }
    std::vector<double> out;
    for (int64_t lin : which) {
        const std::vector<int> xi = unravel(lin, x_dims);
        const int n = xi[0], ch = xi[1], grp = ch / icg, ci = ch % icg;
        double sum = 0;
        for_each_meeting(c, x_dims, wd, yd, xi.data() + 2, nullptr, [&](int64_t t, int64_t, int64_t o) {
            for (int k = grp * ocg; k < (grp + 1) * ocg; ++k)
                sum += dyv[(static_cast<int64_t>(n) * yd[1] + k) * outs + o] *
                       wv[(static_cast<int64_t>(k) * icg + ci) * taps + t];
        });
        out.push_back(sum);
    }
    return out;
}

std::vector<double> conv_backward_filter_sums(const Conv &c, const Tensor &x, const Tensor &dy,
                                              const std::vector<int> &w_dims, const std::vector<int64_t> &which) {
    const std::vector<int> &xd = x.shape().dims, &yd = dy.shape().dims;
    const std::vector<double> xv = x.values(), dyv = dy.values();
    const int spatial = static_cast<int>(xd.size()) - 2;
    const int icg = w_dims[1], ocg = w_dims[0] / c.groups;
    int64_t ins = 1, outs = 1;
    for (int j = 0; j < spatial; ++j) {
        ins *= xd[2 + j];
        outs *= yd[2 + j];
    }
    std::vector<double> out;
    for (int64_t lin : which) {
        const std::vector<int> wi = unravel(lin, w_dims);
        const int k = wi[0], ci = wi[1], grp = k / ocg;
        double sum = 0;
        for_each_meeting(c, xd, w_dims, yd, nullptr, wi.data() + 2, [&](int64_t, int64_t in_off, int64_t o) {
            for (int n = 0; n < xd[0]; ++n)
                sum += dyv[(static_cast<int64_t>(n) * yd[1] + k) * outs + o] *
                       xv[(static_cast<int64_t>(n) * xd[1] + grp * icg + ci) * ins + in_off];
        });
        out.push_back(sum);
    }
    return out;
}

}  // namespace anydnn_test::ref
