// SoftmaxForward / SoftmaxBackward against the reference, on every ISA level,
// algorithm, mode, data type, layout and beta; the fast paths (contiguous
// rows, NCHW columns) and the strided fallback; 3- to 8-D tensors; in place;
// a vector-Jacobian check of the f64 backward pass against finite
// differences of the forward pass; and the BAD_PARAM / NOT_SUPPORTED cases.
//
// Tolerances, per element (relative, plus absolute slack where the output
// is a difference that cancels, as y (dy - sum) and LOG's x - max - log sum):
//   f32   1e-5 relative, 1e-6 absolute (vmath's exp/log are ~1 ulp; sums run
//         in 16 partial results)
//   f64   1e-12 relative, 1e-13 absolute
//   f16 / bf16: one storage rounding (storage_tol) relative and absolute.
#include <cmath>
#include <cstring>

#include "common/test_util.hpp"
#include "reference/softmax_ref.hpp"

using namespace anydnn_test;

namespace {

const anydnnDataType_t kTypes[] = {ANYDNN_DATA_FLOAT, ANYDNN_DATA_DOUBLE, ANYDNN_DATA_HALF, ANYDNN_DATA_BFLOAT16};
const anydnnSoftmaxAlgorithm_t kAlgos[] = {ANYDNN_SOFTMAX_FAST, ANYDNN_SOFTMAX_ACCURATE, ANYDNN_SOFTMAX_LOG};
const anydnnSoftmaxMode_t kModes[] = {ANYDNN_SOFTMAX_MODE_INSTANCE, ANYDNN_SOFTMAX_MODE_CHANNEL};

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

std::string name_of(anydnnSoftmaxAlgorithm_t algo, anydnnSoftmaxMode_t mode) {
    static const char *algos[] = {"fast", "accurate", "log"};
    return std::string(algos[algo]) + (mode == ANYDNN_SOFTMAX_MODE_INSTANCE ? " instance" : " channel");
}

// Packed NCHW, packed NHWC, padded (gaps), and mixed: x NCHW, y NHWC (the
// strided fallback for CHANNEL mode).
std::vector<std::pair<Shape, Shape>> layout_pairs(const std::vector<int> &dims) {
    return {{packed(dims), packed(dims)},
            {packed_nhwc(dims), packed_nhwc(dims)},
            {padded(dims), padded(dims, 2)},
            {packed(dims), packed_nhwc(dims)}};
}

// Fills y with the forward output (alpha 1, beta 0) of x, as the backward pass expects.
void set_forward_output(anydnnSoftmaxAlgorithm_t algo, anydnnSoftmaxMode_t mode, const Tensor &x, Tensor &y) {
    const auto v = ref::softmax_forward(algo, mode, 1, x, 0, y);
    size_t i = 0;
    for_each_index(y.shape().dims, [&](const std::vector<int> &idx) { y.set(idx, v[i++]); });
}

// Forward and backward of one problem, checked against the reference.
void check(anydnnHandle_t h, anydnnSoftmaxAlgorithm_t algo, anydnnSoftmaxMode_t mode, anydnnDataType_t dt,
           const Shape &xs, const Shape &ys, double alpha, double beta, double slack = 1) {
    Tensor x(xs, dt), y(ys, dt), y0(ys, dt);
    x.fill_random(-3, 3);
    if (beta != 0) y.fill_random();
    y0.copy_from(y);
    const Scalar al(alpha), be(beta);
    ASSERT_OK(anydnnSoftmaxForward(h, algo, mode, al.ptr(dt), x.desc(), x.data(), be.ptr(dt), y.desc(), y.data()));
    expect_close(y.values(), ref::softmax_forward(algo, mode, alpha, x, beta, y0), rel_tol(dt), slack * abs_tol(dt),
                 "forward");
    EXPECT_TRUE(y.guards_intact());
    EXPECT_TRUE(y.gaps_equal(y0));

    // Backward: y as the forward pass left it in x's layout, dy and dx in y's.
    Tensor yf(xs, dt), dy(ys, dt), dx(ys, dt), dx0(ys, dt);
    set_forward_output(algo, mode, x, yf);
    dy.fill_random();
    if (beta != 0) dx.fill_random();
    dx0.copy_from(dx);
    ASSERT_OK(anydnnSoftmaxBackward(h, algo, mode, al.ptr(dt), yf.desc(), yf.data(), dy.desc(), dy.data(), be.ptr(dt),
                                    dx.desc(), dx.data()));
    expect_close(dx.values(), ref::softmax_backward(algo, mode, alpha, yf, dy, beta, dx0), rel_tol(dt),
                 slack * abs_tol(dt), "backward");
    EXPECT_TRUE(dx.guards_intact());
    EXPECT_TRUE(dx.gaps_equal(dx0));
}

class Softmax : public ::testing::TestWithParam<std::string> {};

TEST_P(Softmax, EveryAlgorithmModeTypeLayoutAndBeta) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const std::vector<int> dims = {2, 5, 3, 7};
    for (anydnnSoftmaxAlgorithm_t algo : kAlgos)
        for (anydnnSoftmaxMode_t mode : kModes)
            for (anydnnDataType_t dt : kTypes)
                for (const auto &[xs, ys] : layout_pairs(dims))
                    for (double beta : {0.0, 0.5}) {
                        SCOPED_TRACE(name_of(algo, mode) + " " + dtype_name(dt) + " x " + xs.to_string() + " y " +
                                     ys.to_string() + " beta " + std::to_string(beta));
                        check(h, algo, mode, dt, xs, ys, 0.75, beta);
                    }
}

// Dimensions beyond N are C, then spatial; 3 to 8 of them.
TEST_P(Softmax, ThreeToEightDimensions) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const std::vector<std::vector<int>> shapes = {
        {3, 6, 10}, {2, 3, 2, 3, 4}, {2, 3, 2, 1, 3, 2}, {2, 2, 3, 1, 2, 2, 1}, {2, 3, 2, 2, 1, 2, 3, 2}};
    for (const auto &dims : shapes)
        for (anydnnSoftmaxAlgorithm_t algo : kAlgos)
            for (anydnnSoftmaxMode_t mode : kModes)
                for (const auto &[xs, ys] : layout_pairs(dims)) {
                    SCOPED_TRACE(name_of(algo, mode) + " x " + xs.to_string() + " y " + ys.to_string());
                    check(h, algo, mode, ANYDNN_DATA_FLOAT, xs, ys, 1, 0.25);
                }
}

// Large enough to split over threads: NCHW columns with a partial last block,
// long contiguous rows, INSTANCE over whole images, C = 1 and H = W = 1.
TEST_P(Softmax, LargeTensorsAndEveryPath) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    struct Case {
        std::vector<int> dims;
        anydnnSoftmaxMode_t mode;
    };
    const Case cases[] = {
        {{4, 37, 19, 23}, ANYDNN_SOFTMAX_MODE_CHANNEL},   // columns (NCHW), 437 positions: 7 blocks
        {{2, 1000, 9, 9}, ANYDNN_SOFTMAX_MODE_CHANNEL},   // a full column block of 1000 elements (terms kept in y)
        {{64, 1000, 1, 1}, ANYDNN_SOFTMAX_MODE_CHANNEL},  // classifier rows
        {{3, 7, 33, 65}, ANYDNN_SOFTMAX_MODE_INSTANCE},   // rows of a whole image
        {{2, 1, 50, 50}, ANYDNN_SOFTMAX_MODE_CHANNEL},    // softmax over one element
        {{300, 3, 1, 5}, ANYDNN_SOFTMAX_MODE_CHANNEL},    // columns narrower than 8: rows, strided
    };
    for (const Case &c : cases)
        for (anydnnSoftmaxAlgorithm_t algo : kAlgos)
            for (anydnnDataType_t dt : {ANYDNN_DATA_FLOAT, ANYDNN_DATA_BFLOAT16})
                for (const Shape &s : {packed(c.dims), packed_nhwc(c.dims)})
                    for (double beta : {0.0, -1.25}) {
                        SCOPED_TRACE(name_of(algo, c.mode) + " " + dtype_name(dt) + " " + s.to_string() + " beta " +
                                     std::to_string(beta));
                        check(h, algo, c.mode, dt, s, s, 1, beta, 4);
                    }
}

// Contiguous rows of up to 1024 elements run a group of adjacent rows at a
// time (1024 / C of them), pass by pass: channel counts around the vector
// width and the group, position counts that leave a partial group, padded
// (one row a group), beta != 0 (the general path) and double; NCHW columns
// around the block of 64. ACCURATE over 1 to 4 whole vectors of channels
// (8 to 64: AVX2 and AVX-512) holds each row in registers, rows in
// lock-step: 195 positions leave a remainder.
TEST_P(Softmax, RowGroupsAndColumnBlocks) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    for (int c : {1, 8, 16, 17, 24, 32, 48, 63, 64, 65, 1000, 1024, 1025})
        for (anydnnSoftmaxAlgorithm_t algo : kAlgos)
            for (anydnnDataType_t dt : {ANYDNN_DATA_FLOAT, ANYDNN_DATA_DOUBLE}) {
                // NCHW: 65 positions an image (a full column block and one
                // of 1), 26 for the long rows.
                const int n = c > 100 ? 1 : 3, hh = c > 100 ? 2 : 5;
                const std::vector<int> dims = {n, c, hh, 13};
                const Shape gaps_nhwc{dims, {(hh * (13 * (c + 3) + 5) + 2), 1, 13 * (c + 3) + 5, c + 3}};
                for (const Shape &s : {packed_nhwc(dims), gaps_nhwc, packed(dims)})
                    for (double beta : {0.0, 0.5}) {
                        SCOPED_TRACE(name_of(algo, ANYDNN_SOFTMAX_MODE_CHANNEL) + " " + dtype_name(dt) + " " +
                                     s.to_string() + " beta " + std::to_string(beta));
                        check(h, algo, ANYDNN_SOFTMAX_MODE_CHANNEL, dt, s, s, 0.75, beta);
                    }
            }
}

// Each softmax's reductions run in one order whatever the thread count.
TEST_P(Softmax, ThreadCountsGiveIdenticalResults) {
    Handle h1(GetParam(), 1), h2(GetParam(), 2);
    SKIP_IF_UNAVAILABLE(h1);
    for (int c : {17, 64, 1000})
        for (const Shape &s : {packed_nhwc({9, c, 7, 11}), packed({9, c, 7, 11})})
            for (anydnnSoftmaxAlgorithm_t algo : kAlgos) {
                SCOPED_TRACE(name_of(algo, ANYDNN_SOFTMAX_MODE_CHANNEL) + " " + s.to_string());
                Tensor x(s, ANYDNN_DATA_FLOAT), y1(s, ANYDNN_DATA_FLOAT), y2(s, ANYDNN_DATA_FLOAT);
                x.fill_random(-3, 3);
                const float one = 1, zero = 0;
                ASSERT_OK(anydnnSoftmaxForward(h1, algo, ANYDNN_SOFTMAX_MODE_CHANNEL, &one, x.desc(), x.data(), &zero,
                                               y1.desc(), y1.data()));
                ASSERT_OK(anydnnSoftmaxForward(h2, algo, ANYDNN_SOFTMAX_MODE_CHANNEL, &one, x.desc(), x.data(), &zero,
                                               y2.desc(), y2.data()));
                EXPECT_EQ(0, std::memcmp(y1.data(), y2.data(), s.span() * sizeof(float)));
            }
}

TEST_P(Softmax, InPlace) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const std::vector<int> dims = {3, 40, 9, 11};
    for (anydnnSoftmaxAlgorithm_t algo : kAlgos)
        for (anydnnSoftmaxMode_t mode : kModes)
            for (const Shape &s : {packed(dims), packed_nhwc(dims), padded(dims)})
                for (double beta : {0.0, 0.5}) {
                    SCOPED_TRACE(name_of(algo, mode) + " " + s.to_string() + " beta " + std::to_string(beta));
                    Tensor x(s, ANYDNN_DATA_FLOAT), x0(s, ANYDNN_DATA_FLOAT);
                    x.fill_random(-3, 3);
                    x0.copy_from(x);
                    const float one = 1, b = static_cast<float>(beta);
                    ASSERT_OK(anydnnSoftmaxForward(h, algo, mode, &one, x.desc(), x.data(), &b, x.desc(), x.data()));
                    expect_close(x.values(), ref::softmax_forward(algo, mode, 1, x0, beta, x0), 1e-5, 1e-6,
                                 "forward in place");
                    // Backward with dx == dy.
                    Tensor y(s, ANYDNN_DATA_FLOAT), d(s, ANYDNN_DATA_FLOAT), d0(s, ANYDNN_DATA_FLOAT);
                    set_forward_output(algo, mode, x0, y);
                    d.fill_random();
                    d0.copy_from(d);
                    ASSERT_OK(anydnnSoftmaxBackward(h, algo, mode, &one, y.desc(), y.data(), d.desc(), d.data(), &b,
                                                    d.desc(), d.data()));
                    expect_close(d.values(), ref::softmax_backward(algo, mode, 1, y, d0, beta, d0), 1e-5, 1e-6,
                                 "backward in place");
                }
}

// ACCURATE and LOG subtract the max: inputs far beyond exp's range are fine.
// FAST does not, as cuDNN's (its softmax of such inputs is NaN).
TEST_P(Softmax, AccurateSurvivesLargeInputs) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const std::vector<int> dims = {2, 30, 4, 20};  // NCHW: a full column block of 64 and a partial one
    for (anydnnSoftmaxMode_t mode : kModes)
        for (anydnnSoftmaxAlgorithm_t algo : {ANYDNN_SOFTMAX_ACCURATE, ANYDNN_SOFTMAX_LOG}) {
            SCOPED_TRACE(name_of(algo, mode));
            Tensor x(packed(dims), ANYDNN_DATA_FLOAT), y(packed(dims), ANYDNN_DATA_FLOAT);
            x.fill_random(990, 1000);
            const float one = 1, zero = 0;
            ASSERT_OK(anydnnSoftmaxForward(h, algo, mode, &one, x.desc(), x.data(), &zero, y.desc(), y.data()));
            expect_close(y.values(), ref::softmax_forward(algo, mode, 1, x, 0, y), 1e-5, 1e-5, "large inputs");
        }
}

// A NaN poisons its own softmax and no other.
TEST_P(Softmax, NanStaysInItsSoftmax) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    // NCHW: the NaN in a full column block of 64; NHWC over 16 channels: in a row held in registers.
    for (const std::vector<int> &dims : {std::vector<int>{2, 6, 3, 29}, std::vector<int>{2, 16, 3, 29}})
        for (anydnnSoftmaxAlgorithm_t algo : kAlgos)
            for (const Shape &s : {packed(dims), packed_nhwc(dims)}) {
                SCOPED_TRACE(name_of(algo, ANYDNN_SOFTMAX_MODE_CHANNEL) + " " + s.to_string());
                Tensor x(s, ANYDNN_DATA_FLOAT), y(s, ANYDNN_DATA_FLOAT);
                x.fill_random();
                x.set({1, 2, 1, 4}, NAN);
                const float one = 1, zero = 0;
                ASSERT_OK(anydnnSoftmaxForward(h, algo, ANYDNN_SOFTMAX_MODE_CHANNEL, &one, x.desc(), x.data(), &zero,
                                               y.desc(), y.data()));
                for_each_index(dims, [&](const std::vector<int> &idx) {
                    const bool same_softmax = idx[0] == 1 && idx[2] == 1 && idx[3] == 4;
                    EXPECT_EQ(std::isnan(y.at(idx)), same_softmax);
                });
            }
}

// <dy, (S(x + h v) - S(x - h v)) / 2h> = <dx, v>, where dx = backward(S(x), dy):
// the backward pass is the forward pass's vector-Jacobian product.
TEST_P(Softmax, BackwardMatchesFiniteDifferencesInF64) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const std::vector<int> dims = {2, 7, 3, 5};
    const double step = 1e-6;
    const anydnnDataType_t dt = ANYDNN_DATA_DOUBLE;
    for (anydnnSoftmaxAlgorithm_t algo : kAlgos)
        for (anydnnSoftmaxMode_t mode : kModes) {
            SCOPED_TRACE(name_of(algo, mode));
            Tensor x(packed(dims), dt), v(packed(dims), dt), xp(packed(dims), dt), xm(packed(dims), dt);
            Tensor y(packed(dims), dt), yp(packed(dims), dt), ym(packed(dims), dt), dy(packed(dims), dt),
                dx(packed(dims), dt);
            x.fill_random(-3, 3);
            v.fill_random();
            dy.fill_random();
            for_each_index(dims, [&](const std::vector<int> &idx) {
                xp.set(idx, x.at(idx) + step * v.at(idx));
                xm.set(idx, x.at(idx) - step * v.at(idx));
            });
            const double one = 1, zero = 0;
            ASSERT_OK(anydnnSoftmaxForward(h, algo, mode, &one, x.desc(), x.data(), &zero, y.desc(), y.data()));
            ASSERT_OK(anydnnSoftmaxForward(h, algo, mode, &one, xp.desc(), xp.data(), &zero, yp.desc(), yp.data()));
            ASSERT_OK(anydnnSoftmaxForward(h, algo, mode, &one, xm.desc(), xm.data(), &zero, ym.desc(), ym.data()));
            ASSERT_OK(anydnnSoftmaxBackward(h, algo, mode, &one, y.desc(), y.data(), dy.desc(), dy.data(), &zero,
                                            dx.desc(), dx.data()));
            const auto p = yp.values(), m = ym.values(), g = dy.values(), d = dx.values(), dir = v.values();
            double fd = 0, vjp = 0, scale = 0;
            for (size_t i = 0; i < p.size(); ++i) {
                fd += g[i] * (p[i] - m[i]) / (2 * step);
                vjp += d[i] * dir[i];
                scale += std::fabs(d[i] * dir[i]);
            }
            EXPECT_NEAR(fd, vjp, 1e-7 * scale);
        }
}

INSTANTIATE_TEST_SUITE_P(Isa, Softmax, ::testing::ValuesIn(isa_levels()));

// ---- Argument checks ------------------------------------------------------------------------

std::vector<unsigned char> bytes_of(const Tensor &t) {
    const auto *p = static_cast<const unsigned char *>(t.data());
    return {p, p + t.shape().span() * dtype_size(t.dtype())};
}

TEST(SoftmaxArguments, ForwardFailuresWriteNothing) {
    Handle h("generic");
    const std::vector<int> dims = {2, 3, 4, 5};
    Tensor x(packed(dims), ANYDNN_DATA_FLOAT), y(packed(dims), ANYDNN_DATA_FLOAT);
    Tensor other_dims(packed({2, 4, 4, 5}), ANYDNN_DATA_FLOAT), other_type(packed(dims), ANYDNN_DATA_BFLOAT16);
    Tensor s32x(packed(dims), ANYDNN_DATA_INT32), s32y(packed(dims), ANYDNN_DATA_INT32);
    Tensor x_nhwc(packed_nhwc(dims), ANYDNN_DATA_FLOAT);
    anydnnTensorDescriptor_t never_set;
    ASSERT_OK(anydnnCreateTensorDescriptor(&never_set));
    x.fill_random();
    y.fill_random();
    const auto before = bytes_of(y);
    const float one = 1, zero = 0;
    const anydnnSoftmaxAlgorithm_t acc = ANYDNN_SOFTMAX_ACCURATE;
    const anydnnSoftmaxMode_t ch = ANYDNN_SOFTMAX_MODE_CHANNEL;
    const anydnnStatus_t bad = ANYDNN_STATUS_BAD_PARAM;
    EXPECT_STATUS(anydnnSoftmaxForward(nullptr, acc, ch, &one, x.desc(), x.data(), &zero, y.desc(), y.data()), bad);
    for (int a : {-1, 3, 100})
        EXPECT_STATUS(anydnnSoftmaxForward(h, static_cast<anydnnSoftmaxAlgorithm_t>(a), ch, &one, x.desc(), x.data(),
                                           &zero, y.desc(), y.data()),
                      bad);
    for (int m : {-1, 2, 100})
        EXPECT_STATUS(anydnnSoftmaxForward(h, acc, static_cast<anydnnSoftmaxMode_t>(m), &one, x.desc(), x.data(),
                                           &zero, y.desc(), y.data()),
                      bad);
    EXPECT_STATUS(anydnnSoftmaxForward(h, acc, ch, &one, nullptr, x.data(), &zero, y.desc(), y.data()), bad);
    EXPECT_STATUS(anydnnSoftmaxForward(h, acc, ch, &one, never_set, x.data(), &zero, y.desc(), y.data()), bad);
    EXPECT_STATUS(anydnnSoftmaxForward(h, acc, ch, &one, x.desc(), x.data(), &zero, never_set, y.data()), bad);
    EXPECT_STATUS(anydnnSoftmaxForward(h, acc, ch, &one, other_dims.desc(), other_dims.data(), &zero, y.desc(),
                                       y.data()),
                  bad);
    EXPECT_STATUS(anydnnSoftmaxForward(h, acc, ch, &one, other_type.desc(), other_type.data(), &zero, y.desc(),
                                       y.data()),
                  bad);
    EXPECT_STATUS(anydnnSoftmaxForward(h, acc, ch, &one, x.desc(), nullptr, &zero, y.desc(), y.data()), bad);
    EXPECT_STATUS(anydnnSoftmaxForward(h, acc, ch, nullptr, x.desc(), x.data(), &zero, y.desc(), y.data()), bad);
    EXPECT_STATUS(anydnnSoftmaxForward(h, acc, ch, &one, x.desc(), x.data(), nullptr, y.desc(), y.data()), bad);
    EXPECT_STATUS(anydnnSoftmaxForward(h, acc, ch, &one, x_nhwc.desc(), y.data(), &zero, y.desc(), y.data()), bad);
    EXPECT_STATUS(anydnnSoftmaxForward(h, acc, ch, &one, x.desc(), x.data(), &zero, y.desc(), nullptr), bad);
    EXPECT_STATUS(anydnnSoftmaxForward(h, acc, ch, &one, s32x.desc(), s32x.data(), &zero, s32y.desc(), s32y.data()),
                  ANYDNN_STATUS_NOT_SUPPORTED);
    EXPECT_TRUE(bytes_of(y) == before);
    anydnnDestroyTensorDescriptor(never_set);
}

TEST(SoftmaxArguments, BackwardFailuresWriteNothing) {
    Handle h("generic");
    const std::vector<int> dims = {2, 3, 4, 5};
    Tensor y(packed(dims), ANYDNN_DATA_FLOAT), dy(packed(dims), ANYDNN_DATA_FLOAT), dx(packed(dims), ANYDNN_DATA_FLOAT);
    Tensor other_dims(packed({2, 3, 4, 4}), ANYDNN_DATA_FLOAT), other_type(packed(dims), ANYDNN_DATA_HALF);
    Tensor dy_nhwc(packed_nhwc(dims), ANYDNN_DATA_FLOAT);
    for (Tensor *t : {&y, &dy, &dx}) t->fill_random();
    const auto before = bytes_of(dx);
    const float one = 1, zero = 0;
    const anydnnStatus_t bad = ANYDNN_STATUS_BAD_PARAM;
    const auto bwd = [&](int algo, int mode, const Tensor &yt, const Tensor &dyt, const void *a, const void *b,
                         void *dxp) {
        return anydnnSoftmaxBackward(h, static_cast<anydnnSoftmaxAlgorithm_t>(algo),
                                     static_cast<anydnnSoftmaxMode_t>(mode), a, yt.desc(), yt.data(), dyt.desc(),
                                     dyt.data(), b, dx.desc(), dxp);
    };
    EXPECT_STATUS(bwd(3, 1, y, dy, &one, &zero, dx.data()), bad);
    EXPECT_STATUS(bwd(1, 2, y, dy, &one, &zero, dx.data()), bad);
    EXPECT_STATUS(bwd(1, 1, other_dims, dy, &one, &zero, dx.data()), bad);
    EXPECT_STATUS(bwd(1, 1, y, other_dims, &one, &zero, dx.data()), bad);
    EXPECT_STATUS(bwd(1, 1, other_type, dy, &one, &zero, dx.data()), bad);
    EXPECT_STATUS(bwd(1, 1, y, other_type, &one, &zero, dx.data()), bad);
    EXPECT_STATUS(bwd(1, 1, y, dy, nullptr, &zero, dx.data()), bad);
    EXPECT_STATUS(bwd(1, 1, y, dy, &one, nullptr, dx.data()), bad);
    EXPECT_STATUS(bwd(1, 1, y, dy, &one, &zero, nullptr), bad);
    EXPECT_STATUS(anydnnSoftmaxBackward(h, ANYDNN_SOFTMAX_LOG, ANYDNN_SOFTMAX_MODE_INSTANCE, &one, y.desc(), nullptr,
                                        dy.desc(), dy.data(), &zero, dx.desc(), dx.data()),
                  bad);
    EXPECT_STATUS(anydnnSoftmaxBackward(h, ANYDNN_SOFTMAX_LOG, ANYDNN_SOFTMAX_MODE_INSTANCE, &one, y.desc(), y.data(),
                                        dy.desc(), nullptr, &zero, dx.desc(), dx.data()),
                  bad);
    EXPECT_STATUS(anydnnSoftmaxBackward(h, ANYDNN_SOFTMAX_LOG, ANYDNN_SOFTMAX_MODE_INSTANCE, &one, y.desc(), y.data(),
                                        dy.desc(), dy.data(), &zero, nullptr, dx.data()),
                  bad);
    // dx in dy's buffer with another layout.
    EXPECT_STATUS(anydnnSoftmaxBackward(h, ANYDNN_SOFTMAX_ACCURATE, ANYDNN_SOFTMAX_MODE_CHANNEL, &one, y.desc(),
                                        y.data(), dy_nhwc.desc(), dx.data(), &zero, dx.desc(), dx.data()),
                  bad);
    EXPECT_TRUE(bytes_of(dx) == before);
}

}  // namespace
