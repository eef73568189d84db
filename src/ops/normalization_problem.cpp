#include "ops/normalization_problem.hpp"

#include <cmath>

#include "ops/tensor_ops_problem.hpp"

namespace anydnn::ops {

namespace {

const char *kind_name(NormKind k) {
    switch (k) {
    case NormKind::per_activation: return "per_activation";
    case NormKind::spatial: return "spatial";
    case NormKind::layer: return "layer";
    case NormKind::instance: return "instance";
    case NormKind::group: return "group";
    default: return "rms";
    }
}

// Which logical dimensions (n, g, cg, spatial) a kind's statistics and
// parameters keep; spatial dimensions all share the flag of index 3.
void kept_dims(NormKind k, bool param, bool *keep) {
    // n, g, cg, spatial
    static const bool stat_table[6][4] = {
        {false, true, true, true},    // per_activation
        {false, true, true, false},   // spatial
        {true, false, false, false},  // layer
        {true, true, true, false},    // instance
        {true, true, false, false},   // group
        {true, false, false, false},  // rms
    };
    static const bool param_table[6][4] = {
        {false, true, true, true},  {false, true, true, false}, {false, true, true, true},
        {false, true, true, false}, {false, true, true, false}, {false, true, true, true},
    };
    const bool *row = (param ? param_table : stat_table)[static_cast<int>(k)];
    for (int i = 0; i < kNormMaxLogical; ++i) keep[i] = row[i < 3 ? i : 3];
}

Status check_x(const TensorLayout &x) {
    ANYDNN_TRY(check_floating(x, "xDesc"));
    if (x.nd != 4 && x.nd != 5)
        return fail(ANYDNN_STATUS_NOT_SUPPORTED, "xDesc has %d dimensions: normalization takes 4 or 5", x.nd);
    return kSuccess;
}

Status check_groups(const NormSpec &spec, const TensorLayout &x) {
    if (x.dims[1] % spec.groups != 0)
        return fail(ANYDNN_STATUS_BAD_PARAM, "groupCnt %d does not divide xDesc's %lld channels", spec.groups,
                    static_cast<long long>(x.dims[1]));
    return kSuccess;
}

Status activation_arg(const anydnnActivationStruct *act, bool needed, bool *relu) {
    *relu = false;
    if (!needed) return kSuccess;  // cuDNN ignores activationDesc without an activation
    Activation a;
    ANYDNN_TRY(activation_desc_arg(act, &a));
    if (a.mode != ANYDNN_ACTIVATION_RELU)
        return fail(ANYDNN_STATUS_NOT_SUPPORTED, "activationDesc mode %d: the fused activation is RELU only",
                    a.mode);
    *relu = true;
    return kSuccess;
}

}  // namespace

std::string NormSpec::to_string() const {
    std::string s = kind_name(kind);
    if (kind == NormKind::group) s += " groups=" + std::to_string(groups);
    if (add) s += " +z";
    if (relu) s += " relu";
    return s;
}

std::string NormProblem::to_string() const {
    return "norm " + spec.to_string() + " x=" + x.to_string() + " param=" + param.to_string() +
           " stat=" + stat.to_string() + " alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta) +
           " eps=" + std::to_string(epsilon);
}

void norm_logical_strides(const NormProblem &p, const TensorLayout &t, int64_t *s) {
    s[0] = t.strides[0];
    s[1] = t.strides[1] * p.ldims[2];
    s[2] = t.strides[1];
    for (int i = 2; i < t.nd; ++i) s[i + 1] = t.strides[i];
}

void norm_small_strides(const NormProblem &p, const TensorLayout &t, bool param, int64_t *s) {
    const bool *keep = param ? p.param_dim : p.stat_dim;
    int64_t full[kNormMaxLogical];
    norm_logical_strides(p, t, full);
    // GROUP's statistics tensor is N x groupCnt: its channel dimension is g.
    if (!param && p.spec.kind == NormKind::group) full[1] = t.strides[1];
    for (int i = 0; i < p.nl; ++i) s[i] = keep[i] ? full[i] : 0;
}

Status bn_spec(anydnnBatchNormMode_t mode, anydnnBatchNormOps_t ops, const anydnnActivationStruct *act,
               NormSpec *out) {
    NormSpec s;
    switch (mode) {
    case ANYDNN_BATCHNORM_PER_ACTIVATION: s.kind = NormKind::per_activation; break;
    case ANYDNN_BATCHNORM_SPATIAL:
    case ANYDNN_BATCHNORM_SPATIAL_PERSISTENT: s.kind = NormKind::spatial; break;
    default: return fail(ANYDNN_STATUS_BAD_PARAM, "mode %d is not an anydnnBatchNormMode_t", mode);
    }
    if (ops != ANYDNN_BATCHNORM_OPS_BN && ops != ANYDNN_BATCHNORM_OPS_BN_ACTIVATION &&
        ops != ANYDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION)
        return fail(ANYDNN_STATUS_BAD_PARAM, "bnOps %d is not an anydnnBatchNormOps_t", ops);
    s.add = ops == ANYDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION;
    ANYDNN_TRY(activation_arg(act, ops != ANYDNN_BATCHNORM_OPS_BN, &s.relu));
    *out = s;
    return kSuccess;
}

Status norm_spec(anydnnNormMode_t mode, anydnnNormOps_t ops, anydnnNormAlgo_t algo, int group_cnt,
                 const anydnnActivationStruct *act, NormSpec *out) {
    NormSpec s;
    switch (mode) {
    case ANYDNN_NORM_PER_ACTIVATION: s.kind = NormKind::per_activation; break;
    case ANYDNN_NORM_PER_CHANNEL: s.kind = NormKind::spatial; break;
    case ANYDNN_NORM_LAYER: s.kind = NormKind::layer; break;
    case ANYDNN_NORM_INSTANCE: s.kind = NormKind::instance; break;
    case ANYDNN_NORM_GROUP: s.kind = NormKind::group; break;
    case ANYDNN_NORM_RMS: s.kind = NormKind::rms; break;
    default: return fail(ANYDNN_STATUS_BAD_PARAM, "mode %d is not an anydnnNormMode_t", mode);
    }
    if (algo != ANYDNN_NORM_ALGO_STANDARD && algo != ANYDNN_NORM_ALGO_PERSIST)
        return fail(ANYDNN_STATUS_BAD_PARAM, "algo %d is not an anydnnNormAlgo_t", algo);
    if (ops != ANYDNN_NORM_OPS_NORM && ops != ANYDNN_NORM_OPS_NORM_ACTIVATION &&
        ops != ANYDNN_NORM_OPS_NORM_ADD_ACTIVATION)
        return fail(ANYDNN_STATUS_BAD_PARAM, "normOps %d is not an anydnnNormOps_t", ops);
    if (s.kind == NormKind::group) {
        if (group_cnt < 1) return fail(ANYDNN_STATUS_BAD_PARAM, "groupCnt is %d (< 1)", group_cnt);
        s.groups = group_cnt;
    } else if (group_cnt != 1) {
        return fail(ANYDNN_STATUS_BAD_PARAM, "groupCnt is %d: only ANYDNN_NORM_GROUP takes other than 1",
                    group_cnt);
    }
    s.add = ops == ANYDNN_NORM_OPS_NORM_ADD_ACTIVATION;
    ANYDNN_TRY(activation_arg(act, ops != ANYDNN_NORM_OPS_NORM, &s.relu));
    *out = s;
    return kSuccess;
}

anydnnDataType_t norm_param_type(anydnnDataType_t dt) {
    return dt == ANYDNN_DATA_DOUBLE ? ANYDNN_DATA_DOUBLE : ANYDNN_DATA_FLOAT;
}

Status norm_small_dims(const NormSpec &spec, const TensorLayout &x, bool param, int64_t *dims) {
    ANYDNN_TRY(check_x(x));
    ANYDNN_TRY(check_groups(spec, x));
    bool keep[kNormMaxLogical];
    kept_dims(spec.kind, param, keep);
    dims[0] = keep[0] ? x.dims[0] : 1;
    if (!param && spec.kind == NormKind::group) dims[1] = spec.groups;
    else dims[1] = keep[2] ? x.dims[1] : 1;
    for (int i = 2; i < x.nd; ++i) dims[i] = keep[3] ? x.dims[i] : 1;
    return kSuccess;
}

Status make_norm_problem(const NormSpec &spec, const TensorLayout &x, const TensorLayout *param,
                         const TensorLayout *stat, NormProblem *out) {
    NormProblem p;
    p.spec = spec;
    ANYDNN_TRY(check_x(x));
    ANYDNN_TRY(check_groups(spec, x));
    p.dt = x.dt;
    p.pdt = norm_param_type(x.dt);
    p.x = x;
    p.nl = x.nd + 1;
    p.ldims[0] = x.dims[0];
    p.ldims[1] = spec.groups;
    p.ldims[2] = x.dims[1] / spec.groups;
    for (int i = 2; i < x.nd; ++i) p.ldims[i + 1] = x.dims[i];
    kept_dims(spec.kind, false, p.stat_dim);
    kept_dims(spec.kind, true, p.param_dim);
    for (int i = 0; i < p.nl; ++i) {
        if (p.stat_dim[i]) p.nstats *= p.ldims[i];
        else p.m *= p.ldims[i];
        if (p.param_dim[i]) p.nparams *= p.ldims[i];
    }
    const TensorLayout *small[2] = {param, stat};
    const char *names[2] = {"the scale/bias descriptor", "the mean/variance descriptor"};
    for (int k = 0; k < 2; ++k) {
        if (small[k] == nullptr) continue;
        const TensorLayout &t = *small[k];
        int64_t dims[kMaxDims];
        ANYDNN_TRY(norm_small_dims(spec, x, k == 0, dims));
        if (t.nd != x.nd)
            return fail(ANYDNN_STATUS_BAD_PARAM, "%s has %d dimensions, xDesc %d", names[k], t.nd, x.nd);
        for (int i = 0; i < x.nd; ++i)
            if (t.dims[i] != dims[i])
                return fail(ANYDNN_STATUS_BAD_PARAM, "%s dimension %d is %lld, expected %lld for mode %s", names[k],
                            i, static_cast<long long>(t.dims[i]), static_cast<long long>(dims[i]),
                            spec.to_string().c_str());
        if (t.dt != p.pdt)
            return fail(ANYDNN_STATUS_BAD_PARAM, "%s has type %d, expected %s for this data type", names[k], t.dt,
                        p.pdt == ANYDNN_DATA_DOUBLE ? "DOUBLE" : "FLOAT");
        (k == 0 ? p.param : p.stat) = t;
    }
    *out = p;
    return kSuccess;
}

Status check_like_x(const NormProblem &p, const TensorLayout &t, const char *arg) {
    ANYDNN_TRY(check_same_dims(t, arg, p.x, "xDesc"));
    return check_same_type(t, arg, p.x, "xDesc");
}

Status check_epsilon(double epsilon) {
    if (!(epsilon >= ANYDNN_BN_MIN_EPSILON))
        return fail(ANYDNN_STATUS_BAD_PARAM, "epsilon is %g, below ANYDNN_BN_MIN_EPSILON (%g)", epsilon,
                    ANYDNN_BN_MIN_EPSILON);
    return kSuccess;
}

size_t norm_reserve_bytes(const NormSpec &spec, const TensorLayout &x) {
    return spec.relu ? static_cast<size_t>(x.elements()) : 0;
}

}  // namespace anydnn::ops
