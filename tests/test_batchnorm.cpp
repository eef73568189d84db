// Batch normalization (the legacy calls and the Ex forms) against the
// reference, on every ISA level: SPATIAL, SPATIAL_PERSISTENT and
// PER_ACTIVATION on ResNet-50 and MobileNet-v2 layer sizes (small
// minibatch) and odd sizes (C = 3, 7x7, 1x1, N = 1), NCHW, NHWC and padded
// tensors, beta 0 (outputs poisoned) and not, alpha other than 1, f64 and
// the 16-bit types; training forward with the running averages and saved
// statistics, backward with and without them, inference; the fused add +
// RELU; finite differences of the backward pass; bitwise equal results for
// any thread count; NHWC pixel blocks (C around the vector widths, rows
// with gaps); the error statuses.
#include <cmath>
#include <memory>

#include "common/norm_harness.hpp"

using namespace anydnn_test;
using ref::NormKind;

namespace {

class BatchNorm : public ::testing::TestWithParam<std::string> {};

NormCase bn_case(NormKind kind, std::vector<int> dims, LayoutFn layout, anydnnDataType_t dt = ANYDNN_DATA_FLOAT,
                 double alpha = 1, double beta = 0) {
    NormCase c;
    c.norm.kind = kind;
    c.dims = std::move(dims);
    c.layout = layout;
    c.dt = dt;
    c.alpha = alpha;
    c.beta = beta;
    c.api = NormApi::bn;
    return c;
}

const LayoutFn kLayouts[] = {packed, packed_nhwc, padded_by_2};

// ResNet-50 (56x56x64 scaled to 14x14, 14x14x256, 7x7x2048 scaled in C) and
// MobileNet-v2 (112x112x32 scaled to 28x28, 7x7x160) at minibatch 2 or 1,
// small enough for the sanitizer build.
const std::vector<int> kNetShapes[] = {{2, 64, 14, 14}, {1, 256, 14, 14}, {2, 512, 7, 7}, {2, 32, 28, 28},
                                       {2, 160, 7, 7}};
// Odd sizes: C = 3, 7x7, 1x1, H*W = 1, 5-D.
const std::vector<int> kOddShapes[] = {{3, 3, 7, 7}, {4, 5, 1, 1}, {2, 3, 5, 7}, {2, 3, 3, 4, 5}, {1, 6, 3, 3}};

TEST_P(BatchNorm, SpatialNetShapes) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    int i = 0;
    for (const auto &dims : kNetShapes)
        for (LayoutFn l : kLayouts) {
            NormCase c = bn_case(NormKind::spatial, dims, l, ANYDNN_DATA_FLOAT, i % 2 ? 0.5 : 1.0, i % 3 ? 0 : 0.75);
            c.persistent = i % 4 == 1;
            check_norm(h, c);
            ++i;
        }
}

TEST_P(BatchNorm, OddShapesEveryMode) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    int i = 0;
    for (const auto &dims : kOddShapes)
        for (LayoutFn l : kLayouts)
            for (NormKind k : {NormKind::spatial, NormKind::per_activation}) {
                if (k == NormKind::spatial && dims[0] == 1 && dims[2] == 1) continue;
                NormCase c = bn_case(k, dims, l, ANYDNN_DATA_FLOAT, i % 2 ? -0.5 : 1.0, i % 3 ? 0 : 0.75);
                c.persistent = i % 4 == 3;
                c.saved_null = i % 5 == 2;
                check_norm(h, c);
                ++i;
            }
}

// NHWC with a gap after each pixel's channels: rows that are not contiguous.
Shape nhwc_gapped(const std::vector<int> &dims) {
    Shape s = packed_nhwc(dims);
    int st = dims[1] + 3;
    for (int i = int(dims.size()) - 1; i >= 2; --i) {
        s.strides[i] = st;
        st *= dims[i];
    }
    s.strides[0] = st;
    return s;
}

// NHWC per channel sums several pixels at a time with the channels in
// vector lanes: C around the vector widths and past 512 (by rows there too),
// 30 pixels (a partial block at the end), contiguous rows and not.
TEST_P(BatchNorm, NhwcRowBlocks) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    int i = 0;
    for (int c : {7, 16, 17, 33, 520})
        for (LayoutFn l : {packed_nhwc, nhwc_gapped}) {
            NormCase nc = bn_case(NormKind::spatial, {2, c, 3, 5}, l, ANYDNN_DATA_FLOAT, 1.0, i % 3 ? 0 : 0.75);
            nc.norm.relu = i % 4 == 1;
            check_norm(h, nc);
            ++i;
        }
}

TEST_P(BatchNorm, PerActivationNetShapes) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    check_norm(h, bn_case(NormKind::per_activation, {4, 64, 14, 14}, packed, ANYDNN_DATA_FLOAT, 1, 0.5));
    check_norm(h, bn_case(NormKind::per_activation, {4, 32, 7, 7}, packed_nhwc, ANYDNN_DATA_FLOAT, 2, 0));
    check_norm(h, bn_case(NormKind::per_activation, {1, 8, 3, 3}, padded_by_2));  // N = 1: zero variance
}

TEST_P(BatchNorm, OtherTypes) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    for (anydnnDataType_t dt : {ANYDNN_DATA_DOUBLE, ANYDNN_DATA_HALF, ANYDNN_DATA_BFLOAT16})
        for (LayoutFn l : {packed, packed_nhwc}) {
            check_norm(h, bn_case(NormKind::spatial, {2, 24, 9, 9}, l, dt, 1, 0));
            check_norm(h, bn_case(NormKind::per_activation, {3, 4, 5, 5}, l, dt, 0.5, 0.25));
        }
}

TEST_P(BatchNorm, FusedAddRelu) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    int i = 0;
    for (LayoutFn l : kLayouts)
        for (NormKind k : {NormKind::spatial, NormKind::per_activation})
            for (bool add : {false, true}) {
                NormCase c = bn_case(k, {2, 16, 7, 9}, l, ANYDNN_DATA_FLOAT, 1, i % 2 ? 0.5 : 0);
                c.norm.relu = true;
                c.norm.add = add;
                c.saved_null = i % 3 == 1;
                check_norm(h, c);
                ++i;
            }
    NormCase c = bn_case(NormKind::spatial, {2, 64, 14, 14}, packed_nhwc, ANYDNN_DATA_HALF);
    c.norm.relu = c.norm.add = true;
    check_norm(h, c);
}

// Training passes over an NCHW x beyond the cache (x, or x and dy, of 16 MiB
// and more) run a block of channels at a time (4 MiB: forward 8 channels of
// 2 x 240 x 250 here, the last block 5; backward 4, the last 1), with the
// fused add + RELU (its mask offset per block), beta != 0, the running
// averages, and a backward pass that computes its statistics block by block;
// and NHWC's passes over the same sizes.
TEST_P(BatchNorm, ChannelBlocksBeyondTheCache) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    for (bool fused : {false, true}) {
        NormCase c = bn_case(NormKind::spatial, {2, 37, 240, 250}, packed, ANYDNN_DATA_FLOAT, 0.75, fused ? 0.5 : 0);
        c.norm.relu = c.norm.add = fused;
        c.saved_null = !fused;
        check_norm(h, c);
    }
    // NHWC: the normalization's rows stream y out (beta 0).
    check_norm(h, bn_case(NormKind::spatial, {2, 37, 240, 250}, packed_nhwc, ANYDNN_DATA_FLOAT, 0.75, 0));
}

TEST_P(BatchNorm, GradientMatchesFiniteDifferences) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    check_norm_gradient(h, {NormKind::spatial}, {3, 2, 3, 2}, NormApi::bn);
    check_norm_gradient(h, {NormKind::per_activation}, {4, 2, 2, 3}, NormApi::bn);
}

INSTANTIATE_TEST_SUITE_P(Isa, BatchNorm, ::testing::ValuesIn(isa_levels()),
                         [](const auto &info) { return info.param; });

// ---- Thread counts, running-average corner cases, errors ------------------------

struct Bn {
    Tensor x, y, scale, bias, mean, var;
    explicit Bn(const std::vector<int> &dims, const std::vector<int> &pdims, anydnnDataType_t dt = ANYDNN_DATA_FLOAT)
        : x(packed(dims), dt), y(packed(dims), dt), scale(packed(pdims), ANYDNN_DATA_FLOAT),
          bias(packed(pdims), ANYDNN_DATA_FLOAT), mean(packed(pdims), ANYDNN_DATA_FLOAT),
          var(packed(pdims), ANYDNN_DATA_FLOAT) {
        x.fill_random();
        scale.fill_random(0.5, 1.5);
        bias.fill_random();
        mean.fill_random();
        var.fill_random(0.5, 1);
    }
};

// NCHW splits the reductions by elements, NHWC (short channel runs) by
// rows; NCHW with one image takes a channel per row (forward_groups,
// grad_groups), the parameter sums in chunks of rows. Several reduction
// chunks each.
struct ThreadsCase {
    const char *name;
    std::vector<int> dims;
    LayoutFn layout;
};
const ThreadsCase kThreadsCases[] = {{"nchw", {8, 16, 40, 40}, packed},
                                     {"nhwc", {8, 16, 40, 40}, packed_nhwc},
                                     {"nchw_one_image", {1, 64, 40, 40}, packed}};

class BatchNormThreads : public ::testing::TestWithParam<ThreadsCase> {};

TEST_P(BatchNormThreads, BitwiseEqualForEveryThreadCount) {
    const std::vector<int> &dims = GetParam().dims;
    const LayoutFn layout = GetParam().layout;
    const std::vector<int> pdims = {1, dims[1], 1, 1};
    Bn b(dims, pdims);
    Tensor x(layout(dims), ANYDNN_DATA_FLOAT), y(layout(dims), ANYDNN_DATA_FLOAT);
    x.fill_random();
    Tensor dy(layout(dims), ANYDNN_DATA_FLOAT), dx(layout(dims), ANYDNN_DATA_FLOAT);
    Tensor ds(packed(pdims), ANYDNN_DATA_FLOAT), db(packed(pdims), ANYDNN_DATA_FLOAT);
    dy.fill_random();
    const float one = 1, zero = 0;
    std::vector<std::vector<double>> results[4];
    for (int threads : {1, 2, 3}) {
        // The best level the machine has.
        std::unique_ptr<Handle> best;
        for (const std::string &isa : isa_levels()) {
            auto hh = std::make_unique<Handle>(isa, threads);
            if (hh->available) best = std::move(hh);
        }
        ASSERT_TRUE(best != nullptr);
        const Handle &h = *best;
        ASSERT_OK(anydnnBatchNormalizationForwardTraining(h, ANYDNN_BATCHNORM_SPATIAL, &one, &zero, x.desc(),
                                                          x.data(), y.desc(), y.data(), b.scale.desc(),
                                                          b.scale.data(), b.bias.data(), 0.5, b.mean.data(),
                                                          b.var.data(), 1e-5, nullptr, nullptr));
        ASSERT_OK(anydnnBatchNormalizationBackward(h, ANYDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero, x.desc(),
                                                   x.data(), dy.desc(), dy.data(), dx.desc(), dx.data(),
                                                   b.scale.desc(), b.scale.data(), ds.data(), db.data(), 1e-5,
                                                   nullptr, nullptr));
        results[threads] = {y.values(), dx.values(), ds.values(), db.values()};
    }
    EXPECT_EQ(results[1], results[2]);
    EXPECT_EQ(results[1], results[3]);
}
INSTANTIATE_TEST_SUITE_P(Layout, BatchNormThreads, ::testing::ValuesIn(kThreadsCases),
                         [](const auto &info) { return std::string(info.param.name); });

// NCHW x and dy beyond 16 MiB: the training passes run in blocks of
// channels, whole blocks per core; the results do not depend on which.
TEST(BatchNormThreadsBlocked, BitwiseEqualForEveryThreadCount) {
    const std::vector<int> dims = {2, 37, 240, 250};
    Bn b(dims, {1, 37, 1, 1});
    Tensor dy(packed(dims), ANYDNN_DATA_FLOAT), dx(packed(dims), ANYDNN_DATA_FLOAT);
    Tensor ds(packed({1, 37, 1, 1}), ANYDNN_DATA_FLOAT), db(packed({1, 37, 1, 1}), ANYDNN_DATA_FLOAT);
    dy.fill_random();
    const float one = 1, zero = 0;
    std::vector<std::vector<double>> results[4];
    for (int threads : {1, 2, 3}) {
        std::unique_ptr<Handle> best;  // the best level the machine has
        for (const std::string &isa : isa_levels()) {
            auto hh = std::make_unique<Handle>(isa, threads);
            if (hh->available) best = std::move(hh);
        }
        ASSERT_TRUE(best != nullptr);
        ASSERT_OK(anydnnBatchNormalizationForwardTraining(*best, ANYDNN_BATCHNORM_SPATIAL, &one, &zero, b.x.desc(),
                                                          b.x.data(), b.y.desc(), b.y.data(), b.scale.desc(),
                                                          b.scale.data(), b.bias.data(), 1.0, b.mean.data(),
                                                          b.var.data(), 1e-5, nullptr, nullptr));
        ASSERT_OK(anydnnBatchNormalizationBackward(*best, ANYDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero,
                                                   b.x.desc(), b.x.data(), dy.desc(), dy.data(), dx.desc(),
                                                   dx.data(), b.scale.desc(), b.scale.data(), ds.data(), db.data(),
                                                   1e-5, nullptr, nullptr));
        results[threads] = {b.y.values(), b.mean.values(), b.var.values(), dx.values(), ds.values(), db.values()};
    }
    EXPECT_EQ(results[1], results[2]);
    EXPECT_EQ(results[1], results[3]);
}

TEST(BatchNormRunning, FactorOneIgnoresOldAveragesAndNullPointersSkipThem) {
    Handle h("generic");
    const std::vector<int> dims = {4, 3, 5, 5};
    Bn b(dims, {1, 3, 1, 1});
    b.mean.poison();  // factor 1 never reads them
    b.var.poison();
    const float one = 1, zero = 0;
    ASSERT_OK(anydnnBatchNormalizationForwardTraining(h, ANYDNN_BATCHNORM_SPATIAL, &one, &zero, b.x.desc(),
                                                      b.x.data(), b.y.desc(), b.y.data(), b.scale.desc(),
                                                      b.scale.data(), b.bias.data(), 1.0, b.mean.data(),
                                                      b.var.data(), 1e-5, nullptr, nullptr));
    const ref::NormStats st = ref::norm_stats({NormKind::spatial}, dims, b.x.values(), 1e-5);
    std::vector<double> unbiased = st.var;
    for (double &v : unbiased) v *= double(st.m) / double(st.m - 1);
    expect_close(b.mean.values(), st.mean, 1e-6, 1e-7, "running mean");
    expect_close(b.var.values(), unbiased, 1e-6, 1e-7, "running variance");
    // NULL running and saved pointers: y only.
    b.y.poison();
    ASSERT_OK(anydnnBatchNormalizationForwardTraining(h, ANYDNN_BATCHNORM_SPATIAL, &one, &zero, b.x.desc(),
                                                      b.x.data(), b.y.desc(), b.y.data(), b.scale.desc(),
                                                      b.scale.data(), b.bias.data(), 0.5, nullptr, nullptr, 1e-5,
                                                      nullptr, nullptr));
    for (double v : b.y.values()) ASSERT_FALSE(std::isnan(v));
}

TEST(BatchNormDerive, Shapes) {
    Tensor x(packed({2, 5, 3, 4}), ANYDNN_DATA_HALF), x5(packed_nhwc({2, 5, 3, 4, 6}), ANYDNN_DATA_DOUBLE);
    anydnnTensorDescriptor_t d;
    ASSERT_OK(anydnnCreateTensorDescriptor(&d));
    auto dims_of = [&](anydnnDataType_t *dt) {
        int nd = 0, dims[8], strides[8];
        EXPECT_OK(anydnnGetTensorNdDescriptor(d, 8, dt, &nd, dims, strides));
        return std::vector<int>(dims, dims + nd);
    };
    anydnnDataType_t dt;
    ASSERT_OK(anydnnDeriveBNTensorDescriptor(d, x.desc(), ANYDNN_BATCHNORM_SPATIAL));
    EXPECT_EQ(dims_of(&dt), (std::vector<int>{1, 5, 1, 1}));
    EXPECT_EQ(dt, ANYDNN_DATA_FLOAT);
    ASSERT_OK(anydnnDeriveBNTensorDescriptor(d, x.desc(), ANYDNN_BATCHNORM_PER_ACTIVATION));
    EXPECT_EQ(dims_of(&dt), (std::vector<int>{1, 5, 3, 4}));
    ASSERT_OK(anydnnDeriveBNTensorDescriptor(d, x5.desc(), ANYDNN_BATCHNORM_SPATIAL_PERSISTENT));
    EXPECT_EQ(dims_of(&dt), (std::vector<int>{1, 5, 1, 1, 1}));
    EXPECT_EQ(dt, ANYDNN_DATA_DOUBLE);
    EXPECT_STATUS(anydnnDeriveBNTensorDescriptor(d, x.desc(), static_cast<anydnnBatchNormMode_t>(7)),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnDeriveBNTensorDescriptor(nullptr, x.desc(), ANYDNN_BATCHNORM_SPATIAL),
                  ANYDNN_STATUS_BAD_PARAM);
    anydnnDestroyTensorDescriptor(d);
}

TEST(BatchNormErrors, StatusesAndNothingWritten) {
    Handle h("generic");
    const std::vector<int> dims = {2, 4, 3, 3};
    Bn b(dims, {1, 4, 1, 1});
    Tensor wrong(packed({1, 5, 1, 1}), ANYDNN_DATA_FLOAT), wrong_type(packed({1, 4, 1, 1}), ANYDNN_DATA_DOUBLE);
    Tensor x3(packed({2, 4, 9}), ANYDNN_DATA_FLOAT), xi(packed(dims), ANYDNN_DATA_INT8);
    Tensor sm(packed({1, 4, 1, 1}), ANYDNN_DATA_FLOAT), si(packed({1, 4, 1, 1}), ANYDNN_DATA_FLOAT);
    b.y.poison();
    sm.poison();
    const float one = 1, zero = 0;
    auto train = [&](anydnnBatchNormMode_t mode, anydnnTensorDescriptor_t xd, anydnnTensorDescriptor_t pd,
                     double eps, void *rm, void *rv, void *smp, void *sip, const void *alpha) {
        return anydnnBatchNormalizationForwardTraining(h, mode, alpha, &zero, xd, b.x.data(), b.y.desc(),
                                                       b.y.data(), pd, b.scale.data(), b.bias.data(), 0.1, rm, rv,
                                                       eps, smp, sip);
    };
    const auto S = ANYDNN_BATCHNORM_SPATIAL;
    EXPECT_STATUS(train(S, b.x.desc(), b.scale.desc(), 1e-6, nullptr, nullptr, nullptr, nullptr, &one),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_NE(last_error().find("epsilon"), std::string::npos) << last_error();
    EXPECT_STATUS(train(static_cast<anydnnBatchNormMode_t>(3), b.x.desc(), b.scale.desc(), 1e-5, nullptr, nullptr,
                        nullptr, nullptr, &one),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(train(S, b.x.desc(), wrong.desc(), 1e-5, nullptr, nullptr, nullptr, nullptr, &one),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(train(S, b.x.desc(), wrong_type.desc(), 1e-5, nullptr, nullptr, nullptr, nullptr, &one),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(train(S, b.x.desc(), b.scale.desc(), 1e-5, b.mean.data(), nullptr, nullptr, nullptr, &one),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(train(S, b.x.desc(), b.scale.desc(), 1e-5, nullptr, nullptr, sm.data(), nullptr, &one),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(train(S, b.x.desc(), b.scale.desc(), 1e-5, nullptr, nullptr, nullptr, nullptr, nullptr),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(train(S, x3.desc(), b.scale.desc(), 1e-5, nullptr, nullptr, nullptr, nullptr, &one),
                  ANYDNN_STATUS_NOT_SUPPORTED);
    EXPECT_STATUS(train(S, xi.desc(), b.scale.desc(), 1e-5, nullptr, nullptr, nullptr, nullptr, &one),
                  ANYDNN_STATUS_NOT_SUPPORTED);
    EXPECT_STATUS(anydnnBatchNormalizationForwardTraining(h, S, &one, &zero, b.x.desc(), b.x.data(), b.y.desc(),
                                                          nullptr, b.scale.desc(), b.scale.data(), b.bias.data(),
                                                          0.1, nullptr, nullptr, 1e-5, nullptr, nullptr),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnBatchNormalizationForwardTraining(nullptr, S, &one, &zero, b.x.desc(), b.x.data(),
                                                          b.y.desc(), b.y.data(), b.scale.desc(), b.scale.data(),
                                                          b.bias.data(), 0.1, nullptr, nullptr, 1e-5, nullptr,
                                                          nullptr),
                  ANYDNN_STATUS_BAD_PARAM);
    // y overlapping x without being it.
    EXPECT_STATUS(anydnnBatchNormalizationForwardInference(
                      h, S, &one, &zero, b.x.desc(), b.x.data(), b.x.desc(),
                      static_cast<float *>(b.x.data()) + 1, b.scale.desc(), b.scale.data(), b.bias.data(),
                      b.mean.data(), b.var.data(), 1e-5),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnBatchNormalizationForwardInference(h, S, &one, &zero, b.x.desc(), b.x.data(), b.y.desc(),
                                                           b.y.data(), b.scale.desc(), b.scale.data(),
                                                           b.bias.data(), nullptr, b.var.data(), 1e-5),
                  ANYDNN_STATUS_BAD_PARAM);
    // Nothing written by any failed call.
    for (double v : b.y.values()) EXPECT_TRUE(std::isnan(v));
    for (double v : sm.values()) EXPECT_TRUE(std::isnan(v));

    // Backward: savedMean without savedInvVariance; a dx overlapping dy.
    Tensor dy(packed(dims), ANYDNN_DATA_FLOAT), dx(packed(dims), ANYDNN_DATA_FLOAT);
    dy.fill_random();
    dx.poison();
    EXPECT_STATUS(anydnnBatchNormalizationBackward(h, S, &one, &zero, &one, &zero, b.x.desc(), b.x.data(),
                                                   dy.desc(), dy.data(), dx.desc(), dx.data(), b.scale.desc(),
                                                   b.scale.data(), sm.data(), si.data(), 1e-5, b.mean.data(),
                                                   nullptr),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnBatchNormalizationBackward(h, S, &one, &zero, &one, &zero, b.x.desc(), b.x.data(),
                                                   dy.desc(), dy.data(), dy.desc(),
                                                   static_cast<float *>(dy.data()) + 2, b.scale.desc(),
                                                   b.scale.data(), sm.data(), si.data(), 1e-5, nullptr, nullptr),
                  ANYDNN_STATUS_BAD_PARAM);
    for (double v : dx.values()) EXPECT_TRUE(std::isnan(v));

    // Ex: an activation other than RELU, a reserve space too small.
    anydnnActivationDescriptor_t act;
    ASSERT_OK(anydnnCreateActivationDescriptor(&act));
    ASSERT_OK(anydnnSetActivationDescriptor(act, ANYDNN_ACTIVATION_TANH, ANYDNN_NOT_PROPAGATE_NAN, 0));
    size_t bytes = 0;
    EXPECT_STATUS(anydnnGetBatchNormalizationTrainingExReserveSpaceSize(h, S, ANYDNN_BATCHNORM_OPS_BN_ACTIVATION,
                                                                        act, b.x.desc(), &bytes),
                  ANYDNN_STATUS_NOT_SUPPORTED);
    ASSERT_OK(anydnnSetActivationDescriptor(act, ANYDNN_ACTIVATION_RELU, ANYDNN_NOT_PROPAGATE_NAN, 0));
    ASSERT_OK(anydnnGetBatchNormalizationTrainingExReserveSpaceSize(h, S, ANYDNN_BATCHNORM_OPS_BN_ACTIVATION, act,
                                                                    b.x.desc(), &bytes));
    EXPECT_EQ(bytes, 2u * 4 * 3 * 3);
    std::vector<unsigned char> reserve(bytes);
    EXPECT_STATUS(anydnnBatchNormalizationForwardTrainingEx(
                      h, S, ANYDNN_BATCHNORM_OPS_BN_ACTIVATION, &one, &zero, b.x.desc(), b.x.data(), nullptr,
                      nullptr, b.y.desc(), b.y.data(), b.scale.desc(), b.scale.data(), b.bias.data(), 0.1, nullptr,
                      nullptr, 1e-5, nullptr, nullptr, act, nullptr, 0, reserve.data(), bytes - 1),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnBatchNormalizationForwardTrainingEx(
                      h, S, ANYDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION, &one, &zero, b.x.desc(), b.x.data(), nullptr,
                      nullptr, b.y.desc(), b.y.data(), b.scale.desc(), b.scale.data(), b.bias.data(), 0.1, nullptr,
                      nullptr, 1e-5, nullptr, nullptr, act, nullptr, 0, reserve.data(), bytes),
                  ANYDNN_STATUS_BAD_PARAM);
    for (double v : b.y.values()) EXPECT_TRUE(std::isnan(v));
    anydnnDestroyActivationDescriptor(act);
}

}  // namespace

namespace {

// y = x and dx = dy with identical descriptors: each element is read before
// it is written, so in place gives the out-of-place results.
TEST(BatchNormInPlace, ForwardAndBackward) {
    Handle h(isa_levels().front());
    const std::vector<int> dims = {3, 8, 5, 6};
    Bn b(dims, {1, 8, 1, 1});
    Tensor xi(packed(dims), ANYDNN_DATA_FLOAT), dy(packed(dims), ANYDNN_DATA_FLOAT),
        dx(packed(dims), ANYDNN_DATA_FLOAT), dyi(packed(dims), ANYDNN_DATA_FLOAT);
    Tensor ds(packed({1, 8, 1, 1}), ANYDNN_DATA_FLOAT), db(packed({1, 8, 1, 1}), ANYDNN_DATA_FLOAT);
    xi.copy_from(b.x);
    dy.fill_random();
    dyi.copy_from(dy);
    const float one = 1, zero = 0;
    const auto S = ANYDNN_BATCHNORM_SPATIAL;
    ASSERT_OK(anydnnBatchNormalizationForwardTraining(h, S, &one, &zero, b.x.desc(), b.x.data(), b.y.desc(),
                                                      b.y.data(), b.scale.desc(), b.scale.data(), b.bias.data(), 0.5,
                                                      nullptr, nullptr, 1e-5, nullptr, nullptr));
    ASSERT_OK(anydnnBatchNormalizationForwardTraining(h, S, &one, &zero, xi.desc(), xi.data(), xi.desc(), xi.data(),
                                                      b.scale.desc(), b.scale.data(), b.bias.data(), 0.5, nullptr,
                                                      nullptr, 1e-5, nullptr, nullptr));
    EXPECT_EQ(xi.values(), b.y.values());
    ASSERT_OK(anydnnBatchNormalizationBackward(h, S, &one, &zero, &one, &zero, b.x.desc(), b.x.data(), dy.desc(),
                                               dy.data(), dx.desc(), dx.data(), b.scale.desc(), b.scale.data(),
                                               ds.data(), db.data(), 1e-5, nullptr, nullptr));
    ASSERT_OK(anydnnBatchNormalizationBackward(h, S, &one, &zero, &one, &zero, b.x.desc(), b.x.data(), dyi.desc(),
                                               dyi.data(), dyi.desc(), dyi.data(), b.scale.desc(), b.scale.data(),
                                               ds.data(), db.data(), 1e-5, nullptr, nullptr));
    EXPECT_EQ(dyi.values(), dx.values());
}

}  // namespace
