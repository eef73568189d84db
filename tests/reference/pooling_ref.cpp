#include "reference/pooling_ref.hpp"

#include <cmath>

namespace anydnn_test::ref {

namespace {

// The pooling with its spatial dimensions padded to three (d, h, w): a
// missing dimension has size 1 and a window of 1.
struct Geo {
    int n, c, in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, win[3] = {1, 1, 1}, pad[3] = {}, stride[3] = {1, 1, 1};
    int in_size() const { return in[0] * in[1] * in[2]; }
    int out_size() const { return out[0] * out[1] * out[2]; }
};

Geo geometry(const Pool &p, const std::vector<int> &in_dims) {
    const std::vector<int> out_dims = pool_output_dims(p, in_dims);
    Geo g;
    g.n = in_dims[0];
    g.c = in_dims[1];
    const int s = static_cast<int>(in_dims.size()) - 2;
    for (int j = 0; j < s; ++j) {
        const int k = 3 - s + j;
        g.in[k] = in_dims[2 + j];
        g.out[k] = out_dims[2 + j];
        g.win[k] = p.window[j];
        g.pad[k] = p.pad[j];
        g.stride[k] = p.stride[j];
    }
    return g;
}

// The row-major input indices (within one n, c plane) of output pixel o's
// window, in scan order, and the window's full size.
std::vector<int> window_of(const Geo &g, int o) {
    const int ow = o % g.out[2], oh = o / g.out[2] % g.out[1], od = o / (g.out[2] * g.out[1]);
    std::vector<int> idx;
    for (int kd = 0; kd < g.win[0]; ++kd)
        for (int kh = 0; kh < g.win[1]; ++kh)
            for (int kw = 0; kw < g.win[2]; ++kw) {
                const int d = od * g.stride[0] - g.pad[0] + kd, h = oh * g.stride[1] - g.pad[1] + kh,
                          w = ow * g.stride[2] - g.pad[2] + kw;
                if (d < 0 || d >= g.in[0] || h < 0 || h >= g.in[1] || w < 0 || w >= g.in[2]) continue;
                idx.push_back((d * g.in[1] + h) * g.in[2] + w);
            }
    return idx;
}

bool is_max(anydnnPoolingMode_t m) { return m == ANYDNN_POOLING_MAX || m == ANYDNN_POOLING_MAX_DETERMINISTIC; }

// The position in `win` of the max of plane[win[i]] under the NaN rule.
size_t argmax(const Pool &p, const double *plane, const std::vector<int> &win) {
    size_t best = win.size();
    for (size_t i = 0; i < win.size(); ++i) {
        const double v = plane[win[i]];
        if (std::isnan(v)) {
            if (p.propagate_nan) return i;  // the first NaN is the max
            continue;
        }
        if (best == win.size() || v > plane[win[best]]) best = i;
    }
    return best == win.size() ? 0 : best;  // all NaN: the first
}

double count_of(const Pool &p, const Geo &g, const std::vector<int> &win) {
    return p.mode == ANYDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING ? double(win.size())
                                                                  : double(g.win[0] * g.win[1] * g.win[2]);
}

}  // namespace

std::vector<int> pool_output_dims(const Pool &p, const std::vector<int> &in_dims) {
    std::vector<int> out = {in_dims[0], in_dims[1]};
    for (size_t j = 0; j + 2 < in_dims.size(); ++j)
        out.push_back(1 + (in_dims[2 + j] + 2 * p.pad[j] - p.window[j]) / p.stride[j]);
    return out;
}

std::vector<double> pooling_forward(const Pool &p, double alpha, const Tensor &x, double beta, const Tensor &y) {
    const Geo g = geometry(p, x.shape().dims);
    const std::vector<double> xv = x.values(), y0 = beta != 0 ? y.values() : std::vector<double>();
    std::vector<double> out(size_t(g.n) * g.c * g.out_size());
    std::vector<std::vector<int>> windows;
    for (int o = 0; o < g.out_size(); ++o) windows.push_back(window_of(g, o));
    for (int nc = 0; nc < g.n * g.c; ++nc) {
        const double *plane = xv.data() + size_t(nc) * g.in_size();
        for (int o = 0; o < g.out_size(); ++o) {
            const std::vector<int> &win = windows[o];
            double r;
            if (is_max(p.mode)) {
                r = plane[win[argmax(p, plane, win)]];
            } else {
                double s = 0;
                for (int i : win) s += plane[i];
                r = s / count_of(p, g, win);
            }
            const size_t at = size_t(nc) * g.out_size() + o;
            r *= alpha;
            if (beta != 0) r += beta * y0[at];
            out[at] = round_to(y.dtype(), r);
        }
    }
    return out;
}

std::vector<double> pooling_backward(const Pool &p, double alpha, const Tensor &x, const Tensor &dy, double beta,
                                     const Tensor &dx) {
    const Geo g = geometry(p, x.shape().dims);
    const std::vector<double> xv = x.values(), dyv = dy.values();
    const std::vector<double> dx0 = beta != 0 ? dx.values() : std::vector<double>();
    std::vector<double> sum(size_t(g.n) * g.c * g.in_size(), 0.0);
    for (int nc = 0; nc < g.n * g.c; ++nc) {
        const double *plane = xv.data() + size_t(nc) * g.in_size();
        double *grad = sum.data() + size_t(nc) * g.in_size();
        for (int o = 0; o < g.out_size(); ++o) {
            const std::vector<int> win = window_of(g, o);
            const double d = dyv[size_t(nc) * g.out_size() + o];
            if (is_max(p.mode)) {
                grad[win[argmax(p, plane, win)]] += d;
            } else {
                for (int i : win) grad[i] += d / count_of(p, g, win);
            }
        }
    }
    std::vector<double> out(sum.size());
    for (size_t i = 0; i < sum.size(); ++i) {
        double r = alpha * sum[i];
        if (beta != 0) r += beta * dx0[i];
        out[i] = round_to(dx.dtype(), r);
    }
    return out;
}

}  // namespace anydnn_test::ref
