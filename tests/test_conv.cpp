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
// WINOGRAD_NONFUSED (F(4x4, 3x3)) gets its measured error bound instead:
// |error| <= kWinogradBound eps sum |w||x| (docs/ARCHITECTURE.md), and sum
// |w||x| <= K for values in [-1, 1]; ConvWinograd.ErrorBound measures it.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "common/conv_setup.hpp"
#include "reference/activation_ref.hpp"

using namespace anydnn_test;

namespace {

// IMPLICIT_GEMM is the fallback of plain loops; on the big list shapes it
// would cost minutes, so there it runs up to this many flops per call (the
// edge cases run it everywhere).
constexpr double kImplicitMaxFlops = 1.5e8;

// Under the sanitizers (10-30x slower) each list shape runs at one of the
// four (mb, layout) pairs, in turn, and only when it costs at most
// kSanitizerMaxFlops: the large shapes take the same code paths as the
// mid-sized ones (several GEMM chunks per image, both threading modes). The
// Release run checks everything.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
constexpr double kSanitizerMaxFlops = 3e8;

enum class Mode { beta0, beta_half, fused, fused_z_is_y };

const char *mode_name(Mode m) {
    switch (m) {
    case Mode::beta0: return "beta=0";
    case Mode::beta_half: return "beta=0.5";
    case Mode::fused: return "fused";
    default: return "fused z=y";
    }
}

// One case's tensors and reference, made once and checked against every
// algorithm and mode: x, w, the sampled outputs' raw sums, and the initial
// contents of y, z and the bias.
class Checker {
public:
    explicit Checker(const ConvCase &c)
        : c_(c), s_(c), which_(sample_elements(s_.y->shape().elements())),
          sums_(ref::conv_forward_sums(s_.ref, *s_.x, *s_.w, s_.y_dims, which_)), y_init_(s_.like_y()),
          z_(s_.like_y()), bias_(s_.bias()) {
        y_init_->fill_random();
        z_->fill_random();
        bias_->fill_random();
        bias_v_ = bias_->values();
        for (int64_t lin : which_) z_at_.push_back(z_->at_offset(offset_of(*z_, lin)));
    }

    double flops() const { return 2.0 * static_cast<double>(s_.reduction) * s_.y->shape().elements(); }

    // Runs algo in `mode` and compares with the reference; false when the
    // algorithm does not take the problem.
    bool check(const Handle &h, anydnnConvolutionFwdAlgo_t algo, Mode mode,
               const ref::Activation &act = {ANYDNN_ACTIVATION_RELU, false, 0, 1}) {
        Tensor &y = *s_.y;
        size_t ws_bytes = 0;
        const anydnnStatus_t q =
            anydnnGetConvolutionForwardWorkspaceSize(h, s_.x->desc(), s_.filter, s_.conv, y.desc(), algo, &ws_bytes);
        if (q == ANYDNN_STATUS_NOT_SUPPORTED) return false;
        EXPECT_OK(q);
        if (q != ANYDNN_STATUS_SUCCESS) return false;
        SCOPED_TRACE(c_.to_string() + " algo " + std::to_string(algo) + " " + mode_name(mode) + " seed " +
                     std::to_string(seed()));

        // The workspace (its bytes NaN's as floats and doubles: a kernel
        // that reads what it did not write, padding it meant to zero, fails
        // even where it multiplies it by zero) with a guard of other bytes
        // after it.
        std::vector<unsigned char> ws(ws_bytes + 64, 0xff);
        std::fill(ws.end() - 64, ws.end(), 0xa5);
        const double alpha = 0.75, beta = mode == Mode::beta_half ? 0.5 : 0, alpha2 = 0.6;
        // y is poisoned where the call must not read it.
        if (mode == Mode::beta0 || mode == Mode::fused) y.poison();
        else y.copy_from(*y_init_);
        const bool fused = mode == Mode::fused || mode == Mode::fused_z_is_y;
        const Tensor *z = mode == Mode::fused_z_is_y ? &y : z_.get();
        std::vector<double> y_at;
        for (int64_t lin : which_) y_at.push_back(y.at_offset(offset_of(y, lin)));
        std::unique_ptr<Tensor> y0;
        if (c_.layout == Layout::strided) {
            y0 = s_.like_y();
            y0->copy_from(y);
        }

        const anydnnDataType_t dt = c_.dt;
        const Scalar a(alpha), b(beta), a2(alpha2);
        if (!fused) {
            EXPECT_OK(anydnnConvolutionForward(h, a.ptr(dt), s_.x->desc(), s_.x->data(), s_.filter, s_.w->data(),
                                               s_.conv, algo, ws.data(), ws_bytes, b.ptr(dt), y.desc(), y.data()));
        } else {
            anydnnActivationDescriptor_t ad;
            EXPECT_OK(anydnnCreateActivationDescriptor(&ad));
            EXPECT_OK(anydnnSetActivationDescriptor(
                ad, act.mode, act.propagate_nan ? ANYDNN_PROPAGATE_NAN : ANYDNN_NOT_PROPAGATE_NAN, act.coef));
            EXPECT_OK(anydnnSetActivationDescriptorSwishBeta(ad, act.swish_beta));
            EXPECT_OK(anydnnConvolutionBiasActivationForward(
                h, a.ptr(dt), s_.x->desc(), s_.x->data(), s_.filter, s_.w->data(), s_.conv, algo, ws.data(),
                ws_bytes, a2.ptr(dt), z->desc(), z == &y ? y.data() : z_->data(), bias_->desc(), bias_->data(), ad,
                y.desc(), y.data()));
            anydnnDestroyActivationDescriptor(ad);
        }

        std::vector<double> want, got;
        const int64_t per_k = y.shape().elements() / (static_cast<int64_t>(s_.y_dims[0]) * s_.y_dims[1]);
        for (size_t i = 0; i < which_.size(); ++i) {
            double v = alpha * sums_[i];
            if (!fused) {
                if (beta != 0) v += beta * y_at[i];  // y is NaN where beta == 0
            } else {
                const int k = static_cast<int>(which_[i] / per_k % s_.y_dims[1]);
                v = ref::activation_f(act, v + alpha2 * (z == &y ? y_at[i] : z_at_[i]) + bias_v_[k]);
            }
            want.push_back(round_to(dt, v));
            got.push_back(y.at_offset(offset_of(y, which_[i])));
        }
        const double per_term = algo == ANYDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED ? kWinogradBound : 2;
        const double abs_tol = per_term * static_cast<double>(s_.reduction) * compute_eps(dt) + 1e-6;
        const double rel_tol = 2 * storage_tol(dt) + (dt == ANYDNN_DATA_DOUBLE ? 1e-12 : 1e-5);
        expect_close(got, want, rel_tol, abs_tol, "y");
        EXPECT_TRUE(y.guards_intact());
        if (y0) EXPECT_TRUE(y.gaps_equal(*y0)) << "a gap of y was written";
        EXPECT_TRUE(std::all_of(ws.end() - 64, ws.end(), [](unsigned char v) { return v == 0xa5; }))
            << "write past the workspace";
        return true;
    }

    ConvSetup &setup() { return s_; }

private:
    ConvCase c_;
    ConvSetup s_;
    std::vector<int64_t> which_;
    std::vector<double> sums_;
    std::unique_ptr<Tensor> y_init_, z_, bias_;
    std::vector<double> bias_v_, z_at_;
};

const anydnnConvolutionFwdAlgo_t kAlgos[] = {
    ANYDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, ANYDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
    ANYDNN_CONVOLUTION_FWD_ALGO_GEMM, ANYDNN_CONVOLUTION_FWD_ALGO_DIRECT,
    ANYDNN_CONVOLUTION_FWD_ALGO_FFT, ANYDNN_CONVOLUTION_FWD_ALGO_FFT_TILING,
    ANYDNN_CONVOLUTION_FWD_ALGO_WINOGRAD, ANYDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED};

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
                const int pair = (mb - 1) * 2 + (layout == Layout::nhwc ? 1 : 0);
                if (kSanitized && pair != index % 4) continue;
                ConvCase c;
                c.shape = shape;
                c.mb = mb;
                c.layout = layout;
                if (kSanitized && shape.flops() / static_cast<double>(shape.mb) * mb > kSanitizerMaxFlops) continue;
                Checker checker(c);
                int claimed = 0;
                for (anydnnConvolutionFwdAlgo_t algo : kAlgos) {
                    if (algo == ANYDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM && checker.flops() > kImplicitMaxFlops)
                        continue;
                    for (Mode mode : {Mode::beta0, Mode::beta_half, Mode::fused}) claimed += checker.check(h, algo, mode);
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
    "g64ic64ih5iw19oc64kh3kw3ph1pw1",   // depthwise NHWC strips of 8, 4 and 1 (64-channel blocks)
    "g32ic32ih7iw23oc32kh3kw3sh2sw2ph2pw2dh1dw1",  // depthwise strips, 16-channel blocks, strided, dilated
    "g72ic72ih5iw9oc72kh3kw3ph1pw2",    // depthwise channels first in blocks: 64 + 8 (zero-padded) channels
    "g20ic20ih9iw30oc20kh3kw5sh2sw1ph2pw3dh1dw2",  // blocks: strips of 14, 7, 4 and 3, strided, dilated
    "g3ic3ih4iw37oc6kh3kw3ph1pw1",      // depthwise, multiplier 2, rows of 32+: channels first by rows
    "g5ic5ih6iw75oc5kh5kw3sh2sw2ph2pw1dh1dw1",  // the same strided and dilated
    "g2ic2ih1iw125oc2kh3kw3ph1pw1",     // rows: a taps pass of 127 sums, the last 7.x vectors of every width
    "g4ic4ih9iw70oc4kh3kw3sh2sw2ph1pw2",  // rows, stride 2 along w: rows split by column phase
    "g4ic4id2ih9iw70oc4kd2kh3kw3sd2sh2sw2ph1pw2",  // the same 3-D: the copies
    "ic4id1ih9iw9oc4kd1kh3kw3pd1ph1pw1",  // 3-D, one slice padded: not Winograd's
    "ic3id5ih6iw7oc4kd3kh3kw3pd1ph1pw1sd2",
    "g2ic4id4ih4iw4oc6kd2kh2kw2sd2sh2sw2",
    "ic8ih1iw1oc5kh1",
    "ic2ih5oc3kh5ph4",                  // output larger than the input
    "ic16ih6oc16kh1sh2",                // 1x1 strided: y_direct
    "ic1ih9oc8kh3ph1",                  // one input channel
    "ic3ih13iw29oc22kh3kw5sh2sw2ph1pw2dh2",  // DIRECT first layer: partial channel blocks, dilated rows
    "ic4ih6iw70oc40kh2kw3sw1pw1",       // DIRECT first layer: whole and partial pixel strips
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
                    Checker checker(c);
                    int claimed = 0;
                    for (anydnnConvolutionFwdAlgo_t algo : kAlgos)
                        for (Mode mode : {Mode::beta0, Mode::beta_half, Mode::fused, Mode::fused_z_is_y})
                            claimed += checker.check(h, algo, mode);
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
        Checker checker(c);
        for (anydnnConvolutionFwdAlgo_t algo :
             {ANYDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, ANYDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM})
            EXPECT_TRUE(checker.check(h, algo, Mode::beta_half)) << c.to_string();
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
            for (Layout layout : {Layout::nchw, Layout::nhwc}) {
                Checker checker(make_case(text, 2, layout));
                for (anydnnConvolutionFwdAlgo_t algo : kAlgos) checker.check(h, algo, Mode::fused, act);
            }
    }
}

// DIRECT depthwise channels first in blocks of channels and bands of rows
// (depthwise_blocks): the block size, and so a worker's sequence of items,
// depends on the thread count; a last block narrower than the others
// changes the padded planes' layout between a worker's items. Tall images
// (rows under 32 pixels, several bands, strided) and channels that leave a
// partial last block. x's rows go into the padded planes 16 pixels at a
// time across rows where they are whole (transpose_pixels_to_rows), a row
// at a time where the taps leave x's last column out (iw10, stride 2, no
// padding) or the rows fill whole tiles (iw16).
TEST_P(ConvEdge, DepthwiseBlocksAnyThreadCount) {
    for (int threads : {1, 2, 3, 8}) {
        Handle h(GetParam(), threads);
        SKIP_IF_UNAVAILABLE(h);
        for (const char *text : {"g40ic40ih5iw9oc40kh3kw3ph1pw2", "g72ic72ih6iw9oc72kh3kw3ph1pw2",
                                 "g33ic33ih12iw7oc33kh3ph1", "g24ic24ih90iw20oc24kh3ph1",
                                 "g20ic20ih91iw45oc20kh5sh2ph3dh1", "g24ic24ih9iw10oc24kh3kw3sw2ph1pw0",
                                 "g24ic24ih6iw16oc24kh3kw3ph1pw1"})
            for (int mb : {1, 2}) {
                Checker checker(make_case(text, mb, Layout::nchw));
                for (Mode mode : {Mode::beta0, Mode::fused})
                    EXPECT_TRUE(checker.check(h, ANYDNN_CONVOLUTION_FWD_ALGO_DIRECT, mode))
                        << text << " mb" << mb << ", " << threads << " threads";
                if (HasFailure()) return;
            }
    }
}

// DIRECT depthwise channels first by rows (depthwise_rows): the bands of
// output rows come from the L1 budget (tall images: several bands, the
// last one shorter) and from the thread count (few channels: more bands
// than the budget needs); strides 1 and 2 along each axis, dilation,
// channel multipliers. In f16 all four; in float the first and the last
// go by the blocks' column strips instead (tall images, 3 and 1 channels).
TEST_P(ConvEdge, DepthwiseRowsAnyThreadCount) {
    for (int threads : {1, 2, 3, 8}) {
        Handle h(GetParam(), threads);
        SKIP_IF_UNAVAILABLE(h);
        for (const char *text : {"g3ic3ih203iw40oc3kh3ph1", "g2ic2ih61iw100oc4kh3kw5sh2sw2ph1pw2",
                                 "g5ic5ih33iw67oc5kh3kw3sw2ph2pw2dh1dw1", "g1ic1ih90iw33oc1kh5kw3sh2ph2pw1"})
            for (int mb : {1, 2})
                for (anydnnDataType_t dt : {ANYDNN_DATA_FLOAT, ANYDNN_DATA_HALF}) {
                    Checker checker(make_case(text, mb, Layout::nchw, dt));
                    for (Mode mode : {Mode::beta0, Mode::beta_half, Mode::fused})
                        EXPECT_TRUE(checker.check(h, ANYDNN_CONVOLUTION_FWD_ALGO_DIRECT, mode))
                            << text << " mb" << mb << ", " << threads << " threads";
                    if (HasFailure()) return;
                }
    }
}

// DIRECT depthwise, float, 3 taps along w (the strips of
// depthwise_columns_strip, each column loaded once): rows of 4 to 68
// pixels (strips of 4 to 8, the ends skipping the padding's columns: pads
// 0 to 3, some pixels with no tap inside), stride 1 and 2 along w,
// channels that are not a multiple of the vector (the last vector
// overlaps the one before it: with beta or the fused call those channels
// must be blended once), several chunks of channels channels last (100 and
// 150: a last chunk that is not a multiple of the vector), 3-D (NCHW: the
// channels-last copies), NCHW (the blocks' padded planes) and x and y
// with gaps (strided).
TEST_P(ConvEdge, DepthwiseColumnsStrips) {
    for (int threads : {1, 2, 3}) {
        Handle h(GetParam(), threads);
        SKIP_IF_UNAVAILABLE(h);
        for (const char *text : {"g12ic12ih5iw4oc12kh3kw3ph1pw1", "g20ic20ih6iw17oc20kh3kw3sw2ph1pw1",
                                 "g33ic33ih7iw23oc33kh3kw3sh2ph2pw2", "g16ic16ih9iw70oc16kh3kw3",
                                 "g40ic40ih8iw14oc40kh5kw3sw2ph2pw1", "g24ic24ih4iw5oc24kh3kw3ph3pw3",
                                 "g18ic18id3ih5iw9oc18kd2kh3kw3pd1ph1pw1", "g100ic100ih5iw9oc100kh3kw3ph1pw1",
                                 "g150ic150ih4iw13oc150kh3kw3sw2pw1"})
            for (Layout layout : {Layout::nhwc, Layout::nchw, Layout::strided}) {
                Checker checker(make_case(text, 2, layout));
                for (Mode mode : {Mode::beta0, Mode::beta_half, Mode::fused, Mode::fused_z_is_y})
                    EXPECT_TRUE(checker.check(h, ANYDNN_CONVOLUTION_FWD_ALGO_DIRECT, mode))
                        << text << ", " << threads << " threads";
                if (HasFailure()) return;
            }
    }
}

// The shape's y (random x and w, alpha 1, beta 0) by algo on 1, 2 and 3
// threads: the same bits each time.
void check_same_bits(const std::string &isa, const char *text, int mb, Layout layout,
                     anydnnConvolutionFwdAlgo_t algo) {
    ConvCase c = make_case(text, mb, layout);
    ConvSetup s(c);
    s.x->fill_random();
    s.w->fill_random();
    std::vector<double> first;
    for (int threads : {1, 2, 3}) {
        Handle h(isa, threads);
        SKIP_IF_UNAVAILABLE(h);
        size_t ws_bytes = 0;
        ASSERT_OK(anydnnGetConvolutionForwardWorkspaceSize(h, s.x->desc(), s.filter, s.conv, s.y->desc(), algo,
                                                           &ws_bytes));
        std::vector<unsigned char> ws(ws_bytes, 0xff);  // NaN's, as in Checker::check
        const Scalar one(1), zero(0);
        s.y->poison();
        ASSERT_OK(anydnnConvolutionForward(h, one.ptr(c.dt), s.x->desc(), s.x->data(), s.filter, s.w->data(), s.conv,
                                           algo, ws.data(), ws_bytes, zero.ptr(c.dt), s.y->desc(), s.y->data()));
        EXPECT_TRUE(s.y->guards_intact());
        if (first.empty()) first = s.y->values();
        else EXPECT_TRUE(s.y->values() == first) << text << ", " << threads << " threads";
    }
}

// Every shape of texts at every mb, layout and type against the reference
// by IMPLICIT_PRECOMP_GEMM, in every mode, on 1, 2 and 3 threads.
void check_precomp_cases(const std::string &isa, std::initializer_list<const char *> texts,
                         std::initializer_list<int> mbs, std::initializer_list<Layout> layouts,
                         std::initializer_list<anydnnDataType_t> dts) {
    for (int threads : {1, 2, 3}) {
        Handle h(isa, threads);
        SKIP_IF_UNAVAILABLE(h);
        for (const char *text : texts)
            for (int mb : mbs)
                for (Layout layout : layouts)
                    for (anydnnDataType_t dt : dts) {
                        Checker checker(make_case(text, mb, layout, dt));
                        for (Mode mode : {Mode::beta0, Mode::beta_half, Mode::fused, Mode::fused_z_is_y}) {
                            EXPECT_TRUE(checker.check(h, ANYDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, mode))
                                << text << " mb" << mb << ", " << threads << " threads";
                            if (::testing::Test::HasFailure()) return;
                        }
                    }
    }
}

// IMPLICIT_PRECOMP_GEMM channels last with the filter as A (one image,
// several taps, 16+ input channels where a stride would take the im2col
// path): float's x pixels gathered into the packed B (b_gather: output
// channels >= the output pixels; NCHW's KCRS filter read in place too, y
// written by the GEMM), f16's x planes as B^T (filter_a: output channels
// >= 2 x the planes' pixels) with the filter reordered with its taps side
// by side; y through the scratch channels last; stride and dilation, odd
// channel counts, and float shapes just below the line (40 < 49).
TEST_P(ConvEdge, FilterAsAChannelsLast) {
    check_precomp_cases(GetParam(), {"ic5ih5iw6oc80kh3kw2ph1pw1", "ic16ih9iw9oc97kh3kw3sh2sw2ph1pw1dh1dw1",
                                     "ic24ih7oc130kh3ph1", "ic24ih7oc40kh3ph1"},
                        {1}, {Layout::nhwc, Layout::nchw}, {ANYDNN_DATA_FLOAT, ANYDNN_DATA_HALF});
}

// One image's pixels gathered into the GEMM's packed B (b_gather) channels
// first, where the GEMM reads the KCRS filter in place: output pixels that
// are not a multiple of the tile (7 x 7, 5 x 9 at stride 2), stride,
// dilation and padding wider than the filter's half (the planes' phases
// and zeros), 3-D, double, few output channels (channels first has no
// line), and y strided (through the scratch) or packed (the GEMM writes
// it, with beta and the fused epilogue after).
TEST_P(ConvEdge, GatheredPixelsChannelsFirst) {
    check_precomp_cases(GetParam(), {"ic19ih7oc40kh3ph1", "ic8ih10iw18oc24kh3kw3sh2sw2ph1pw1", "ic6ih9oc17kh3dh2ph3",
                                     "ic5id4ih6oc12kd2kh3pd1ph1", "ic33ih14oc8kh2kw3pw1"},
                        {1}, {Layout::nchw, Layout::strided}, {ANYDNN_DATA_FLOAT, ANYDNN_DATA_DOUBLE});
}

// Few output pixels under a large filter by dot products (pixel_dots, on
// AVX-512; the other levels run the GEMM on these shapes: at most 64
// pixels over the images, a reduction of 256+): channel counts
// off the vector (the tiles' zero-padded last vector), output channels and
// pixels off the 4 x 6 tile (every partial tile), the most pixels the path
// takes (8 x 8), stride and padding (pixel rows of zeros), several images,
// a fully connected layer (conv_gemm_geometry's images as pixels), each
// channels first (x transposed in), last and strided (gathered); channels
// last with whole vectors, x's rows read in place (ic272, one image and
// three; ic240's fully connected layer, its images as rows); filters of
// several taps (receptive fields gathered in KRSC's or KCRS's order) with
// stride, dilation and padding, 2-D and 3-D.
TEST_P(ConvEdge, PixelDots) {
    check_precomp_cases(GetParam(), {"ic257ih7oc13kh1", "ic300ih5iw9oc40kh1sh2sw2ph1pw1", "ic512ih8oc7kh1",
                                     "ic264ih4iw5oc23kh1", "ic256ih3oc10kh3", "ic272ih5iw7oc15kh1",
                                     "ic64ih7oc20kh3ph1", "ic45ih7iw8oc13kh3kw2sh2ph1dh1",
                                     "ic20id3ih4iw4oc9kd2kh3kw3pd1ph1pw1", "ic272ih3iw4oc15kh1", "ic240ih2oc9kh2"},
                        {1, 3}, {Layout::nchw, Layout::nhwc, Layout::strided}, {ANYDNN_DATA_FLOAT});
}

// IMPLICIT_PRECOMP_GEMM's result bits must not depend on the thread count:
// the product's orientation (filter_a; with 97 pixels, 4 x 24 + 1, the
// filter-as-A product computes the last pixel in the GEMM's column tile,
// which rounds differently from the channels-last product's tiles), and
// the dot products (pixel_dots), whose threads split the output channels.
TEST_P(ConvEdge, PrecompSameBitsForAnyThreadCount) {
    for (const char *text : {"ic64ih9oc256kh3ph1", "ic300ih7oc50kh1"})
        check_same_bits(GetParam(), text, 1, Layout::nhwc, ANYDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM);
}

// DIRECT first layers (few_channels): the bands of rows, and so each
// worker's items, depend on the thread count; y channels first and last.
TEST_P(ConvEdge, FewChannelsAnyThreadCount) {
    for (int threads : {1, 2, 3, 8}) {
        Handle h(GetParam(), threads);
        SKIP_IF_UNAVAILABLE(h);
        for (const char *text : {"ic3ih40iw31oc24kh3sh2ph1", "ic1ih23iw50oc16kh5ph2"})
            for (Layout layout : {Layout::nchw, Layout::nhwc})
                for (int mb : {1, 3}) {
                    Checker checker(make_case(text, mb, layout));
                    for (Mode mode : {Mode::beta0, Mode::fused})
                        EXPECT_TRUE(checker.check(h, ANYDNN_CONVOLUTION_FWD_ALGO_DIRECT, mode))
                            << text << " mb" << mb << ", " << threads << " threads";
                    if (HasFailure()) return;
                }
    }
}

INSTANTIATE_TEST_SUITE_P(Isa, ConvEdge, ::testing::ValuesIn(isa_levels()));

// ---- WINOGRAD_NONFUSED ----------------------------------------------------------------

// (The list shapes above run it wherever it applies: the 3x3 stride-1 ones.)
class ConvWinograd : public ::testing::TestWithParam<std::string> {};

constexpr anydnnConvolutionFwdAlgo_t kWinograd = ANYDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;

// Small and odd sizes (partial tiles, outputs of 1 pixel, padding 0-2),
// groups and odd channel counts, on 1 and 2 threads, every mode; f64, f16
// and bf16 on some.
TEST_P(ConvWinograd, OddSizesGroupsAndThreads) {
    std::vector<std::string> shapes;
    int i = 0;
    for (int hw : {1, 2, 3, 5, 7, 13})
        for (int pad : {0, 1, 2}) {
            if (hw + 2 * pad < 3) continue;
            const int w2 = (i++ % 2 == 0) ? hw : (hw == 13 ? 6 : hw + 4);
            shapes.push_back("ic5ih" + std::to_string(hw) + "iw" + std::to_string(w2) + "oc7kh3ph" +
                             std::to_string(pad) + "pw" + std::to_string(pad));
        }
    shapes.push_back("g2ic8ih9iw11oc6kh3ph1");
    shapes.push_back("g3ic12ih6oc9kh3ph0");
    shapes.push_back("mb3ic70ih10oc66kh3ph1");  // channels past one 64-lane step
    for (int threads : {1, 2}) {
        Handle h(GetParam(), threads);
        SKIP_IF_UNAVAILABLE(h);
        int k = 0;
        for (const std::string &text : shapes) {
            const Layout layout = k % 2 == 0 ? Layout::nchw : Layout::nhwc;
            const anydnnDataType_t types[] = {ANYDNN_DATA_FLOAT, ANYDNN_DATA_DOUBLE, ANYDNN_DATA_HALF,
                                              ANYDNN_DATA_BFLOAT16};
            std::vector<anydnnDataType_t> dts = {ANYDNN_DATA_FLOAT};
            if (k % 4 != 0) dts.push_back(types[k % 4]);
            for (anydnnDataType_t dt : dts) {
                ConvCase c = make_case(text, 1 + k % 2, layout, dt);
                c.flip = k % 3 == 2;
                Checker checker(c);
                for (Mode mode : {Mode::beta0, Mode::beta_half, Mode::fused, Mode::fused_z_is_y})
                    EXPECT_TRUE(checker.check(h, kWinograd, mode)) << c.to_string();
                if (HasFailure()) return;
            }
            ++k;
        }
        // Several blocks of tiles (2 x 64 of 64 + 64 channels), where U is
        // packed whole once (one block goes by slivers), filters flipped.
        for (Layout layout : {Layout::nhwc, Layout::nchw}) {
            ConvCase c = make_case("ic64ih32oc64kh3ph1", 2, layout, ANYDNN_DATA_FLOAT);
            c.flip = true;
            Checker checker(c);
            for (Mode mode : {Mode::beta_half, Mode::fused_z_is_y})
                EXPECT_TRUE(checker.check(h, kWinograd, mode)) << c.to_string();
        }
        // Several of the GEMM's reduction blocks (KC: 128 or 256): the
        // filter transform writes the engine's packed layout itself.
        for (const auto &[text, dt] : {std::pair{"ic300ih5oc50kh3ph1", ANYDNN_DATA_DOUBLE},
                                       std::pair{"ic600ih6oc20kh3ph1", ANYDNN_DATA_FLOAT}}) {
            Checker checker(make_case(text, 1, Layout::nhwc, dt));
            EXPECT_TRUE(checker.check(h, kWinograd, Mode::fused)) << text;
        }
    }
}

// The error against the fp64 sums relative to sum |w||x|, on the 3x3
// stride-1 layers of ResNet-50 and VGG-16 (mb1, sampled outputs): the bound
// documented in docs/ARCHITECTURE.md ("WINOGRAD_NONFUSED").
TEST_P(ConvWinograd, ErrorBound) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    double worst = 0;
    const char *shapes[] = {"ic64ih56oc64kh3ph1", "ic128ih28oc128kh3ph1", "ic256ih14oc256kh3ph1", "ic512ih7oc512kh3ph1",
                            "ic3ih32oc64kh3ph1", "ic64ih13iw7oc32kh3ph0"};
    for (const char *text : shapes) {
        if (kSanitized && std::string(text).find("ic512") != std::string::npos) continue;
        for (Layout layout : {Layout::nchw, Layout::nhwc}) {
            const ConvCase c = make_case(text, 1, layout);
            ConvSetup s(c);
            s.x->fill_random();
            s.w->fill_random();
            size_t ws_bytes = 0;
            ASSERT_OK(anydnnGetConvolutionForwardWorkspaceSize(h, s.x->desc(), s.filter, s.conv, s.y->desc(),
                                                               kWinograd, &ws_bytes));
            std::vector<unsigned char> ws(ws_bytes);
            const Scalar one(1), zero(0);
            ASSERT_OK(anydnnConvolutionForward(h, one.ptr(c.dt), s.x->desc(), s.x->data(), s.filter, s.w->data(),
                                               s.conv, kWinograd, ws.data(), ws_bytes, zero.ptr(c.dt), s.y->desc(),
                                               s.y->data()));
            // The fp64 sum and sum |w||x| of sampled outputs (one group, NCHW/KCRS logical order).
            const std::vector<double> x = s.x->values(), w = s.w->values();
            const int64_t C = s.x_dims[1], H = s.x_dims[2], W = s.x_dims[3];
            const int64_t K = s.y_dims[1], OH = s.y_dims[2], OW = s.y_dims[3];
            const int64_t pad = c.shape.p[1];
            for (int64_t lin : sample_elements(static_cast<int64_t>(K) * OH * OW, 512)) {
                const int64_t ow = lin % OW, oh = lin / OW % OH, k = lin / (OW * OH);
                double sum = 0, mag = 0;
                for (int64_t ci = 0; ci < C; ++ci)
                    for (int64_t r = 0; r < 3; ++r)
                        for (int64_t q = 0; q < 3; ++q) {
                            const int64_t ih = oh + r - pad, iw = ow + q - pad;
                            if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                            const double p = x[(ci * H + ih) * W + iw] * w[((k * C + ci) * 3 + r) * 3 + q];
                            sum += p;
                            mag += std::fabs(p);
                        }
                const double got = s.y->at_offset(offset_of(*s.y, lin));
                if (mag > 0) worst = std::max(worst, std::fabs(got - sum) / mag);
            }
        }
    }
    const double eps = compute_eps(ANYDNN_DATA_FLOAT);
    std::printf("WINOGRAD_NONFUSED f32 (%s): max |y - y64| / sum |w||x| = %.3g = %.1f eps (bound %.0f eps)\n",
                GetParam().c_str(), worst, worst / eps, kWinogradBound);
    EXPECT_LE(worst, kWinogradBound * eps);
}

// Every element is one fixed sequence of operations whatever the thread
// count (the blocks of tiles change with it; the GEMM's bits do not).
TEST_P(ConvWinograd, SameBitsForAnyThreadCount) {
    for (Layout layout : {Layout::nchw, Layout::nhwc})
        check_same_bits(GetParam(), "ic32ih28oc32kh3ph1", 8, layout, kWinograd);
}

INSTANTIATE_TEST_SUITE_P(Isa, ConvWinograd, ::testing::ValuesIn(isa_levels()));

}  // namespace
