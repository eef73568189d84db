// ConvolutionBackwardData, ConvolutionBackwardFilter and
// ConvolutionBackwardBias against the reference, for every algorithm that
// claims a problem (its workspace query succeeds), on every ISA level: the
// shape lists of tools/bench/lists at mb1 and mb3, NCHW and NHWC, beta 0
// (the output poisoned: it must not be read) and beta 0.5; the edge cases
// with strided tensors, CONVOLUTION mode, f64, f16 and bf16; a
// finite-difference check in f64 that ties the three directions to the
// forward; bitwise determinism across thread counts; the error statuses.
//
// Tolerance as the forward suite's: each sum of L products of values in
// [-1, 1] may be off by 2 L eps of the compute type, where L is the length
// of the sum (backward data: K/groups * taps; backward filter: N * output
// pixels), plus the output's storage rounding; WINOGRAD_NONFUSED by
// kWinogradBound L eps (its measured error bound).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/conv_setup.hpp"
#include "core/isa.hpp"

using namespace anydnn_test;

namespace {

// The direct loops (ALGO_0) on the big list shapes would cost minutes:
// there they run up to this many flops per call (the edge cases run them everywhere).
constexpr double kDirectMaxFlops = 1.5e8;

// The largest 3-D shapes run at mb1 only: at mb3 each call of theirs would
// cost seconds.
constexpr double kListMaxFlops = 6e9;

// Products the backward-filter reference may spend per case.
constexpr int64_t kFilterRefBudget = 30'000'000;

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
constexpr double kSanitizerMaxFlops = 3e8;

enum class Dir { data, filter };

// One case's tensors and reference sums, checked against every algorithm
// and both betas: dy random; dx and dw compared at sampled elements.
class BwdChecker {
public:
    explicit BwdChecker(const ConvCase &c)
        : c_(c), s_(c), dy_(s_.like_y()), dx_(s_.like_x()), dw_(s_.like_w()), dx_init_(s_.like_x()),
          dw_init_(s_.like_w()) {
        dy_->fill_random();
        dx_init_->fill_random();
        dw_init_->fill_random();
        which_dx_ = sample_elements(dx_->shape().elements());
        // Each dw element's reference is a sum over every image and output
        // pixel: fewer samples where that is long.
        const int64_t dw_samples = std::clamp<int64_t>(kFilterRefBudget / (dy_->shape().elements() / s_.y_dims[1]), 64, 1536);
        which_dw_ = sample_elements(dw_->shape().elements(), dw_samples);
        dx_sums_ = ref::conv_backward_data_sums(s_.ref, *dy_, *s_.w, s_.x_dims, which_dx_);
        dw_sums_ = ref::conv_backward_filter_sums(s_.ref, *s_.x, *dy_, s_.w_dims, which_dw_);
        const int64_t out_pixels = dy_->shape().elements() / (static_cast<int64_t>(s_.y_dims[0]) * s_.y_dims[1]);
        data_len_ = s_.reduction / (s_.x_dims[1] / s_.ref.groups) * (s_.y_dims[1] / s_.ref.groups);
        filter_len_ = static_cast<int64_t>(s_.y_dims[0]) * out_pixels;
    }

    double flops() const { return 2.0 * static_cast<double>(s_.reduction) * dy_->shape().elements(); }

    // Runs algo (an anydnnConvolutionBwdDataAlgo_t or ...FilterAlgo_t) and
    // compares; false when the algorithm does not take the problem.
    bool check(const Handle &h, Dir dir, int algo, bool beta_half) {
        const bool data = dir == Dir::data;
        Tensor &out = data ? *dx_ : *dw_;
        const Tensor &init = data ? *dx_init_ : *dw_init_;
        size_t ws_bytes = 0;
        const anydnnStatus_t q =
            data ? anydnnGetConvolutionBackwardDataWorkspaceSize(h, s_.filter, dy_->desc(), s_.conv, dx_->desc(),
                                                                 static_cast<anydnnConvolutionBwdDataAlgo_t>(algo),
                                                                 &ws_bytes)
                 : anydnnGetConvolutionBackwardFilterWorkspaceSize(h, s_.x->desc(), dy_->desc(), s_.conv, s_.filter,
                                                                   static_cast<anydnnConvolutionBwdFilterAlgo_t>(algo),
                                                                   &ws_bytes);
        if (q == ANYDNN_STATUS_NOT_SUPPORTED) return false;
        EXPECT_OK(q);
        if (q != ANYDNN_STATUS_SUCCESS) return false;
        SCOPED_TRACE(c_.to_string() + (data ? " bwd_data" : " bwd_filter") + " algo " + std::to_string(algo) +
                     (beta_half ? " beta=0.5" : " beta=0") + " seed " + std::to_string(seed()));
        std::vector<unsigned char> ws(ws_bytes + 64, 0xa5);
        const double alpha = 0.75, beta = beta_half ? 0.5 : 0;
        if (beta_half) out.copy_from(init);
        else out.poison();
        std::unique_ptr<Tensor> before = data ? s_.like_x() : s_.like_w();
        before->copy_from(out);
        run(h, dir, algo, ws.data(), ws_bytes, alpha, beta);

        const std::vector<int64_t> &which = data ? which_dx_ : which_dw_;
        const std::vector<double> &sums = data ? dx_sums_ : dw_sums_;
        std::vector<double> want, got;
        for (size_t i = 0; i < which.size(); ++i) {
            const int64_t off = offset_of(out, which[i]);
            double v = alpha * sums[i];
            if (beta_half) v += beta * init.at_offset(off);
            want.push_back(round_to(c_.dt, v));
            got.push_back(out.at_offset(off));
        }
        const double len = static_cast<double>(data ? data_len_ : filter_len_);
        const bool winograd = data ? algo == ANYDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED
                                   : algo == ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED;
        const double abs_tol = (winograd ? kWinogradBound : 2) * len * compute_eps(c_.dt) + 1e-6;
        const double rel_tol = 2 * storage_tol(c_.dt) + (c_.dt == ANYDNN_DATA_DOUBLE ? 1e-12 : 1e-5);
        expect_close(got, want, rel_tol, abs_tol, data ? "dx" : "dw");
        EXPECT_TRUE(out.guards_intact());
        if (c_.layout == Layout::strided) EXPECT_TRUE(out.gaps_equal(*before)) << "a gap of the output was written";
        EXPECT_TRUE(std::all_of(ws.end() - 64, ws.end(), [](unsigned char v) { return v == 0xa5; }))
            << "write past the workspace";
        return true;
    }

    // The raw call, on this case's tensors.
    void run(const Handle &h, Dir dir, int algo, void *ws, size_t ws_bytes, double alpha, double beta) {
        const Scalar a(alpha), b(beta);
        const anydnnDataType_t dt = c_.dt;
        if (dir == Dir::data)
            EXPECT_OK(anydnnConvolutionBackwardData(h, a.ptr(dt), s_.filter, s_.w->data(), dy_->desc(), dy_->data(),
                                                    s_.conv, static_cast<anydnnConvolutionBwdDataAlgo_t>(algo), ws,
                                                    ws_bytes, b.ptr(dt), dx_->desc(), dx_->data()));
        else
            EXPECT_OK(anydnnConvolutionBackwardFilter(h, a.ptr(dt), s_.x->desc(), s_.x->data(), dy_->desc(),
                                                      dy_->data(), s_.conv,
                                                      static_cast<anydnnConvolutionBwdFilterAlgo_t>(algo), ws,
                                                      ws_bytes, b.ptr(dt), s_.filter, dw_->data()));
    }

    Tensor &dx() { return *dx_; }
    Tensor &dw() { return *dw_; }

private:
    ConvCase c_;
    ConvSetup s_;
    std::unique_ptr<Tensor> dy_, dx_, dw_, dx_init_, dw_init_;
    std::vector<int64_t> which_dx_, which_dw_;
    std::vector<double> dx_sums_, dw_sums_;
    int64_t data_len_ = 1, filter_len_ = 1;
};

// Every algorithm of both directions, claimed or not.
int check_all(BwdChecker &checker, const Handle &h, bool limit_direct) {
    int claimed = 0;
    for (Dir dir : {Dir::data, Dir::filter}) {
        const int count = dir == Dir::data ? int{ANYDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT}
                                           : int{ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT};
        for (int algo = 0; algo < count; ++algo) {
            if (algo == 0 && limit_direct && checker.flops() > kDirectMaxFlops) continue;
            for (bool beta_half : {false, true}) claimed += checker.check(h, dir, algo, beta_half);
        }
    }
    return claimed;
}

// ---- The shape lists ------------------------------------------------------------------

struct ListParam {
    const char *file;
    const char *isa;
};

class ConvBwdList : public ::testing::TestWithParam<ListParam> {};

// On the machine's own ISA level every shape runs at the four (mb, layout)
// pairs; the lower levels (and every level under the sanitizers), which
// differ only in the GEMM's tiles, at one of them in turn.
TEST_P(ConvBwdList, MatchesReference) {
    Handle h(GetParam().isa);
    SKIP_IF_UNAVAILABLE(h);
    anydnn::Isa isa;
    const bool all_pairs = !kSanitized && anydnn::parse_isa(GetParam().isa, &isa) && isa == anydnn::detected_isa();
    const std::vector<anydnn_bench::ConvShape> shapes = load_conv_list(GetParam().file);
    ASSERT_FALSE(shapes.empty());
    int index = 0;
    for (const anydnn_bench::ConvShape &shape : shapes) {
        for (int mb : {1, 3}) {
            for (Layout layout : {Layout::nchw, Layout::nhwc}) {
                const int pair = (mb == 1 ? 0 : 2) + (layout == Layout::nhwc ? 1 : 0);
                if (!all_pairs && pair != index % 4) continue;
                const double flops = shape.flops() / static_cast<double>(shape.mb) * mb;
                if (kSanitized && flops > kSanitizerMaxFlops) continue;
                if (mb > 1 && flops > kListMaxFlops) continue;
                ConvCase c;
                c.shape = shape;
                c.mb = mb;
                c.layout = layout;
                BwdChecker checker(c);
                EXPECT_GT(check_all(checker, h, true), 0) << c.to_string() << ": no algorithm took it";
                if (HasFailure()) return;  // one failing shape is enough to read
            }
        }
        ++index;
    }
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
    return name.substr(0, name.size() - 4) + "_" + info.param.isa;
}

INSTANTIATE_TEST_SUITE_P(Lists, ConvBwdList, ::testing::ValuesIn(list_params()), list_param_name);

// ---- Edge cases -----------------------------------------------------------------------

const char *const kEdgeShapes[] = {
    "mb2ic3ih7iw5oc5oh7ow5kh3kw3ph1pw1",
    "g2ic6ih9oc4kh3sh2ph2",             // pad > kernel half, stride 2
    "ic5ih11oc7kh3sh3dh2ph3",           // stride 3 with dilation 3
    "ic4ih10iw13oc6kh2kw4sh2sw3ph1pw2", // asymmetric everything
    "ic4ih10oc3kh1sh3",                 // stride > kernel: dx rows no tap reaches
    "ic3ih8oc4kh3sh2",                  // trailing input rows no output reads
    "g6ic6ih8oc12kh3ph1",               // depthwise, multiplier 2
    "g6ic6ih8oc6kh5sh2ph2dh1",          // depthwise, dilated, strided
    "ic3id5ih6iw7oc4kd3kh3kw3pd1ph1pw1sd2",
    "g2ic4id4ih4iw4oc6kd2kh2kw2sd2sh2sw2",
    "ic8ih1iw1oc5kh1",
    "ic2ih5oc3kh5ph4",                  // output larger than the input
    "ic16ih6oc16kh1sh2",                // 1x1 strided
    "ic16ih6oc24kh1",                   // 1x1: dx and dy used in place
    "ic1ih9oc8kh3ph1",                  // one input channel
};

class ConvBwdEdge : public ::testing::TestWithParam<std::string> {};

TEST_P(ConvBwdEdge, EveryLayoutTypeAndBeta) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    for (const char *text : kEdgeShapes) {
        for (anydnnDataType_t dt : {ANYDNN_DATA_FLOAT, ANYDNN_DATA_DOUBLE, ANYDNN_DATA_HALF, ANYDNN_DATA_BFLOAT16}) {
            for (Layout layout : {Layout::nchw, Layout::nhwc, Layout::strided}) {
                for (bool flip : {false, true}) {
                    if (flip && dt != ANYDNN_DATA_FLOAT) continue;
                    ConvCase c = make_case(text, 2, layout, dt);
                    c.flip = flip;
                    BwdChecker checker(c);
                    EXPECT_GT(check_all(checker, h, false), 0) << c.to_string();
                    if (HasFailure()) return;
                }
            }
        }
    }
}

// 1-D: x is N x C x W.
TEST_P(ConvBwdEdge, OneSpatialDimension) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    for (Layout layout : {Layout::nchw, Layout::nhwc}) {
        ConvCase c = make_case("ic5ih1iw17oc6kh1kw3sw2pw1", 3, layout);
        c.shape.ndims = 1;
        BwdChecker checker(c);
        for (Dir dir : {Dir::data, Dir::filter})
            for (int algo : {0, 1}) EXPECT_TRUE(checker.check(h, dir, algo, true)) << c.to_string();
    }
}

// Images too big for one batch-reduce GEMM over all of them (f16 storage:
// the f32 planes and dy grid of one image take 17 MiB, the batch budget is
// 32 MiB): the filter sums run over one image at a time, the later ones
// with beta 1. On the machine's own ISA level only (the path is the same).
TEST_P(ConvBwdEdge, FilterOverSeveralImageChunks) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    anydnn::Isa isa;
    if (!anydnn::parse_isa(GetParam().c_str(), &isa) || isa != anydnn::detected_isa()) GTEST_SKIP();
    for (Layout layout : {Layout::nchw, Layout::nhwc}) {
        BwdChecker checker(make_case("ic64ih182oc64kh1ph1", 3, layout, ANYDNN_DATA_HALF));
        for (bool beta_half : {false, true}) EXPECT_TRUE(checker.check(h, Dir::filter, 1, beta_half));
    }
}

// Backward data channels first with stride 2 and a dx over 16 MiB (f32):
// the rows put together from the planes go out in streamed chunks (beta 0)
// or blended row by row (beta 0.5); rows of 183 values, not a whole number
// of vectors or lines. On the machine's own ISA level only.
TEST_P(ConvBwdEdge, DataStridedLargeOutputStreamed) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    anydnn::Isa isa;
    if (!anydnn::parse_isa(GetParam().c_str(), &isa) || isa != anydnn::detected_isa()) GTEST_SKIP();
    for (const char *text : {"ic64ih182iw183oc16kh1sh2ph0", "ic64ih182iw183oc16kh3sh2ph1"}) {
        BwdChecker checker(make_case(text, 2, Layout::nchw));
        for (bool beta_half : {false, true}) EXPECT_TRUE(checker.check(h, Dir::data, 1, beta_half)) << text;
    }
}

INSTANTIATE_TEST_SUITE_P(Isa, ConvBwdEdge, ::testing::ValuesIn(isa_levels()));

// ---- Backward filter WINOGRAD_NONFUSED ------------------------------------------------

// (The list and edge shapes above run it wherever it applies: the 3x3 stride-1 ones.)
class ConvBwdFilterWinograd : public ::testing::TestWithParam<std::string> {};

constexpr int kFilterWinograd = ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED;

// Partial tiles (outputs of 1 to 13 pixels a side, padding 0-2), groups,
// channels past one 64-lane step, several blocks of tiles (mb8 30x30: 512
// tiles, blocks of 256), on 1 and 2 threads; f64, f16 and bf16 on some.
TEST_P(ConvBwdFilterWinograd, OddSizesGroupsBlocksAndThreads) {
    std::vector<std::pair<std::string, int>> shapes;
    int i = 0;
    for (int hw : {1, 2, 5, 7, 13})
        for (int pad : {0, 1, 2}) {
            if (hw + 2 * pad < 3) continue;
            const int w2 = (i++ % 2 == 0) ? hw : (hw == 13 ? 6 : hw + 4);
            shapes.push_back({"ic5ih" + std::to_string(hw) + "iw" + std::to_string(w2) + "oc7kh3ph" +
                                  std::to_string(pad) + "pw" + std::to_string(pad),
                              1 + i % 2});
        }
    shapes.push_back({"g2ic8ih9iw11oc6kh3ph1", 2});
    shapes.push_back({"g3ic12ih6oc9kh3ph0", 1});
    shapes.push_back({"ic70ih10oc66kh3ph1", 3});
    shapes.push_back({"ic24ih30oc40kh3ph1", 8});
    for (int threads : {1, 2}) {
        Handle h(GetParam(), threads);
        SKIP_IF_UNAVAILABLE(h);
        int k = 0;
        for (const auto &[text, mb] : shapes) {
            const anydnnDataType_t types[] = {ANYDNN_DATA_FLOAT, ANYDNN_DATA_DOUBLE, ANYDNN_DATA_HALF,
                                              ANYDNN_DATA_BFLOAT16};
            ConvCase c = make_case(text, mb, k % 2 == 0 ? Layout::nchw : Layout::nhwc, types[k % 4]);
            c.flip = k % 3 == 2;
            BwdChecker checker(c);
            for (bool beta_half : {false, true})
                EXPECT_TRUE(checker.check(h, Dir::filter, kFilterWinograd, beta_half)) << c.to_string();
            if (HasFailure()) return;
            ++k;
        }
    }
}

// The error against the fp64 sums relative to sum |dy||x|, on the 3x3
// stride-1 layers of ResNet-50 and VGG-16 (sampled filter elements): the
// bound kWinogradBound (docs/ARCHITECTURE.md, "WINOGRAD_NONFUSED").
TEST_P(ConvBwdFilterWinograd, ErrorBound) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    double worst = 0;
    const char *shapes[] = {"ic64ih56oc64kh3ph1", "ic128ih28oc128kh3ph1", "ic256ih14oc256kh3ph1", "ic512ih7oc512kh3ph1",
                            "ic3ih32oc64kh3ph1", "ic64ih13iw7oc32kh3ph0"};
    for (const char *text : shapes) {
        if (kSanitized && std::string(text).find("ic512") != std::string::npos) continue;
        for (Layout layout : {Layout::nchw, Layout::nhwc}) {
            const ConvCase c = make_case(text, 2, layout);
            ConvSetup s(c);
            std::unique_ptr<Tensor> dy = s.like_y(), dw = s.like_w();
            dy->fill_random();
            size_t ws_bytes = 0;
            const auto algo = static_cast<anydnnConvolutionBwdFilterAlgo_t>(kFilterWinograd);
            ASSERT_OK(anydnnGetConvolutionBackwardFilterWorkspaceSize(h, s.x->desc(), dy->desc(), s.conv, s.filter,
                                                                      algo, &ws_bytes));
            std::vector<unsigned char> ws(ws_bytes);
            const Scalar one(1), zero(0);
            ASSERT_OK(anydnnConvolutionBackwardFilter(h, one.ptr(c.dt), s.x->desc(), s.x->data(), dy->desc(),
                                                      dy->data(), s.conv, algo, ws.data(), ws_bytes, zero.ptr(c.dt),
                                                      s.filter, dw->data()));
            // The fp64 sum and sum |dy||x| of sampled filter elements (one group, NCHW/KCRS logical order).
            const std::vector<double> x = s.x->values(), g = dy->values();
            const int64_t N = s.x_dims[0], C = s.x_dims[1], H = s.x_dims[2], W = s.x_dims[3];
            const int64_t K = s.y_dims[1], OH = s.y_dims[2], OW = s.y_dims[3];
            const int64_t pad = c.shape.p[1];
            for (int64_t lin : sample_elements(K * C * 9, 256)) {
                const int64_t q = lin % 3, r = lin / 3 % 3, ci = lin / 9 % C, k = lin / (9 * C);
                double sum = 0, mag = 0;
                for (int64_t n = 0; n < N; ++n)
                    for (int64_t oh = 0; oh < OH; ++oh)
                        for (int64_t ow = 0; ow < OW; ++ow) {
                            const int64_t ih = oh + r - pad, iw = ow + q - pad;
                            if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                            const double p = x[((n * C + ci) * H + ih) * W + iw] * g[((n * K + k) * OH + oh) * OW + ow];
                            sum += p;
                            mag += std::fabs(p);
                        }
                const double got = dw->at_offset(offset_of(*dw, lin));
                if (mag > 0) worst = std::max(worst, std::fabs(got - sum) / mag);
            }
        }
    }
    const double eps = compute_eps(ANYDNN_DATA_FLOAT);
    std::printf("backward filter WINOGRAD_NONFUSED f32 (%s): max |dw - dw64| / sum |dy||x| = %.3g = %.1f eps "
                "(bound %.0f eps)\n",
                GetParam().c_str(), worst, worst / eps, kWinogradBound);
    EXPECT_LE(worst, kWinogradBound * eps);
}

INSTANTIATE_TEST_SUITE_P(Isa, ConvBwdFilterWinograd, ::testing::ValuesIn(isa_levels()));

}  // namespace
