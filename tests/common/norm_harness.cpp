#include "common/norm_harness.hpp"

#include <cmath>
#include <memory>

namespace anydnn_test {

namespace {

const char *kind_name(ref::NormKind k) {
    static const char *names[] = {"per_activation", "spatial", "layer", "instance", "group", "rms"};
    return names[static_cast<int>(k)];
}

anydnnDataType_t param_type(anydnnDataType_t dt) {
    return dt == ANYDNN_DATA_DOUBLE ? ANYDNN_DATA_DOUBLE : ANYDNN_DATA_FLOAT;
}

// An activation descriptor (RELU) that lives as long as the test.
struct Relu {
    anydnnActivationDescriptor_t d = nullptr;
    Relu() {
        EXPECT_OK(anydnnCreateActivationDescriptor(&d));
        EXPECT_OK(anydnnSetActivationDescriptor(d, ANYDNN_ACTIVATION_RELU, ANYDNN_NOT_PROPAGATE_NAN, 0));
    }
    ~Relu() { anydnnDestroyActivationDescriptor(d); }
};

// Every tensor of one problem, and the calls that run it.
struct Problem {
    const NormCase &c;
    anydnnDataType_t dt, pdt;
    std::vector<int> sdims, pdims;
    Tensor x, y, z, dy, dx, dz;
    Tensor scale, bias, dscale, dbias;
    Tensor run_mean, run_var, save_mean, save_inv;
    Relu relu;
    std::vector<unsigned char> reserve;
    double eps = 1e-4, factor = 0.25;

    Problem(const NormCase &cs, LayoutFn small)
        : c(cs), dt(cs.dt), pdt(param_type(cs.dt)), sdims(ref::norm_stat_dims(cs.norm, cs.dims)),
          pdims(ref::norm_param_dims(cs.norm, cs.dims)), x(cs.layout(cs.dims), dt), y(cs.layout(cs.dims), dt),
          z(cs.layout(cs.dims), dt), dy(cs.layout(cs.dims), dt), dx(cs.layout(cs.dims), dt),
          dz(cs.layout(cs.dims), dt), scale(small(pdims), pdt), bias(small(pdims), pdt),
          dscale(small(pdims), pdt), dbias(small(pdims), pdt), run_mean(small(sdims), pdt),
          run_var(small(sdims), pdt), save_mean(small(sdims), pdt), save_inv(small(sdims), pdt) {}

    // BN passes one descriptor for scale, bias, means and variances.
    anydnnTensorDescriptor_t stat_desc() const { return c.api == NormApi::bn ? scale.desc() : run_mean.desc(); }
    bool ex() const { return c.norm.add || c.norm.relu; }
    anydnnBatchNormOps_t bn_ops() const {
        return c.norm.add ? ANYDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION
                          : c.norm.relu ? ANYDNN_BATCHNORM_OPS_BN_ACTIVATION : ANYDNN_BATCHNORM_OPS_BN;
    }
    anydnnNormOps_t norm_ops() const {
        return c.norm.add ? ANYDNN_NORM_OPS_NORM_ADD_ACTIVATION
                          : c.norm.relu ? ANYDNN_NORM_OPS_NORM_ACTIVATION : ANYDNN_NORM_OPS_NORM;
    }
    anydnnActivationDescriptor_t act() const { return ex() ? relu.d : nullptr; }

    anydnnStatus_t train(anydnnHandle_t h, double alpha, double beta, bool running, bool save) {
        const Scalar al(alpha), be(beta);
        void *rm = running ? run_mean.data() : nullptr, *rv = running ? run_var.data() : nullptr;
        void *sm = save ? save_mean.data() : nullptr, *si = save ? save_inv.data() : nullptr;
        size_t rbytes = 0;
        if (c.api == NormApi::bn) {
            const anydnnBatchNormMode_t mode = bn_mode(c);
            if (!ex())
                return anydnnBatchNormalizationForwardTraining(h, mode, al.ptr(dt), be.ptr(dt), x.desc(), x.data(),
                                                               y.desc(), y.data(), scale.desc(), scale.data(),
                                                               bias.data(), factor, rm, rv, eps, sm, si);
            size_t ws = 0;
            EXPECT_OK(anydnnGetBatchNormalizationForwardTrainingExWorkspaceSize(
                h, mode, bn_ops(), x.desc(), c.norm.add ? z.desc() : nullptr, y.desc(), scale.desc(), act(), &ws));
            EXPECT_OK(anydnnGetBatchNormalizationTrainingExReserveSpaceSize(h, mode, bn_ops(), act(), x.desc(),
                                                                           &rbytes));
            reserve.assign(rbytes + 1, 0);
            std::vector<unsigned char> work(ws + 1);
            return anydnnBatchNormalizationForwardTrainingEx(
                h, mode, bn_ops(), al.ptr(dt), be.ptr(dt), x.desc(), x.data(), c.norm.add ? z.desc() : nullptr,
                c.norm.add ? z.data() : nullptr, y.desc(), y.data(), scale.desc(), scale.data(), bias.data(),
                factor, rm, rv, eps, sm, si, act(), work.data(), ws, reserve.data(), rbytes);
        }
        const anydnnNormMode_t mode = norm_mode(c.norm);
        const int g = norm_group_cnt(c.norm);
        size_t ws = 0;
        EXPECT_OK(anydnnGetNormalizationForwardTrainingWorkspaceSize(
            h, mode, norm_ops(), ANYDNN_NORM_ALGO_STANDARD, x.desc(), c.norm.add ? z.desc() : nullptr, y.desc(),
            scale.desc(), act(), stat_desc(), &ws, g));
        EXPECT_OK(anydnnGetNormalizationTrainingReserveSpaceSize(h, mode, norm_ops(), ANYDNN_NORM_ALGO_STANDARD,
                                                                 act(), x.desc(), &rbytes, g));
        reserve.assign(rbytes + 1, 0);
        std::vector<unsigned char> work(ws + 1);
        return anydnnNormalizationForwardTraining(
            h, mode, norm_ops(), ANYDNN_NORM_ALGO_STANDARD, al.ptr(dt), be.ptr(dt), x.desc(), x.data(), scale.desc(),
            scale.data(), bias.data(), factor, stat_desc(), rm, rv, eps, sm, si, act(),
            c.norm.add ? z.desc() : nullptr, c.norm.add ? z.data() : nullptr, y.desc(), y.data(), work.data(), ws,
            reserve.data(), reserve.size() - 1, g);
    }

    anydnnStatus_t backward(anydnnHandle_t h, double alpha, double beta, double alpha_p, double beta_p,
                            bool saved) {
        const Scalar al(alpha), be(beta), ap(alpha_p), bp(beta_p);
        const void *sm = saved ? save_mean.data() : nullptr, *si = saved ? save_inv.data() : nullptr;
        const size_t rbytes = reserve.empty() ? 0 : reserve.size() - 1;
        if (c.api == NormApi::bn) {
            const anydnnBatchNormMode_t mode = bn_mode(c);
            if (!ex())
                return anydnnBatchNormalizationBackward(h, mode, al.ptr(dt), be.ptr(dt), ap.ptr(dt), bp.ptr(dt),
                                                        x.desc(), x.data(), dy.desc(), dy.data(), dx.desc(),
                                                        dx.data(), scale.desc(), scale.data(), dscale.data(),
                                                        dbias.data(), eps, sm, si);
            size_t ws = 0;
            EXPECT_OK(anydnnGetBatchNormalizationBackwardExWorkspaceSize(
                h, mode, bn_ops(), x.desc(), y.desc(), dy.desc(), c.norm.add ? dz.desc() : nullptr, dx.desc(),
                scale.desc(), act(), &ws));
            std::vector<unsigned char> work(ws + 1);
            return anydnnBatchNormalizationBackwardEx(
                h, mode, bn_ops(), al.ptr(dt), be.ptr(dt), ap.ptr(dt), bp.ptr(dt), x.desc(), x.data(), y.desc(),
                y.data(), dy.desc(), dy.data(), c.norm.add ? dz.desc() : nullptr, c.norm.add ? dz.data() : nullptr,
                dx.desc(), dx.data(), scale.desc(), scale.data(), bias.data(), dscale.data(), dbias.data(), eps, sm,
                si, act(), work.data(), ws, reserve.data(), rbytes);
        }
        const anydnnNormMode_t mode = norm_mode(c.norm);
        const int g = norm_group_cnt(c.norm);
        size_t ws = 0;
        EXPECT_OK(anydnnGetNormalizationBackwardWorkspaceSize(
            h, mode, norm_ops(), ANYDNN_NORM_ALGO_STANDARD, x.desc(), y.desc(), dy.desc(),
            c.norm.add ? dz.desc() : nullptr, dx.desc(), scale.desc(), act(), stat_desc(), &ws, g));
        std::vector<unsigned char> work(ws + 1);
        return anydnnNormalizationBackward(
            h, mode, norm_ops(), ANYDNN_NORM_ALGO_STANDARD, al.ptr(dt), be.ptr(dt), ap.ptr(dt), bp.ptr(dt),
            x.desc(), x.data(), y.desc(), y.data(), dy.desc(), dy.data(), c.norm.add ? dz.desc() : nullptr,
            c.norm.add ? dz.data() : nullptr, dx.desc(), dx.data(), scale.desc(), scale.data(), bias.data(),
            dscale.data(), dbias.data(), eps, stat_desc(), sm, si, act(), work.data(), ws, reserve.data(), rbytes,
            g);
    }

    anydnnStatus_t infer(anydnnHandle_t h, double alpha, double beta) {
        const Scalar al(alpha), be(beta);
        if (c.api == NormApi::bn)
            return anydnnBatchNormalizationForwardInference(h, bn_mode(c), al.ptr(dt), be.ptr(dt), x.desc(),
                                                            x.data(), y.desc(), y.data(), scale.desc(),
                                                            scale.data(), bias.data(), run_mean.data(),
                                                            run_var.data(), eps);
        return anydnnNormalizationForwardInference(
            h, norm_mode(c.norm), norm_ops(), ANYDNN_NORM_ALGO_STANDARD, al.ptr(dt), be.ptr(dt), x.desc(), x.data(),
            scale.desc(), scale.data(), bias.data(), stat_desc(), run_mean.data(), run_var.data(),
            c.norm.add ? z.desc() : nullptr, c.norm.add ? z.data() : nullptr, act(), y.desc(), y.data(), eps,
            norm_group_cnt(c.norm));
    }
};

struct Tol {
    double rel, abs;
};
Tol data_tol(anydnnDataType_t dt) {
    switch (dt) {
    case ANYDNN_DATA_FLOAT: return {2e-5, 2e-5};
    case ANYDNN_DATA_DOUBLE: return {1e-10, 1e-11};
    default: return {4 * storage_tol(dt), 8 * storage_tol(dt)};
    }
}
// Sums over m elements: the rounding of each term in the compute type adds up.
Tol sum_tol(anydnnDataType_t dt, long long m) {
    // xhat is computed in the compute type: x - mean loses digits when a
    // group's values are close (per-activation with a small N).
    const double unit = dt == ANYDNN_DATA_DOUBLE ? 1e-14 : 1e-6;
    return {dt == ANYDNN_DATA_DOUBLE ? 1e-10 : 1e-4, unit * static_cast<double>(m) + unit * 10};
}

std::vector<double> rounded(anydnnDataType_t dt, std::vector<double> v) {
    for (double &e : v) e = round_to(dt, e);
    return v;
}

}  // namespace

Shape padded_by_2(const std::vector<int> &dims) { return padded(dims, 2); }

std::string NormCase::describe() const {
    std::string s = std::string(api == NormApi::bn ? "bn " : "norm ") + kind_name(norm.kind);
    if (norm.kind == ref::NormKind::group) s += "/" + std::to_string(norm.groups);
    if (persistent) s += " persistent";
    if (norm.add) s += " +z";
    if (norm.relu) s += " relu";
    s += std::string(" ") + dtype_name(dt) + " " + layout(dims).to_string() + " alpha=" + std::to_string(alpha) +
         " beta=" + std::to_string(beta);
    if (saved_null) s += " saved=NULL";
    if (odd_images_shift != 0) s += " odd images + " + std::to_string(odd_images_shift);
    return s;
}

anydnnBatchNormMode_t bn_mode(const NormCase &c) {
    if (c.norm.kind == ref::NormKind::per_activation) return ANYDNN_BATCHNORM_PER_ACTIVATION;
    return c.persistent ? ANYDNN_BATCHNORM_SPATIAL_PERSISTENT : ANYDNN_BATCHNORM_SPATIAL;
}

anydnnNormMode_t norm_mode(const ref::Norm &n) {
    switch (n.kind) {
    case ref::NormKind::per_activation: return ANYDNN_NORM_PER_ACTIVATION;
    case ref::NormKind::spatial: return ANYDNN_NORM_PER_CHANNEL;
    case ref::NormKind::layer: return ANYDNN_NORM_LAYER;
    case ref::NormKind::instance: return ANYDNN_NORM_INSTANCE;
    case ref::NormKind::group: return ANYDNN_NORM_GROUP;
    default: return ANYDNN_NORM_RMS;
    }
}

int norm_group_cnt(const ref::Norm &n) { return n.kind == ref::NormKind::group ? n.groups : 1; }

// Adds `by` to every element of t's odd images (dimension 0).
void shift_odd_images(Tensor &t, const std::vector<int> &dims, double by) {
    const std::vector<double> v = t.values();
    std::vector<int> idx(dims.size(), 0);
    for (size_t i = 0; i < v.size(); ++i) {
        if (idx[0] % 2 == 1) t.set(idx, v[i] + by);
        for (int d = int(dims.size()) - 1; d >= 0 && ++idx[d] == dims[d]; --d) idx[d] = 0;
    }
}

void check_norm(anydnnHandle_t h, const NormCase &c) {
    SCOPED_TRACE(c.describe());
    // Small tensors strided too when the data is.
    const LayoutFn small = c.layout == packed_nhwc ? packed : c.layout;
    Problem p(c, small);
    const bool rms = c.norm.kind == ref::NormKind::rms;
    p.x.fill_random(-1, 3);  // a mean away from 0
    if (c.odd_images_shift != 0) shift_odd_images(p.x, c.dims, c.odd_images_shift);
    p.z.fill_random(-1, 1);
    p.scale.fill_random(0.5, 1.5);
    p.bias.fill_random(-1, 1);
    p.run_mean.fill_random(-1, 1);
    p.run_var.fill_random(0.5, 1.5);
    p.save_mean.poison();
    p.save_inv.poison();
    // The activation's mask comes from y, so the forward pass of an activation blends nothing.
    const double beta_fwd = c.norm.relu ? 0.0 : c.beta, alpha_fwd = c.norm.relu ? std::fabs(c.alpha) : c.alpha;
    if (beta_fwd != 0) p.y.fill_random();
    else p.y.poison();
    Tensor y0(c.layout(c.dims), c.dt);
    y0.copy_from(p.y);
    const std::vector<double> rm0 = p.run_mean.values(), rv0 = p.run_var.values();
    const std::vector<double> x = p.x.values(), scale = p.scale.values(), bias = p.bias.values();
    const std::vector<double> z = c.norm.add ? p.z.values() : std::vector<double>();

    // Training forward.
    ASSERT_OK(p.train(h, alpha_fwd, beta_fwd, true, true));
    const ref::NormStats st = ref::norm_stats(c.norm, c.dims, x, p.eps);
    const Tol dtol = data_tol(c.dt);
    const std::vector<double> y_ref =
        ref::norm_forward(c.norm, c.dims, x, z, scale, bias, st.mean, st.inv, alpha_fwd, beta_fwd, y0.values());
    expect_close(p.y.values(), rounded(c.dt, y_ref), dtol.rel, dtol.abs, "training y");
    EXPECT_TRUE(p.y.guards_intact());
    EXPECT_TRUE(p.y.gaps_equal(y0));
    // Statistics: double sums rounded once to the parameter type.
    const Tol stol = c.dt == ANYDNN_DATA_DOUBLE ? Tol{1e-11, 1e-12} : Tol{1e-6, 1e-6};
    expect_close(p.save_mean.values(), rounded(p.pdt, st.mean), stol.rel, stol.abs, "saved mean");
    expect_close(p.save_inv.values(), rounded(p.pdt, st.inv), stol.rel, stol.abs, "saved inverse std");
    std::vector<double> rm_ref(rm0.size()), rv_ref(rv0.size());
    const double unbias = st.m > 1 ? double(st.m) / double(st.m - 1) : 0.0;
    for (size_t i = 0; i < rm0.size(); ++i) {
        rm_ref[i] = (1 - p.factor) * rm0[i] + p.factor * st.mean[i];
        rv_ref[i] = (1 - p.factor) * rv0[i] + p.factor * st.var[i] * unbias;
    }
    expect_close(p.run_mean.values(), rounded(p.pdt, rm_ref), stol.rel, stol.abs, "running mean");
    expect_close(p.run_var.values(), rounded(p.pdt, rv_ref), stol.rel, stol.abs, "running variance");
    EXPECT_TRUE(p.run_mean.guards_intact() && p.run_var.guards_intact() && p.save_mean.guards_intact() &&
                p.save_inv.guards_intact());

    // Backward, from the saved statistics (or recomputing them).
    p.dy.fill_random();
    if (c.beta != 0) {
        p.dx.fill_random();
        p.dscale.fill_random();
        p.dbias.fill_random();
    } else {
        p.dx.poison();
        p.dscale.poison();
        p.dbias.poison();
    }
    p.dz.poison();
    Tensor dx0(c.layout(c.dims), c.dt);
    dx0.copy_from(p.dx);
    const std::vector<double> dscale0 = p.dscale.values(), dbias0 = p.dbias.values();
    const double alpha_p = 0.75, beta_p = c.beta != 0 ? 0.5 : 0.0;
    ASSERT_OK(p.backward(h, c.alpha, c.beta, alpha_p, beta_p, !c.saved_null));
    std::vector<double> dy = p.dy.values();
    if (c.norm.relu) {
        const std::vector<double> yv = p.y.values();
        for (size_t i = 0; i < dy.size(); ++i) dy[i] = yv[i] > 0 ? dy[i] : 0.0;
    }
    // The library reads the saved statistics as stored (rounded to the
    // parameter type), which matters for groups of close values.
    const std::vector<double> bmean = c.saved_null ? st.mean : p.save_mean.values(),
                              binv = c.saved_null ? st.inv : p.save_inv.values();
    const ref::NormGrads g = ref::norm_backward(c.norm, c.dims, x, dy, scale, bmean, binv, c.alpha, c.beta,
                                                dx0.values(), alpha_p, beta_p, dscale0, dbias0);
    const Tol gtol = {dtol.rel * 5, dtol.abs * 5};
    expect_close(p.dx.values(), rounded(c.dt, g.dx), gtol.rel, gtol.abs, "dx");
    EXPECT_TRUE(p.dx.guards_intact());
    EXPECT_TRUE(p.dx.gaps_equal(dx0));
    const long long per_param = static_cast<long long>(x.size() / scale.size());
    const Tol ptol = sum_tol(c.dt, per_param);
    expect_close(p.dscale.values(), rounded(p.pdt, g.dscale), ptol.rel, ptol.abs, "dscale");
    expect_close(p.dbias.values(), rounded(p.pdt, g.dbias), ptol.rel, ptol.abs, "dbias");
    EXPECT_TRUE(p.dscale.guards_intact() && p.dbias.guards_intact());
    if (c.norm.add) expect_close(p.dz.values(), rounded(c.dt, dy), 0, 0, "dz");

    // Inference with the running averages.
    p.y.copy_from(y0);
    ASSERT_OK(p.infer(h, alpha_fwd, beta_fwd));
    std::vector<double> em = p.run_mean.values(), inv = p.run_var.values();
    if (rms) em.assign(em.size(), 0.0);
    for (double &v : inv) v = 1.0 / std::sqrt(v + p.eps);
    // The batch normalization API has no fused inference.
    ref::Norm inorm = c.norm;
    if (c.api == NormApi::bn) inorm.add = inorm.relu = false;
    const std::vector<double> yi_ref =
        ref::norm_forward(inorm, c.dims, x, z, scale, bias, em, inv, alpha_fwd, beta_fwd, y0.values());
    expect_close(p.y.values(), rounded(c.dt, yi_ref), dtol.rel, dtol.abs, "inference y");
    EXPECT_TRUE(p.y.guards_intact());
}

void check_norm_gradient(anydnnHandle_t h, const ref::Norm &n, const std::vector<int> &dims, NormApi api) {
    NormCase c;
    c.norm = n;
    c.norm.relu = c.norm.add = false;
    c.dims = dims;
    c.dt = ANYDNN_DATA_DOUBLE;
    c.api = api;
    SCOPED_TRACE("gradient " + c.describe());
    Problem p(c, packed);
    p.x.fill_random(-1, 2);
    p.scale.fill_random(0.5, 1.5);
    p.bias.fill_random(-1, 1);
    p.dy.fill_random();  // w of L = sum(w * y)
    ASSERT_OK(p.train(h, 1, 0, false, true));
    ASSERT_OK(p.backward(h, 1, 0, 1, 0, true));
    const std::vector<double> w = p.dy.values();
    auto loss = [&]() {
        EXPECT_OK(p.train(h, 1, 0, false, false));
        const std::vector<double> y = p.y.values();
        double l = 0;
        for (size_t i = 0; i < y.size(); ++i) l += w[i] * y[i];
        return l;
    };
    const double step = 1e-5;
    // Central differences of L in each element of t, against the analytic gradient.
    auto check = [&](Tensor &t, const Tensor &grad, const char *what) {
        std::vector<double> num;
        const std::vector<double> analytic = grad.values();
        std::vector<int> tdims = t.shape().dims;
        for_each_index(tdims, [&](const std::vector<int> &idx) {
            const double v = t.at(idx);
            t.set(idx, v + step);
            const double lp = loss();
            t.set(idx, v - step);
            const double lm = loss();
            t.set(idx, v);
            num.push_back((lp - lm) / (2 * step));
        });
        expect_close(analytic, num, 1e-6, 1e-7, what);
    };
    check(p.x, p.dx, "dx");
    check(p.scale, p.dscale, "dscale");
    check(p.bias, p.dbias, "dbias");
}

}  // namespace anydnn_test
