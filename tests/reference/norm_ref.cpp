#include "reference/norm_ref.hpp"

#include <cmath>

namespace anydnn_test::ref {

namespace {

// x's dimensions as n, c, s (spatial flattened, row-major).
struct Ncs {
    long long n, c, s;
};
Ncs ncs(const std::vector<int> &dims) {
    long long s = 1;
    for (size_t i = 2; i < dims.size(); ++i) s *= dims[i];
    return {dims[0], dims[1], s};
}

// The statistics and parameter group of element (n, c, s), row-major in
// the small tensors' shapes.
long long stat_index(const Norm &k, const Ncs &d, long long n, long long c, long long s) {
    switch (k.kind) {
    case NormKind::per_activation: return c * d.s + s;
    case NormKind::spatial: return c;
    case NormKind::layer:
    case NormKind::rms: return n;
    case NormKind::instance: return n * d.c + c;
    default: return n * k.groups + c / (d.c / k.groups);
    }
}
long long param_index(const Norm &k, const Ncs &d, long long c, long long s) {
    switch (k.kind) {
    case NormKind::per_activation:
    case NormKind::layer:
    case NormKind::rms: return c * d.s + s;
    default: return c;
    }
}

template <class Fn>
void for_each(const Ncs &d, Fn &&fn) {
    long long i = 0;
    for (long long n = 0; n < d.n; ++n)
        for (long long c = 0; c < d.c; ++c)
            for (long long s = 0; s < d.s; ++s, ++i) fn(i, n, c, s);
}

long long count(const std::vector<int> &dims) {
    long long e = 1;
    for (int v : dims) e *= v;
    return e;
}

}  // namespace

std::vector<int> norm_stat_dims(const Norm &k, const std::vector<int> &dims) {
    std::vector<int> r(dims.size(), 1);
    const bool per_sample = k.kind == NormKind::layer || k.kind == NormKind::rms || k.kind == NormKind::instance ||
                            k.kind == NormKind::group;
    if (per_sample) r[0] = dims[0];
    if (k.kind == NormKind::per_activation || k.kind == NormKind::spatial || k.kind == NormKind::instance)
        r[1] = dims[1];
    if (k.kind == NormKind::group) r[1] = k.groups;
    if (k.kind == NormKind::per_activation)
        for (size_t i = 2; i < dims.size(); ++i) r[i] = dims[i];
    return r;
}

std::vector<int> norm_param_dims(const Norm &k, const std::vector<int> &dims) {
    std::vector<int> r(dims.size(), 1);
    r[1] = dims[1];
    if (k.kind == NormKind::per_activation || k.kind == NormKind::layer || k.kind == NormKind::rms)
        for (size_t i = 2; i < dims.size(); ++i) r[i] = dims[i];
    return r;
}

NormStats norm_stats(const Norm &k, const std::vector<int> &dims, const std::vector<double> &x, double eps) {
    const Ncs d = ncs(dims);
    const long long groups = count(norm_stat_dims(k, dims));
    NormStats st;
    st.m = count(dims) / groups;
    st.mean.assign(groups, 0.0);
    st.var.assign(groups, 0.0);
    if (k.kind != NormKind::rms) {
        for_each(d, [&](long long i, long long n, long long c, long long s) {
            st.mean[stat_index(k, d, n, c, s)] += x[i];
        });
        for (double &v : st.mean) v /= static_cast<double>(st.m);
    }
    // Two passes: the deviations from the mean, squared.
    for_each(d, [&](long long i, long long n, long long c, long long s) {
        const long long g = stat_index(k, d, n, c, s);
        st.var[g] += (x[i] - st.mean[g]) * (x[i] - st.mean[g]);
    });
    st.inv.resize(groups);
    for (long long g = 0; g < groups; ++g) {
        st.var[g] /= static_cast<double>(st.m);
        st.inv[g] = 1.0 / std::sqrt(st.var[g] + eps);
    }
    return st;
}

std::vector<double> norm_forward(const Norm &k, const std::vector<int> &dims, const std::vector<double> &x,
                                 const std::vector<double> &z, const std::vector<double> &scale,
                                 const std::vector<double> &bias, const std::vector<double> &mean,
                                 const std::vector<double> &inv, double alpha, double beta,
                                 const std::vector<double> &y0, std::vector<double> *pre) {
    const Ncs d = ncs(dims);
    std::vector<double> y(x.size());
    if (pre != nullptr) pre->assign(x.size(), 0.0);
    for_each(d, [&](long long i, long long n, long long c, long long s) {
        const long long g = stat_index(k, d, n, c, s), p = param_index(k, d, c, s);
        double v = scale[p] * (x[i] - mean[g]) * inv[g] + bias[p];
        if (k.add) v += z[i];
        if (pre != nullptr) (*pre)[i] = v;
        if (k.relu && !(v > 0)) v = 0;
        y[i] = alpha * v + (beta != 0 ? beta * y0[i] : 0.0);
    });
    return y;
}

NormGrads norm_backward(const Norm &k, const std::vector<int> &dims, const std::vector<double> &x,
                        const std::vector<double> &dy, const std::vector<double> &scale,
                        const std::vector<double> &mean, const std::vector<double> &inv, double alpha, double beta,
                        const std::vector<double> &dx0, double alpha_p, double beta_p,
                        const std::vector<double> &dscale0, const std::vector<double> &dbias0) {
    const Ncs d = ncs(dims);
    const long long groups = static_cast<long long>(mean.size());
    const double m = static_cast<double>(count(dims) / groups);
    const bool rms = k.kind == NormKind::rms;
    // g = dL/dxhat; the mean of g and of g * xhat over each statistics group.
    std::vector<double> mg(groups, 0.0), mgx(groups, 0.0);
    NormGrads r;
    r.dscale.assign(scale.size(), 0.0);
    r.dbias.assign(scale.size(), 0.0);
    for_each(d, [&](long long i, long long n, long long c, long long s) {
        const long long g = stat_index(k, d, n, c, s), p = param_index(k, d, c, s);
        const double xh = (x[i] - mean[g]) * inv[g], gi = dy[i] * scale[p];
        mg[g] += gi / m;
        mgx[g] += gi * xh / m;
        r.dscale[p] += dy[i] * xh;
        r.dbias[p] += dy[i];
    });
    r.dx.resize(x.size());
    for_each(d, [&](long long i, long long n, long long c, long long s) {
        const long long g = stat_index(k, d, n, c, s), p = param_index(k, d, c, s);
        const double xh = (x[i] - mean[g]) * inv[g], gi = dy[i] * scale[p];
        const double v = inv[g] * (gi - (rms ? 0.0 : mg[g]) - xh * mgx[g]);
        r.dx[i] = alpha * v + (beta != 0 ? beta * dx0[i] : 0.0);
    });
    for (size_t p = 0; p < scale.size(); ++p) {
        r.dscale[p] = alpha_p * r.dscale[p] + (beta_p != 0 ? beta_p * dscale0[p] : 0.0);
        r.dbias[p] = alpha_p * r.dbias[p] + (beta_p != 0 ? beta_p * dbias0[p] : 0.0);
    }
    return r;
}

}  // namespace anydnn_test::ref
