#include "reference/lrn_ref.hpp"

#include <cmath>

namespace anydnn_test::ref {

namespace {

int64_t product(const std::vector<int> &dims, size_t from) {
    int64_t p = 1;
    for (size_t i = from; i < dims.size(); ++i) p *= dims[i];
    return p;
}

// s = k + alpha/n * sum over the channel window of x^2, per element.
std::vector<double> channel_sums(const Lrn &p, const std::vector<int> &dims, const std::vector<double> &x) {
    const int64_t N = dims[0], C = dims[1], P = product(dims, 2);
    const int before = (p.n - 1) / 2, after = p.n - 1 - before;
    std::vector<double> s(x.size());
    for (int64_t n = 0; n < N; ++n)
        for (int64_t c = 0; c < C; ++c)
            for (int64_t q = 0; q < P; ++q) {
                double sum = 0;
                for (int64_t j = c - before; j <= c + after; ++j)
                    if (j >= 0 && j < C) {
                        const double v = x[(n * C + j) * P + q];
                        sum += v * v;
                    }
                s[(n * C + c) * P + q] = p.k + p.alpha / p.n * sum;
            }
    return s;
}

// Spatial geometry of divisive normalization: d, h, w (d = 1 for 4-D).
struct Spatial {
    int64_t d, h, w, count;
    explicit Spatial(const std::vector<int> &dims)
        : d(dims.size() == 5 ? dims[2] : 1), h(dims[dims.size() - 2]), w(dims.back()),
          count(static_cast<int64_t>(dims.size()) - 2) {}
};

// u = x - means.
std::vector<double> centred(const std::vector<double> &x, const std::vector<double> &means) {
    std::vector<double> u = x;
    if (!means.empty())
        for (size_t i = 0; i < u.size(); ++i) u[i] -= means[i];
    return u;
}

// out[p] = sum of in[q] over q in p's window (lo before, hi after, every spatial dimension).
std::vector<double> window_sums(const std::vector<int> &dims, const std::vector<double> &in, int lo, int hi) {
    const Spatial sp(dims);
    const int64_t planes = int64_t{dims[0]} * dims[1], P = sp.d * sp.h * sp.w;
    std::vector<double> out(in.size());
    for (int64_t pl = 0; pl < planes; ++pl)
        for (int64_t d = 0; d < sp.d; ++d)
            for (int64_t h = 0; h < sp.h; ++h)
                for (int64_t w = 0; w < sp.w; ++w) {
                    double sum = 0;
                    const int64_t dlo = sp.count == 3 ? d - lo : 0, dhi = sp.count == 3 ? d + hi : 0;
                    for (int64_t i = dlo; i <= dhi; ++i)
                        for (int64_t j = h - lo; j <= h + hi; ++j)
                            for (int64_t k = w - lo; k <= w + hi; ++k)
                                if (i >= 0 && i < sp.d && j >= 0 && j < sp.h && k >= 0 && k < sp.w)
                                    sum += in[pl * P + (i * sp.h + j) * sp.w + k];
                    out[pl * P + (d * sp.h + h) * sp.w + w] = sum;
                }
    return out;
}

}  // namespace

std::vector<double> lrn_forward(const Lrn &p, const std::vector<int> &dims, const std::vector<double> &x, double a,
                                double b, const std::vector<double> &y0) {
    const std::vector<double> s = channel_sums(p, dims, x);
    std::vector<double> y(x.size());
    for (size_t i = 0; i < x.size(); ++i) y[i] = a * x[i] * std::pow(s[i], -p.beta) + (b != 0 ? b * y0[i] : 0);
    return y;
}

std::vector<double> lrn_backward(const Lrn &p, const std::vector<int> &dims, const std::vector<double> &x,
                                 const std::vector<double> &y, const std::vector<double> &dy, double a, double b,
                                 const std::vector<double> &dx0) {
    const int64_t N = dims[0], C = dims[1], P = product(dims, 2);
    const int before = (p.n - 1) / 2, after = p.n - 1 - before;
    const std::vector<double> s = channel_sums(p, dims, x);
    std::vector<double> dx(x.size());
    for (int64_t n = 0; n < N; ++n)
        for (int64_t c = 0; c < C; ++c)
            for (int64_t q = 0; q < P; ++q) {
                const int64_t i = (n * C + c) * P + q;
                // c is in the window of c' when c' - before <= c <= c' + after.
                double t = 0;
                for (int64_t cp = c - after; cp <= c + before; ++cp)
                    if (cp >= 0 && cp < C) {
                        const int64_t j = (n * C + cp) * P + q;
                        t += dy[j] * y[j] / s[j];
                    }
                const double g = dy[i] * std::pow(s[i], -p.beta) - 2 * p.beta * p.alpha / p.n * x[i] * t;
                dx[i] = a * g + (b != 0 ? b * dx0[i] : 0);
            }
    return dx;
}

namespace {

// u = x - means and S = k + alpha / n^spatial * (window sums of u^2).
struct DivNormTerms {
    std::vector<double> u, S;
    double an;
};

DivNormTerms divnorm_terms(const Lrn &p, const std::vector<int> &dims, const std::vector<double> &x,
                           const std::vector<double> &means) {
    const int before = (p.n - 1) / 2, after = p.n - 1 - before;
    DivNormTerms t;
    t.u = centred(x, means);
    std::vector<double> sq(t.u.size());
    for (size_t i = 0; i < t.u.size(); ++i) sq[i] = t.u[i] * t.u[i];
    t.S = window_sums(dims, sq, before, after);
    t.an = p.alpha / std::pow(p.n, static_cast<double>(Spatial(dims).count));
    for (double &v : t.S) v = p.k + t.an * v;
    return t;
}

}  // namespace

std::vector<double> divnorm_forward(const Lrn &p, const std::vector<int> &dims, const std::vector<double> &x,
                                    const std::vector<double> &means, double a, double b,
                                    const std::vector<double> &y0) {
    const DivNormTerms t = divnorm_terms(p, dims, x, means);
    std::vector<double> y(x.size());
    for (size_t i = 0; i < x.size(); ++i) y[i] = a * t.u[i] * std::pow(t.S[i], -p.beta) + (b != 0 ? b * y0[i] : 0);
    return y;
}

std::vector<double> divnorm_backward_du(const Lrn &p, const std::vector<int> &dims, const std::vector<double> &x,
                                        const std::vector<double> &means, const std::vector<double> &dy) {
    const int before = (p.n - 1) / 2, after = p.n - 1 - before;
    const DivNormTerms t = divnorm_terms(p, dims, x, means);
    std::vector<double> r(t.u.size());
    for (size_t i = 0; i < r.size(); ++i) r[i] = dy[i] * t.u[i] * std::pow(t.S[i], -p.beta - 1);
    // q is in p's window when p - before <= q <= p + after: sum r over [q - after, q + before].
    const std::vector<double> sums = window_sums(dims, r, after, before);
    std::vector<double> du(r.size());
    for (size_t i = 0; i < r.size(); ++i)
        du[i] = dy[i] * std::pow(t.S[i], -p.beta) - 2 * p.beta * t.an * t.u[i] * sums[i];
    return du;
}

std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> c, std::array<uint32_t, 2> k) {
    for (int r = 0; r < 10; ++r) {
        const uint64_t p0 = uint64_t{0xD2511F53u} * c[0], p1 = uint64_t{0xCD9E8D57u} * c[2];
        c = {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k[0], static_cast<uint32_t>(p1),
             static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k[1], static_cast<uint32_t>(p0)};
        k[0] += 0x9E3779B9u;
        k[1] += 0xBB67AE85u;
    }
    return c;
}

bool dropout_keeps(uint64_t seed, uint64_t call, uint64_t e, double p) {
    const uint64_t b = e / 4;
    const auto w = philox4x32_10({static_cast<uint32_t>(b), static_cast<uint32_t>(b >> 32),
                                  static_cast<uint32_t>(call), static_cast<uint32_t>(call >> 32)},
                                 {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)});
    return w[e % 4] >= static_cast<uint64_t>(std::floor(p * 4294967296.0));
}

}  // namespace anydnn_test::ref
