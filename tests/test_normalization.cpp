// The generic normalization API (cuDNN 8's NormalizationForward*/Backward)
// against the reference on every ISA level: PER_ACTIVATION and PER_CHANNEL
// as cuDNN, and anydnn's LAYER, INSTANCE, GROUP and RMS modes; NCHW, NHWC
// and padded tensors, beta 0 and not, alpha other than 1, f64 and the
// 16-bit types, the fused add + RELU; finite differences of every mode's
// backward pass; the derived descriptors; the error statuses.
#include "common/norm_harness.hpp"

using namespace anydnn_test;
using ref::NormKind;

namespace {

class Normalization : public ::testing::TestWithParam<std::string> {};

NormCase norm_case(NormKind kind, int groups, std::vector<int> dims, LayoutFn layout,
                   anydnnDataType_t dt = ANYDNN_DATA_FLOAT, double alpha = 1, double beta = 0) {
    NormCase c;
    c.norm.kind = kind;
    c.norm.groups = groups;
    c.dims = std::move(dims);
    c.layout = layout;
    c.dt = dt;
    c.alpha = alpha;
    c.beta = beta;
    return c;
}

const LayoutFn kLayouts[] = {packed, packed_nhwc, padded_by_2};
const NormKind kKinds[] = {NormKind::per_activation, NormKind::spatial, NormKind::layer,
                           NormKind::instance,       NormKind::group,   NormKind::rms};

TEST_P(Normalization, EveryModeAndLayout) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    // A transformer-ish layer norm row, a ResNet block, odd sizes, 5-D.
    const std::vector<int> shapes[] = {{2, 32, 14, 14}, {3, 12, 5, 7}, {2, 6, 1, 1}, {2, 8, 3, 4, 5}};
    int i = 0;
    for (const auto &dims : shapes)
        for (LayoutFn l : kLayouts)
            for (NormKind k : kKinds) {
                const int groups = k == NormKind::group ? (dims[1] % 4 == 0 ? 4 : 3) : 1;
                NormCase c = norm_case(k, groups, dims, l, ANYDNN_DATA_FLOAT, i % 2 ? 0.5 : 1.0, i % 3 ? 0 : 0.75);
                c.saved_null = i % 5 == 4;
                check_norm(h, c);
                ++i;
            }
}

// Layer, RMS and instance normalization of packed NCHW with 32 groups or
// more take a row per group in one pass (forward_groups, grad_groups): rows
// whose values are close (|mean| * inv far above 64: the odd images'
// shifted) compute in double there, the others in float, in the same
// call; strided rows and fewer groups go the two passes.
TEST_P(Normalization, GroupRowsOfCloseValues) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    for (NormKind k : {NormKind::layer, NormKind::rms, NormKind::instance})
        for (double shift : {0.0, 1000.0}) {
            NormCase c = norm_case(k, 1, {40, 7, 5, 3}, packed, ANYDNN_DATA_FLOAT, 0.5, shift > 0 ? 0.25 : 0);
            c.odd_images_shift = shift;
            check_norm(h, c);
        }
    // BERT's row, 130 tokens: the backward's parameter sums in several chunks of rows.
    check_norm(h, norm_case(NormKind::layer, 1, {130, 768, 1, 1}, packed, ANYDNN_DATA_FLOAT));
    check_norm(h, norm_case(NormKind::layer, 1, {5, 33, 7, 1}, padded_by_2, ANYDNN_DATA_DOUBLE, 1, 0.5));
}

TEST_P(Normalization, OtherTypes) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    for (anydnnDataType_t dt : {ANYDNN_DATA_DOUBLE, ANYDNN_DATA_HALF, ANYDNN_DATA_BFLOAT16})
        for (NormKind k : kKinds)
            check_norm(h, norm_case(k, k == NormKind::group ? 2 : 1, {2, 8, 5, 6}, dt == ANYDNN_DATA_HALF
                                                                                    ? packed_nhwc
                                                                                    : packed,
                                    dt, 1, dt == ANYDNN_DATA_DOUBLE ? 0.5 : 0));
}

TEST_P(Normalization, FusedAddRelu) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    int i = 0;
    for (NormKind k : kKinds)
        for (bool add : {false, true}) {
            NormCase c = norm_case(k, k == NormKind::group ? 4 : 1, {2, 8, 6, 5}, kLayouts[i % 3]);
            c.norm.relu = true;
            c.norm.add = add;
            c.beta = i % 2 ? 0.5 : 0;
            check_norm(h, c);
            ++i;
        }
}

TEST_P(Normalization, GradientMatchesFiniteDifferences) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    for (NormKind k : kKinds) {
        ref::Norm n{k, k == NormKind::group ? 2 : 1};
        check_norm_gradient(h, n, {2, 4, 3, 2}, NormApi::generic);
    }
}

INSTANTIATE_TEST_SUITE_P(Isa, Normalization, ::testing::ValuesIn(isa_levels()),
                         [](const auto &info) { return info.param; });

TEST(NormalizationDerive, Shapes) {
    Tensor x(packed({2, 6, 3, 4}), ANYDNN_DATA_BFLOAT16);
    anydnnTensorDescriptor_t sb, mv;
    ASSERT_OK(anydnnCreateTensorDescriptor(&sb));
    ASSERT_OK(anydnnCreateTensorDescriptor(&mv));
    auto dims_of = [](anydnnTensorDescriptor_t d) {
        anydnnDataType_t dt;
        int nd = 0, dims[8], strides[8];
        EXPECT_OK(anydnnGetTensorNdDescriptor(d, 8, &dt, &nd, dims, strides));
        EXPECT_EQ(dt, ANYDNN_DATA_FLOAT);
        return std::vector<int>(dims, dims + nd);
    };
    struct Want {
        anydnnNormMode_t mode;
        int groups;
        std::vector<int> scale, stat;
    };
    const Want wants[] = {
        {ANYDNN_NORM_PER_ACTIVATION, 1, {1, 6, 3, 4}, {1, 6, 3, 4}},
        {ANYDNN_NORM_PER_CHANNEL, 1, {1, 6, 1, 1}, {1, 6, 1, 1}},
        {ANYDNN_NORM_LAYER, 1, {1, 6, 3, 4}, {2, 1, 1, 1}},
        {ANYDNN_NORM_INSTANCE, 1, {1, 6, 1, 1}, {2, 6, 1, 1}},
        {ANYDNN_NORM_GROUP, 3, {1, 6, 1, 1}, {2, 3, 1, 1}},
        {ANYDNN_NORM_RMS, 1, {1, 6, 3, 4}, {2, 1, 1, 1}},
    };
    for (const Want &w : wants) {
        SCOPED_TRACE(w.mode);
        ASSERT_OK(anydnnDeriveNormTensorDescriptor(sb, mv, x.desc(), w.mode, w.groups));
        EXPECT_EQ(dims_of(sb), w.scale);
        EXPECT_EQ(dims_of(mv), w.stat);
    }
    EXPECT_STATUS(anydnnDeriveNormTensorDescriptor(sb, mv, x.desc(), ANYDNN_NORM_GROUP, 4), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnDeriveNormTensorDescriptor(sb, mv, x.desc(), ANYDNN_NORM_GROUP, 0), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnDeriveNormTensorDescriptor(sb, mv, x.desc(), ANYDNN_NORM_LAYER, 2), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnDeriveNormTensorDescriptor(sb, mv, x.desc(), static_cast<anydnnNormMode_t>(5), 1),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnDeriveNormTensorDescriptor(sb, nullptr, x.desc(), ANYDNN_NORM_LAYER, 1),
                  ANYDNN_STATUS_BAD_PARAM);
    anydnnDestroyTensorDescriptor(sb);
    anydnnDestroyTensorDescriptor(mv);
}

TEST(NormalizationErrors, Statuses) {
    Handle h("generic");
    const std::vector<int> dims = {2, 6, 3, 3};
    Tensor x(packed(dims), ANYDNN_DATA_FLOAT), y(packed(dims), ANYDNN_DATA_FLOAT);
    Tensor scale(packed({1, 6, 3, 3}), ANYDNN_DATA_FLOAT), bias(packed({1, 6, 3, 3}), ANYDNN_DATA_FLOAT);
    Tensor mean(packed({2, 1, 1, 1}), ANYDNN_DATA_FLOAT), var(packed({2, 1, 1, 1}), ANYDNN_DATA_FLOAT);
    Tensor chan(packed({1, 6, 1, 1}), ANYDNN_DATA_FLOAT);
    x.fill_random();
    scale.fill_random();
    bias.fill_random();
    mean.fill_random();
    var.fill_random(0.5, 1);
    y.poison();
    const float one = 1, zero = 0;
    auto infer = [&](anydnnNormMode_t mode, anydnnNormOps_t ops, anydnnNormAlgo_t algo, anydnnTensorDescriptor_t sd,
                     anydnnTensorDescriptor_t md, double eps, int groups) {
        return anydnnNormalizationForwardInference(h, mode, ops, algo, &one, &zero, x.desc(), x.data(), sd,
                                                   scale.data(), bias.data(), md, mean.data(), var.data(), nullptr,
                                                   nullptr, nullptr, y.desc(), y.data(), eps, groups);
    };
    const auto L = ANYDNN_NORM_LAYER;
    const auto N = ANYDNN_NORM_OPS_NORM;
    const auto A = ANYDNN_NORM_ALGO_STANDARD;
    EXPECT_STATUS(infer(L, N, A, scale.desc(), mean.desc(), 1e-6, 1), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(infer(L, N, A, chan.desc(), mean.desc(), 1e-5, 1), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(infer(L, N, A, scale.desc(), chan.desc(), 1e-5, 1), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(infer(L, N, A, scale.desc(), mean.desc(), 1e-5, 2), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(infer(L, N, static_cast<anydnnNormAlgo_t>(9), scale.desc(), mean.desc(), 1e-5, 1),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(infer(L, static_cast<anydnnNormOps_t>(9), A, scale.desc(), mean.desc(), 1e-5, 1),
                  ANYDNN_STATUS_BAD_PARAM);
    // An activation without its descriptor; an add without z.
    EXPECT_STATUS(infer(L, ANYDNN_NORM_OPS_NORM_ACTIVATION, A, scale.desc(), mean.desc(), 1e-5, 1),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(infer(ANYDNN_NORM_GROUP, N, A, chan.desc(), chan.desc(), 1e-5, 4), ANYDNN_STATUS_BAD_PARAM);
    for (double v : y.values()) EXPECT_TRUE(std::isnan(v));
    EXPECT_OK(infer(L, N, A, scale.desc(), mean.desc(), 1e-5, 1));
}

}  // namespace
