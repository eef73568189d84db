// Outputs of 16 MiB and more (src/cpu/kernels/util/streaming_store.hpp) are
// computed into an L1 staging buffer and written with non-temporal stores.
// These tests run each op that does so on a tensor just above the threshold,
// with an element count that is not a multiple of any vector and a data
// pointer that is only 16-byte aligned, so the head, the streamed middle and
// the tail of every run are all exercised; in place and beta != 0 (which keep
// ordinary stores) are covered by the per-op suites.
#include <utility>

#include "common/test_util.hpp"
#include "reference/activation_ref.hpp"
#include "reference/lrn_ref.hpp"
#include "reference/softmax_ref.hpp"
#include "reference/tensor_ops_ref.hpp"

using namespace anydnn_test;

namespace {

// 17 * 491 * 503 = 4198561 f32 elements: 16.02 MiB.
const std::vector<int> kLarge = {1, 17, 491, 503};
// 4201 softmax rows of 1000: 16.03 MiB.
const std::vector<int> kRows = {4201, 1000, 1, 1};

class StreamingStores : public ::testing::TestWithParam<std::string> {};

TEST_P(StreamingStores, ActivationForwardAndBackward) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    anydnnActivationDescriptor_t act;
    ASSERT_OK(anydnnCreateActivationDescriptor(&act));
    const float one = 1.0f, zero = 0.0f;
    Tensor x(packed(kLarge), ANYDNN_DATA_FLOAT), dy(packed(kLarge), ANYDNN_DATA_FLOAT);
    Tensor y(packed(kLarge), ANYDNN_DATA_FLOAT), dx(packed(kLarge), ANYDNN_DATA_FLOAT);
    x.fill_random(-4, 4);
    dy.fill_random();
    // RELU's results are staged and streamed by the driver; GELU and TANH
    // stream from their vector loops (alpha 1 and not: two loop bodies).
    for (anydnnActivationMode_t mode : {ANYDNN_ACTIVATION_RELU, ANYDNN_ACTIVATION_GELU, ANYDNN_ACTIVATION_TANH}) {
        SCOPED_TRACE(mode);
        ASSERT_OK(anydnnSetActivationDescriptor(act, mode, ANYDNN_NOT_PROPAGATE_NAN, 0.0));
        const ref::Activation ra{mode, false, 0.0, 1.0};
        for (const float alpha : {0.75f, 1.0f}) {  // y of alpha 1 last: TANH's backward reads it
            y.poison();
            ASSERT_OK(anydnnActivationForward(h, act, &alpha, x.desc(), x.data(), &zero, y.desc(), y.data()));
            expect_close(y.values(), ref::activation_forward(ra, alpha, x, 0.0, y), 1e-5, 1e-6, "forward");
        }
        dx.poison();
        ASSERT_OK(anydnnActivationBackward(h, act, &one, y.desc(), y.data(), dy.desc(), dy.data(), x.desc(),
                                           x.data(), &zero, dx.desc(), dx.data()));
        expect_close(dx.values(), ref::activation_backward(ra, 1.0, x, dy, 0.0, dx), 1e-5, 1e-6, "backward");
        EXPECT_TRUE(y.guards_intact() && dx.guards_intact());
    }
    anydnnDestroyActivationDescriptor(act);
}

TEST_P(StreamingStores, OpTensorWithAndWithoutBroadcast) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    anydnnOpTensorDescriptor_t op;
    ASSERT_OK(anydnnCreateOpTensorDescriptor(&op));
    ASSERT_OK(anydnnSetOpTensorDescriptor(op, ANYDNN_OP_TENSOR_ADD, ANYDNN_DATA_FLOAT, ANYDNN_NOT_PROPAGATE_NAN));
    const float a1 = 1.5f, a2 = -0.5f, zero = 0.0f;
    Tensor a(packed(kLarge), ANYDNN_DATA_FLOAT), c(packed(kLarge), ANYDNN_DATA_FLOAT);
    Tensor b(packed(kLarge), ANYDNN_DATA_FLOAT), bias(packed({1, 17, 1, 1}), ANYDNN_DATA_FLOAT);
    // a in another layout than c: its runs are staged through L1 before the math, and c still streams.
    Tensor a_nhwc(packed_nhwc(kLarge), ANYDNN_DATA_FLOAT);
    a.fill_random();
    b.fill_random();
    bias.fill_random();
    a_nhwc.fill_random();
    const std::pair<const Tensor *, const Tensor *> cases[] = {{&a, &b}, {&a, &bias}, {&a_nhwc, &b}};
    const char *names[] = {"add", "add broadcast", "add, a in NHWC"};
    for (int k = 0; k < 3; ++k) {
        const Tensor &at = *cases[k].first, *bt = cases[k].second;
        c.poison();
        ASSERT_OK(anydnnOpTensor(h, op, &a1, at.desc(), at.data(), &a2, bt->desc(), bt->data(), &zero, c.desc(),
                                 c.data()));
        expect_close(c.values(), ref::op_tensor(ANYDNN_OP_TENSOR_ADD, false, 1.5, at, -0.5, bt, 0.0, c), 1e-6, 1e-7,
                     names[k]);
        EXPECT_TRUE(c.guards_intact());
    }
    anydnnDestroyOpTensorDescriptor(op);
}

// A copy, and layout changes, whose transposed blocks (util/transpose.hpp)
// stream out: through the buffer (alpha -0.5), or from the transpose's
// tiles (alpha 1, AVX-512: whole lines of an aligned y, the rest plainly).
TEST_P(StreamingStores, TransformCopyAndLayoutChange) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const float zero = 0.0f;
    for (const auto &[xs, ys] : {std::pair{packed(kLarge), packed(kLarge)},
                                 std::pair{packed(kLarge), packed_nhwc(kLarge)},
                                 std::pair{packed_nhwc(kLarge), packed(kLarge)}})
        for (const auto &[alpha, misalign] : {std::pair{1.0f, size_t{16}}, std::pair{1.0f, size_t{0}},
                                              std::pair{-0.5f, size_t{16}}}) {
            SCOPED_TRACE("x " + xs.to_string() + " alpha " + std::to_string(alpha) + " misalign " +
                         std::to_string(misalign));
            Tensor x(xs, ANYDNN_DATA_FLOAT), y(ys, ANYDNN_DATA_FLOAT, misalign);
            x.fill_random();
            y.poison();
            ASSERT_OK(anydnnTransformTensor(h, &alpha, x.desc(), x.data(), &zero, y.desc(), y.data()));
            expect_close(y.values(), ref::transform(alpha, x, 0.0, y), 1e-6, 1e-7, "transform");
            EXPECT_TRUE(y.guards_intact());
        }
    // 32 channels and 512 x 257 pixels, both multiples of 16: every tile row
    // of an aligned y is a whole line, streamed.
    const std::vector<int> lines = {1, 32, 512, 257};
    const float one = 1.0f;
    for (const auto &[xs, ys] : {std::pair{packed(lines), packed_nhwc(lines)},
                                 std::pair{packed_nhwc(lines), packed(lines)}}) {
        SCOPED_TRACE("x " + xs.to_string());
        Tensor x(xs, ANYDNN_DATA_FLOAT), y(ys, ANYDNN_DATA_FLOAT, 0);
        x.fill_random();
        y.poison();
        ASSERT_OK(anydnnTransformTensor(h, &one, x.desc(), x.data(), &zero, y.desc(), y.data()));
        expect_close(y.values(), ref::transform(1.0, x, 0.0, y), 1e-6, 1e-7, "transform");
        EXPECT_TRUE(y.guards_intact());
    }
}

TEST_P(StreamingStores, SoftmaxRows) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const float alpha = 0.75f, zero = 0.0f;
    Tensor x(packed(kRows), ANYDNN_DATA_FLOAT), y(packed(kRows), ANYDNN_DATA_FLOAT);
    x.fill_random(-8, 8);
    for (anydnnSoftmaxAlgorithm_t algo : {ANYDNN_SOFTMAX_FAST, ANYDNN_SOFTMAX_ACCURATE, ANYDNN_SOFTMAX_LOG}) {
        SCOPED_TRACE(algo);
        y.poison();
        ASSERT_OK(anydnnSoftmaxForward(h, algo, ANYDNN_SOFTMAX_MODE_INSTANCE, &alpha, x.desc(), x.data(), &zero,
                                       y.desc(), y.data()));
        expect_close(y.values(), ref::softmax_forward(algo, ANYDNN_SOFTMAX_MODE_INSTANCE, 0.75, x, 0.0, y), 1e-5,
                     1e-6, "softmax");
        EXPECT_TRUE(y.guards_intact());
    }
}

// CHANNEL mode over a few channels, just above 16 MiB, with a position count
// that is odd: NHWC (rows of C, 1024 / C of them staged at a time, the last
// group partial) and NCHW (column blocks of 64 positions staged whole, the
// last one partial; C = 37 leaves a block's lines unaligned).
TEST_P(StreamingStores, SoftmaxShortRowsAndColumns) {
    Handle h(GetParam()), h1(GetParam(), 1);
    SKIP_IF_UNAVAILABLE(h);
    const float alpha = 0.75f, zero = 0.0f;
    const std::pair<int, int> sizes[] = {{64, 65537}, {17, 246725}, {37, 113361}};  // C, positions
    // y 64-byte aligned too: the blocks and rows held in registers stream
    // whole vectors only there.
    for (const size_t misalign : {size_t{16}, size_t{0}})
        for (const auto &[c, positions] : sizes)
            for (const Shape &s : {packed_nhwc({1, c, 1, positions}), packed({1, c, 1, positions})}) {
                Tensor x(s, ANYDNN_DATA_FLOAT), y(s, ANYDNN_DATA_FLOAT, misalign), y1(s, ANYDNN_DATA_FLOAT, misalign);
                x.fill_random(-8, 8);
                for (anydnnSoftmaxAlgorithm_t algo : {ANYDNN_SOFTMAX_ACCURATE, ANYDNN_SOFTMAX_LOG}) {
                    SCOPED_TRACE(std::to_string(algo) + " " + s.to_string() + " misalign " + std::to_string(misalign));
                    y.poison();
                    ASSERT_OK(anydnnSoftmaxForward(h, algo, ANYDNN_SOFTMAX_MODE_CHANNEL, &alpha, x.desc(), x.data(),
                                                   &zero, y.desc(), y.data()));
                    expect_close(y.values(), ref::softmax_forward(algo, ANYDNN_SOFTMAX_MODE_CHANNEL, 0.75, x, 0.0, y),
                                 1e-5, 1e-6, "softmax");
                    EXPECT_TRUE(y.guards_intact());
                    ASSERT_OK(anydnnSoftmaxForward(h1, algo, ANYDNN_SOFTMAX_MODE_CHANNEL, &alpha, x.desc(), x.data(),
                                                   &zero, y1.desc(), y1.data()));
                    EXPECT_EQ(y.values(), y1.values()) << "1 and 2 threads";
                }
            }
}

// NCHW: pixel lanes, a run of up to 256 pixels per channel.
TEST_P(StreamingStores, LrnForward) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const ref::Lrn p{5, 1.0, 0.75, 2};
    anydnnLRNDescriptor_t desc;
    ASSERT_OK(anydnnCreateLRNDescriptor(&desc));
    ASSERT_OK(anydnnSetLRNDescriptor(desc, unsigned(p.n), p.alpha, p.beta, p.k));
    const float alpha = 0.75f, zero = 0.0f;
    Tensor x(packed(kLarge), ANYDNN_DATA_FLOAT);
    x.fill_random(-2, 2);
    const std::vector<double> want = ref::lrn_forward(p, kLarge, x.values(), 0.75, 0, {});
    // y 64-byte aligned too: whole blocks of pixels stream from registers only there.
    for (const size_t misalign : {size_t{16}, size_t{0}}) {
        SCOPED_TRACE(misalign);
        Tensor y(packed(kLarge), ANYDNN_DATA_FLOAT, misalign);
        y.poison();
        ASSERT_OK(anydnnLRNCrossChannelForward(h, desc, ANYDNN_LRN_CROSS_CHANNEL_DIM1, &alpha, x.desc(), x.data(),
                                               &zero, y.desc(), y.data()));
        expect_close(y.values(), want, 2e-5, 2e-6, "lrn");
        EXPECT_TRUE(y.guards_intact());
    }
    anydnnDestroyLRNDescriptor(desc);
}

INSTANTIATE_TEST_SUITE_P(Isa, StreamingStores, ::testing::ValuesIn(isa_levels()));

}  // namespace
