#include "ops/pooling_problem.hpp"

#include "ops/tensor_ops_problem.hpp"

namespace anydnn::ops {

namespace {

const char *kind_name(PoolKind k) {
    switch (k) {
    case PoolKind::max: return "max";
    case PoolKind::avg_include_padding: return "avg_include_padding";
    default: return "avg_exclude_padding";
    }
}

PoolKind kind_of(anydnnPoolingMode_t mode) {
    switch (mode) {
    case ANYDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING: return PoolKind::avg_include_padding;
    case ANYDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING: return PoolKind::avg_exclude_padding;
    default: return PoolKind::max;  // MAX and MAX_DETERMINISTIC
    }
}

// Strides of t (spatial + 2 dimensions) in the normalized n, c, d, h, w order.
PoolStrides normalized_strides(const TensorLayout &t, int spatial) {
    PoolStrides s;
    s.s[0] = t.strides[0];
    s.s[1] = t.strides[1];
    for (int j = 0; j < spatial; ++j) s.s[2 + 3 - spatial + j] = t.strides[2 + j];
    return s;
}

// BAD_PARAM unless t has exactly the dimensions `dims` (nd values).
Status check_dims(const TensorLayout &t, const char *arg, const int64_t *dims, int nd, const char *what) {
    if (t.nd != nd) return fail(ANYDNN_STATUS_BAD_PARAM, "%s has %d dimensions, expected %d", arg, t.nd, nd);
    for (int i = 0; i < nd; ++i)
        if (t.dims[i] != dims[i])
            return fail(ANYDNN_STATUS_BAD_PARAM, "%s dimension %d is %lld, %s gives %lld", arg, i,
                        static_cast<long long>(t.dims[i]), what, static_cast<long long>(dims[i]));
    return kSuccess;
}

// The geometry of pooling x (validated against d) into out_dims.
Status make_geometry(const anydnnPoolingStruct &d, const TensorLayout &x, const int64_t *out_dims,
                     PoolGeometry *g) {
    ANYDNN_TRY(check_floating(x, "xDesc"));
    if (d.spatial > 3)
        return fail(ANYDNN_STATUS_NOT_SUPPORTED, "%d spatial dimensions: the CPU backend takes 1 to 3", d.spatial);
    *g = PoolGeometry{};
    g->dt = x.dt;
    g->kind = kind_of(d.mode);
    g->propagate_nan = d.nan_opt == ANYDNN_PROPAGATE_NAN;
    g->spatial = d.spatial;
    g->n = x.dims[0];
    g->c = x.dims[1];
    for (int j = 0; j < d.spatial; ++j) {
        const int k = 3 - d.spatial + j;
        g->in[k] = x.dims[2 + j];
        g->out[k] = out_dims[2 + j];
        g->window[k] = d.window[j];
        g->pad[k] = d.pad[j];
        g->stride[k] = d.stride[j];
    }
    return kSuccess;
}

}  // namespace

std::string PoolGeometry::to_string() const {
    std::string s = std::string(kind_name(kind)) + (propagate_nan ? " nan=propagate" : " nan=drop") +
                    " n=" + std::to_string(n) + " c=" + std::to_string(c);
    const char *names[] = {"d", "h", "w"};
    for (int k = 3 - spatial; k < 3; ++k)
        s += std::string(" ") + names[k] + "=" + std::to_string(in[k]) + "->" + std::to_string(out[k]) +
             "(k" + std::to_string(window[k]) + "s" + std::to_string(stride[k]) + "p" + std::to_string(pad[k]) +
             ")";
    return s;
}

std::string PoolingForwardProblem::to_string() const {
    return "pooling_fwd " + geo.to_string() + " x=" + x.to_string() + " y=" + y.to_string() +
           " alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta);
}

std::string PoolingBackwardProblem::to_string() const {
    return "pooling_bwd " + geo.to_string() + " dy=" + dy.to_string() + " x=" + x.to_string() +
           " dx=" + dx.to_string() + " alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta);
}

Status pooling_desc_arg(const anydnnPoolingStruct *desc, const anydnnPoolingStruct **out) {
    if (desc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "poolingDesc is NULL");
    if (!desc->is_set)
        return fail(ANYDNN_STATUS_BAD_PARAM,
                    "poolingDesc was never set (anydnnSetPooling2dDescriptor or ...NdDescriptor)");
    *out = desc;
    return kSuccess;
}

Status set_pooling(anydnnPoolingStruct *desc, anydnnPoolingMode_t mode, anydnnNanPropagation_t nan_opt, int nd,
                   const int *window, const int *pad, const int *stride) {
    if (desc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "poolingDesc is NULL");
    if (mode != ANYDNN_POOLING_MAX && mode != ANYDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING &&
        mode != ANYDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING && mode != ANYDNN_POOLING_MAX_DETERMINISTIC)
        return fail(ANYDNN_STATUS_BAD_PARAM, "mode %d is not an anydnnPoolingMode_t", mode);
    if (nan_opt != ANYDNN_NOT_PROPAGATE_NAN && nan_opt != ANYDNN_PROPAGATE_NAN)
        return fail(ANYDNN_STATUS_BAD_PARAM, "maxpoolingNanOpt %d is not an anydnnNanPropagation_t", nan_opt);
    if (nd < 1 || nd > anydnnPoolingStruct::kMaxSpatial)
        return fail(ANYDNN_STATUS_BAD_PARAM, "nbDims %d: 1 to %d spatial dimensions", nd,
                    anydnnPoolingStruct::kMaxSpatial);
    if (window == nullptr || pad == nullptr || stride == nullptr)
        return fail(ANYDNN_STATUS_BAD_PARAM, "windowDimA, paddingA and strideA may not be NULL");
    for (int i = 0; i < nd; ++i) {
        if (window[i] < 1) return fail(ANYDNN_STATUS_BAD_PARAM, "window %d is %d (< 1)", i, window[i]);
        if (stride[i] < 1) return fail(ANYDNN_STATUS_BAD_PARAM, "stride %d is %d (< 1)", i, stride[i]);
        if (pad[i] < 0) return fail(ANYDNN_STATUS_BAD_PARAM, "padding %d is %d (< 0)", i, pad[i]);
        // A padding of a whole window would make windows of padding only.
        if (pad[i] >= window[i])
            return fail(ANYDNN_STATUS_BAD_PARAM, "padding %d is %d, not smaller than its window (%d)", i, pad[i],
                        window[i]);
    }
    desc->is_set = true;
    desc->mode = mode;
    desc->nan_opt = nan_opt;
    desc->spatial = nd;
    for (int i = 0; i < nd; ++i) {
        desc->window[i] = window[i];
        desc->pad[i] = pad[i];
        desc->stride[i] = stride[i];
    }
    return kSuccess;
}

Status pooling_forward_output_dims(const anydnnPoolingStruct &d, const TensorLayout &x, int64_t *dims) {
    if (x.nd != d.spatial + 2)
        return fail(ANYDNN_STATUS_BAD_PARAM, "xDesc has %d dimensions but poolingDesc has %d spatial ones", x.nd,
                    d.spatial);
    dims[0] = x.dims[0];
    dims[1] = x.dims[1];
    for (int j = 0; j < d.spatial; ++j) {
        const int64_t padded = x.dims[2 + j] + 2 * int64_t{d.pad[j]};
        if (d.window[j] > padded)
            return fail(ANYDNN_STATUS_BAD_PARAM,
                        "spatial dimension %d: the window (%d) is larger than the padded input (%lld)", j,
                        d.window[j], static_cast<long long>(padded));
        dims[2 + j] = 1 + (padded - d.window[j]) / d.stride[j];
    }
    return kSuccess;
}

Status make_pooling_forward_problem(const anydnnPoolingStruct &d, const TensorLayout &x, const TensorLayout &y,
                                    PoolingForwardProblem *p) {
    int64_t out[kMaxDims];
    ANYDNN_TRY(pooling_forward_output_dims(d, x, out));
    ANYDNN_TRY(check_dims(y, "yDesc", out, x.nd, "the pooling"));
    ANYDNN_TRY(check_same_type(x, "xDesc", y, "yDesc"));
    *p = PoolingForwardProblem{};
    ANYDNN_TRY(make_geometry(d, x, out, &p->geo));
    p->x = x;
    p->y = y;
    p->xs = normalized_strides(x, d.spatial);
    p->ys = normalized_strides(y, d.spatial);
    return kSuccess;
}

Status make_pooling_backward_problem(const anydnnPoolingStruct &d, const TensorLayout &y, const TensorLayout &dy,
                                     const TensorLayout &x, const TensorLayout &dx, PoolingBackwardProblem *p) {
    int64_t out[kMaxDims];
    ANYDNN_TRY(pooling_forward_output_dims(d, x, out));
    ANYDNN_TRY(check_dims(y, "yDesc", out, x.nd, "the pooling of xDesc"));
    ANYDNN_TRY(check_dims(dy, "dyDesc", out, x.nd, "the pooling of xDesc"));
    ANYDNN_TRY(check_same_dims(x, "xDesc", dx, "dxDesc"));
    ANYDNN_TRY(check_same_type(y, "yDesc", dx, "dxDesc"));
    ANYDNN_TRY(check_same_type(dy, "dyDesc", dx, "dxDesc"));
    ANYDNN_TRY(check_same_type(x, "xDesc", dx, "dxDesc"));
    *p = PoolingBackwardProblem{};
    ANYDNN_TRY(make_geometry(d, x, out, &p->geo));
    p->y = y;
    p->dy = dy;
    p->x = x;
    p->dx = dx;
    p->dys = normalized_strides(dy, d.spatial);
    p->xs = normalized_strides(x, d.spatial);
    p->dxs = normalized_strides(dx, d.spatial);
    return kSuccess;
}

}  // namespace anydnn::ops
