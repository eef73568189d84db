#include "ops/conv_problem.hpp"

#include "core/dtype.hpp"
#include "ops/tensor_ops_problem.hpp"

namespace anydnn::ops {

namespace {

// Spatial dimension j of a rank-(2 + spatial) tensor in the normalized d, h, w.
int norm_index(int spatial, int j) { return 3 - spatial + j; }

std::string dims3(const int64_t *v) {
    return std::to_string(v[0]) + "x" + std::to_string(v[1]) + "x" + std::to_string(v[2]);
}

}  // namespace

double ConvGeometry::flops() const {
    return 2.0 * static_cast<double>(n) * static_cast<double>(groups * ocg) * static_cast<double>(out_pixels()) *
           static_cast<double>(icg) * static_cast<double>(taps());
}

std::string ConvGeometry::to_string() const {
    return std::string(dtype_name(dt)) + " n" + std::to_string(n) + " g" + std::to_string(groups) + " ic" +
           std::to_string(groups * icg) + " oc" + std::to_string(groups * ocg) + " in" + dims3(in) + " out" +
           dims3(out) + " k" + dims3(k) + " s" + dims3(stride) + " p" + dims3(pad) + " dil" + dims3(dil) +
           (flip ? " conv" : " xcorr");
}

std::string ConvForwardProblem::to_string() const {
    std::string s = "conv_fwd " + geo.to_string() + " alpha=" + std::to_string(alpha);
    if (fused) s += " alpha2=" + std::to_string(alpha2) + " act=" + act.to_string();
    else s += " beta=" + std::to_string(beta);
    return s;
}

std::string ConvBackwardProblem::to_string(const char *direction) const {
    return std::string(direction) + " " + geo.to_string() + " alpha=" + std::to_string(alpha) +
           " beta=" + std::to_string(beta);
}

Status conv_desc_arg(const anydnnConvolutionStruct *desc, const anydnnConvolutionStruct **out) {
    if (desc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "convDesc is NULL");
    if (!desc->is_set)
        return fail(ANYDNN_STATUS_BAD_PARAM,
                    "convDesc was never set (anydnnSetConvolution2dDescriptor or ...NdDescriptor)");
    *out = desc;
    return kSuccess;
}

Status conv_forward_output_dims(const anydnnConvolutionStruct &d, const TensorLayout &x, const TensorLayout &w,
                                int64_t *dims) {
    if (x.nd != d.spatial + 2)
        return fail(ANYDNN_STATUS_BAD_PARAM, "xDesc has %d dimensions but convDesc has %d spatial ones", x.nd,
                    d.spatial);
    if (w.nd != x.nd)
        return fail(ANYDNN_STATUS_BAD_PARAM, "wDesc has %d dimensions, xDesc %d", w.nd, x.nd);
    if (x.dims[1] != w.dims[1] * d.groups)
        return fail(ANYDNN_STATUS_BAD_PARAM,
                    "xDesc has %lld channels but wDesc has %lld input channels x %d groups",
                    static_cast<long long>(x.dims[1]), static_cast<long long>(w.dims[1]), d.groups);
    if (w.dims[0] % d.groups != 0)
        return fail(ANYDNN_STATUS_BAD_PARAM, "wDesc's %lld output channels are not a multiple of %d groups",
                    static_cast<long long>(w.dims[0]), d.groups);
    dims[0] = x.dims[0];
    dims[1] = w.dims[0];
    for (int j = 0; j < d.spatial; ++j) {
        const int64_t extent = (w.dims[2 + j] - 1) * d.dilation[j] + 1;
        const int64_t room = x.dims[2 + j] + 2 * int64_t{d.pad[j]} - extent;
        if (room < 0)
            return fail(ANYDNN_STATUS_BAD_PARAM,
                        "spatial dimension %d: the dilated filter (%lld) is larger than the padded input (%lld)", j,
                        static_cast<long long>(extent), static_cast<long long>(x.dims[2 + j] + 2 * d.pad[j]));
        dims[2 + j] = 1 + room / d.stride[j];
    }
    return kSuccess;
}

Status make_conv_forward_problem(const anydnnConvolutionStruct &d, const TensorLayout &x, const TensorLayout &w,
                                 const TensorLayout &y, ConvForwardProblem *p) {
    int64_t out[kMaxDims];
    ANYDNN_TRY(conv_forward_output_dims(d, x, w, out));
    if (y.nd != x.nd) return fail(ANYDNN_STATUS_BAD_PARAM, "yDesc has %d dimensions, xDesc %d", y.nd, x.nd);
    for (int i = 0; i < y.nd; ++i)
        if (y.dims[i] != out[i])
            return fail(ANYDNN_STATUS_BAD_PARAM, "yDesc dimension %d is %lld, the convolution gives %lld", i,
                        static_cast<long long>(y.dims[i]), static_cast<long long>(out[i]));
    ANYDNN_TRY(check_same_type(x, "xDesc", w, "wDesc"));
    ANYDNN_TRY(check_same_type(x, "xDesc", y, "yDesc"));
    ANYDNN_TRY(check_floating(x, "xDesc"));
    if (d.spatial > 3)
        return fail(ANYDNN_STATUS_NOT_SUPPORTED, "%d spatial dimensions: the CPU backend takes 1 to 3", d.spatial);
    const anydnnDataType_t want = x.dt == ANYDNN_DATA_DOUBLE ? ANYDNN_DATA_DOUBLE : ANYDNN_DATA_FLOAT;
    if (d.compute != want)
        return fail(ANYDNN_STATUS_NOT_SUPPORTED,
                    "computeType %s with %s tensors: the CPU backend computes %s tensors in %s", dtype_name(d.compute),
                    dtype_name(x.dt), dtype_name(x.dt), dtype_name(want));

    ConvGeometry &g = p->geo;
    g = ConvGeometry{};
    g.dt = x.dt;
    g.compute = want;
    g.spatial = d.spatial;
    g.n = x.dims[0];
    g.groups = d.groups;
    g.icg = w.dims[1];
    g.ocg = w.dims[0] / d.groups;
    g.flip = d.mode == ANYDNN_CONVOLUTION;
    for (int i = 0; i < 2; ++i) {
        g.xs[i] = x.strides[i];
        g.ws[i] = w.strides[i];
        g.ys[i] = y.strides[i];
    }
    for (int j = 0; j < d.spatial; ++j) {
        const int n = norm_index(d.spatial, j);
        g.in[n] = x.dims[2 + j];
        g.out[n] = y.dims[2 + j];
        g.k[n] = w.dims[2 + j];
        g.stride[n] = d.stride[j];
        g.pad[n] = d.pad[j];
        g.dil[n] = d.dilation[j];
        g.xs[2 + n] = x.strides[2 + j];
        g.ws[2 + n] = w.strides[2 + j];
        g.ys[2 + n] = y.strides[2 + j];
    }
    p->alpha = 1;
    p->beta = 0;
    p->fused = false;
    return kSuccess;
}

Status make_conv_backward_problem(const anydnnConvolutionStruct &d, const TensorLayout &x, const TensorLayout &w,
                                  const TensorLayout &y, ConvBackwardProblem *p) {
    ConvForwardProblem f;
    ANYDNN_TRY(make_conv_forward_problem(d, x, w, y, &f));
    p->geo = f.geo;
    p->alpha = 1;
    p->beta = 0;
    return kSuccess;
}

Status add_conv_fusion(const TensorLayout &z, const void *z_ptr, const TensorLayout &bias, const Activation &act,
                       double alpha2, const TensorLayout &y, const void *y_ptr, ConvForwardProblem *p) {
    ANYDNN_TRY(check_same_dims(z, "zDesc", y, "yDesc"));
    ANYDNN_TRY(check_same_type(z, "zDesc", y, "yDesc"));
    ANYDNN_TRY(check_same_type(bias, "biasDesc", y, "yDesc"));
    if (bias.nd != y.nd) return fail(ANYDNN_STATUS_BAD_PARAM, "biasDesc has %d dimensions, yDesc %d", bias.nd, y.nd);
    for (int i = 0; i < bias.nd; ++i) {
        const int64_t want = i == 1 ? y.dims[1] : 1;
        if (bias.dims[i] != want)
            return fail(ANYDNN_STATUS_BAD_PARAM, "biasDesc must be 1 x K x 1 x ... (K = %lld); dimension %d is %lld",
                        static_cast<long long>(y.dims[1]), i, static_cast<long long>(bias.dims[i]));
    }
    p->fused = true;
    p->alpha2 = alpha2;
    p->has_z = alpha2 != 0;
    p->z_is_y = z_ptr == y_ptr && z.same_geometry(y);
    const int spatial = p->geo.spatial;
    for (int i = 0; i < 5; ++i) p->zs[i] = 0;
    p->zs[0] = z.strides[0];
    p->zs[1] = z.strides[1];
    for (int j = 0; j < spatial; ++j) p->zs[2 + norm_index(spatial, j)] = z.strides[2 + j];
    p->act = act;
    p->bias_stride = bias.strides[1];
    return kSuccess;
}

Status check_no_overlap(const void *out, const TensorLayout &out_l, const char *out_arg, const void *in,
                        const TensorLayout &in_l, const char *in_arg) {
    const auto o = reinterpret_cast<std::uintptr_t>(out), i = reinterpret_cast<std::uintptr_t>(in);
    const std::uintptr_t o_end = o + static_cast<std::uintptr_t>(out_l.span()) * dtype_size(out_l.dt);
    const std::uintptr_t i_end = i + static_cast<std::uintptr_t>(in_l.span()) * dtype_size(in_l.dt);
    if (o < i_end && i < o_end)
        return fail(ANYDNN_STATUS_BAD_PARAM, "%s overlaps %s: an output may not alias the inputs it reads",
                    out_arg, in_arg);
    return kSuccess;
}

}  // namespace anydnn::ops
