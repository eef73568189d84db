// ConvolutionForward and ConvolutionBiasActivationForward against the
// reference, for every algorithm that claims a problem (its workspace query
// succeeds), on every ISA level: the shape lists of tools/bench/lists at mb1
// and mb2, NCHW and NHWC, beta 0 (y poisoned: it must not be read), beta 0.5
// and the fused call; then the edge cases (strided tensors, CONVOLUTION mode,
// f64, f16, bf16, 1-D, z == y, every activation).
//
// Outputs: every element of small outputs, else a seeded random sample of
// kSamples plus the first and last element (the reference is a plain loop).
// Tolerance: each sum of K = C/groups * taps products of values in [-1, 1]
// may be off by 2 K eps of the compute type (a loose bound on the
// accumulation order's effect: a wrong tap or channel is off by O(1)), plus
// the output's storage rounding and 1e-5 relative for f32 activations.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/conv_setup.hpp"
#include "reference/activation_ref.hpp"

using namespace anydnn_test;

namespace {

constexpr int64_t kSamples = 1536;

// IMPLICIT_GEMM is the fallback of plain loops; on the big list shapes it
// would cost minutes, so there it runs up to this many flops per call (the
// edge cases run it everywhere).
constexpr double kImplicitMaxFlops = 1.5e8;

enum class Mode { beta0, beta_half, fused, fused_z_is_y };

const char *mode_name(Mode m) {
    switch (m) {
    case Mode::beta0: return "beta=0";
    case Mode::beta_half: return "beta=0.5";
    case Mode::fused: return "fused";
    default: return "fused z=y";
    }
}

std::vector<int64_t> sample_outputs(int64_t total) {
    std::vector<int64_t> which;
    if (total <= kSamples + 2) {
        for (int64_t i = 0; i < total; ++i) which.push_back(i);
        return which;
    }
    std::uniform_int_distribution<int64_t> pick(0, total - 1);
    which.push_back(0);
    which.push_back(total - 1);
    for (int64_t i = 0; i < kSamples; ++i) which.push_back(pick(rng()));
    return which;
}

int64_t linear_index_to_offset(const Tensor &t, int64_t lin) {
    const std::vector<int> &dims = t.shape().dims;
    std::vector<int> idx(dims.size());
    for (int j = static_cast<int>(dims.size()) - 1; j >= 0; --j) {
        idx[j] = static_cast<int>(lin % dims[j]);
        lin /= dims[j];
    }
    return t.offset(idx);
}

double compute_eps(anydnnDataType_t dt) { return dt == ANYDNN_DATA_DOUBLE ? 2.2e-16 : 1.2e-7; }

// Runs algo on the case in `mode` and compares with the reference. Returns
// whether the algorithm took the problem.
bool check(const Handle &h, const ConvCase &c, anydnnConvolutionFwdAlgo_t algo, Mode mode,
           const ref::Activation &act = {ANYDNN_ACTIVATION_RELU, false, 0, 1}) {
    ConvSetup s(c);
    size_t ws_bytes = 0;
    const anydnnStatus_t q =
        anydnnGetConvolutionForwardWorkspaceSize(h, s.x->desc(), s.filter, s.conv, s.y->desc(), algo, &ws_bytes);
    if (q == ANYDNN_STATUS_NOT_SUPPORTED) return false;
    EXPECT_OK(q);
    if (q != ANYDNN_STATUS_SUCCESS) return false;
    SCOPED_TRACE(c.to_string() + " algo " + std::to_string(algo) + " " + mode_name(mode) + " seed " +
                 std::to_string(seed()));

    // The workspace with a guard after it.
    std::vector<unsigned char> ws(ws_bytes + 64, 0xa5);
    const double alpha = 0.75, beta = mode == Mode::beta_half ? 0.5 : 0, alpha2 = 0.6;
    // y is poisoned where the call must not read it.
    if (mode == Mode::beta0 || mode == Mode::fused) s.y->poison();
    else s.y->fill_random();
    std::unique_ptr<Tensor> z, bias;
    const Tensor *zt = nullptr;
    if (mode == Mode::fused || mode == Mode::fused_z_is_y) {
        bias = s.bias();
        bias->fill_random();
        if (mode == Mode::fused) {
            z = s.like_y();
            z->fill_random();
            zt = z.get();
        } else {
            zt = s.y.get();
        }
    }
    Tensor y0(s.y->shape(), c.dt);
    y0.copy_from(*s.y);
    const std::vector<int64_t> which = sample_outputs(y0.shape().elements());
    std::vector<double> z_at, y_at, bias_v;
    for (int64_t lin : which) {
        y_at.push_back(y0.at_offset(linear_index_to_offset(y0, lin)));
        if (zt != nullptr) z_at.push_back(zt->at_offset(linear_index_to_offset(*zt, lin)));
    }
    if (bias) bias_v = bias->values();

    const Scalar a(alpha), b(beta), a2(alpha2);
    if (zt == nullptr) {
        EXPECT_OK(anydnnConvolutionForward(h, a.ptr(c.dt), s.x->desc(), s.x->data(), s.filter, s.w->data(), s.conv,
                                           algo, ws.data(), ws_bytes, b.ptr(c.dt), s.y->desc(), s.y->data()));
    } else {
        anydnnActivationDescriptor_t ad;
        EXPECT_OK(anydnnCreateActivationDescriptor(&ad));
        EXPECT_OK(anydnnSetActivationDescriptor(ad, act.mode, act.propagate_nan ? ANYDNN_PROPAGATE_NAN
                                                                               : ANYDNN_NOT_PROPAGATE_NAN,
                                                act.coef));
        EXPECT_OK(anydnnSetActivationDescriptorSwishBeta(ad, act.swish_beta));
        EXPECT_OK(anydnnConvolutionBiasActivationForward(
            h, a.ptr(c.dt), s.x->desc(), s.x->data(), s.filter, s.w->data(), s.conv, algo, ws.data(), ws_bytes,
            a2.ptr(c.dt), zt->desc(), zt == s.y.get() ? s.y->data() : zt->data(), bias->desc(), bias->data(), ad,
            s.y->desc(), s.y->data()));
        anydnnDestroyActivationDescriptor(ad);
    }

    const std::vector<double> sums = ref::conv_forward_sums(s.ref, *s.x, *s.w, s.y_dims, which);
    std::vector<double> want, got;
    const int64_t per_k = y0.shape().elements() / (static_cast<int64_t>(s.y_dims[0]) * s.y_dims[1]);
    for (size_t i = 0; i < which.size(); ++i) {
        double v = alpha * sums[i];
        if (zt == nullptr) {
            if (beta != 0) v += beta * y_at[i];  // y is NaN where beta == 0
        } else {
            const int k = static_cast<int>(which[i] / per_k % s.y_dims[1]);
            v = ref::activation_f(act, v + alpha2 * z_at[i] + bias_v[k]);
        }
        want.push_back(round_to(c.dt, v));
        got.push_back(s.y->at_offset(linear_index_to_offset(*s.y, which[i])));
    }
    const double abs_tol = 2 * static_cast<double>(s.reduction) * compute_eps(c.dt) + 1e-6;
    const double rel_tol = 2 * storage_tol(c.dt) + (c.dt == ANYDNN_DATA_DOUBLE ? 1e-12 : 1e-5);
    expect_close(got, want, rel_tol, abs_tol, "y");
    EXPECT_TRUE(s.y->guards_intact());
    if (c.layout == Layout::strided) EXPECT_TRUE(s.y->gaps_equal(y0)) << "a gap of y was written";
    EXPECT_TRUE(std::all_of(ws.end() - 64, ws.end(), [](unsigned char v) { return v == 0xa5; }))
        << "write past the workspace";
    return true;
}

const anydnnConvolutionFwdAlgo_t kAlgos[] = {
    ANYDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, ANYDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
    ANYDNN_CONVOLUTION_FWD_ALGO_GEMM, ANYDNN_CONVOLUTION_FWD_ALGO_DIRECT,
    ANYDNN_CONVOLUTION_FWD_ALGO_FFT, ANYDNN_CONVOLUTION_FWD_ALGO_FFT_TILING,
    ANYDNN_CONVOLUTION_FWD_ALGO_WINOGRAD, ANYDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED};

double case_flops(const ConvCase &c) {
    ConvSetup s(c);
    double f = 2.0 * static_cast<double>(s.reduction);
    for (int d : s.y_dims) f *= d;
    return f;
}

// ---- The shape lists ------------------------------------------------------------------

struct ListParam {
    const char *file;
    const char *isa;
};

class ConvList : public ::testing::TestWithParam<ListParam> {};

TEST_P(ConvList, MatchesReference) {
    Handle h(GetParam().isa);
    SKIP_IF_UNAVAILABLE(h);
    const std::vector<anydnn_bench::ConvShape> shapes = load_conv_list(GetParam().file);
    ASSERT_FALSE(shapes.empty());
    int index = 0;
    for (const anydnn_bench::ConvShape &shape : shapes) {
        for (int mb : {1, 2}) {
            for (Layout layout : {Layout::nchw, Layout::nhwc}) {
                ConvCase c;
                c.shape = shape;
                c.mb = mb;
                c.layout = layout;
                const double flops = case_flops(c);
                int claimed = 0;
                for (anydnnConvolutionFwdAlgo_t algo : kAlgos) {
                    if (algo == ANYDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM && flops > kImplicitMaxFlops) continue;
                    for (Mode mode : {Mode::beta0, Mode::beta_half, Mode::fused}) claimed += check(h, c, algo, mode);
                }
                EXPECT_GT(claimed, 0) << c.to_string() << ": no algorithm took it";
                if (HasFailure()) return;  // one failing shape is enough to read
            }
        }
        ++index;
    }
    EXPECT_EQ(index, static_cast<int>(shapes.size()));
}

std::vector<ListParam> list_params() {
    std::vector<ListParam> v;
    for (const char *file : {"conv_edge_cases.txt", "conv_3d.txt", "conv_mobilenet_v2.txt", "conv_resnet50.txt",
                             "conv_vgg16.txt"})
        for (const std::string &isa : isa_levels()) v.push_back({file, isa.c_str()});
    return v;
}

std::string list_param_name(const ::testing::TestParamInfo<ListParam> &info) {
    std::string name = std::string(info.param.file).substr(5);  // drop "conv_"
    name = name.substr(0, name.size() - 4) + "_" + info.param.isa;
    return name;
}

INSTANTIATE_TEST_SUITE_P(Lists, ConvList, ::testing::ValuesIn(list_params()), list_param_name);

// ---- Edge cases -----------------------------------------------------------------------

// Small shapes that take every path: padding, strides, dilation, groups,
// depthwise with multipliers, 3-D, 1-D, one pixel.
const char *const kEdgeShapes[] = {
    "mb2ic3ih7iw5oc5oh7ow5kh3kw3ph1pw1",
    "g2ic6ih9oc4kh3sh2ph2",             // pad > kernel half, stride 2
    "ic5ih11oc7kh3sh3dh2ph3",           // stride 3 with dilation 3
    "ic4ih10iw13oc6kh2kw4sh2sw3ph1pw2", // asymmetric everything
    "g6ic6ih8oc12kh3ph1",               // depthwise, multiplier 2
    "g6ic6ih8oc6kh5sh2ph2dh1",          // depthwise, dilated, strided
    "ic3id5ih6iw7oc4kd3kh3kw3pd1ph1pw1sd2",
    "g2ic4id4ih4iw4oc6kd2kh2kw2sd2sh2sw2",
    "ic8ih1iw1oc5kh1",
    "ic2ih5oc3kh5ph4",                  // output larger than the input
    "ic16ih6oc16kh1sh2",                // 1x1 strided: y_direct
    "ic1ih9oc8kh3ph1",                  // one input channel
};

class ConvEdge : public ::testing::TestWithParam<std::string> {};

TEST_P(ConvEdge, EveryLayoutTypeAndMode) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    for (const char *text : kEdgeShapes) {
        for (anydnnDataType_t dt : {ANYDNN_DATA_FLOAT, ANYDNN_DATA_DOUBLE, ANYDNN_DATA_HALF, ANYDNN_DATA_BFLOAT16}) {
            for (Layout layout : {Layout::nchw, Layout::nhwc, Layout::strided}) {
                for (bool flip : {false, true}) {
                    if (flip && dt != ANYDNN_DATA_FLOAT) continue;
                    ConvCase c = make_case(text, 2, layout, dt);
                    c.flip = flip;
                    int claimed = 0;
                    for (anydnnConvolutionFwdAlgo_t algo : kAlgos)
                        for (Mode mode : {Mode::beta0, Mode::beta_half, Mode::fused, Mode::fused_z_is_y})
                            claimed += check(h, c, algo, mode);
                    EXPECT_GT(claimed, 0) << c.to_string();
                    if (HasFailure()) return;
                }
            }
        }
    }
}

// 1-D convolutions: x is N x C x W.
TEST_P(ConvEdge, OneSpatialDimension) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    for (Layout layout : {Layout::nchw, Layout::nhwc}) {
        ConvCase c = make_case("ic5ih1iw17oc6kh1kw3sw2pw1", 3, layout);
        c.shape.ndims = 1;  // only the w dimension is used
        for (anydnnConvolutionFwdAlgo_t algo :
             {ANYDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, ANYDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM})
            EXPECT_TRUE(check(h, c, algo, Mode::beta_half)) << c.to_string();
    }
}

// Every activation mode fused into the store of every algorithm.
TEST_P(ConvEdge, EveryActivation) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const std::vector<ref::Activation> acts = {
        {ANYDNN_ACTIVATION_RELU, false, 0, 1},        {ANYDNN_ACTIVATION_CLIPPED_RELU, false, 0.4, 1},
        {ANYDNN_ACTIVATION_SIGMOID, false, 0, 1},     {ANYDNN_ACTIVATION_TANH, false, 0, 1},
        {ANYDNN_ACTIVATION_ELU, false, 0.7, 1},       {ANYDNN_ACTIVATION_IDENTITY, false, 0, 1},
        {ANYDNN_ACTIVATION_SWISH, false, 0, 1.3},     {ANYDNN_ACTIVATION_GELU, false, 0, 1},
        {ANYDNN_ACTIVATION_GELU_TANH, false, 0, 1},   {ANYDNN_ACTIVATION_LEAKY_RELU, false, 0.1, 1},
        {ANYDNN_ACTIVATION_HARDSWISH, false, 0, 1},   {ANYDNN_ACTIVATION_MISH, false, 0, 1},
        {ANYDNN_ACTIVATION_SOFTPLUS, false, 0, 1}};
    for (const ref::Activation &act : acts) {
        SCOPED_TRACE("activation mode " + std::to_string(act.mode));
        for (const char *text : {"g4ic4ih9oc8kh3ph1", "ic6ih8oc10kh1"})
            for (Layout layout : {Layout::nchw, Layout::nhwc})
                for (anydnnConvolutionFwdAlgo_t algo : kAlgos)
                    check(h, make_case(text, 2, layout), algo, Mode::fused, act);
    }
}

INSTANTIATE_TEST_SUITE_P(Isa, ConvEdge, ::testing::ValuesIn(isa_levels()));

}  // namespace
