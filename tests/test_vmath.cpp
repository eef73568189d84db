// The vectorizable float functions of src/cpu/kernels/util/vmath.hpp
// against double libm, over a sweep of floats and the special values. This
// compiles them once, at the baseline ISA (the per-ISA builds are exercised
// through the activation and softmax suites); the bounds are those stated
// in vmath.hpp, with a little room.
#define ANYDNN_ISA_NS vmath_test
#include "cpu/kernels/util/vmath.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <vector>

namespace {

using namespace anydnn::cpu::vmath_test;

float from_bits(uint32_t b) {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
}

// Every `step`th float of magnitude <= limit, both signs, and the special values.
std::vector<float> sweep(float limit, uint32_t step) {
    std::vector<float> v;
    for (uint32_t b = 0; b < 0x7f800000u; b += step) {
        const float f = from_bits(b);
        if (f > limit) break;
        v.push_back(f);
        v.push_back(-f);
    }
    const float inf = std::numeric_limits<float>::infinity();
    for (float f : {inf, -inf, std::numeric_limits<float>::quiet_NaN(), 88.72f, 88.7228f, 88.73f, 89.5f, -87.33f,
                    -103.97f, -104.5f, 1e30f, -1e30f, 0.3465f, -0.3466f, 0.5f, -0.5f, 1.0f, -1.0f})
        v.push_back(f);
    return v;
}

double ulp(double v) {
    int e;
    std::frexp(static_cast<float>(std::fabs(v)), &e);
    return std::fmax(std::ldexp(1.0, e - 24), std::ldexp(1.0, -149));
}

struct Error {
    double rel = 0, ulps = 0;
};

// The largest error of f against ref over xs, where ref is a normal float
// (subnormal results are checked to within 4 subnormal ulps: vexp and
// vgauss apply 2^n in two steps there); special values must match exactly (NaN for NaN, the same
// infinity).
Error measure(const std::vector<float> &xs, const std::function<float(float)> &f,
              const std::function<double(double)> &ref) {
    std::vector<float> ys(xs.size());
    for (size_t i = 0; i < xs.size(); ++i) ys[i] = f(xs[i]);
    Error e;
    for (size_t i = 0; i < xs.size(); ++i) {
        const double want = ref(xs[i]), got = ys[i];
        if (std::isnan(want) || std::isinf(want) || std::fabs(want) > 3.4028234e38) {
            if (std::isnan(want)) EXPECT_TRUE(std::isnan(got)) << "x = " << xs[i];
            else EXPECT_EQ(got, want > 0 ? INFINITY : -INFINITY) << "x = " << xs[i];
            continue;
        }
        const double err = std::fabs(got - want);
        if (std::fabs(want) < 1.17549435e-38) {
            EXPECT_LE(err, std::ldexp(4.0, -149)) << "x = " << xs[i];
            continue;
        }
        e.rel = std::fmax(e.rel, err / std::fabs(want));
        e.ulps = std::fmax(e.ulps, err / ulp(want));
    }
    return e;
}

const std::vector<float> &wide() {
    static const std::vector<float> v = sweep(110, 997);
    return v;
}

TEST(Vmath, Exp) {
    const Error e = measure(wide(), [](float x) { return vexp(x); }, [](double x) { return std::exp(x); });
    EXPECT_LE(e.ulps, 1.5);
}

TEST(Vmath, Expm1) {
    const Error e = measure(wide(), [](float x) { return vexpm1(x); }, [](double x) { return std::expm1(x); });
    EXPECT_LE(e.ulps, 2.0);
    EXPECT_LE(e.rel, 1.5e-7);
}

TEST(Vmath, Log) {
    std::vector<float> xs;
    for (uint32_t b = 0; b < 0x7f800000u; b += 9973) xs.push_back(from_bits(b));  // normals and subnormals
    for (float f : {0.0f, -0.0f, -1.0f, 1.0f, std::numeric_limits<float>::infinity(), -INFINITY, NAN}) xs.push_back(f);
    const Error e = measure(xs, [](float x) { return vlog(x); }, [](double x) { return std::log(x); });
    EXPECT_LE(e.ulps, 1.0);
}

TEST(Vmath, Log1p) {
    std::vector<float> xs = wide();
    for (uint32_t b = 0; b < 0x7f800000u; b += 9973) xs.push_back(from_bits(b));
    for (float f : {-1.0f, -2.0f, -0.999999f}) xs.push_back(f);
    const Error e = measure(xs, [](float x) { return vlog1p(x); }, [](double x) { return std::log1p(x); });
    EXPECT_LE(e.ulps, 2.0);
    EXPECT_LE(e.rel, 2e-7);
}

TEST(Vmath, Sigmoid) {
    const Error e = measure(wide(), [](float x) { return vsigmoid(x); },
                            [](double x) { return 1 / (1 + std::exp(-x)); });
    EXPECT_LE(e.rel, 3e-7);
}

TEST(Vmath, Tanh) {
    const Error e = measure(wide(), [](float x) { return vtanh(x); }, [](double x) { return std::tanh(x); });
    EXPECT_LE(e.rel, 3.5e-7);
    for (float x : wide()) {
        if (!std::isnan(x)) EXPECT_LE(std::fabs(vtanh(x)), 1.0f) << "x = " << x;
    }
}

// vnormcdf is accurate to an absolute error (GELU needs no more), and stays in [0, 1].
TEST(Vmath, NormalCdf) {
    double worst = 0;
    for (float x : wide()) {
        const float got = vnormcdf(x);
        if (std::isnan(x)) {
            EXPECT_TRUE(std::isnan(got));
            continue;
        }
        EXPECT_GE(got, 0.0f) << "x = " << x;
        EXPECT_LE(got, 1.0f) << "x = " << x;
        worst = std::fmax(worst, std::fabs(got - 0.5 * std::erfc(-x / std::sqrt(2.0))));
    }
    EXPECT_LE(worst, 2.5e-7);
}

TEST(Vmath, Gauss) {
    const Error e = measure(wide(), [](float x) { return vgauss(x); }, [](double x) { return std::exp(-0.5 * x * x); });
    EXPECT_LE(e.ulps, 2.0);
}

}  // namespace
