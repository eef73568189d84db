// LRNCrossChannelForward / Backward and DivisiveNormalizationForward /
// Backward against the fp64 reference on every ISA level: AlexNet and
// GoogLeNet LRN layers, odd sizes (C < lrnN, C = 1, even and odd lrnN, 1x1
// pixels, rows longer than a 64-pixel block, 3-D and 5-D), NCHW, NHWC and
// padded tensors, f32 / f64 / f16 / bf16, beta 0 (output poisoned) and not,
// alpha not 1; finite-difference checks (f64) of both backward passes;
// in-place forward; bitwise identical results for 1, 2, 3 threads; the
// descriptor calls and the error statuses.
//
// Tolerances, per element relative (plus a small absolute slack for
// gradients that cancel): f32 2e-5, f64 1e-12, f16 / bf16 a few storage
// roundings: the power is exp(-beta log s) in float (vmath), whose error
// grows with beta |log s|.
#include <algorithm>
#include <cmath>

#include "common/test_util.hpp"
#include "reference/lrn_ref.hpp"

using namespace anydnn_test;

namespace {

double rel_tol(anydnnDataType_t dt) {
    switch (dt) {
    case ANYDNN_DATA_FLOAT: return 2e-5;
    case ANYDNN_DATA_DOUBLE: return 1e-12;
    default: return 3 * storage_tol(dt);
    }
}
double abs_tol(anydnnDataType_t dt) { return dt == ANYDNN_DATA_DOUBLE ? 1e-13 : rel_tol(dt) * 0.1; }

struct LrnDesc {
    anydnnLRNDescriptor_t d = nullptr;
    explicit LrnDesc(const ref::Lrn &p) {
        EXPECT_OK(anydnnCreateLRNDescriptor(&d));
        EXPECT_OK(anydnnSetLRNDescriptor(d, unsigned(p.n), p.alpha, p.beta, p.k));
    }
    ~LrnDesc() { anydnnDestroyLRNDescriptor(d); }
    LrnDesc(const LrnDesc &) = delete;
    LrnDesc &operator=(const LrnDesc &) = delete;
    operator anydnnLRNDescriptor_t() const { return d; }
};

std::string describe(const ref::Lrn &p) {
    return "lrnN=" + std::to_string(p.n) + " alpha=" + std::to_string(p.alpha) + " beta=" + std::to_string(p.beta) +
           " k=" + std::to_string(p.k);
}

using Layout = Shape (*)(const std::vector<int> &);
Shape padded_by_3(const std::vector<int> &dims) { return padded(dims, 3); }
struct NamedLayout {
    const char *name;
    Layout make;
};
const NamedLayout kLayouts[] = {{"nchw", packed}, {"nhwc", packed_nhwc}, {"padded", padded_by_3}};

// Values rounded to dt, as the library reads them.
std::vector<double> rounded(const std::vector<double> &v, anydnnDataType_t dt) {
    std::vector<double> r(v.size());
    for (size_t i = 0; i < v.size(); ++i) r[i] = round_to(dt, v[i]);
    return r;
}

// Forward then backward of one problem against the reference.
// misalign: of y and dx (Tensor's), 0 for the streaming stores of whole
// aligned vectors.
void check_lrn(anydnnHandle_t h, const ref::Lrn &p, anydnnDataType_t dt, const std::vector<int> &dims, Layout lx,
               Layout ly, double alpha, double beta, size_t misalign = 16) {
    const LrnDesc desc(p);
    Tensor x(lx(dims), dt), y(ly(dims), dt, misalign), y0(ly(dims), dt);
    x.fill_random(-2, 2);
    if (beta != 0) y.fill_random();
    else y.poison();
    y0.copy_from(y);
    const Scalar al(alpha), be(beta);
    ASSERT_OK(anydnnLRNCrossChannelForward(h, desc, ANYDNN_LRN_CROSS_CHANNEL_DIM1, al.ptr(dt), x.desc(), x.data(),
                                           be.ptr(dt), y.desc(), y.data()));
    expect_close(y.values(), ref::lrn_forward(p, dims, x.values(), alpha, beta, y0.values()), rel_tol(dt),
                 abs_tol(dt), "forward");
    EXPECT_TRUE(y.guards_intact());
    EXPECT_TRUE(y.gaps_equal(y0));

    // The backward pass reads y as given: the forward output of alpha = 1, beta = 0.
    Tensor yf(ly(dims), dt), dy(lx(dims), dt), dx(ly(dims), dt, misalign), dx0(ly(dims), dt);
    const Scalar one(1), zero(0);
    ASSERT_OK(anydnnLRNCrossChannelForward(h, desc, ANYDNN_LRN_CROSS_CHANNEL_DIM1, one.ptr(dt), x.desc(), x.data(),
                                           zero.ptr(dt), yf.desc(), yf.data()));
    dy.fill_random();
    if (beta != 0) dx.fill_random();
    else dx.poison();
    dx0.copy_from(dx);
    ASSERT_OK(anydnnLRNCrossChannelBackward(h, desc, ANYDNN_LRN_CROSS_CHANNEL_DIM1, al.ptr(dt), yf.desc(),
                                            yf.data(), dy.desc(), dy.data(), x.desc(), x.data(), be.ptr(dt),
                                            dx.desc(), dx.data()));
    expect_close(dx.values(),
                 ref::lrn_backward(p, dims, x.values(), yf.values(), dy.values(), alpha, beta, dx0.values()),
                 rel_tol(dt), abs_tol(dt) * 10, "backward");
    EXPECT_TRUE(dx.guards_intact());
    EXPECT_TRUE(dx.gaps_equal(dx0));
}

struct Case {
    std::vector<int> dims;
    ref::Lrn p;
};

// C < lrnN, C = 1, 1x1 pixels with even lrnN, rows of more than one block
// (600 and 300 > 256 pixels), 3-D and 5-D tensors, lrnN 1 and 16, beta != 0.75;
// channel blocks (C > 64) with windows across their edges.
const Case kOddCases[] = {
    {{2, 7, 5, 3}, {5, 0.8, 0.75, 2}},
    {{1, 3, 4, 4}, {5, 1.5, 0.75, 1}},
    {{2, 1, 3, 3}, {3, 2.0, 1.3, 1}},
    {{3, 6, 1, 1}, {4, 1.0, 0.5, 0.5}},
    {{1, 10, 2, 300}, {10, 3.0, 0.75, 2}},
    {{2, 5, 7}, {2, 1.0, 0.9, 1}},
    {{1, 4, 2, 3, 5}, {7, 2.0, 2.0, 3}},
    {{1, 20, 3, 3}, {16, 4.0, 0.75, 1}},
    {{1, 3, 2, 2}, {1, 1.0, 0.6, 1e-5}},
    {{2, 70, 1, 1}, {5, 1.0, 0.75, 1}},      // channel lanes: two blocks, 1x1 pixels
    {{1, 67, 2, 3}, {6, 2.0, 0.75, 1.5}},   // a window across the block edge (NHWC)
    {{1, 130, 3, 1}, {15, 3.0, 1.1, 1}},
    {{1, 9, 17, 19}, {3, 1.0, 0.75, 1}},     // n = 3, beta 0.75: a whole block of 256 pixels in one pass
};

// A 3x1x1 pixel by hand: alpha / n = 1, beta = 1, k = 1.
TEST(LrnReference, HandChecked) {
    Handle h("generic");
    Tensor x(packed({1, 3, 1, 1}), ANYDNN_DATA_DOUBLE), y(packed({1, 3, 1, 1}), ANYDNN_DATA_DOUBLE);
    for (int c = 0; c < 3; ++c) x.set({0, c, 0, 0}, c + 1);
    // n = 3: windows {1, 2}, {1, 2, 3}, {2, 3}; n = 2 (even): [c, c + 1]; n = 4: [c - 1, c + 2].
    const struct {
        int n;
        std::vector<double> y;
    } cases[] = {{3, {1.0 / 6, 2.0 / 15, 3.0 / 14}}, {2, {1.0 / 6, 2.0 / 14, 3.0 / 10}},
                 {4, {1.0 / 15, 2.0 / 15, 3.0 / 14}}};
    for (const auto &e : cases) {
        SCOPED_TRACE("n=" + std::to_string(e.n));
        const ref::Lrn p{e.n, double(e.n), 1.0, 1.0};
        const std::vector<double> got = ref::lrn_forward(p, {1, 3, 1, 1}, x.values(), 1, 0, {});
        for (int c = 0; c < 3; ++c) EXPECT_NEAR(got[c], e.y[c], 1e-15);
        const LrnDesc desc(p);
        const double one = 1, zero = 0;
        ASSERT_OK(anydnnLRNCrossChannelForward(h, desc, ANYDNN_LRN_CROSS_CHANNEL_DIM1, &one, x.desc(), x.data(),
                                               &zero, y.desc(), y.data()));
        const std::vector<double> lib = y.values();
        for (int c = 0; c < 3; ++c) EXPECT_NEAR(lib[c], e.y[c], 1e-15);
    }
}

class Lrn : public ::testing::TestWithParam<std::string> {};

TEST_P(Lrn, OddSizesLayoutsTypesAndBeta) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    for (const Case &c : kOddCases)
        for (anydnnDataType_t dt : {ANYDNN_DATA_FLOAT, ANYDNN_DATA_DOUBLE})
            for (const NamedLayout &l : kLayouts)
                for (double beta : {0.0, 0.5}) {
                    SCOPED_TRACE(describe(c.p) + " " + dtype_name(dt) + " " + l.make(c.dims).to_string() +
                                 " beta=" + std::to_string(beta));
                    check_lrn(h, c.p, dt, c.dims, l.make, l.make, beta == 0 ? 1.0 : 0.7, beta);
                }
}

TEST_P(Lrn, MixedLayoutsAndHalfTypes) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const Case c{{2, 9, 3, 5}, {5, 1.2, 0.75, 2}};
    SCOPED_TRACE("nchw x, nhwc y");
    check_lrn(h, c.p, ANYDNN_DATA_FLOAT, c.dims, packed, packed_nhwc, 1, 0);
    for (anydnnDataType_t dt : {ANYDNN_DATA_HALF, ANYDNN_DATA_BFLOAT16})
        for (const NamedLayout &l : kLayouts) {
            SCOPED_TRACE(std::string(dtype_name(dt)) + " " + l.name);
            check_lrn(h, c.p, dt, c.dims, l.make, l.make, 1, 0);
        }
}

// AlexNet's (k = 2, 96 channels at 55x55) and GoogLeNet's (k = 1, 64 at
// 56x56) LRN layers, one image, both layouts.
TEST_P(Lrn, AlexNetAndGoogLeNet) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const Case cases[] = {{{1, 96, 55, 55}, {5, 1e-4, 0.75, 2}}, {{1, 64, 56, 56}, {5, 1e-4, 0.75, 1}}};
    for (const Case &c : cases)
        for (Layout l : {packed, packed_nhwc}) {
            SCOPED_TRACE(describe(c.p) + " " + l(c.dims).to_string());
            check_lrn(h, c.p, ANYDNN_DATA_FLOAT, c.dims, l, l, 1, 0);
        }
}

// y and dx of 16 MiB and more get streaming stores (both layouts; NHWC's pixels
// of 96 channels, 64-byte aligned: whole vectors on AVX-512, a masked tail
// on AVX2; a misaligned y, as every other test has, takes plain stores).
TEST_P(Lrn, OutputsBeyondTheCache) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const Case c{{1, 96, 210, 210}, {5, 1e-4, 0.75, 2}};
    for (Layout l : {packed, packed_nhwc}) {
        SCOPED_TRACE(l(c.dims).to_string());
        check_lrn(h, c.p, ANYDNN_DATA_FLOAT, c.dims, l, l, 0.75, 0, 0);
    }
}

// y may be x's buffer (identical descriptors).
TEST_P(Lrn, InPlaceForward) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const ref::Lrn p{5, 1.0, 0.75, 2};
    const LrnDesc desc(p);
    for (Layout l : {packed, packed_nhwc}) {
        const std::vector<int> dims = {2, 11, 3, 4};
        Tensor x(l(dims), ANYDNN_DATA_FLOAT);
        x.fill_random(-2, 2);
        const std::vector<double> want = ref::lrn_forward(p, dims, x.values(), 1, 0, {});
        const float one = 1, zero = 0;
        ASSERT_OK(anydnnLRNCrossChannelForward(h, desc, ANYDNN_LRN_CROSS_CHANNEL_DIM1, &one, x.desc(), x.data(),
                                               &zero, x.desc(), x.data()));
        expect_close(x.values(), want, rel_tol(ANYDNN_DATA_FLOAT), abs_tol(ANYDNN_DATA_FLOAT), "in place");
    }
}

TEST_P(Lrn, BitwiseSameForEveryThreadCount) {
    const ref::Lrn p{5, 1.0, 0.75, 2};
    const LrnDesc desc(p);
    const std::vector<int> dims = {3, 17, 13, 29};
    for (Layout l : {packed, packed_nhwc}) {  // pixel lanes, channel lanes
        SCOPED_TRACE(l(dims).to_string());
        Tensor x(l(dims), ANYDNN_DATA_FLOAT), dy(l(dims), ANYDNN_DATA_FLOAT);
        x.fill_random(-2, 2);
        dy.fill_random();
        std::vector<double> y1, dx1;
        for (int threads : {1, 2, 3}) {
            Handle h(GetParam(), threads);
            SKIP_IF_UNAVAILABLE(h);
            Tensor y(l(dims), ANYDNN_DATA_FLOAT), dx(l(dims), ANYDNN_DATA_FLOAT);
            const float one = 1, zero = 0;
            ASSERT_OK(anydnnLRNCrossChannelForward(h, desc, ANYDNN_LRN_CROSS_CHANNEL_DIM1, &one, x.desc(), x.data(),
                                                   &zero, y.desc(), y.data()));
            ASSERT_OK(anydnnLRNCrossChannelBackward(h, desc, ANYDNN_LRN_CROSS_CHANNEL_DIM1, &one, y.desc(),
                                                    y.data(), dy.desc(), dy.data(), x.desc(), x.data(), &zero,
                                                    dx.desc(), dx.data()));
            if (threads == 1) {
                y1 = y.values();
                dx1 = dx.values();
            } else {
                EXPECT_EQ(y.values(), y1) << threads << " threads";
                EXPECT_EQ(dx.values(), dx1) << threads << " threads";
            }
        }
    }
}

// The forward pass's fused f32 paths, pixel lanes (NCHW) and channel lanes
// (NHWC, 4-vector groups, those at a pixel's ends masked), round the same
// operations in the same order: the same bits in both layouts, for channel
// counts that fill whole groups or leave a tail, windows of 3 and 5.
TEST_P(Lrn, ForwardSameBitsInBothLayouts) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    for (const int n : {3, 5})
        for (const int c : {64, 67, 96}) {
            const ref::Lrn p{n, 1.5, 0.75, 2};
            const LrnDesc desc(p);
            const std::vector<int> dims = {2, c, 16, 16};  // 256 pixels: whole pixel-lane blocks
            SCOPED_TRACE(describe(p) + " C=" + std::to_string(c));
            Tensor xc(packed(dims), ANYDNN_DATA_FLOAT), xn(packed_nhwc(dims), ANYDNN_DATA_FLOAT);
            Tensor yc(packed(dims), ANYDNN_DATA_FLOAT), yn(packed_nhwc(dims), ANYDNN_DATA_FLOAT);
            xc.fill_random(-2, 2);
            for_each_index(dims, [&](const std::vector<int> &i) {
                static_cast<float *>(xn.data())[xn.offset(i)] = static_cast<const float *>(xc.data())[xc.offset(i)];
            });
            const float alpha = 0.75f, zero = 0;
            ASSERT_OK(anydnnLRNCrossChannelForward(h, desc, ANYDNN_LRN_CROSS_CHANNEL_DIM1, &alpha, xc.desc(),
                                                   xc.data(), &zero, yc.desc(), yc.data()));
            ASSERT_OK(anydnnLRNCrossChannelForward(h, desc, ANYDNN_LRN_CROSS_CHANNEL_DIM1, &alpha, xn.desc(),
                                                   xn.data(), &zero, yn.desc(), yn.data()));
            EXPECT_EQ(yc.values(), yn.values());
        }
}

// sum(w * f(x)) differentiated numerically (central differences, f64)
// against the backward pass with dy = w.
using Forward = std::function<void(const Tensor &x, Tensor &y)>;
using Backward = std::function<void(const Tensor &x, const Tensor &y, const Tensor &dy, Tensor &dx)>;
void finite_difference_check(const std::vector<int> &dims, const Forward &fwd, const Backward &bwd) {
    const anydnnDataType_t dt = ANYDNN_DATA_DOUBLE;
    Tensor x(packed(dims), dt), y(packed(dims), dt), w(packed(dims), dt), dx(packed(dims), dt);
    x.fill_random(-2, 2);
    w.fill_random();
    fwd(x, y);
    bwd(x, y, w, dx);
    const std::vector<double> grad = dx.values(), wv = w.values();
    const int64_t n = x.shape().elements();
    const double step = 1e-6;
    double worst = 0, scale = 0;
    for (double g : grad) scale = std::max(scale, std::fabs(g));
    int64_t i = 0;
    for_each_index(dims, [&](const std::vector<int> &idx) {
        const double v = x.at(idx);
        double f[2];
        for (int s = 0; s < 2; ++s) {
            x.set(idx, v + (s ? -step : step));
            fwd(x, y);
            const std::vector<double> yv = y.values();
            f[s] = 0;
            for (int64_t j = 0; j < n; ++j) f[s] += wv[j] * yv[j];
        }
        x.set(idx, v);
        worst = std::max(worst, std::fabs((f[0] - f[1]) / (2 * step) - grad[i]));
        ++i;
    });
    EXPECT_LT(worst, 1e-7 * scale + 1e-9) << "largest gradient " << scale;
}

TEST(LrnGradient, FiniteDifferences) {
    Handle h("generic");
    for (const Case &c : {Case{{1, 6, 3, 2}, {4, 1.5, 0.75, 1.5}}, Case{{2, 5, 2, 1}, {3, 2.0, 1.7, 1}}}) {
        SCOPED_TRACE(describe(c.p));
        const LrnDesc desc(c.p);
        const double one = 1, zero = 0;
        finite_difference_check(
            c.dims,
            [&](const Tensor &x, Tensor &y) {
                ASSERT_OK(anydnnLRNCrossChannelForward(h, desc, ANYDNN_LRN_CROSS_CHANNEL_DIM1, &one, x.desc(),
                                                       x.data(), &zero, y.desc(), y.data()));
            },
            [&](const Tensor &x, const Tensor &y, const Tensor &dy, Tensor &dx) {
                ASSERT_OK(anydnnLRNCrossChannelBackward(h, desc, ANYDNN_LRN_CROSS_CHANNEL_DIM1, &one, y.desc(),
                                                        y.data(), dy.desc(), dy.data(), x.desc(), x.data(), &zero,
                                                        dx.desc(), dx.data()));
            });
    }
}

TEST(LrnDescriptor, DefaultsSetGetAndLimits) {
    anydnnLRNDescriptor_t d;
    ASSERT_OK(anydnnCreateLRNDescriptor(&d));
    unsigned n;
    double alpha, beta, k;
    ASSERT_OK(anydnnGetLRNDescriptor(d, &n, &alpha, &beta, &k));
    EXPECT_EQ(n, 5u);
    EXPECT_EQ(alpha, 1e-4);
    EXPECT_EQ(beta, 0.75);
    EXPECT_EQ(k, 2.0);
    ASSERT_OK(anydnnSetLRNDescriptor(d, ANYDNN_LRN_MAX_N, -0.5, ANYDNN_LRN_MIN_BETA, ANYDNN_LRN_MIN_K));
    ASSERT_OK(anydnnGetLRNDescriptor(d, &n, &alpha, &beta, &k));
    EXPECT_EQ(n, 16u);
    EXPECT_EQ(alpha, -0.5);
    EXPECT_EQ(beta, 0.01);
    EXPECT_EQ(k, 1e-5);
    ASSERT_OK(anydnnSetLRNDescriptor(d, ANYDNN_LRN_MIN_N, 1, 1, 1));
    // Out of range: BAD_PARAM, the descriptor unchanged.
    EXPECT_STATUS(anydnnSetLRNDescriptor(d, 0, 1, 1, 1), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetLRNDescriptor(d, 17, 1, 1, 1), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetLRNDescriptor(d, 5, 1, 1, 9e-6), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetLRNDescriptor(d, 5, 1, 0.009, 1), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetLRNDescriptor(d, 5, NAN, 1, 1), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetLRNDescriptor(d, 5, 1, NAN, 1), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetLRNDescriptor(d, 5, 1, 1, INFINITY), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetLRNDescriptor(nullptr, 5, 1, 1, 1), ANYDNN_STATUS_BAD_PARAM);
    ASSERT_OK(anydnnGetLRNDescriptor(d, &n, &alpha, &beta, &k));
    EXPECT_EQ(n, 1u);
    EXPECT_EQ(k, 1.0);
    EXPECT_OK(anydnnGetLRNDescriptor(d, nullptr, nullptr, nullptr, nullptr));
    EXPECT_STATUS(anydnnGetLRNDescriptor(nullptr, &n, &alpha, &beta, &k), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnCreateLRNDescriptor(nullptr), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_OK(anydnnDestroyLRNDescriptor(d));
}

// Every failure is detected before y (dx) is written.
TEST(LrnErrors, StatusesAndUntouchedOutput) {
    Handle h("generic");
    const LrnDesc desc(ref::Lrn{});
    const std::vector<int> dims = {1, 4, 3, 3};
    Tensor x(packed(dims), ANYDNN_DATA_FLOAT), y(packed(dims), ANYDNN_DATA_FLOAT), y0(packed(dims), ANYDNN_DATA_FLOAT);
    Tensor other(packed({1, 5, 3, 3}), ANYDNN_DATA_FLOAT), xd(packed(dims), ANYDNN_DATA_DOUBLE);
    Tensor xi(packed(dims), ANYDNN_DATA_INT8), yi(packed(dims), ANYDNN_DATA_INT8);
    x.fill_random();
    y.fill_random();
    y0.copy_from(y);
    const float one = 1, zero = 0;
    const auto M = ANYDNN_LRN_CROSS_CHANNEL_DIM1;
    const auto BAD = ANYDNN_STATUS_BAD_PARAM;
    EXPECT_STATUS(anydnnLRNCrossChannelForward(nullptr, desc, M, &one, x.desc(), x.data(), &zero, y.desc(), y.data()), BAD);
    EXPECT_STATUS(anydnnLRNCrossChannelForward(h, nullptr, M, &one, x.desc(), x.data(), &zero, y.desc(), y.data()), BAD);
    EXPECT_STATUS(anydnnLRNCrossChannelForward(h, desc, anydnnLRNMode_t(1), &one, x.desc(), x.data(), &zero, y.desc(), y.data()), BAD);
    EXPECT_STATUS(anydnnLRNCrossChannelForward(h, desc, M, nullptr, x.desc(), x.data(), &zero, y.desc(), y.data()), BAD);
    EXPECT_STATUS(anydnnLRNCrossChannelForward(h, desc, M, &one, x.desc(), x.data(), nullptr, y.desc(), y.data()), BAD);
    EXPECT_STATUS(anydnnLRNCrossChannelForward(h, desc, M, &one, x.desc(), nullptr, &zero, y.desc(), y.data()), BAD);
    EXPECT_STATUS(anydnnLRNCrossChannelForward(h, desc, M, &one, x.desc(), x.data(), &zero, y.desc(), nullptr), BAD);
    EXPECT_STATUS(anydnnLRNCrossChannelForward(h, desc, M, &one, nullptr, x.data(), &zero, y.desc(), y.data()), BAD);
    EXPECT_STATUS(anydnnLRNCrossChannelForward(h, desc, M, &one, x.desc(), x.data(), &zero, other.desc(), y.data()), BAD);
    EXPECT_STATUS(anydnnLRNCrossChannelForward(h, desc, M, &one, xd.desc(), x.data(), &zero, y.desc(), y.data()), BAD);
    EXPECT_STATUS(anydnnLRNCrossChannelForward(h, desc, M, &one, xi.desc(), xi.data(), &zero, yi.desc(), yi.data()),
                  ANYDNN_STATUS_NOT_SUPPORTED);
    // y overlapping x without being it.
    const char *xb = static_cast<const char *>(x.data());
    EXPECT_STATUS(anydnnLRNCrossChannelForward(h, desc, M, &one, x.desc(), x.data(), &zero, x.desc(),
                                               const_cast<char *>(xb) + 4),
                  BAD);
    EXPECT_EQ(y.values(), y0.values());
    // The backward pass: dx may not overlap its inputs.
    EXPECT_STATUS(anydnnLRNCrossChannelBackward(h, desc, M, &one, y.desc(), y.data(), y.desc(), y.data(), x.desc(),
                                                x.data(), &zero, x.desc(), x.data()),
                  BAD);
    EXPECT_STATUS(anydnnLRNCrossChannelBackward(h, desc, M, &one, y.desc(), y.data(), other.desc(), y.data(),
                                                x.desc(), x.data(), &zero, y.desc(), y.data()),
                  BAD);
    EXPECT_EQ(y.values(), y0.values());
    EXPECT_FALSE(last_error().empty());
}

// ---- Divisive normalization --------------------------------------------------

void check_divnorm(anydnnHandle_t h, const ref::Lrn &p, anydnnDataType_t dt, const std::vector<int> &dims, Layout lx,
                   Layout ly, bool with_means, double alpha, double beta) {
    const LrnDesc desc(p);
    Tensor x(lx(dims), dt), m(lx(dims), dt), t1(lx(dims), dt), t2(lx(dims), dt), dy(lx(dims), dt);
    Tensor y(ly(dims), dt), y0(ly(dims), dt), dx(ly(dims), dt), dx0(ly(dims), dt), dm(ly(dims), dt), dm0(ly(dims), dt);
    x.fill_random(-2, 2);
    m.fill_random(-0.5, 0.5);
    dy.fill_random();
    for (Tensor *t : {&y, &dx, &dm}) {
        if (beta != 0) t->fill_random();
        else t->poison();
    }
    y0.copy_from(y);
    dx0.copy_from(dx);
    dm0.copy_from(dm);
    const Scalar al(alpha), be(beta);
    const void *means = with_means ? m.data() : nullptr;
    const std::vector<double> mv = with_means ? m.values() : std::vector<double>{};
    ASSERT_OK(anydnnDivisiveNormalizationForward(h, desc, ANYDNN_DIVNORM_PRECOMPUTED_MEANS, al.ptr(dt), x.desc(),
                                                 x.data(), means, t1.data(), t2.data(), be.ptr(dt), y.desc(),
                                                 y.data()));
    expect_close(y.values(), ref::divnorm_forward(p, dims, x.values(), mv, alpha, beta, y0.values()), rel_tol(dt),
                 abs_tol(dt), "forward");
    EXPECT_TRUE(y.guards_intact());
    EXPECT_TRUE(y.gaps_equal(y0));
    ASSERT_OK(anydnnDivisiveNormalizationBackward(h, desc, ANYDNN_DIVNORM_PRECOMPUTED_MEANS, al.ptr(dt), x.desc(),
                                                  x.data(), means, dy.data(), t1.data(), t2.data(), be.ptr(dt),
                                                  dx.desc(), dx.data(), dm.data()));
    const std::vector<double> du = ref::divnorm_backward_du(p, dims, x.values(), mv, dy.values());
    std::vector<double> want_dx(du.size()), want_dm(du.size());
    const std::vector<double> dx0v = dx0.values(), dm0v = dm0.values();
    for (size_t i = 0; i < du.size(); ++i) {
        want_dx[i] = alpha * du[i] + (beta != 0 ? beta * dx0v[i] : 0);
        want_dm[i] = -alpha * du[i] + (beta != 0 ? beta * dm0v[i] : 0);
    }
    expect_close(dx.values(), want_dx, rel_tol(dt), abs_tol(dt) * 10, "backward dx");
    expect_close(dm.values(), want_dm, rel_tol(dt), abs_tol(dt) * 10, "backward dMeans");
    EXPECT_TRUE(dx.guards_intact());
    EXPECT_TRUE(dx.gaps_equal(dx0));
    EXPECT_TRUE(dm.guards_intact());
}

class DivNorm : public ::testing::TestWithParam<std::string> {};

TEST_P(DivNorm, SizesLayoutsTypesMeansAndBeta) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const Case cases[] = {
        {{2, 3, 6, 5}, {3, 2.0, 0.75, 1}},
        {{1, 2, 9, 7}, {4, 5.0, 0.5, 2}},
        {{1, 2, 4, 5, 3}, {2, 3.0, 0.75, 1}},
        {{1, 1, 1, 1}, {5, 1.0, 1.0, 1}},
    };
    for (const Case &c : cases)
        for (anydnnDataType_t dt : {ANYDNN_DATA_FLOAT, ANYDNN_DATA_DOUBLE})
            for (const NamedLayout &l : kLayouts)
                for (bool with_means : {false, true})
                    for (double beta : {0.0, 0.5}) {
                        SCOPED_TRACE(describe(c.p) + " " + dtype_name(dt) + " " + l.make(c.dims).to_string() +
                                     (with_means ? " means" : "") + " beta=" + std::to_string(beta));
                        check_divnorm(h, c.p, dt, c.dims, l.make, l.make, with_means, beta == 0 ? 1.0 : 1.3, beta);
                    }
}

TEST(DivNormGradient, FiniteDifferences) {
    Handle h("generic");
    for (const Case &c : {Case{{1, 2, 4, 3}, {3, 4.0, 0.75, 1}}, Case{{1, 1, 3, 2, 3}, {2, 3.0, 1.5, 1}}}) {
        SCOPED_TRACE(describe(c.p));
        const LrnDesc desc(c.p);
        Tensor m(packed(c.dims), ANYDNN_DATA_DOUBLE), t(packed(c.dims), ANYDNN_DATA_DOUBLE);
        m.fill_random(-0.3, 0.3);
        const double one = 1, zero = 0;
        finite_difference_check(
            c.dims,
            [&](const Tensor &x, Tensor &y) {
                ASSERT_OK(anydnnDivisiveNormalizationForward(h, desc, ANYDNN_DIVNORM_PRECOMPUTED_MEANS, &one,
                                                             x.desc(), x.data(), m.data(), t.data(), t.data(),
                                                             &zero, y.desc(), y.data()));
            },
            [&](const Tensor &x, const Tensor &, const Tensor &dy, Tensor &dx) {
                ASSERT_OK(anydnnDivisiveNormalizationBackward(h, desc, ANYDNN_DIVNORM_PRECOMPUTED_MEANS, &one,
                                                              x.desc(), x.data(), m.data(), dy.data(), t.data(),
                                                              t.data(), &zero, dx.desc(), dx.data(), nullptr));
            });
    }
}

TEST(DivNormErrors, Statuses) {
    Handle h("generic");
    const LrnDesc desc(ref::Lrn{});
    Tensor x(packed({1, 2, 3, 3}), ANYDNN_DATA_FLOAT), y(packed({1, 2, 3, 3}), ANYDNN_DATA_FLOAT);
    Tensor x3(packed({2, 3, 4}), ANYDNN_DATA_FLOAT);
    x.fill_random();
    const float one = 1, zero = 0;
    const auto M = ANYDNN_DIVNORM_PRECOMPUTED_MEANS;
    const auto BAD = ANYDNN_STATUS_BAD_PARAM;
    void *t = y.data();
    EXPECT_STATUS(anydnnDivisiveNormalizationForward(h, desc, anydnnDivNormMode_t(3), &one, x.desc(), x.data(),
                                                     nullptr, t, t, &zero, y.desc(), y.data()),
                  BAD);
    EXPECT_STATUS(anydnnDivisiveNormalizationForward(h, desc, M, &one, x.desc(), x.data(), nullptr, nullptr, t,
                                                     &zero, y.desc(), y.data()),
                  BAD);
    EXPECT_STATUS(anydnnDivisiveNormalizationForward(h, desc, M, &one, x3.desc(), x3.data(), nullptr, t, t, &zero,
                                                     x3.desc(), y.data()),
                  BAD);
    EXPECT_STATUS(anydnnDivisiveNormalizationForward(h, desc, M, &one, x.desc(), x.data(), nullptr, t, t, &zero,
                                                     x.desc(), x.data()),
                  BAD);
    EXPECT_STATUS(anydnnDivisiveNormalizationBackward(h, desc, M, &one, x.desc(), x.data(), nullptr, nullptr, t, t,
                                                      &zero, y.desc(), y.data(), nullptr),
                  BAD);
}

INSTANTIATE_TEST_SUITE_P(Isa, Lrn, ::testing::ValuesIn(isa_levels()));
INSTANTIATE_TEST_SUITE_P(Isa, DivNorm, ::testing::ValuesIn(isa_levels()));

}  // namespace
