// Dropout: the generator against Random123's known answers, the mask against
// the reference generator element by element on every ISA level and layout,
// the drop rate within 5 sigma of the binomial, exact scaling, the backward
// pass replaying the mask, bitwise identical results for 1, 2, 3 threads
// and every ISA level, consecutive calls differing, Restore repeating the
// sequence, p = 0 and p = 1, the descriptor calls and the error statuses.
#include <cmath>
#include <cstring>

#include "common/test_util.hpp"
#include "reference/lrn_ref.hpp"

using namespace anydnn_test;

namespace {

// Random123's kat_vectors for philox4x32_10.
TEST(DropoutReference, PhiloxKnownAnswers) {
    using A4 = std::array<uint32_t, 4>;
    EXPECT_EQ(ref::philox4x32_10({0, 0, 0, 0}, {0, 0}), (A4{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
    EXPECT_EQ(ref::philox4x32_10({~0u, ~0u, ~0u, ~0u}, {~0u, ~0u}),
              (A4{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}));
    EXPECT_EQ(ref::philox4x32_10({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, {0xa4093822u, 0x299f31d0u}),
              (A4{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
}

// A dropout descriptor with its own states buffer.
struct Dropout {
    anydnnDropoutDescriptor_t d = nullptr;
    std::vector<unsigned char> states;
    Dropout(anydnnHandle_t h, float p, unsigned long long seed) {
        size_t size = 0;
        EXPECT_OK(anydnnDropoutGetStatesSize(h, &size));
        states.resize(size);
        EXPECT_OK(anydnnCreateDropoutDescriptor(&d));
        EXPECT_OK(anydnnSetDropoutDescriptor(d, h, p, states.data(), states.size(), seed));
    }
    ~Dropout() { anydnnDestroyDropoutDescriptor(d); }
    Dropout(const Dropout &) = delete;
    Dropout &operator=(const Dropout &) = delete;
    operator anydnnDropoutDescriptor_t() const { return d; }
};

std::vector<unsigned char> reserve_for(const Tensor &x) {
    size_t size = 0;
    EXPECT_OK(anydnnDropoutGetReserveSpaceSize(x.desc(), &size));
    return std::vector<unsigned char>(size, 0xcc);
}

float scale_of(float p) { return 1.0f / (1.0f - p); }

using Layout = Shape (*)(const std::vector<int> &);
Shape padded_by_3(const std::vector<int> &dims) { return padded(dims, 3); }
const Layout kLayouts[] = {packed, packed_nhwc, padded_by_3};

class DropoutIsa : public ::testing::TestWithParam<std::string> {};

// Mask = the reference generator's, element by element (row-major index,
// whatever the layout); y = x * 1/(1-p) exactly where kept, 0 where dropped
// (also for inf and NaN x); dx likewise from dy; the rate within 5 sigma.
TEST_P(DropoutIsa, MaskScalingRateAndBackward) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const unsigned long long seed = 0x123456789abcdefull;
    for (float p : {0.1f, 0.5f, 0.9f})
        for (Layout l : kLayouts) {
            const std::vector<int> dims = {3, 7, 31, 33};  // 21483 elements: several threads' ranges
            SCOPED_TRACE("p=" + std::to_string(p) + " " + l(dims).to_string());
            Dropout desc(h, p, seed);
            Tensor x(l(dims), ANYDNN_DATA_FLOAT), y(l(dims), ANYDNN_DATA_FLOAT), y0(l(dims), ANYDNN_DATA_FLOAT);
            x.fill_random(-3, 3);
            x.set({0, 0, 0, 0}, INFINITY);
            x.set({0, 0, 0, 1}, NAN);
            y.poison();
            y0.copy_from(y);
            std::vector<unsigned char> reserve = reserve_for(x);
            ASSERT_EQ(reserve.size(), size_t(x.shape().elements()));
            ASSERT_OK(anydnnDropoutForward(h, desc, x.desc(), x.data(), y.desc(), y.data(), reserve.data(),
                                           reserve.size()));
            const std::vector<double> xv = x.values(), yv = y.values();
            const float scale = scale_of(p);
            int64_t dropped = 0, mismatches = 0, wrong = 0;
            for (size_t e = 0; e < xv.size(); ++e) {
                const bool keep = ref::dropout_keeps(seed, 0, e, p);
                mismatches += reserve[e] != (keep ? 1 : 0);
                dropped += !keep;
                const double want = keep ? double(float(xv[e]) * scale) : 0.0;
                wrong += !(yv[e] == want || (std::isnan(want) && std::isnan(yv[e])));
            }
            EXPECT_EQ(mismatches, 0);
            EXPECT_EQ(wrong, 0);
            const double n = double(xv.size()), sigma = std::sqrt(n * p * (1 - p));
            EXPECT_LT(std::fabs(dropped - n * p), 5 * sigma) << dropped << " of " << n;
            EXPECT_TRUE(y.guards_intact());
            EXPECT_TRUE(y.gaps_equal(y0));

            Tensor dy(l(dims), ANYDNN_DATA_FLOAT), dx(l(dims), ANYDNN_DATA_FLOAT);
            dy.fill_random();
            dx.poison();
            ASSERT_OK(anydnnDropoutBackward(h, desc, dy.desc(), dy.data(), dx.desc(), dx.data(), reserve.data(),
                                            reserve.size()));
            const std::vector<double> dyv = dy.values(), dxv = dx.values();
            wrong = 0;
            for (size_t e = 0; e < dyv.size(); ++e)
                wrong += dxv[e] != (reserve[e] ? double(float(dyv[e]) * scale) : 0.0);
            EXPECT_EQ(wrong, 0);
        }
}

// A larger tensor for the rate: 5 sigma of the binomial at 2^18 elements.
TEST_P(DropoutIsa, RateWithinFiveSigma) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    for (float p : {0.01f, 0.25f, 0.5f, 0.75f, 0.99f}) {
        Dropout desc(h, p, 42);
        Tensor x(packed({4, 16, 64, 64}), ANYDNN_DATA_FLOAT), y(packed({4, 16, 64, 64}), ANYDNN_DATA_FLOAT);
        x.fill_random(1, 2);
        std::vector<unsigned char> reserve = reserve_for(x);
        ASSERT_OK(anydnnDropoutForward(h, desc, x.desc(), x.data(), y.desc(), y.data(), reserve.data(),
                                       reserve.size()));
        int64_t dropped = 0;
        for (unsigned char m : reserve) dropped += m == 0;
        const double n = double(reserve.size()), sigma = std::sqrt(n * p * (1 - p));
        EXPECT_LT(std::fabs(dropped - n * p), 5 * sigma) << "p=" << p << ": " << dropped << " of " << n;
    }
}

TEST_P(DropoutIsa, OtherTypesAndInPlace) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const float p = 0.3f;
    const std::vector<int> dims = {2, 5, 9, 11};
    for (anydnnDataType_t dt : {ANYDNN_DATA_DOUBLE, ANYDNN_DATA_HALF, ANYDNN_DATA_BFLOAT16}) {
        SCOPED_TRACE(dtype_name(dt));
        Dropout desc(h, p, 7);
        Tensor x(packed(dims), dt), y(packed(dims), dt);
        x.fill_random(-2, 2);
        std::vector<unsigned char> reserve = reserve_for(x);
        ASSERT_OK(anydnnDropoutForward(h, desc, x.desc(), x.data(), y.desc(), y.data(), reserve.data(),
                                       reserve.size()));
        const std::vector<double> xv = x.values(), yv = y.values();
        const double scale = dt == ANYDNN_DATA_DOUBLE ? 1.0 / (1.0 - double(p)) : double(scale_of(p));
        for (size_t e = 0; e < xv.size(); ++e) {
            ASSERT_EQ(reserve[e], ref::dropout_keeps(7, 0, e, p) ? 1 : 0) << e;
            const double want = reserve[e] ? (dt == ANYDNN_DATA_DOUBLE ? xv[e] * scale : double(float(xv[e]) * float(scale))) : 0;
            ASSERT_EQ(yv[e], round_to(dt, want)) << e;
        }
    }
    // In place (y is x): the same as out of place with the same states.
    Dropout a(h, p, 99), b(h, p, 99);
    Tensor x(packed_nhwc(dims), ANYDNN_DATA_FLOAT), y(packed_nhwc(dims), ANYDNN_DATA_FLOAT);
    x.fill_random();
    std::vector<unsigned char> r1 = reserve_for(x), r2 = reserve_for(x);
    ASSERT_OK(anydnnDropoutForward(h, a, x.desc(), x.data(), y.desc(), y.data(), r1.data(), r1.size()));
    ASSERT_OK(anydnnDropoutForward(h, b, x.desc(), x.data(), x.desc(), x.data(), r2.data(), r2.size()));
    EXPECT_EQ(x.values(), y.values());
    EXPECT_EQ(r1, r2);
}

// The same seed gives bitwise the same y and mask for 1, 2 and 3 threads
// and every ISA level.
TEST(Dropout, BitwiseSameForEveryThreadCountAndIsa) {
    const std::vector<int> dims = {5, 13, 29, 31};  // 58435 elements
    Tensor x(packed(dims), ANYDNN_DATA_FLOAT);
    x.fill_random();
    std::vector<double> y_first;
    std::vector<unsigned char> mask_first;
    for (const std::string &isa : isa_levels())
        for (int threads : {1, 2, 3}) {
            Handle h(isa, threads);
            if (!h.available) continue;
            SCOPED_TRACE(isa + " " + std::to_string(threads) + " threads");
            Dropout desc(h, 0.4f, 2024);
            Tensor y(packed(dims), ANYDNN_DATA_FLOAT);
            std::vector<unsigned char> reserve = reserve_for(x);
            ASSERT_OK(anydnnDropoutForward(h, desc, x.desc(), x.data(), y.desc(), y.data(), reserve.data(),
                                           reserve.size()));
            if (y_first.empty()) {
                y_first = y.values();
                mask_first = reserve;
            } else {
                EXPECT_EQ(y.values(), y_first);
                EXPECT_EQ(reserve, mask_first);
            }
        }
}

// Each forward call advances the states: consecutive masks differ (and
// match the reference's calls 0, 1, 2); restoring a copy of the states
// saved after Set repeats the sequence; restoring the live states continues it.
TEST(Dropout, ConsecutiveCallsDifferAndRestoreRepeats) {
    Handle h("generic");
    const float p = 0.5f;
    Dropout desc(h, p, 31337);
    const std::vector<unsigned char> saved = desc.states;
    Tensor x(packed({1, 4, 16, 16}), ANYDNN_DATA_FLOAT), y(packed({1, 4, 16, 16}), ANYDNN_DATA_FLOAT);
    x.fill_random();
    std::vector<std::vector<unsigned char>> masks;
    for (int call = 0; call < 3; ++call) {
        std::vector<unsigned char> r = reserve_for(x);
        ASSERT_OK(anydnnDropoutForward(h, desc, x.desc(), x.data(), y.desc(), y.data(), r.data(), r.size()));
        for (size_t e = 0; e < r.size(); ++e) ASSERT_EQ(r[e], ref::dropout_keeps(31337, call, e, p) ? 1 : 0);
        masks.push_back(r);
    }
    EXPECT_NE(masks[0], masks[1]);
    EXPECT_NE(masks[1], masks[2]);

    std::vector<unsigned char> copy = saved;
    anydnnDropoutDescriptor_t restored;
    ASSERT_OK(anydnnCreateDropoutDescriptor(&restored));
    ASSERT_OK(anydnnRestoreDropoutDescriptor(restored, h, p, copy.data(), copy.size(), 0 /* ignored */));
    for (int call = 0; call < 3; ++call) {
        std::vector<unsigned char> r = reserve_for(x);
        ASSERT_OK(anydnnDropoutForward(h, restored, x.desc(), x.data(), y.desc(), y.data(), r.data(), r.size()));
        EXPECT_EQ(r, masks[call]) << "call " << call;
    }
    float got_p;
    void *got_states;
    unsigned long long got_seed;
    ASSERT_OK(anydnnGetDropoutDescriptor(restored, h, &got_p, &got_states, &got_seed));
    EXPECT_EQ(got_p, p);
    EXPECT_EQ(got_states, copy.data());
    EXPECT_EQ(got_seed, 31337u);
    // The live states of the first descriptor continue with call 3.
    ASSERT_OK(anydnnRestoreDropoutDescriptor(restored, h, p, desc.states.data(), desc.states.size(), 31337));
    std::vector<unsigned char> r = reserve_for(x);
    ASSERT_OK(anydnnDropoutForward(h, restored, x.desc(), x.data(), y.desc(), y.data(), r.data(), r.size()));
    for (size_t e = 0; e < r.size(); ++e) ASSERT_EQ(r[e], ref::dropout_keeps(31337, 3, e, p) ? 1 : 0);
    // Set with states NULL changes the probability only.
    ASSERT_OK(anydnnSetDropoutDescriptor(restored, h, 0.25f, nullptr, 0, 5));
    ASSERT_OK(anydnnGetDropoutDescriptor(restored, h, &got_p, &got_states, &got_seed));
    EXPECT_EQ(got_p, 0.25f);
    EXPECT_EQ(got_states, desc.states.data());
    EXPECT_EQ(got_seed, 31337u);
    EXPECT_OK(anydnnDestroyDropoutDescriptor(restored));
}

// p = 0 copies x bit for bit (mask all 1); p = 1 gives zeros, also for inf
// and NaN inputs (mask all 0), and a zero gradient. Neither needs states.
TEST(Dropout, ZeroAndOne) {
    Handle h("generic");
    const std::vector<int> dims = {2, 3, 5, 7};
    for (float p : {0.0f, 1.0f}) {
        SCOPED_TRACE("p=" + std::to_string(p));
        anydnnDropoutDescriptor_t d;
        ASSERT_OK(anydnnCreateDropoutDescriptor(&d));
        ASSERT_OK(anydnnSetDropoutDescriptor(d, h, p, nullptr, 0, 0));
        Tensor x(padded_by_3(dims), ANYDNN_DATA_FLOAT), y(packed(dims), ANYDNN_DATA_FLOAT);
        Tensor dy(packed(dims), ANYDNN_DATA_FLOAT), dx(packed(dims), ANYDNN_DATA_FLOAT);
        x.fill_random();
        x.set({1, 2, 4, 6}, INFINITY);
        x.set({1, 2, 4, 5}, NAN);
        dy.fill_random();
        y.poison();
        dx.poison();
        std::vector<unsigned char> reserve = reserve_for(x);
        ASSERT_OK(anydnnDropoutForward(h, d, x.desc(), x.data(), y.desc(), y.data(), reserve.data(), reserve.size()));
        ASSERT_OK(anydnnDropoutBackward(h, d, dy.desc(), dy.data(), dx.desc(), dx.data(), reserve.data(),
                                        reserve.size()));
        const std::vector<double> xv = x.values(), yv = y.values(), dyv = dy.values(), dxv = dx.values();
        for (size_t e = 0; e < xv.size(); ++e) {
            ASSERT_EQ(reserve[e], p == 0 ? 1 : 0);
            if (p == 0) {
                ASSERT_TRUE(yv[e] == xv[e] || (std::isnan(xv[e]) && std::isnan(yv[e])));
                ASSERT_EQ(dxv[e], dyv[e]);
            } else {
                ASSERT_EQ(yv[e], 0.0);
                ASSERT_EQ(dxv[e], 0.0);
            }
        }
        EXPECT_OK(anydnnDestroyDropoutDescriptor(d));
    }
}

TEST(Dropout, SizesAndErrors) {
    Handle h("generic");
    const auto BAD = ANYDNN_STATUS_BAD_PARAM;
    size_t size = 0;
    ASSERT_OK(anydnnDropoutGetStatesSize(h, &size));
    EXPECT_EQ(size, 64u);
    EXPECT_STATUS(anydnnDropoutGetStatesSize(nullptr, &size), BAD);
    EXPECT_STATUS(anydnnDropoutGetStatesSize(h, nullptr), BAD);
    Tensor x(packed({2, 3, 4, 5}), ANYDNN_DATA_FLOAT), y(packed({2, 3, 4, 5}), ANYDNN_DATA_FLOAT);
    Tensor other(packed({2, 3, 4, 6}), ANYDNN_DATA_FLOAT), xi(packed({2, 3, 4, 5}), ANYDNN_DATA_INT8);
    ASSERT_OK(anydnnDropoutGetReserveSpaceSize(x.desc(), &size));
    EXPECT_EQ(size, 120u);
    EXPECT_STATUS(anydnnDropoutGetReserveSpaceSize(nullptr, &size), BAD);
    EXPECT_STATUS(anydnnDropoutGetReserveSpaceSize(x.desc(), nullptr), BAD);

    std::vector<unsigned char> states(64), reserve(120);
    anydnnDropoutDescriptor_t d;
    ASSERT_OK(anydnnCreateDropoutDescriptor(&d));
    // Never set.
    EXPECT_STATUS(anydnnDropoutForward(h, d, x.desc(), x.data(), y.desc(), y.data(), reserve.data(), 120), BAD);
    for (float p : {-0.1f, 1.1f, NAN})
        EXPECT_STATUS(anydnnSetDropoutDescriptor(d, h, p, states.data(), 64, 1), BAD);
    EXPECT_STATUS(anydnnSetDropoutDescriptor(d, h, 0.5f, states.data(), 63, 1), ANYDNN_STATUS_INVALID_VALUE);
    EXPECT_STATUS(anydnnSetDropoutDescriptor(nullptr, h, 0.5f, states.data(), 64, 1), BAD);
    EXPECT_STATUS(anydnnSetDropoutDescriptor(d, nullptr, 0.5f, states.data(), 64, 1), BAD);
    EXPECT_EQ(states, std::vector<unsigned char>(64));  // failures wrote nothing
    // Restore needs initialized states.
    EXPECT_STATUS(anydnnRestoreDropoutDescriptor(d, h, 0.5f, states.data(), 64, 1), BAD);
    EXPECT_STATUS(anydnnRestoreDropoutDescriptor(d, h, 0.5f, nullptr, 64, 1), BAD);
    // Set without states, 0 < p < 1: the forward pass has no generator.
    ASSERT_OK(anydnnSetDropoutDescriptor(d, h, 0.5f, nullptr, 0, 1));
    EXPECT_STATUS(anydnnDropoutForward(h, d, x.desc(), x.data(), y.desc(), y.data(), reserve.data(), 120), BAD);
    ASSERT_OK(anydnnSetDropoutDescriptor(d, h, 0.5f, states.data(), 64, 1));
    EXPECT_STATUS(anydnnRestoreDropoutDescriptor(d, h, 0.5f, states.data(), 32, 1), ANYDNN_STATUS_INVALID_VALUE);
    const std::vector<unsigned char> states0 = states;
    y.fill_random();
    const std::vector<double> y0 = y.values();
    EXPECT_STATUS(anydnnDropoutForward(h, d, x.desc(), x.data(), y.desc(), y.data(), reserve.data(), 119), BAD);
    EXPECT_STATUS(anydnnDropoutForward(h, d, x.desc(), x.data(), y.desc(), y.data(), nullptr, 120), BAD);
    EXPECT_STATUS(anydnnDropoutForward(h, d, x.desc(), x.data(), other.desc(), y.data(), reserve.data(), 120), BAD);
    EXPECT_STATUS(anydnnDropoutForward(h, d, xi.desc(), xi.data(), xi.desc(), y.data(), reserve.data(), 120),
                  ANYDNN_STATUS_NOT_SUPPORTED);
    EXPECT_STATUS(anydnnDropoutForward(h, d, x.desc(), nullptr, y.desc(), y.data(), reserve.data(), 120), BAD);
    EXPECT_STATUS(anydnnDropoutForward(nullptr, d, x.desc(), x.data(), y.desc(), y.data(), reserve.data(), 120), BAD);
    EXPECT_STATUS(anydnnDropoutForward(h, nullptr, x.desc(), x.data(), y.desc(), y.data(), reserve.data(), 120), BAD);
    // y overlapping x without being it; the reserve space inside y.
    EXPECT_STATUS(anydnnDropoutForward(h, d, x.desc(), x.data(), x.desc(), static_cast<char *>(x.data()) + 4,
                                       reserve.data(), 120),
                  BAD);
    EXPECT_STATUS(anydnnDropoutForward(h, d, x.desc(), x.data(), y.desc(), y.data(), y.data(), 480), BAD);
    EXPECT_STATUS(anydnnDropoutBackward(h, d, x.desc(), x.data(), y.desc(), y.data(), reserve.data(), 100), BAD);
    EXPECT_EQ(y.values(), y0);
    EXPECT_EQ(states, states0);  // failed calls did not advance the states
    EXPECT_STATUS(anydnnGetDropoutDescriptor(nullptr, h, nullptr, nullptr, nullptr), BAD);
    EXPECT_STATUS(anydnnCreateDropoutDescriptor(nullptr), BAD);
    EXPECT_OK(anydnnDestroyDropoutDescriptor(d));
}

INSTANTIATE_TEST_SUITE_P(Isa, DropoutIsa, ::testing::ValuesIn(isa_levels()));

}  // namespace
