// PoolingForward / PoolingBackward against the reference, on every ISA level,
// mode, layout and beta: odd 1-D to 3-D shapes (windows larger and smaller
// than the stride, padding), the pooling layers of ResNet-50 and
// MobileNet-v2, f16 / bf16, the NaN options; the AVERAGE backward pass as the
// adjoint of the forward pass and the MAX one against finite differences (f64);
// bitwise identical gradients for every thread count; the descriptor calls
// and the BAD_PARAM / NOT_SUPPORTED cases.
//
// Tolerances, per element (relative, plus absolute slack for averages that
// cancel): f32 1e-5 / 1e-6, f64 1e-12 / 1e-13, f16 / bf16 one storage
// rounding (storage_tol). MAX picks an element, exactly as the reference does.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "common/test_util.hpp"
#include "reference/pooling_ref.hpp"

using namespace anydnn_test;

namespace {

const anydnnPoolingMode_t kModes[] = {ANYDNN_POOLING_MAX, ANYDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
                                      ANYDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING,
                                      ANYDNN_POOLING_MAX_DETERMINISTIC};

double rel_tol(anydnnDataType_t dt) {
    switch (dt) {
    case ANYDNN_DATA_FLOAT: return 1e-5;
    case ANYDNN_DATA_DOUBLE: return 1e-12;
    default: return storage_tol(dt);
    }
}
double abs_tol(anydnnDataType_t dt) {
    switch (dt) {
    case ANYDNN_DATA_FLOAT: return 1e-6;
    case ANYDNN_DATA_DOUBLE: return 1e-13;
    default: return storage_tol(dt);
    }
}

const char *mode_name(anydnnPoolingMode_t m) {
    static const char *names[] = {"max", "avg_include", "avg_exclude", "max_deterministic"};
    return names[m];
}

// A pooling descriptor that lives as long as the test.
struct PoolDesc {
    anydnnPoolingDescriptor_t d = nullptr;
    ref::Pool p;
    explicit PoolDesc(const ref::Pool &pool) : p(pool) {
        EXPECT_OK(anydnnCreatePoolingDescriptor(&d));
        EXPECT_OK(anydnnSetPoolingNdDescriptor(d, p.mode, p.propagate_nan ? ANYDNN_PROPAGATE_NAN
                                                                          : ANYDNN_NOT_PROPAGATE_NAN,
                                               int(p.window.size()), p.window.data(), p.pad.data(),
                                               p.stride.data()));
    }
    ~PoolDesc() { anydnnDestroyPoolingDescriptor(d); }
    PoolDesc(const PoolDesc &) = delete;
    PoolDesc &operator=(const PoolDesc &) = delete;
    operator anydnnPoolingDescriptor_t() const { return d; }
};

ref::Pool pool(anydnnPoolingMode_t mode, std::vector<int> window, std::vector<int> pad, std::vector<int> stride,
               bool propagate_nan = false) {
    return ref::Pool{mode, propagate_nan, std::move(window), std::move(pad), std::move(stride)};
}

std::string describe(const ref::Pool &p) {
    std::string s = mode_name(p.mode);
    for (size_t j = 0; j < p.window.size(); ++j)
        s += " k" + std::to_string(p.window[j]) + "s" + std::to_string(p.stride[j]) + "p" + std::to_string(p.pad[j]);
    return s + (p.propagate_nan ? " nan" : "");
}

// One layout rule applied to x's and to y's dimensions.
using Layout = Shape (*)(const std::vector<int> &);
Shape padded_by_3(const std::vector<int> &dims) { return padded(dims, 3); }
Shape padded_by_2(const std::vector<int> &dims) { return padded(dims, 2); }

struct LayoutPair {
    const char *name;
    Layout x, y;
};
// x's layout for x and dx, y's for y and dy; the mixed pair takes the strided paths.
const LayoutPair kLayouts[] = {{"nchw", packed, packed},
                               {"nhwc", packed_nhwc, packed_nhwc},
                               {"padded", padded_by_3, padded_by_2},
                               {"nchw-x nhwc-y", packed, packed_nhwc}};

// Forward and backward of one problem, checked against the reference.
void check(anydnnHandle_t h, const ref::Pool &p, anydnnDataType_t dt, const std::vector<int> &in_dims,
           const LayoutPair &layout, double alpha, double beta) {
    const PoolDesc desc(p);
    const std::vector<int> out_dims = ref::pool_output_dims(p, in_dims);
    Tensor x(layout.x(in_dims), dt), y(layout.y(out_dims), dt), y0(layout.y(out_dims), dt);
    std::vector<int> got(in_dims.size());
    ASSERT_OK(anydnnGetPoolingNdForwardOutputDim(desc, x.desc(), int(in_dims.size()), got.data()));
    ASSERT_EQ(got, out_dims);
    x.fill_random(-2, 2);
    if (beta != 0) y.fill_random();
    y0.copy_from(y);
    const Scalar al(alpha), be(beta);
    ASSERT_OK(anydnnPoolingForward(h, desc, al.ptr(dt), x.desc(), x.data(), be.ptr(dt), y.desc(), y.data()));
    expect_close(y.values(), ref::pooling_forward(p, alpha, x, beta, y0), rel_tol(dt), abs_tol(dt), "forward");
    EXPECT_TRUE(y.guards_intact());
    EXPECT_TRUE(y.gaps_equal(y0));

    Tensor dy(layout.y(out_dims), dt), dx(layout.x(in_dims), dt), dx0(layout.x(in_dims), dt);
    dy.fill_random();
    if (beta != 0) dx.fill_random();
    dx0.copy_from(dx);
    ASSERT_OK(anydnnPoolingBackward(h, desc, al.ptr(dt), y.desc(), y.data(), dy.desc(), dy.data(), x.desc(),
                                    x.data(), be.ptr(dt), dx.desc(), dx.data()));
    expect_close(dx.values(), ref::pooling_backward(p, alpha, x, dy, beta, dx0), rel_tol(dt), abs_tol(dt),
                 "backward");
    EXPECT_TRUE(dx.guards_intact());
    EXPECT_TRUE(dx.gaps_equal(dx0));
}

struct Case {
    std::vector<int> dims;
    std::vector<int> window, pad, stride;
};

// Odd sizes: window 3x2 / stride 2x1 / pad 1x0, overlapping windows, strides
// beyond the window (skipped inputs), 3-D, 1-D, whole-input windows (global
// pooling: NCHW reduces each plane; planes of 35 values, of 15 with padding
// and two blocks of channels, and a 3-D one), a padded depth of 1.
const Case kOddCases[] = {
    {{2, 5, 13, 11}, {3, 2}, {1, 0}, {2, 1}},
    {{2, 3, 9, 10}, {3, 3}, {1, 1}, {1, 1}},
    {{1, 4, 11, 12}, {2, 2}, {1, 1}, {3, 3}},
    {{2, 3, 5, 6, 7}, {3, 2, 3}, {1, 0, 1}, {2, 2, 1}},
    {{2, 3, 17}, {4}, {2}, {3}},
    {{2, 6, 5, 7}, {5, 7}, {0, 0}, {1, 1}},
    {{2, 70, 3, 5}, {5, 7}, {1, 1}, {1, 1}},
    {{1, 3, 2, 3, 4}, {2, 3, 4}, {0, 0, 0}, {1, 1, 1}},
    {{1, 2, 1, 4, 5}, {2, 2, 2}, {1, 0, 1}, {1, 1, 2}},  // padding makes 2 output planes of 1 input plane
};

// The reference and the library on problems small enough to check by hand.
TEST(PoolingReference, HandChecked) {
    Handle h("generic");
    // 1 2 3 / 4 5 6 / 7 8 9, window 2x2, pad 1, stride 2: windows {1}, {2, 3}, {4, 7}, {5, 6, 8, 9}.
    const std::vector<int> dims = {1, 1, 3, 3}, out_dims = {1, 1, 2, 2};
    Tensor x(packed(dims), ANYDNN_DATA_DOUBLE), dy(packed(out_dims), ANYDNN_DATA_DOUBLE);
    for (int i = 0; i < 9; ++i) x.set({0, 0, i / 3, i % 3}, i + 1);
    for (int i = 0; i < 4; ++i) dy.set({0, 0, i / 2, i % 2}, i + 1);
    struct Expected {
        anydnnPoolingMode_t mode;
        std::vector<double> y, dx;
    };
    const Expected cases[] = {
        {ANYDNN_POOLING_MAX, {1, 3, 7, 9}, {1, 0, 2, 0, 0, 0, 3, 0, 4}},
        {ANYDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING,
         {0.25, 1.25, 2.75, 7},
         {0.25, 0.5, 0.5, 0.75, 1, 1, 0.75, 1, 1}},
        {ANYDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING,
         {1, 2.5, 5.5, 7},
         {1, 1, 1, 1.5, 1, 1, 1.5, 1, 1}},
    };
    for (const Expected &e : cases) {
        const ref::Pool p = pool(e.mode, {2, 2}, {1, 1}, {2, 2});
        SCOPED_TRACE(describe(p));
        const PoolDesc desc(p);
        Tensor y(packed(out_dims), ANYDNN_DATA_DOUBLE), dx(packed(dims), ANYDNN_DATA_DOUBLE);
        EXPECT_EQ(ref::pooling_forward(p, 1, x, 0, y), e.y);
        EXPECT_EQ(ref::pooling_backward(p, 1, x, dy, 0, dx), e.dx);
        const double one = 1, zero = 0;
        ASSERT_OK(anydnnPoolingForward(h, desc, &one, x.desc(), x.data(), &zero, y.desc(), y.data()));
        ASSERT_OK(anydnnPoolingBackward(h, desc, &one, y.desc(), y.data(), dy.desc(), dy.data(), x.desc(), x.data(),
                                        &zero, dx.desc(), dx.data()));
        EXPECT_EQ(y.values(), e.y);
        EXPECT_EQ(dx.values(), e.dx);
    }
    // Ties: the gradient goes to the first maximal element in scan order.
    const ref::Pool p = pool(ANYDNN_POOLING_MAX, {2, 2}, {0, 0}, {1, 1});
    const PoolDesc desc(p);
    Tensor tx(packed({1, 1, 2, 3}), ANYDNN_DATA_FLOAT), ty(packed({1, 1, 1, 2}), ANYDNN_DATA_FLOAT);
    Tensor tdy(packed({1, 1, 1, 2}), ANYDNN_DATA_FLOAT), tdx(packed({1, 1, 2, 3}), ANYDNN_DATA_FLOAT);
    for_each_index({1, 1, 2, 3}, [&](const std::vector<int> &idx) { tx.set(idx, 5); });
    tdy.set({0, 0, 0, 0}, 1);
    tdy.set({0, 0, 0, 1}, 2);
    const float one = 1, zero = 0;
    ASSERT_OK(anydnnPoolingBackward(h, desc, &one, ty.desc(), ty.data(), tdy.desc(), tdy.data(), tx.desc(),
                                    tx.data(), &zero, tdx.desc(), tdx.data()));
    EXPECT_EQ(tdx.values(), (std::vector<double>{1, 2, 0, 0, 0, 0}));
    EXPECT_EQ(ref::pooling_backward(p, 1, tx, tdy, 0, tdx), tdx.values());
}

class Pooling : public ::testing::TestWithParam<std::string> {};

TEST_P(Pooling, EveryModeLayoutTypeAndBeta) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    for (const Case &c : kOddCases)
        for (anydnnPoolingMode_t mode : kModes)
            for (anydnnDataType_t dt : {ANYDNN_DATA_FLOAT, ANYDNN_DATA_DOUBLE})
                for (const LayoutPair &l : kLayouts)
                    for (double beta : {0.0, 0.5}) {
                        const ref::Pool p = pool(mode, c.window, c.pad, c.stride);
                        SCOPED_TRACE(describe(p) + " " + dtype_name(dt) + " " + packed(c.dims).to_string() + " " +
                                     l.name + " beta " + std::to_string(beta));
                        check(h, p, dt, c.dims, l, 0.75, beta);
                    }
}

TEST_P(Pooling, HalfAndBfloat16) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    for (anydnnDataType_t dt : {ANYDNN_DATA_HALF, ANYDNN_DATA_BFLOAT16})
        for (anydnnPoolingMode_t mode : kModes)
            for (const LayoutPair &l : {kLayouts[0], kLayouts[1]})
                for (double beta : {0.0, 0.5})
                    // the second global: NCHW's planes are staged
                    for (const ref::Pool &p :
                         {pool(mode, {3, 2}, {1, 0}, {2, 1}), pool(mode, {9, 8}, {0, 0}, {1, 1})}) {
                        SCOPED_TRACE(describe(p) + " " + dtype_name(dt) + " " + l.name + " beta " +
                                     std::to_string(beta));
                        check(h, p, dt, {2, 20, 9, 8}, l, 1, beta);
                    }
}

// ResNet-50's stem max pool (3x3 stride 2 pad 1 on 112x112x64), its global
// average pool (7x7x2048) and MobileNet-v2's (7x7x1280), in NHWC and NCHW
// (the stem in NCHW with 20 channels, a block of 16 and one of 4: the
// reference's time depends on C).
TEST_P(Pooling, ResNet50AndMobileNetV2Layers) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    struct Layer {
        const char *name;
        std::vector<int> dims;
        ref::Pool p;
        const LayoutPair &layout;
    };
    const ref::Pool stem = pool(ANYDNN_POOLING_MAX, {3, 3}, {1, 1}, {2, 2});
    const ref::Pool avg = pool(ANYDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, {7, 7}, {0, 0}, {1, 1});
    const ref::Pool avg_exclude = pool(ANYDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, {7, 7}, {0, 0}, {7, 7});
    const Layer layers[] = {
        {"resnet50 pool1", {1, 64, 112, 112}, stem, kLayouts[1]},
        {"resnet50 pool1, 20 channels", {1, 20, 112, 112}, stem, kLayouts[0]},
        {"resnet50 avgpool", {2, 2048, 7, 7}, avg, kLayouts[1]},
        {"resnet50 avgpool", {2, 2048, 7, 7}, avg, kLayouts[0]},
        {"mobilenet_v2 avgpool", {2, 1280, 7, 7}, avg_exclude, kLayouts[1]},
        {"mobilenet_v2 avgpool", {2, 1280, 7, 7}, avg_exclude, kLayouts[0]},
    };
    for (const Layer &layer : layers) {
        SCOPED_TRACE(std::string(layer.name) + " " + layer.layout.name);
        check(h, layer.p, ANYDNN_DATA_FLOAT, layer.dims, layer.layout, 1, 0);
    }
}

// Row lanes (NCHW f32 / f64 rows of 16 outputs or more: lanes along the
// output row, x split into the stride's phases): strides 1, 2 and 3 (a
// run-time stride), padding of a stride and more, windows wider than the
// stride and narrower (skipped columns and rows: their gradient is 0), a
// last column no window reaches, rows of several vectors and a partial one.
TEST_P(Pooling, RowLanes) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const Case cases[] = {
        {{2, 3, 9, 37}, {3, 3}, {1, 1}, {1, 1}},   {{1, 3, 7, 70}, {3, 5}, {1, 2}, {2, 2}},
        {{1, 2, 5, 100}, {2, 7}, {0, 3}, {1, 3}},  {{2, 2, 6, 41}, {3, 2}, {1, 0}, {2, 2}},
        {{1, 2, 4, 50}, {2, 9}, {1, 4}, {1, 1}},   {{1, 2, 8, 64}, {2, 2}, {0, 0}, {3, 3}},
    };
    for (const Case &c : cases)
        for (anydnnPoolingMode_t mode : kModes)
            for (anydnnDataType_t dt : {ANYDNN_DATA_FLOAT, ANYDNN_DATA_DOUBLE})
                for (const LayoutPair &l : {kLayouts[0], kLayouts[2]})
                    for (double beta : {0.0, 0.5}) {
                        const ref::Pool p = pool(mode, c.window, c.pad, c.stride);
                        SCOPED_TRACE(describe(p) + " " + dtype_name(dt) + " " + packed(c.dims).to_string() + " " +
                                     l.name + " beta " + std::to_string(beta));
                        check(h, p, dt, c.dims, l, 0.75, beta);
                    }
}

// Row lanes' MAX backward on NaN and -inf windows, both NaN options: x's
// padding must never take the gradient, also where every real tap is -inf
// (it goes to the first) or NaN (the first NaN).
TEST_P(Pooling, RowLanesMaxOfNanAndInfinity) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const std::vector<int> dims = {1, 3, 6, 40};
    for (bool propagate : {false, true})
        for (int stride : {1, 2}) {
            const ref::Pool p = pool(ANYDNN_POOLING_MAX, {3, 3}, {1, 1}, {stride, stride}, propagate);
            SCOPED_TRACE(describe(p));
            const PoolDesc desc(p);
            const std::vector<int> out_dims = ref::pool_output_dims(p, dims);
            Tensor x(packed(dims), ANYDNN_DATA_FLOAT), y(packed(out_dims), ANYDNN_DATA_FLOAT);
            Tensor dy(packed(out_dims), ANYDNN_DATA_FLOAT), dx(packed(dims), ANYDNN_DATA_FLOAT);
            x.fill_random(-2, 2);
            dy.fill_random();
            for (int i = 0; i < 2; ++i)
                for (int j : {0, 1, 38, 39}) {  // the corner windows: -inf (channel 0), NaN (channel 1) only
                    x.set({0, 0, i, j}, -INFINITY);
                    x.set({0, 1, i, j}, NAN);
                }
            for (int j = 3; j < 40; j += 7) x.set({0, 2, j % 6, j}, NAN);  // single NaNs
            const float one = 1, zero = 0;
            ASSERT_OK(anydnnPoolingBackward(h, desc, &one, y.desc(), y.data(), dy.desc(), dy.data(), x.desc(),
                                            x.data(), &zero, dx.desc(), dx.data()));
            expect_close(dx.values(), ref::pooling_backward(p, 1, x, dy, 0, dx), 1e-6, 1e-7, "backward");
        }
}

// NaN options of MAX: with PROPAGATE a NaN is its windows' max; without, it
// is skipped, and a window of NaNs only gives NaN. The gradient follows the
// same choice. 67 channels: NHWC takes a block of 64 in registers, then 3.
TEST_P(Pooling, MaxNanOptions) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const std::vector<int> dims = {1, 67, 6, 6};
    for (bool propagate : {false, true})
        for (const LayoutPair &l : {kLayouts[0], kLayouts[1]}) {
            const ref::Pool p = pool(ANYDNN_POOLING_MAX, {2, 2}, {0, 0}, {2, 2}, propagate);
            SCOPED_TRACE(describe(p) + " " + l.name);
            const PoolDesc desc(p);
            Tensor x(l.x(dims), ANYDNN_DATA_FLOAT), y(l.y({1, 67, 3, 3}), ANYDNN_DATA_FLOAT);
            x.fill_random();
            x.set({0, 1, 0, 0}, NAN);  // one NaN in window (0, 0) of channel 1
            for (int i : {2, 3})
                for (int j : {2, 3}) x.set({0, 2, i, j}, NAN);  // window (1, 1) of channel 2: NaNs only
            const float one = 1, zero = 0;
            ASSERT_OK(anydnnPoolingForward(h, desc, &one, x.desc(), x.data(), &zero, y.desc(), y.data()));
            expect_close(y.values(), ref::pooling_forward(p, 1, x, 0, y), 0, 0, "forward");
            EXPECT_EQ(std::isnan(y.at({0, 1, 0, 0})), propagate);
            EXPECT_TRUE(std::isnan(y.at({0, 2, 1, 1})));
            EXPECT_FALSE(std::isnan(y.at({0, 2, 0, 0})));

            Tensor dy(l.y({1, 67, 3, 3}), ANYDNN_DATA_FLOAT), dx(l.x(dims), ANYDNN_DATA_FLOAT);
            dy.fill_random();
            ASSERT_OK(anydnnPoolingBackward(h, desc, &one, y.desc(), y.data(), dy.desc(), dy.data(), x.desc(),
                                            x.data(), &zero, dx.desc(), dx.data()));
            expect_close(dx.values(), ref::pooling_backward(p, 1, x, dy, 0, dx), 0, 0, "backward");
        }
}

// The same options in a global window, whose NCHW planes are reduced in
// vector-wide partial maxima that are then folded.
TEST_P(Pooling, GlobalMaxNanOptions) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const std::vector<int> dims = {1, 3, 5, 7};
    for (bool propagate : {false, true})
        for (const LayoutPair &l : {kLayouts[0], kLayouts[1]}) {
            const ref::Pool p = pool(ANYDNN_POOLING_MAX, {5, 7}, {0, 0}, {1, 1}, propagate);
            SCOPED_TRACE(describe(p) + " " + l.name);
            const PoolDesc desc(p);
            Tensor x(l.x(dims), ANYDNN_DATA_FLOAT), y(l.y({1, 3, 1, 1}), ANYDNN_DATA_FLOAT);
            x.fill_random();
            x.set({0, 1, 2, 3}, NAN);  // one NaN in channel 1
            for (int i = 0; i < 5; ++i)
                for (int j = 0; j < 7; ++j) x.set({0, 2, i, j}, NAN);  // channel 2: NaNs only
            const float one = 1, zero = 0;
            ASSERT_OK(anydnnPoolingForward(h, desc, &one, x.desc(), x.data(), &zero, y.desc(), y.data()));
            expect_close(y.values(), ref::pooling_forward(p, 1, x, 0, y), 0, 0, "forward");
            EXPECT_EQ(std::isnan(y.at({0, 1, 0, 0})), propagate);
            EXPECT_TRUE(std::isnan(y.at({0, 2, 0, 0})));
            EXPECT_FALSE(std::isnan(y.at({0, 0, 0, 0})));
        }
}

// <pool(x), dy> = <x, pool_backward(dy)>: the AVERAGE gradient is the
// forward pass's adjoint (it is linear).
TEST_P(Pooling, AverageBackwardIsTheAdjointInF64) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const anydnnDataType_t dt = ANYDNN_DATA_DOUBLE;
    for (anydnnPoolingMode_t mode :
         {ANYDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, ANYDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING})
        for (const Case &c : kOddCases) {
            const ref::Pool p = pool(mode, c.window, c.pad, c.stride);
            SCOPED_TRACE(describe(p) + " " + packed(c.dims).to_string());
            const PoolDesc desc(p);
            const std::vector<int> out_dims = ref::pool_output_dims(p, c.dims);
            Tensor x(packed(c.dims), dt), y(packed(out_dims), dt), dy(packed(out_dims), dt), dx(packed(c.dims), dt);
            x.fill_random();
            dy.fill_random();
            const double one = 1, zero = 0;
            ASSERT_OK(anydnnPoolingForward(h, desc, &one, x.desc(), x.data(), &zero, y.desc(), y.data()));
            ASSERT_OK(anydnnPoolingBackward(h, desc, &one, y.desc(), y.data(), dy.desc(), dy.data(), x.desc(),
                                            x.data(), &zero, dx.desc(), dx.data()));
            const auto yv = y.values(), dyv = dy.values(), xv = x.values(), dxv = dx.values();
            const double lhs = std::inner_product(yv.begin(), yv.end(), dyv.begin(), 0.0);
            const double rhs = std::inner_product(xv.begin(), xv.end(), dxv.begin(), 0.0);
            EXPECT_NEAR(lhs, rhs, 1e-12 * double(xv.size()));
        }
}

// <dy, (P(x + t v) - P(x - t v)) / 2t> = <dx, v> for x without ties, where
// the max positions cannot move within t.
TEST_P(Pooling, MaxBackwardMatchesFiniteDifferencesInF64) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const anydnnDataType_t dt = ANYDNN_DATA_DOUBLE;
    const double step = 1e-6;
    for (const Case &c : kOddCases) {
        const ref::Pool p = pool(ANYDNN_POOLING_MAX, c.window, c.pad, c.stride);
        SCOPED_TRACE(describe(p) + " " + packed(c.dims).to_string());
        const PoolDesc desc(p);
        const std::vector<int> out_dims = ref::pool_output_dims(p, c.dims);
        Tensor x(packed(c.dims), dt), xp(packed(c.dims), dt), xm(packed(c.dims), dt), v(packed(c.dims), dt);
        Tensor y(packed(out_dims), dt), yp(packed(out_dims), dt), ym(packed(out_dims), dt),
            dy(packed(out_dims), dt), dx(packed(c.dims), dt);
        // Distinct values 0.01 apart, shuffled.
        std::vector<int> order(size_t(x.shape().elements()));
        std::iota(order.begin(), order.end(), 0);
        std::shuffle(order.begin(), order.end(), rng());
        size_t i = 0;
        for_each_index(c.dims, [&](const std::vector<int> &idx) { x.set(idx, 0.01 * order[i++]); });
        v.fill_random();
        dy.fill_random();
        for_each_index(c.dims, [&](const std::vector<int> &idx) {
            xp.set(idx, x.at(idx) + step * v.at(idx));
            xm.set(idx, x.at(idx) - step * v.at(idx));
        });
        const double one = 1, zero = 0;
        ASSERT_OK(anydnnPoolingForward(h, desc, &one, x.desc(), x.data(), &zero, y.desc(), y.data()));
        ASSERT_OK(anydnnPoolingForward(h, desc, &one, xp.desc(), xp.data(), &zero, yp.desc(), yp.data()));
        ASSERT_OK(anydnnPoolingForward(h, desc, &one, xm.desc(), xm.data(), &zero, ym.desc(), ym.data()));
        ASSERT_OK(anydnnPoolingBackward(h, desc, &one, y.desc(), y.data(), dy.desc(), dy.data(), x.desc(), x.data(),
                                        &zero, dx.desc(), dx.data()));
        const auto pv = yp.values(), mv = ym.values(), g = dy.values(), d = dx.values(), dir = v.values();
        double fd = 0, vjp = 0;
        for (size_t k = 0; k < pv.size(); ++k) fd += g[k] * (pv[k] - mv[k]) / (2 * step);
        for (size_t k = 0; k < d.size(); ++k) vjp += d[k] * dir[k];
        EXPECT_NEAR(fd, vjp, 1e-7 * double(d.size()));
    }
}

// Each dx element's sum runs in one order whatever the thread count (rows
// of 39: NCHW's row lanes).
TEST_P(Pooling, BackwardIsBitwiseIdenticalForEveryThreadCount) {
    for (const std::vector<int> &dims : {std::vector<int>{3, 40, 23, 19}, std::vector<int>{3, 40, 23, 39}})
        for (anydnnPoolingMode_t mode : {ANYDNN_POOLING_MAX, ANYDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING})
            for (const LayoutPair &l : {kLayouts[0], kLayouts[1]}) {
                const ref::Pool p = pool(mode, {3, 3}, {1, 1}, {2, 2});
                SCOPED_TRACE(describe(p) + " " + l.name);
                const PoolDesc desc(p);
                const std::vector<int> out_dims = ref::pool_output_dims(p, dims);
                Tensor x(l.x(dims), ANYDNN_DATA_FLOAT), y(l.y(out_dims), ANYDNN_DATA_FLOAT),
                    dy(l.y(out_dims), ANYDNN_DATA_FLOAT);
                x.fill_random();
                dy.fill_random();
                std::vector<std::vector<double>> results;
                for (int threads : {1, 2, 3}) {
                    Handle h(GetParam(), threads);
                    SKIP_IF_UNAVAILABLE(h);
                    Tensor dx(l.x(dims), ANYDNN_DATA_FLOAT);
                    const float one = 1, zero = 0;
                    ASSERT_OK(anydnnPoolingBackward(h, desc, &one, y.desc(), y.data(), dy.desc(), dy.data(), x.desc(),
                                                    x.data(), &zero, dx.desc(), dx.data()));
                    results.push_back(dx.values());
                }
                EXPECT_TRUE(results[0] == results[1]);
                EXPECT_TRUE(results[0] == results[2]);
            }
}

// dx of 16 MiB and more is written with streaming stores (alpha applied on
// the way out); NHWC's 64-channel blocks and NCHW's transposed 16-channel
// ones, both window passes in registers.
TEST_P(Pooling, BackwardBeyondTheCache) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const ref::Pool stem = pool(ANYDNN_POOLING_MAX, {3, 3}, {1, 1}, {2, 2});
    for (const LayoutPair &l : {kLayouts[0], kLayouts[1]}) {
        SCOPED_TRACE(l.name);
        check(h, stem, ANYDNN_DATA_FLOAT, {1, 64, 256, 256}, l, 0.75, 0);
    }
}

INSTANTIATE_TEST_SUITE_P(Isa, Pooling, ::testing::ValuesIn(isa_levels()));

// ---- Descriptor and argument checks --------------------------------------------------------

std::vector<unsigned char> bytes_of(const Tensor &t) {
    const auto *p = static_cast<const unsigned char *>(t.data());
    return {p, p + t.shape().span() * dtype_size(t.dtype())};
}

TEST(PoolingDescriptor, SetAndGet) {
    anydnnPoolingDescriptor_t d;
    ASSERT_OK(anydnnCreatePoolingDescriptor(&d));
    ASSERT_OK(anydnnSetPooling2dDescriptor(d, ANYDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, ANYDNN_PROPAGATE_NAN, 3,
                                           2, 1, 0, 2, 1));
    anydnnPoolingMode_t mode;
    anydnnNanPropagation_t nan;
    int wh, ww, ph, pw, sh, sw;
    ASSERT_OK(anydnnGetPooling2dDescriptor(d, &mode, &nan, &wh, &ww, &ph, &pw, &sh, &sw));
    EXPECT_EQ(mode, ANYDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING);
    EXPECT_EQ(nan, ANYDNN_PROPAGATE_NAN);
    EXPECT_EQ((std::vector<int>{wh, ww, ph, pw, sh, sw}), (std::vector<int>{3, 2, 1, 0, 2, 1}));

    const int win[] = {3, 2, 4}, pad[] = {1, 0, 2}, stride[] = {2, 1, 3};
    ASSERT_OK(anydnnSetPoolingNdDescriptor(d, ANYDNN_POOLING_MAX_DETERMINISTIC, ANYDNN_NOT_PROPAGATE_NAN, 3, win, pad,
                                           stride));
    int nd = 0, w2[3] = {}, p2[3] = {}, s2[3] = {};
    ASSERT_OK(anydnnGetPoolingNdDescriptor(d, 3, &mode, &nan, &nd, w2, p2, s2));
    EXPECT_EQ(mode, ANYDNN_POOLING_MAX_DETERMINISTIC);
    EXPECT_EQ(nan, ANYDNN_NOT_PROPAGATE_NAN);
    EXPECT_EQ(nd, 3);
    EXPECT_EQ((std::vector<int>(w2, w2 + 3)), (std::vector<int>(win, win + 3)));
    EXPECT_EQ((std::vector<int>(p2, p2 + 3)), (std::vector<int>(pad, pad + 3)));
    EXPECT_EQ((std::vector<int>(s2, s2 + 3)), (std::vector<int>(stride, stride + 3)));
    // Fewer values requested: only those written.
    int w1[3] = {-1, -1, -1}, p1[3] = {-1, -1, -1}, s1[3] = {-1, -1, -1};
    ASSERT_OK(anydnnGetPoolingNdDescriptor(d, 1, nullptr, nullptr, &nd, w1, p1, s1));
    EXPECT_EQ(w1[0], 3);
    EXPECT_EQ(w1[1], -1);
    EXPECT_EQ(nd, 3);
    // A 3-d descriptor has no 2-d view.
    EXPECT_STATUS(anydnnGetPooling2dDescriptor(d, &mode, &nan, &wh, &ww, &ph, &pw, &sh, &sw), ANYDNN_STATUS_BAD_PARAM);

    // 13x11 input, window 3x2, stride 2x1, pad 1x0: 1 + (13 + 2 - 3) / 2 = 7, 1 + (11 - 2) / 1 = 10.
    ASSERT_OK(anydnnSetPooling2dDescriptor(d, ANYDNN_POOLING_MAX, ANYDNN_NOT_PROPAGATE_NAN, 3, 2, 1, 0, 2, 1));
    Tensor x(packed({2, 5, 13, 11}), ANYDNN_DATA_FLOAT);
    int n, c, h, w;
    ASSERT_OK(anydnnGetPooling2dForwardOutputDim(d, x.desc(), &n, &c, &h, &w));
    EXPECT_EQ((std::vector<int>{n, c, h, w}), (std::vector<int>{2, 5, 7, 10}));
    int out[4];
    ASSERT_OK(anydnnGetPoolingNdForwardOutputDim(d, x.desc(), 4, out));
    EXPECT_EQ((std::vector<int>(out, out + 4)), (std::vector<int>{2, 5, 7, 10}));
    EXPECT_STATUS(anydnnGetPoolingNdForwardOutputDim(d, x.desc(), 3, out), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnGetPoolingNdForwardOutputDim(d, x.desc(), 4, nullptr), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnGetPooling2dForwardOutputDim(d, x.desc(), &n, nullptr, &h, &w), ANYDNN_STATUS_BAD_PARAM);
    Tensor x5(packed({2, 5, 3, 13, 11}), ANYDNN_DATA_FLOAT), tiny(packed({2, 5, 1, 11}), ANYDNN_DATA_FLOAT);
    EXPECT_STATUS(anydnnGetPoolingNdForwardOutputDim(d, x5.desc(), 5, out), ANYDNN_STATUS_BAD_PARAM);
    // Window 3 over 1 + 2 * 1 padded rows: fits; with pad 0 it does not.
    ASSERT_OK(anydnnGetPooling2dForwardOutputDim(d, tiny.desc(), &n, &c, &h, &w));
    EXPECT_EQ(h, 1);
    ASSERT_OK(anydnnSetPooling2dDescriptor(d, ANYDNN_POOLING_MAX, ANYDNN_NOT_PROPAGATE_NAN, 3, 2, 0, 0, 2, 1));
    EXPECT_STATUS(anydnnGetPooling2dForwardOutputDim(d, tiny.desc(), &n, &c, &h, &w), ANYDNN_STATUS_BAD_PARAM);
    ASSERT_OK(anydnnDestroyPoolingDescriptor(d));
}

TEST(PoolingDescriptor, BadSettersChangeNothing) {
    anydnnPoolingDescriptor_t d, never_set;
    ASSERT_OK(anydnnCreatePoolingDescriptor(&d));
    ASSERT_OK(anydnnCreatePoolingDescriptor(&never_set));
    EXPECT_STATUS(anydnnCreatePoolingDescriptor(nullptr), ANYDNN_STATUS_BAD_PARAM);
    ASSERT_OK(anydnnSetPooling2dDescriptor(d, ANYDNN_POOLING_MAX, ANYDNN_NOT_PROPAGATE_NAN, 3, 3, 1, 1, 2, 2));
    const anydnnStatus_t bad = ANYDNN_STATUS_BAD_PARAM;
    const auto set2d = [&](int mode, int nan, int wh, int ww, int ph, int pw, int sh, int sw) {
        return anydnnSetPooling2dDescriptor(d, static_cast<anydnnPoolingMode_t>(mode),
                                            static_cast<anydnnNanPropagation_t>(nan), wh, ww, ph, pw, sh, sw);
    };
    EXPECT_STATUS(set2d(4, 0, 2, 2, 0, 0, 1, 1), bad);
    EXPECT_STATUS(set2d(-1, 0, 2, 2, 0, 0, 1, 1), bad);
    EXPECT_STATUS(set2d(0, 2, 2, 2, 0, 0, 1, 1), bad);
    EXPECT_STATUS(set2d(0, 0, 0, 2, 0, 0, 1, 1), bad);   // window < 1
    EXPECT_STATUS(set2d(0, 0, 2, 2, 0, 0, 0, 1), bad);   // stride < 1
    EXPECT_STATUS(set2d(0, 0, 2, 2, -1, 0, 1, 1), bad);  // padding < 0
    EXPECT_STATUS(set2d(0, 0, 2, 2, 0, 2, 1, 1), bad);   // padding >= window
    EXPECT_STATUS(anydnnSetPooling2dDescriptor(nullptr, ANYDNN_POOLING_MAX, ANYDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 1,
                                               1),
                  bad);
    const int one[] = {1, 1, 1, 1, 1, 1, 1}, zero[] = {0, 0, 0, 0, 0, 0, 0};
    EXPECT_STATUS(anydnnSetPoolingNdDescriptor(d, ANYDNN_POOLING_MAX, ANYDNN_NOT_PROPAGATE_NAN, 0, one, zero, one),
                  bad);
    EXPECT_STATUS(anydnnSetPoolingNdDescriptor(d, ANYDNN_POOLING_MAX, ANYDNN_NOT_PROPAGATE_NAN, ANYDNN_DIM_MAX - 1,
                                               one, zero, one),
                  bad);
    EXPECT_STATUS(anydnnSetPoolingNdDescriptor(d, ANYDNN_POOLING_MAX, ANYDNN_NOT_PROPAGATE_NAN, 2, one, nullptr, one),
                  bad);
    anydnnPoolingMode_t mode;
    anydnnNanPropagation_t nan;
    int wh, ww, ph, pw, sh, sw;
    ASSERT_OK(anydnnGetPooling2dDescriptor(d, &mode, &nan, &wh, &ww, &ph, &pw, &sh, &sw));
    EXPECT_EQ(mode, ANYDNN_POOLING_MAX);
    EXPECT_EQ((std::vector<int>{wh, ww, ph, pw, sh, sw}), (std::vector<int>{3, 3, 1, 1, 2, 2}));
    EXPECT_STATUS(anydnnGetPooling2dDescriptor(never_set, &mode, &nan, &wh, &ww, &ph, &pw, &sh, &sw), bad);
    EXPECT_STATUS(anydnnGetPooling2dDescriptor(nullptr, &mode, &nan, &wh, &ww, &ph, &pw, &sh, &sw), bad);
    int nd, w[2], p[2], s[2];
    EXPECT_STATUS(anydnnGetPoolingNdDescriptor(d, -1, &mode, &nan, &nd, w, p, s), bad);
    EXPECT_STATUS(anydnnGetPoolingNdDescriptor(d, 2, &mode, &nan, &nd, nullptr, p, s), bad);
    EXPECT_STATUS(anydnnGetPoolingNdDescriptor(never_set, 2, &mode, &nan, &nd, w, p, s), bad);
    ASSERT_OK(anydnnDestroyPoolingDescriptor(d));
    ASSERT_OK(anydnnDestroyPoolingDescriptor(never_set));
}

TEST(PoolingArguments, ForwardFailuresWriteNothing) {
    Handle h("generic");
    const PoolDesc desc(pool(ANYDNN_POOLING_MAX, {3, 3}, {1, 1}, {2, 2}));
    anydnnPoolingDescriptor_t never_set;
    ASSERT_OK(anydnnCreatePoolingDescriptor(&never_set));
    anydnnTensorDescriptor_t unset_tensor;
    ASSERT_OK(anydnnCreateTensorDescriptor(&unset_tensor));
    Tensor x(packed({2, 3, 9, 8}), ANYDNN_DATA_FLOAT), y(packed({2, 3, 5, 4}), ANYDNN_DATA_FLOAT);
    Tensor wrong_y(packed({2, 3, 5, 5}), ANYDNN_DATA_FLOAT), wrong_c(packed({2, 4, 5, 4}), ANYDNN_DATA_FLOAT);
    Tensor y5(packed({2, 3, 1, 5, 4}), ANYDNN_DATA_FLOAT), half_y(packed({2, 3, 5, 4}), ANYDNN_DATA_HALF);
    Tensor s32x(packed({2, 3, 9, 8}), ANYDNN_DATA_INT32), s32y(packed({2, 3, 5, 4}), ANYDNN_DATA_INT32);
    x.fill_random();
    y.fill_random();
    const auto before = bytes_of(y);
    const float one = 1, zero = 0;
    const anydnnStatus_t bad = ANYDNN_STATUS_BAD_PARAM;
    const auto fwd = [&](anydnnPoolingDescriptor_t d, const void *a, anydnnTensorDescriptor_t xd, const void *xp,
                         const void *b, anydnnTensorDescriptor_t yd, void *yp) {
        return anydnnPoolingForward(h, d, a, xd, xp, b, yd, yp);
    };
    EXPECT_STATUS(anydnnPoolingForward(nullptr, desc, &one, x.desc(), x.data(), &zero, y.desc(), y.data()), bad);
    EXPECT_STATUS(fwd(nullptr, &one, x.desc(), x.data(), &zero, y.desc(), y.data()), bad);
    EXPECT_STATUS(fwd(never_set, &one, x.desc(), x.data(), &zero, y.desc(), y.data()), bad);
    EXPECT_STATUS(fwd(desc, &one, nullptr, x.data(), &zero, y.desc(), y.data()), bad);
    EXPECT_STATUS(fwd(desc, &one, unset_tensor, x.data(), &zero, y.desc(), y.data()), bad);
    EXPECT_STATUS(fwd(desc, &one, x.desc(), x.data(), &zero, unset_tensor, y.data()), bad);
    EXPECT_STATUS(fwd(desc, &one, x.desc(), x.data(), &zero, wrong_y.desc(), y.data()), bad);
    EXPECT_STATUS(fwd(desc, &one, x.desc(), x.data(), &zero, wrong_c.desc(), y.data()), bad);
    EXPECT_STATUS(fwd(desc, &one, x.desc(), x.data(), &zero, y5.desc(), y.data()), bad);
    EXPECT_STATUS(fwd(desc, &one, x.desc(), x.data(), &zero, half_y.desc(), y.data()), bad);
    EXPECT_STATUS(fwd(desc, &one, x.desc(), nullptr, &zero, y.desc(), y.data()), bad);
    EXPECT_STATUS(fwd(desc, &one, x.desc(), x.data(), &zero, y.desc(), nullptr), bad);
    EXPECT_STATUS(fwd(desc, nullptr, x.desc(), x.data(), &zero, y.desc(), y.data()), bad);
    EXPECT_STATUS(fwd(desc, &one, x.desc(), x.data(), nullptr, y.desc(), y.data()), bad);
    // y inside x's buffer.
    EXPECT_STATUS(fwd(desc, &one, x.desc(), y.data(), &zero, y.desc(), y.data()), bad);
    EXPECT_STATUS(fwd(desc, &one, s32x.desc(), s32x.data(), &zero, s32y.desc(), s32y.data()),
                  ANYDNN_STATUS_NOT_SUPPORTED);
    // Window larger than the padded input.
    const PoolDesc big(pool(ANYDNN_POOLING_MAX, {12, 3}, {1, 1}, {1, 1}));
    EXPECT_STATUS(fwd(big, &one, x.desc(), x.data(), &zero, y.desc(), y.data()), bad);
    EXPECT_TRUE(bytes_of(y) == before);

    // Four spatial dimensions are valid but not run by the CPU backend.
    const PoolDesc four(pool(ANYDNN_POOLING_MAX, {1, 1, 1, 1}, {0, 0, 0, 0}, {1, 1, 1, 1}));
    Tensor x6(packed({1, 2, 2, 2, 2, 2}), ANYDNN_DATA_FLOAT), y6(packed({1, 2, 2, 2, 2, 2}), ANYDNN_DATA_FLOAT);
    EXPECT_STATUS(fwd(four, &one, x6.desc(), x6.data(), &zero, y6.desc(), y6.data()), ANYDNN_STATUS_NOT_SUPPORTED);
    anydnnDestroyPoolingDescriptor(never_set);
    anydnnDestroyTensorDescriptor(unset_tensor);
}

TEST(PoolingArguments, BackwardFailuresWriteNothing) {
    Handle h("generic");
    const PoolDesc desc(pool(ANYDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, {3, 3}, {1, 1}, {2, 2}));
    Tensor x(packed({2, 3, 9, 8}), ANYDNN_DATA_FLOAT), dx(packed({2, 3, 9, 8}), ANYDNN_DATA_FLOAT);
    Tensor y(packed({2, 3, 5, 4}), ANYDNN_DATA_FLOAT), dy(packed({2, 3, 5, 4}), ANYDNN_DATA_FLOAT);
    Tensor wrong_out(packed({2, 3, 4, 4}), ANYDNN_DATA_FLOAT), wrong_in(packed({2, 3, 9, 9}), ANYDNN_DATA_FLOAT);
    Tensor half_out(packed({2, 3, 5, 4}), ANYDNN_DATA_HALF);
    for (Tensor *t : {&x, &dx, &y, &dy}) t->fill_random();
    const auto before = bytes_of(dx);
    const float one = 1, zero = 0;
    const anydnnStatus_t bad = ANYDNN_STATUS_BAD_PARAM;
    const auto bwd = [&](anydnnPoolingDescriptor_t d, const Tensor &yt, const Tensor &dyt, const Tensor &xt,
                         anydnnTensorDescriptor_t dxd, const void *a, const void *b, void *dxp) {
        return anydnnPoolingBackward(h, d, a, yt.desc(), yt.data(), dyt.desc(), dyt.data(), xt.desc(), xt.data(), b,
                                     dxd, dxp);
    };
    EXPECT_STATUS(bwd(nullptr, y, dy, x, dx.desc(), &one, &zero, dx.data()), bad);
    EXPECT_STATUS(bwd(desc, wrong_out, dy, x, dx.desc(), &one, &zero, dx.data()), bad);
    EXPECT_STATUS(bwd(desc, y, wrong_out, x, dx.desc(), &one, &zero, dx.data()), bad);
    EXPECT_STATUS(bwd(desc, y, dy, wrong_in, dx.desc(), &one, &zero, dx.data()), bad);
    EXPECT_STATUS(bwd(desc, y, dy, x, wrong_in.desc(), &one, &zero, dx.data()), bad);
    EXPECT_STATUS(bwd(desc, half_out, dy, x, dx.desc(), &one, &zero, dx.data()), bad);
    EXPECT_STATUS(bwd(desc, y, half_out, x, dx.desc(), &one, &zero, dx.data()), bad);
    EXPECT_STATUS(bwd(desc, y, dy, x, nullptr, &one, &zero, dx.data()), bad);
    EXPECT_STATUS(bwd(desc, y, dy, x, dx.desc(), nullptr, &zero, dx.data()), bad);
    EXPECT_STATUS(bwd(desc, y, dy, x, dx.desc(), &one, nullptr, dx.data()), bad);
    EXPECT_STATUS(bwd(desc, y, dy, x, dx.desc(), &one, &zero, nullptr), bad);
    EXPECT_STATUS(anydnnPoolingBackward(h, desc, &one, y.desc(), y.data(), dy.desc(), nullptr, x.desc(), x.data(),
                                        &zero, dx.desc(), dx.data()),
                  bad);
    // dx in x's buffer.
    EXPECT_STATUS(bwd(desc, y, dy, dx, dx.desc(), &one, &zero, dx.data()), bad);
    EXPECT_TRUE(bytes_of(dx) == before);
}

}  // namespace
