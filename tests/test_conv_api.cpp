// The convolution API around the kernels: the descriptor's setters and
// getters, output dimensions, algorithm queries (_v7, Find, FindEx,
// workspace sizes) and the documented BAD_PARAM / NOT_SUPPORTED answers.
#include <set>

#include "common/conv_setup.hpp"

using namespace anydnn_test;

namespace {

TEST(ConvDescriptor, SetAndGet2d) {
    anydnnConvolutionDescriptor_t d;
    ASSERT_OK(anydnnCreateConvolutionDescriptor(&d));
    int ph, pw, u, v, dh, dw;
    anydnnConvolutionMode_t mode;
    anydnnDataType_t ct;
    EXPECT_STATUS(anydnnGetConvolution2dDescriptor(d, &ph, &pw, &u, &v, &dh, &dw, &mode, &ct),
                  ANYDNN_STATUS_BAD_PARAM);  // never set
    ASSERT_OK(anydnnSetConvolution2dDescriptor(d, 1, 2, 3, 4, 5, 6, ANYDNN_CONVOLUTION, ANYDNN_DATA_FLOAT));
    ASSERT_OK(anydnnGetConvolution2dDescriptor(d, &ph, &pw, &u, &v, &dh, &dw, &mode, &ct));
    EXPECT_EQ(ph, 1);
    EXPECT_EQ(pw, 2);
    EXPECT_EQ(u, 3);
    EXPECT_EQ(v, 4);
    EXPECT_EQ(dh, 5);
    EXPECT_EQ(dw, 6);
    EXPECT_EQ(mode, ANYDNN_CONVOLUTION);
    EXPECT_EQ(ct, ANYDNN_DATA_FLOAT);
    int groups = 0;
    anydnnMathType_t math;
    anydnnReorderType_t reorder;
    ASSERT_OK(anydnnGetConvolutionGroupCount(d, &groups));
    EXPECT_EQ(groups, 1);
    ASSERT_OK(anydnnSetConvolutionGroupCount(d, 4));
    ASSERT_OK(anydnnGetConvolutionGroupCount(d, &groups));
    EXPECT_EQ(groups, 4);
    ASSERT_OK(anydnnSetConvolutionMathType(d, ANYDNN_TENSOR_OP_MATH));
    ASSERT_OK(anydnnGetConvolutionMathType(d, &math));
    EXPECT_EQ(math, ANYDNN_TENSOR_OP_MATH);
    ASSERT_OK(anydnnSetConvolutionReorderType(d, ANYDNN_NO_REORDER));
    ASSERT_OK(anydnnGetConvolutionReorderType(d, &reorder));
    EXPECT_EQ(reorder, ANYDNN_NO_REORDER);

    EXPECT_STATUS(anydnnSetConvolution2dDescriptor(d, -1, 0, 1, 1, 1, 1, ANYDNN_CONVOLUTION, ANYDNN_DATA_FLOAT),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetConvolution2dDescriptor(d, 0, 0, 0, 1, 1, 1, ANYDNN_CONVOLUTION, ANYDNN_DATA_FLOAT),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetConvolution2dDescriptor(d, 0, 0, 1, 1, 1, 0, ANYDNN_CONVOLUTION, ANYDNN_DATA_FLOAT),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetConvolution2dDescriptor(d, 0, 0, 1, 1, 1, 1, static_cast<anydnnConvolutionMode_t>(7),
                                                   ANYDNN_DATA_FLOAT),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetConvolutionGroupCount(d, 0), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetConvolutionMathType(d, static_cast<anydnnMathType_t>(9)), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetConvolutionGroupCount(nullptr, 1), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnCreateConvolutionDescriptor(nullptr), ANYDNN_STATUS_BAD_PARAM);
    // A failed set leaves the descriptor as it was.
    ASSERT_OK(anydnnGetConvolution2dDescriptor(d, &ph, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr));
    EXPECT_EQ(ph, 1);
    EXPECT_OK(anydnnDestroyConvolutionDescriptor(d));
}

TEST(ConvDescriptor, SetAndGetNd) {
    anydnnConvolutionDescriptor_t d;
    ASSERT_OK(anydnnCreateConvolutionDescriptor(&d));
    const int pad[] = {1, 2, 3}, stride[] = {2, 1, 3}, dil[] = {1, 2, 1};
    ASSERT_OK(anydnnSetConvolutionNdDescriptor(d, 3, pad, stride, dil, ANYDNN_CROSS_CORRELATION, ANYDNN_DATA_DOUBLE));
    int n = 0, p[3] = {}, s[3] = {}, dl[3] = {};
    anydnnConvolutionMode_t mode;
    anydnnDataType_t ct;
    ASSERT_OK(anydnnGetConvolutionNdDescriptor(d, 3, &n, p, s, dl, &mode, &ct));
    EXPECT_EQ(n, 3);
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(p[i], pad[i]);
        EXPECT_EQ(s[i], stride[i]);
        EXPECT_EQ(dl[i], dil[i]);
    }
    EXPECT_EQ(mode, ANYDNN_CROSS_CORRELATION);
    EXPECT_EQ(ct, ANYDNN_DATA_DOUBLE);
    // Fewer entries requested: only those are written.
    int p2[3] = {-7, -7, -7}, s2[3] = {-7, -7, -7}, d2[3] = {-7, -7, -7};
    ASSERT_OK(anydnnGetConvolutionNdDescriptor(d, 1, &n, p2, s2, d2, nullptr, nullptr));
    EXPECT_EQ(p2[0], 1);
    EXPECT_EQ(p2[1], -7);
    EXPECT_STATUS(anydnnGetConvolution2dDescriptor(d, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                                   nullptr),
                  ANYDNN_STATUS_BAD_PARAM);  // 3-D
    EXPECT_STATUS(anydnnSetConvolutionNdDescriptor(d, 0, pad, stride, dil, ANYDNN_CONVOLUTION, ANYDNN_DATA_FLOAT),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetConvolutionNdDescriptor(d, 7, pad, stride, dil, ANYDNN_CONVOLUTION, ANYDNN_DATA_FLOAT),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetConvolutionNdDescriptor(d, 2, nullptr, stride, dil, ANYDNN_CONVOLUTION, ANYDNN_DATA_FLOAT),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_OK(anydnnDestroyConvolutionDescriptor(d));
}

TEST(ConvOutputDim, MatchesTheFormula) {
    // (in + 2 pad - ((k - 1) dil + 1)) / stride + 1, per dimension.
    ConvSetup s(make_case("g2mb3ic4ih11iw13oc6kh3kw2sh2sw3ph1pw2dh1dw0", 3, Layout::nchw));
    int n, c, h, w;
    ASSERT_OK(anydnnGetConvolution2dForwardOutputDim(s.conv, s.x->desc(), s.filter, &n, &c, &h, &w));
    EXPECT_EQ(n, 3);
    EXPECT_EQ(c, 6);
    EXPECT_EQ(h, (11 + 2 - 5) / 2 + 1);
    EXPECT_EQ(w, (13 + 4 - 2) / 3 + 1);
    int dims[4];
    ASSERT_OK(anydnnGetConvolutionNdForwardOutputDim(s.conv, s.x->desc(), s.filter, 4, dims));
    EXPECT_EQ(std::vector<int>(dims, dims + 4), s.y_dims);
    EXPECT_STATUS(anydnnGetConvolutionNdForwardOutputDim(s.conv, s.x->desc(), s.filter, 5, dims),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnGetConvolution2dForwardOutputDim(s.conv, s.x->desc(), s.filter, nullptr, &c, &h, &w),
                  ANYDNN_STATUS_BAD_PARAM);
    // Channels that do not match the groups.
    ASSERT_OK(anydnnSetConvolutionGroupCount(s.conv, 3));
    EXPECT_STATUS(anydnnGetConvolution2dForwardOutputDim(s.conv, s.x->desc(), s.filter, &n, &c, &h, &w),
                  ANYDNN_STATUS_BAD_PARAM);
}

TEST(ConvOutputDim, FilterLargerThanPaddedInput) {
    ConvSetup s(make_case("ic2ih5oc2kh3ph1", 1, Layout::nchw));
    const int pad[] = {0, 0}, stride[] = {1, 1}, dil[] = {3, 3};  // dilated extent 7 > 5
    ASSERT_OK(anydnnSetConvolutionNdDescriptor(s.conv, 2, pad, stride, dil, ANYDNN_CROSS_CORRELATION,
                                               ANYDNN_DATA_FLOAT));
    int n, c, h, w;
    EXPECT_STATUS(anydnnGetConvolution2dForwardOutputDim(s.conv, s.x->desc(), s.filter, &n, &c, &h, &w),
                  ANYDNN_STATUS_BAD_PARAM);
}

class ConvAlgos : public ::testing::Test {
protected:
    Handle h{"generic"};
};

TEST_F(ConvAlgos, RankingListsEveryAlgorithmOnce) {
    int count = 0;
    ASSERT_OK(anydnnGetConvolutionForwardAlgorithmMaxCount(h, &count));
    EXPECT_EQ(count, ANYDNN_CONVOLUTION_FWD_ALGO_COUNT);
    for (const char *shape : {"ic16ih12oc32kh3ph1", "g16ic16ih12oc16kh3ph1"}) {
        ConvSetup s(make_case(shape, 2, Layout::nhwc));
        anydnnConvolutionFwdAlgoPerf_t perf[ANYDNN_CONVOLUTION_FWD_ALGO_COUNT + 2];
        int returned = 0;
        ASSERT_OK(anydnnGetConvolutionForwardAlgorithm_v7(h, s.x->desc(), s.filter, s.conv, s.y->desc(),
                                                          ANYDNN_CONVOLUTION_FWD_ALGO_COUNT + 2, &returned, perf));
        ASSERT_EQ(returned, ANYDNN_CONVOLUTION_FWD_ALGO_COUNT);
        std::set<int> seen;
        bool unsupported_seen = false;
        for (int i = 0; i < returned; ++i) {
            seen.insert(perf[i].algo);
            EXPECT_EQ(perf[i].time, -1);
            EXPECT_EQ(perf[i].determinism, ANYDNN_DETERMINISTIC);
            if (perf[i].status == ANYDNN_STATUS_SUCCESS) {
                EXPECT_FALSE(unsupported_seen) << "a supported algorithm after an unsupported one";
                size_t ws = 0;
                EXPECT_OK(anydnnGetConvolutionForwardWorkspaceSize(h, s.x->desc(), s.filter, s.conv, s.y->desc(),
                                                                   perf[i].algo, &ws));
                EXPECT_EQ(ws, perf[i].memory);
            } else {
                EXPECT_EQ(perf[i].status, ANYDNN_STATUS_NOT_SUPPORTED);
                unsupported_seen = true;
            }
        }
        EXPECT_EQ(seen.size(), static_cast<size_t>(ANYDNN_CONVOLUTION_FWD_ALGO_COUNT));
        // The fast path first: the GEMM for a dense convolution, DIRECT for a depthwise one.
        EXPECT_EQ(perf[0].algo, std::string(shape)[0] == 'g' ? ANYDNN_CONVOLUTION_FWD_ALGO_DIRECT
                                                              : ANYDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM);
        // A shorter request gets the best ones.
        anydnnConvolutionFwdAlgoPerf_t one;
        ASSERT_OK(anydnnGetConvolutionForwardAlgorithm_v7(h, s.x->desc(), s.filter, s.conv, s.y->desc(), 1,
                                                          &returned, &one));
        EXPECT_EQ(returned, 1);
        EXPECT_EQ(one.algo, perf[0].algo);
        EXPECT_STATUS(anydnnGetConvolutionForwardAlgorithm_v7(h, s.x->desc(), s.filter, s.conv, s.y->desc(), 0,
                                                              &returned, &one),
                      ANYDNN_STATUS_BAD_PARAM);
    }
}

TEST_F(ConvAlgos, FindTimesTheSupportedOnes) {
    ConvSetup s(make_case("ic8ih10oc12kh3ph1", 2, Layout::nchw));
    anydnnConvolutionFwdAlgoPerf_t perf[ANYDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int returned = 0;
    ASSERT_OK(anydnnFindConvolutionForwardAlgorithm(h, s.x->desc(), s.filter, s.conv, s.y->desc(),
                                                    ANYDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf));
    ASSERT_EQ(returned, ANYDNN_CONVOLUTION_FWD_ALGO_COUNT);
    EXPECT_EQ(perf[0].status, ANYDNN_STATUS_SUCCESS);
    EXPECT_GE(perf[0].time, 0);
    for (int i = 1; i < returned; ++i)
        if (perf[i].status == ANYDNN_STATUS_SUCCESS && perf[i].time >= 0) EXPECT_GE(perf[i].time, perf[i - 1].time);

    // Ex on the caller's buffers: with no workspace, the algorithms that need one say ALLOC_FAILED.
    s.y->poison();
    ASSERT_OK(anydnnFindConvolutionForwardAlgorithmEx(h, s.x->desc(), s.x->data(), s.filter, s.w->data(), s.conv,
                                                      s.y->desc(), s.y->data(), ANYDNN_CONVOLUTION_FWD_ALGO_COUNT,
                                                      &returned, perf, nullptr, 0));
    bool alloc_failed = false;
    for (int i = 0; i < returned; ++i) {
        if (perf[i].algo == ANYDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM) {
            EXPECT_EQ(perf[i].status, ANYDNN_STATUS_SUCCESS);
            EXPECT_GE(perf[i].time, 0);
        }
        alloc_failed |= perf[i].status == ANYDNN_STATUS_ALLOC_FAILED;
    }
    EXPECT_TRUE(alloc_failed);
    EXPECT_TRUE(s.y->guards_intact());
    EXPECT_STATUS(anydnnFindConvolutionForwardAlgorithmEx(h, s.x->desc(), s.x->data(), s.filter, s.w->data(), s.conv,
                                                          s.y->desc(), s.x->data(), 1, &returned, perf, nullptr, 0),
                  ANYDNN_STATUS_BAD_PARAM);  // y aliases x
}

TEST_F(ConvAlgos, UnsupportedAndBadArguments) {
    ConvSetup s(make_case("ic8ih10oc12kh3ph1", 1, Layout::nchw));
    size_t ws = 0;
    for (anydnnConvolutionFwdAlgo_t algo :
         {ANYDNN_CONVOLUTION_FWD_ALGO_GEMM, ANYDNN_CONVOLUTION_FWD_ALGO_FFT, ANYDNN_CONVOLUTION_FWD_ALGO_FFT_TILING,
          ANYDNN_CONVOLUTION_FWD_ALGO_WINOGRAD, ANYDNN_CONVOLUTION_FWD_ALGO_DIRECT})  // DIRECT: not depthwise
        EXPECT_STATUS(anydnnGetConvolutionForwardWorkspaceSize(h, s.x->desc(), s.filter, s.conv, s.y->desc(), algo,
                                                               &ws),
                      ANYDNN_STATUS_NOT_SUPPORTED);
    EXPECT_STATUS(anydnnGetConvolutionForwardWorkspaceSize(h, s.x->desc(), s.filter, s.conv, s.y->desc(),
                                                           static_cast<anydnnConvolutionFwdAlgo_t>(42), &ws),
                  ANYDNN_STATUS_BAD_PARAM);

    const anydnnConvolutionFwdAlgo_t precomp = ANYDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    ASSERT_OK(anydnnGetConvolutionForwardWorkspaceSize(h, s.x->desc(), s.filter, s.conv, s.y->desc(), precomp, &ws));
    ASSERT_GT(ws, 0u);
    std::vector<unsigned char> space(ws);
    const Scalar one(1), zero(0);
    s.y->fill_random();
    Tensor before(s.y->shape(), s.y->dtype());
    before.copy_from(*s.y);
    // Too little workspace, a NULL workspace, an unsupported algorithm: y untouched.
    EXPECT_STATUS(anydnnConvolutionForward(h, &one.f, s.x->desc(), s.x->data(), s.filter, s.w->data(), s.conv,
                                           precomp, space.data(), ws - 1, &zero.f, s.y->desc(), s.y->data()),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnConvolutionForward(h, &one.f, s.x->desc(), s.x->data(), s.filter, s.w->data(), s.conv,
                                           precomp, nullptr, ws, &zero.f, s.y->desc(), s.y->data()),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnConvolutionForward(h, &one.f, s.x->desc(), s.x->data(), s.filter, s.w->data(), s.conv,
                                           ANYDNN_CONVOLUTION_FWD_ALGO_WINOGRAD, space.data(), ws, &zero.f,
                                           s.y->desc(), s.y->data()),
                  ANYDNN_STATUS_NOT_SUPPORTED);
    EXPECT_STATUS(anydnnConvolutionForward(h, nullptr, s.x->desc(), s.x->data(), s.filter, s.w->data(), s.conv,
                                           precomp, space.data(), ws, &zero.f, s.y->desc(), s.y->data()),
                  ANYDNN_STATUS_BAD_PARAM);
    // y with the wrong dimensions (x's).
    EXPECT_STATUS(anydnnConvolutionForward(h, &one.f, s.x->desc(), s.x->data(), s.filter, s.w->data(), s.conv,
                                           precomp, space.data(), ws, &zero.f, s.x->desc(), s.y->data()),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_EQ(s.y->values(), before.values());

    // Mixed types; a compute type the CPU backend lacks.
    Tensor xd(s.x->shape(), ANYDNN_DATA_DOUBLE);
    EXPECT_STATUS(anydnnConvolutionForward(h, &one.f, xd.desc(), xd.data(), s.filter, s.w->data(), s.conv, precomp,
                                           space.data(), ws, &zero.f, s.y->desc(), s.y->data()),
                  ANYDNN_STATUS_BAD_PARAM);
    const int pad[] = {1, 1}, stride[] = {1, 1}, dil[] = {1, 1};
    ASSERT_OK(anydnnSetConvolutionNdDescriptor(s.conv, 2, pad, stride, dil, ANYDNN_CROSS_CORRELATION,
                                               ANYDNN_DATA_HALF));
    EXPECT_STATUS(anydnnGetConvolutionForwardWorkspaceSize(h, s.x->desc(), s.filter, s.conv, s.y->desc(), precomp,
                                                           &ws),
                  ANYDNN_STATUS_NOT_SUPPORTED);
}

// WINOGRAD_NONFUSED is F(4x4, 3x3): 2-D 3x3 filters, stride 1, dilation 1.
TEST_F(ConvAlgos, WinogradTakesOnly3x3Stride1) {
    const anydnnConvolutionFwdAlgo_t wino = ANYDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
    size_t ws = 0;
    {
        ConvSetup s(make_case("ic8ih10oc12kh3ph1", 2, Layout::nhwc));
        EXPECT_OK(anydnnGetConvolutionForwardWorkspaceSize(h, s.x->desc(), s.filter, s.conv, s.y->desc(), wino, &ws));
        EXPECT_GT(ws, 0u);
    }
    for (const char *shape : {"ic8ih10oc12kh5ph2", "ic8ih10oc12kh3sh2ph1", "ic8ih10oc12kh3dh1ph2", "ic8ih10oc12kh3kw1ph1pw0",
                              "ic4id6ih6iw6oc4kd3kh3kw3pd1ph1pw1", "ic4id6ih6iw6oc4kd1kh3kw3ph1pw1"}) {
        SCOPED_TRACE(shape);
        ConvSetup s(make_case(shape, 1, Layout::nchw));
        EXPECT_STATUS(anydnnGetConvolutionForwardWorkspaceSize(h, s.x->desc(), s.filter, s.conv, s.y->desc(), wino, &ws),
                      ANYDNN_STATUS_NOT_SUPPORTED);
        std::vector<unsigned char> space(1 << 16);
        const Scalar one(1), zero(0);
        s.y->fill_random();
        const std::vector<double> before = s.y->values();
        EXPECT_STATUS(anydnnConvolutionForward(h, &one.f, s.x->desc(), s.x->data(), s.filter, s.w->data(), s.conv,
                                               wino, space.data(), space.size(), &zero.f, s.y->desc(), s.y->data()),
                      ANYDNN_STATUS_NOT_SUPPORTED);
        EXPECT_EQ(s.y->values(), before);
    }
}

TEST_F(ConvAlgos, FusedCallChecksItsOperands) {
    ConvSetup s(make_case("ic4ih6oc5kh3ph1", 1, Layout::nchw));
    anydnnActivationDescriptor_t act;
    ASSERT_OK(anydnnCreateActivationDescriptor(&act));
    ASSERT_OK(anydnnSetActivationDescriptor(act, ANYDNN_ACTIVATION_RELU, ANYDNN_NOT_PROPAGATE_NAN, 0));
    auto bias = s.bias();
    auto z = s.like_y();
    Tensor wrong_bias(packed({1, 4, 1, 1}), ANYDNN_DATA_FLOAT);
    const Scalar one(1);
    const anydnnConvolutionFwdAlgo_t implicit = ANYDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    auto call = [&](anydnnTensorDescriptor_t zd, const void *zp, anydnnTensorDescriptor_t bd, const void *bp,
                    anydnnActivationDescriptor_t ad) {
        return anydnnConvolutionBiasActivationForward(h, &one.f, s.x->desc(), s.x->data(), s.filter, s.w->data(),
                                                      s.conv, implicit, nullptr, 0, &one.f, zd, zp, bd, bp, ad,
                                                      s.y->desc(), s.y->data());
    };
    EXPECT_OK(call(z->desc(), z->data(), bias->desc(), bias->data(), act));
    EXPECT_STATUS(call(z->desc(), z->data(), wrong_bias.desc(), wrong_bias.data(), act), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(call(z->desc(), z->data(), bias->desc(), nullptr, act), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(call(z->desc(), nullptr, bias->desc(), bias->data(), act), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(call(z->desc(), z->data(), bias->desc(), bias->data(), nullptr), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(call(s.x->desc(), z->data(), bias->desc(), bias->data(), act), ANYDNN_STATUS_BAD_PARAM);
    // z may be y itself (a residual added in place).
    EXPECT_OK(call(s.y->desc(), s.y->data(), bias->desc(), bias->data(), act));
    anydnnDestroyActivationDescriptor(act);
}

}  // namespace
