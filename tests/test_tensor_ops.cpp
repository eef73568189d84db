// SetTensor, ScaleTensor, AddTensor, OpTensor and the transforms against the
// reference, on every ISA level, data type, layout and beta.
#include <cmath>
#include <cstring>
#include <utility>

#include "common/test_util.hpp"
#include "reference/tensor_ops_ref.hpp"

using namespace anydnn_test;

namespace {

const anydnnDataType_t kFloatTypes[] = {ANYDNN_DATA_FLOAT, ANYDNN_DATA_DOUBLE, ANYDNN_DATA_HALF,
                                        ANYDNN_DATA_BFLOAT16};
const anydnnDataType_t kAllTypes[] = {ANYDNN_DATA_FLOAT, ANYDNN_DATA_DOUBLE, ANYDNN_DATA_HALF,
                                      ANYDNN_DATA_BFLOAT16, ANYDNN_DATA_INT8, ANYDNN_DATA_UINT8,
                                      ANYDNN_DATA_INT32, ANYDNN_DATA_INT64};

// Layout variants of one set of dimensions: packed NCHW, packed NHWC, padded.
std::vector<Shape> layouts(const std::vector<int> &dims) { return {packed(dims), packed_nhwc(dims), padded(dims)}; }

bool is_integer(anydnnDataType_t dt) {
    return dt == ANYDNN_DATA_INT8 || dt == ANYDNN_DATA_UINT8 || dt == ANYDNN_DATA_INT32 || dt == ANYDNN_DATA_INT64;
}

// Range of random inputs for a type: integers get values that exercise
// rounding and (for 8-bit) saturation.
void fill_for(Tensor &t) {
    if (t.dtype() == ANYDNN_DATA_UINT8) t.fill_random(0, 300);
    else if (is_integer(t.dtype())) t.fill_random(-200, 200);
    else t.fill_random(-2, 2);
}

double tol_for(anydnnDataType_t dt) { return is_integer(dt) ? 0.0 : 2 * storage_tol(dt); }
// The absolute slack of one element: results are sums of terms of magnitude
// up to ~4 whose rounding errors do not cancel when the sum does; integer
// outputs may differ by one where a float compute type rounds a .5 tie.
double abs_for(anydnnDataType_t dt) { return is_integer(dt) ? 1.0 : 4 * tol_for(dt); }

class TensorOps : public ::testing::TestWithParam<std::string> {};

TEST_P(TensorOps, TransformEveryTypePairAndLayout) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const std::vector<int> dims = {2, 5, 3, 7};
    for (anydnnDataType_t xt : kAllTypes)
        for (anydnnDataType_t yt : kAllTypes)
            for (const Shape &xs : layouts(dims))
                for (const Shape &ys : {packed_nhwc(dims), padded(dims, 1)})
                    // alpha 1, beta 0 (a plain conversion) skips the math's pass.
                    for (auto [alpha, beta] : {std::pair{is_integer(yt) ? 1.5 : 0.75, 0.0},
                                               std::pair{is_integer(yt) ? 1.5 : 0.75, 0.5}, std::pair{1.0, 0.0}}) {
                        SCOPED_TRACE(std::string(dtype_name(xt)) + "->" + dtype_name(yt) + " x " + xs.to_string() +
                                     " y " + ys.to_string() + " alpha " + std::to_string(alpha) + " beta " +
                                     std::to_string(beta));
                        Tensor x(xs, xt), y(ys, yt);
                        fill_for(x);
                        if (beta != 0) fill_for(y);
                        Tensor y0(ys, yt);
                        y0.copy_from(y);
                        const auto ref = ref::transform(alpha, x, beta, y0);
                        const Scalar a(alpha), b(beta);
                        ASSERT_OK(anydnnTransformTensor(h, a.ptr(yt), x.desc(), x.data(), b.ptr(yt), y.desc(),
                                                        y.data()));
                        expect_close(y.values(), ref, tol_for(yt), abs_for(yt), "transform");
                        EXPECT_TRUE(y.guards_intact());
                        EXPECT_TRUE(y.gaps_equal(y0));
                    }
}

TEST_P(TensorOps, TransformLargeRunsTakeTheVectorPath) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    // Large enough to split over threads, odd so tails are exercised.
    for (const std::vector<int> &dims : {std::vector<int>{3, 17, 33, 65}, std::vector<int>{1, 1, 1, 100003}}) {
        for (anydnnDataType_t dt : kFloatTypes) {
            for (double beta : {0.0, -1.25}) {
                Tensor x(packed(dims), dt), y(packed(dims), dt), y0(packed(dims), dt);
                x.fill_random();
                y.fill_random();
                y0.copy_from(y);
                const Scalar a(1.5), b(beta);
                ASSERT_OK(anydnnTransformTensor(h, a.ptr(dt), x.desc(), x.data(), b.ptr(dt), y.desc(), y.data()));
                expect_close(y.values(), ref::transform(1.5, x, beta, y0), tol_for(dt), abs_for(dt), dtype_name(dt));
                EXPECT_TRUE(y.guards_intact());
            }
        }
    }
}

// Channels innermost, like packed_nhwc, with `pad` elements of gap after
// each pixel, row and image (C stays contiguous).
Shape padded_nhwc(const std::vector<int> &dims, int pad) {
    Shape s = packed_nhwc(dims);
    int st = dims[1] + pad;
    for (int i = int(dims.size()) - 1; i >= 2; --i) {
        s.strides[i] = st;
        st = st * dims[i] + pad;
    }
    s.strides[0] = st;
    return s;
}

// Layout changes whose y runs cross x's runs go through the blocked
// transposes (src/cpu/kernels/util/transpose.hpp): shapes around the tile
// sizes (8 and 16) and the L1 block, C or W of 1, padding on either side,
// every element size, conversions and blending.
TEST_P(TensorOps, TransformLayoutChangesTranspose) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const std::vector<std::vector<int>> shapes = {
        {2, 17, 19, 23}, {1, 3, 1, 1}, {2, 1, 5, 7},  {2, 5, 7, 1},   {1, 16, 4, 4},  {1, 16, 16, 16},
        {1, 15, 1, 17},  {1, 33, 8, 8}, {2, 8, 3, 3}, {1, 9, 2, 8},   {1, 3, 41, 43}, {1, 300, 5, 7}};
    // x -> y layout pairs; HWCN x (N innermost) makes the transposed
    // dimension the outermost of the loop, C between it and the run.
    auto hwcn = [](const std::vector<int> &d) {
        return Shape{d, {1, d[0], d[3] * d[1] * d[0], d[1] * d[0]}};
    };
    const std::pair<Shape (*)(const std::vector<int> &), Shape (*)(const std::vector<int> &)> layouts[] = {
        {packed, packed_nhwc},
        {packed_nhwc, packed},
        {[](const std::vector<int> &d) { return padded(d, 3); }, packed_nhwc},
        {packed, [](const std::vector<int> &d) { return padded_nhwc(d, 2); }},
        {[](const std::vector<int> &d) { return padded_nhwc(d, 1); },
         [](const std::vector<int> &d) { return padded(d, 5); }},
        {hwcn, packed}};
    const std::pair<anydnnDataType_t, anydnnDataType_t> types[] = {
        {ANYDNN_DATA_FLOAT, ANYDNN_DATA_FLOAT},   {ANYDNN_DATA_HALF, ANYDNN_DATA_HALF},
        {ANYDNN_DATA_BFLOAT16, ANYDNN_DATA_FLOAT}, {ANYDNN_DATA_FLOAT, ANYDNN_DATA_HALF},
        {ANYDNN_DATA_DOUBLE, ANYDNN_DATA_DOUBLE}, {ANYDNN_DATA_INT8, ANYDNN_DATA_INT8},
        {ANYDNN_DATA_UINT8, ANYDNN_DATA_FLOAT}};
    for (const auto &dims : shapes)
        for (const auto &[xl, yl] : layouts)
            for (const auto &[xt, yt] : types)
                for (auto [alpha, beta] : {std::pair{1.0, 0.0}, std::pair{-1.5, 0.0}, std::pair{0.75, 0.5}}) {
                    const Shape xs = xl(dims), ys = yl(dims);
                    SCOPED_TRACE(std::string(dtype_name(xt)) + "->" + dtype_name(yt) + " x " + xs.to_string() +
                                 " y " + ys.to_string() + " alpha " + std::to_string(alpha) + " beta " +
                                 std::to_string(beta));
                    Tensor x(xs, xt), y(ys, yt), y0(ys, yt);
                    fill_for(x);
                    if (beta != 0) fill_for(y);
                    else y.poison();
                    y0.copy_from(y);
                    const Scalar a(alpha), b(beta);
                    ASSERT_OK(anydnnTransformTensor(h, a.ptr(yt), x.desc(), x.data(), b.ptr(yt), y.desc(), y.data()));
                    expect_close(y.values(), ref::transform(alpha, x, beta, y0), tol_for(yt), abs_for(yt),
                                 "transpose");
                    EXPECT_TRUE(y.guards_intact());
                    EXPECT_TRUE(y.gaps_equal(y0));
                }
    // 5-D: NCDHW <-> NDHWC.
    const std::vector<int> d5 = {2, 19, 3, 5, 7};
    for (const auto &[xs, ys] : {std::pair{packed(d5), packed_nhwc(d5)}, std::pair{packed_nhwc(d5), packed(d5)}}) {
        SCOPED_TRACE("x " + xs.to_string());
        Tensor x(xs, ANYDNN_DATA_FLOAT), y(ys, ANYDNN_DATA_FLOAT), y0(ys, ANYDNN_DATA_FLOAT);
        x.fill_random();
        y.fill_random();
        y0.copy_from(y);
        const float a = 1, b = 0.5f;
        ASSERT_OK(anydnnTransformTensor(h, &a, x.desc(), x.data(), &b, y.desc(), y.data()));
        expect_close(y.values(), ref::transform(1, x, 0.5, y0), 4e-6, 1e-6, "5-D transpose");
        EXPECT_TRUE(y.guards_intact());
    }
}

// Large enough to split over two threads, odd in every dimension: one
// thread and two give the same bytes.
TEST_P(TensorOps, TransformLayoutChangeThreadsAgree) {
    Handle h1(GetParam(), 1), h2(GetParam(), 2);
    SKIP_IF_UNAVAILABLE(h1);
    const std::vector<int> dims = {3, 37, 55, 71};
    for (anydnnDataType_t dt : {ANYDNN_DATA_FLOAT, ANYDNN_DATA_HALF})
        for (const auto &[xs, ys] :
             {std::pair{packed(dims), packed_nhwc(dims)}, std::pair{packed_nhwc(dims), packed(dims)}})
            for (double beta : {0.0, 0.5}) {
                SCOPED_TRACE(std::string(dtype_name(dt)) + " x " + xs.to_string() + " beta " + std::to_string(beta));
                Tensor x(xs, dt), y1(ys, dt), y2(ys, dt), y0(ys, dt);
                x.fill_random();
                y1.fill_random();
                y0.copy_from(y1);
                y2.copy_from(y1);
                const Scalar a(1.25), b(beta);
                ASSERT_OK(anydnnTransformTensor(h1, a.ptr(dt), x.desc(), x.data(), b.ptr(dt), y1.desc(), y1.data()));
                ASSERT_OK(anydnnTransformTensor(h2, a.ptr(dt), x.desc(), x.data(), b.ptr(dt), y2.desc(), y2.data()));
                expect_close(y1.values(), ref::transform(1.25, x, beta, y0), tol_for(dt), abs_for(dt), "1 thread");
                EXPECT_EQ(std::memcmp(y1.data(), y2.data(), size_t(ys.span()) * dtype_size(dt)), 0);
            }
}

TEST_P(TensorOps, AddTensorBroadcasts) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const std::vector<int> cdims = {3, 6, 5, 9};
    const std::vector<std::vector<int>> adims = {
        {3, 6, 5, 9}, {1, 6, 1, 1}, {1, 1, 1, 1}, {1, 6, 5, 9}, {3, 1, 5, 1}, {1, 1, 1, 9}};
    for (anydnnDataType_t dt : kFloatTypes)
        for (const auto &ad : adims)
            for (const Shape &cs : layouts(cdims))
                for (double beta : {0.0, 1.0, 0.5}) {
                    SCOPED_TRACE(std::string(dtype_name(dt)) + " a " + packed(ad).to_string() + " c " +
                                 cs.to_string() + " beta " + std::to_string(beta));
                    Tensor a(packed(ad), dt), c(cs, dt), c0(cs, dt);
                    a.fill_random();
                    if (beta != 0) c.fill_random();
                    c0.copy_from(c);
                    const Scalar al(-0.5), be(beta);
                    ASSERT_OK(anydnnAddTensor(h, al.ptr(dt), a.desc(), a.data(), be.ptr(dt), c.desc(), c.data()));
                    expect_close(c.values(), ref::transform(-0.5, a, beta, c0), tol_for(dt), abs_for(dt), "add");
                    EXPECT_TRUE(c.guards_intact());
                    EXPECT_TRUE(c.gaps_equal(c0));
                }
}

TEST_P(TensorOps, OpTensorEveryOp) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    anydnnOpTensorDescriptor_t op_desc;
    ASSERT_OK(anydnnCreateOpTensorDescriptor(&op_desc));
    const std::vector<int> cdims = {2, 7, 4, 5};
    for (anydnnOpTensorOp_t op : {ANYDNN_OP_TENSOR_ADD, ANYDNN_OP_TENSOR_MUL, ANYDNN_OP_TENSOR_MIN,
                                  ANYDNN_OP_TENSOR_MAX, ANYDNN_OP_TENSOR_SQRT, ANYDNN_OP_TENSOR_NOT})
        for (anydnnNanPropagation_t nan : {ANYDNN_NOT_PROPAGATE_NAN, ANYDNN_PROPAGATE_NAN})
            for (anydnnDataType_t dt : kFloatTypes)
                for (const auto &bd : {cdims, std::vector<int>{1, 7, 1, 1}, std::vector<int>{1, 1, 1, 1}})
                    for (const Shape &cs : layouts(cdims))
                        for (double beta : {0.0, 0.5}) {
                            SCOPED_TRACE("op " + std::to_string(op) + " nan " + std::to_string(nan) + " " +
                                         dtype_name(dt) + " b " + packed(bd).to_string() + " c " + cs.to_string() +
                                         " beta " + std::to_string(beta));
                            ASSERT_OK(anydnnSetOpTensorDescriptor(
                                op_desc, op, dt == ANYDNN_DATA_DOUBLE ? ANYDNN_DATA_DOUBLE : ANYDNN_DATA_FLOAT, nan));
                            Tensor a(padded(cdims, 2), dt), b(packed(bd), dt), c(cs, dt), c0(cs, dt);
                            if (op == ANYDNN_OP_TENSOR_SQRT) a.fill_random(0, 3);
                            else a.fill_random();
                            b.fill_random();
                            if (op == ANYDNN_OP_TENSOR_MIN || op == ANYDNN_OP_TENSOR_MAX) {
                                a.set({0, 1, 2, 3}, NAN);  // NaN handling of both options
                                a.set({1, 2, 0, 0}, NAN);
                            }
                            if (beta != 0) c.fill_random();
                            c0.copy_from(c);
                            const Scalar a1(1.25), a2(-0.75), be(beta);
                            ASSERT_OK(anydnnOpTensor(h, op_desc, a1.ptr(dt), a.desc(), a.data(), a2.ptr(dt), b.desc(),
                                                     b.data(), be.ptr(dt), c.desc(), c.data()));
                            expect_close(c.values(),
                                         ref::op_tensor(op, nan == ANYDNN_PROPAGATE_NAN, 1.25, a, -0.75,
                                                        (op == ANYDNN_OP_TENSOR_SQRT || op == ANYDNN_OP_TENSOR_NOT)
                                                            ? nullptr
                                                            : &b,
                                                        beta, c0),
                                         tol_for(dt), abs_for(dt), "op_tensor");
                            EXPECT_TRUE(c.guards_intact());
                            EXPECT_TRUE(c.gaps_equal(c0));
                        }
    anydnnDestroyOpTensorDescriptor(op_desc);
}

TEST_P(TensorOps, OpTensorInPlace) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    anydnnOpTensorDescriptor_t op_desc;
    ASSERT_OK(anydnnCreateOpTensorDescriptor(&op_desc));
    ASSERT_OK(anydnnSetOpTensorDescriptor(op_desc, ANYDNN_OP_TENSOR_MUL, ANYDNN_DATA_FLOAT, ANYDNN_NOT_PROPAGATE_NAN));
    const std::vector<int> dims = {2, 3, 40, 41};
    Tensor a(packed(dims), ANYDNN_DATA_FLOAT), b(packed(dims), ANYDNN_DATA_FLOAT), a0(packed(dims), ANYDNN_DATA_FLOAT);
    a.fill_random();
    b.fill_random();
    a0.copy_from(a);
    const Scalar one(1), beta(0.25);
    ASSERT_OK(anydnnOpTensor(h, op_desc, one.ptr(ANYDNN_DATA_FLOAT), a.desc(), a.data(), one.ptr(ANYDNN_DATA_FLOAT),
                             b.desc(), b.data(), beta.ptr(ANYDNN_DATA_FLOAT), a.desc(), a.data()));
    expect_close(a.values(), ref::op_tensor(ANYDNN_OP_TENSOR_MUL, false, 1, a0, 1, &b, 0.25, a0), 4e-6, 1e-6, "in place");
    anydnnDestroyOpTensorDescriptor(op_desc);
}

TEST_P(TensorOps, SetAndScaleTensor) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    for (anydnnDataType_t dt : kAllTypes)
        for (const Shape &s : layouts({3, 4, 5, 6})) {
            SCOPED_TRACE(std::string(dtype_name(dt)) + " " + s.to_string());
            Tensor y(s, dt), y0(s, dt);
            y.fill_random(-50, 50);
            y0.copy_from(y);
            // The value is one element of y's type.
            unsigned char value[8];
            {
                Tensor one(packed({1, 1, 1, 1}), dt);
                one.set({0, 0, 0, 0}, 7);
                std::memcpy(value, one.data(), dtype_size(dt));
            }
            ASSERT_OK(anydnnSetTensor(h, y.desc(), y.data(), value));
            for (double v : y.values()) EXPECT_EQ(v, 7.0);
            EXPECT_TRUE(y.gaps_equal(y0));
            EXPECT_TRUE(y.guards_intact());

            y.copy_from(y0);
            const Scalar alpha(-2.0);
            ASSERT_OK(anydnnScaleTensor(h, y.desc(), y.data(), alpha.ptr(dt)));
            expect_close(y.values(), ref::transform(-2.0, y0, 0, y0), tol_for(dt), abs_for(dt), "scale");
            EXPECT_TRUE(y.gaps_equal(y0));
        }
}

TEST_P(TensorOps, TransformTensorExPads) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    anydnnTensorTransformDescriptor_t t;
    ASSERT_OK(anydnnCreateTensorTransformDescriptor(&t));
    const int32_t before[4] = {0, 1, 2, 0}, after[4] = {1, 0, 1, 3};
    ASSERT_OK(anydnnSetTensorTransformDescriptor(t, 4, ANYDNN_TENSOR_NHWC, before, after, nullptr,
                                                 ANYDNN_TRANSFORM_FOLD));
    const std::vector<int> sd = {2, 3, 4, 5}, dd = {3, 4, 7, 8};
    for (double beta : {0.0, 0.5}) {
        Tensor x(packed(sd), ANYDNN_DATA_FLOAT), y(packed_nhwc(dd), ANYDNN_DATA_FLOAT), y0(packed_nhwc(dd), ANYDNN_DATA_FLOAT);
        x.fill_random();
        if (beta != 0) y.fill_random();
        y0.copy_from(y);
        const Scalar a(2), b(beta);
        ASSERT_OK(anydnnTransformTensorEx(h, t, a.ptr(ANYDNN_DATA_FLOAT), x.desc(), x.data(), b.ptr(ANYDNN_DATA_FLOAT),
                                          y.desc(), y.data()));
        std::vector<double> ref;
        for_each_index(dd, [&](const std::vector<int> &idx) {
            bool inside = true;
            std::vector<int> s(4);
            for (int i = 0; i < 4; ++i) {
                s[i] = idx[i] - before[i];
                inside = inside && s[i] >= 0 && s[i] < sd[i];
            }
            ref.push_back((inside ? 2 * x.at(s) : 0.0) + (beta != 0 ? beta * y0.at(idx) : 0.0));
        });
        expect_close(y.values(), ref, 1e-6, 1e-6, "padded transform");
        EXPECT_TRUE(y.guards_intact());
    }
    // A fold other than 1 is valid but not implemented.
    const uint32_t fold[2] = {2, 2};
    ASSERT_OK(anydnnSetTensorTransformDescriptor(t, 4, ANYDNN_TENSOR_NCHW, nullptr, nullptr, fold,
                                                 ANYDNN_TRANSFORM_FOLD));
    Tensor x(packed(sd), ANYDNN_DATA_FLOAT), y(packed(sd), ANYDNN_DATA_FLOAT);
    const Scalar a(1), b(0);
    EXPECT_STATUS(anydnnTransformTensorEx(h, t, &a.f, x.desc(), x.data(), &b.f, y.desc(), y.data()),
                  ANYDNN_STATUS_NOT_SUPPORTED);
    anydnnDestroyTensorTransformDescriptor(t);
}

TEST_P(TensorOps, TransformFilterKcrsToKrsc) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    anydnnFilterDescriptor_t src, dst;
    ASSERT_OK(anydnnCreateFilterDescriptor(&src));
    ASSERT_OK(anydnnCreateFilterDescriptor(&dst));
    const int K = 5, C = 3, R = 3, S = 2;
    ASSERT_OK(anydnnSetFilter4dDescriptor(src, ANYDNN_DATA_FLOAT, ANYDNN_TENSOR_NCHW, K, C, R, S));
    ASSERT_OK(anydnnSetFilter4dDescriptor(dst, ANYDNN_DATA_FLOAT, ANYDNN_TENSOR_NHWC, K, C, R, S));
    anydnnTensorTransformDescriptor_t t;
    ASSERT_OK(anydnnCreateTensorTransformDescriptor(&t));
    ASSERT_OK(anydnnSetTensorTransformDescriptor(t, 4, ANYDNN_TENSOR_NHWC, nullptr, nullptr, nullptr,
                                                 ANYDNN_TRANSFORM_FOLD));
    std::vector<float> w(K * C * R * S), out(K * C * R * S, NAN);
    for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i);
    const float one = 1, zero = 0;
    ASSERT_OK(anydnnTransformFilter(h, t, &one, src, w.data(), &zero, dst, out.data()));
    for (int k = 0; k < K; ++k)
        for (int c = 0; c < C; ++c)
            for (int r = 0; r < R; ++r)
                for (int s = 0; s < S; ++s)
                    EXPECT_EQ(out[((k * R + r) * S + s) * C + c], w[((k * C + c) * R + r) * S + s]);
    anydnnDestroyTensorTransformDescriptor(t);
    anydnnDestroyFilterDescriptor(src);
    anydnnDestroyFilterDescriptor(dst);
}

TEST_P(TensorOps, FiveDimensionalAndPermutedStrides) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    // A 5-D tensor with a permuted (W outermost) layout and gaps.
    Shape xs{{2, 3, 4, 5, 6}, {1, 2, 7, 30, 160}};
    Shape ys = packed_nhwc({2, 3, 4, 5, 6});
    Tensor x(xs, ANYDNN_DATA_FLOAT), y(ys, ANYDNN_DATA_FLOAT), y0(ys, ANYDNN_DATA_FLOAT);
    x.fill_random();
    y.fill_random();
    y0.copy_from(y);
    const float a = 1, b = 2;
    ASSERT_OK(anydnnTransformTensor(h, &a, x.desc(), x.data(), &b, y.desc(), y.data()));
    expect_close(y.values(), ref::transform(1, x, 2, y0), 4e-6, 1e-6, "5-D transform");
}

INSTANTIATE_TEST_SUITE_P(Isa, TensorOps, ::testing::ValuesIn(isa_levels()));

}  // namespace
