// ActivationForward / ActivationBackward against the reference, on every ISA
// level, mode, data type, layout and beta; finite differences of the f64
// forward pass; NaN options, infinities, the swish beta; the descriptor and
// the documented BAD_PARAM / NOT_SUPPORTED cases.
//
// Tolerances (relative to each element, plus an absolute slack where a sum
// of terms of magnitude ~4 may cancel):
//   f32   1e-5 relative, 2e-6 absolute (vmath's functions are ~5e-7)
//   f64   1e-12 relative, 1e-13 absolute (libm)
//   f16 / bf16: one storage rounding (storage_tol) both ways; backward of the
//   modes that read y adds the derivative's sensitivity to y's rounding.
#include <cmath>
#include <cstring>
#include <limits>

#include "common/test_util.hpp"
#include "reference/activation_ref.hpp"

using namespace anydnn_test;

namespace {

const anydnnDataType_t kTypes[] = {ANYDNN_DATA_FLOAT, ANYDNN_DATA_DOUBLE, ANYDNN_DATA_HALF, ANYDNN_DATA_BFLOAT16};

// Every mode with a typical coef, RELU and CLIPPED_RELU with both NaN options.
std::vector<ref::Activation> all_modes() {
    std::vector<ref::Activation> v;
    for (bool nan : {false, true}) {
        v.push_back({ANYDNN_ACTIVATION_RELU, nan, 0, 1});
        v.push_back({ANYDNN_ACTIVATION_CLIPPED_RELU, nan, 1.5, 1});
    }
    v.push_back({ANYDNN_ACTIVATION_SIGMOID, false, 0, 1});
    v.push_back({ANYDNN_ACTIVATION_TANH, false, 0, 1});
    v.push_back({ANYDNN_ACTIVATION_ELU, false, 0.7, 1});
    v.push_back({ANYDNN_ACTIVATION_IDENTITY, false, 0, 1});
    v.push_back({ANYDNN_ACTIVATION_SWISH, false, 0, 1.7});
    v.push_back({ANYDNN_ACTIVATION_GELU, false, 0, 1});
    v.push_back({ANYDNN_ACTIVATION_GELU_TANH, false, 0, 1});
    v.push_back({ANYDNN_ACTIVATION_LEAKY_RELU, false, 0.1, 1});
    v.push_back({ANYDNN_ACTIVATION_HARDSWISH, false, 0, 1});
    v.push_back({ANYDNN_ACTIVATION_MISH, false, 0, 1});
    v.push_back({ANYDNN_ACTIVATION_SOFTPLUS, false, 0, 1});
    return v;
}

std::string name_of(const ref::Activation &a) {
    return "mode " + std::to_string(a.mode) + (a.propagate_nan ? " propagate" : "") + " coef " +
           std::to_string(a.coef) + " swish_beta " + std::to_string(a.swish_beta);
}

bool reads_y(anydnnActivationMode_t m) {
    return m == ANYDNN_ACTIVATION_SIGMOID || m == ANYDNN_ACTIVATION_TANH || m == ANYDNN_ACTIVATION_ELU;
}

class Desc {
public:
    explicit Desc(const ref::Activation &a) {
        EXPECT_OK(anydnnCreateActivationDescriptor(&d_));
        EXPECT_OK(anydnnSetActivationDescriptor(d_, a.mode, a.propagate_nan ? ANYDNN_PROPAGATE_NAN
                                                                             : ANYDNN_NOT_PROPAGATE_NAN,
                                                a.coef));
        EXPECT_OK(anydnnSetActivationDescriptorSwishBeta(d_, a.swish_beta));
    }
    Desc() { EXPECT_OK(anydnnCreateActivationDescriptor(&d_)); }
    ~Desc() { anydnnDestroyActivationDescriptor(d_); }
    Desc(const Desc &) = delete;
    Desc &operator=(const Desc &) = delete;
    operator anydnnActivationDescriptor_t() const { return d_; }

private:
    anydnnActivationDescriptor_t d_ = nullptr;
};

double rel_tol(anydnnDataType_t dt) {
    switch (dt) {
    case ANYDNN_DATA_FLOAT: return 1e-5;
    case ANYDNN_DATA_DOUBLE: return 1e-12;
    default: return storage_tol(dt);
    }
}
double abs_tol(anydnnDataType_t dt) {
    switch (dt) {
    case ANYDNN_DATA_FLOAT: return 2e-6;
    case ANYDNN_DATA_DOUBLE: return 1e-13;
    default: return storage_tol(dt);
    }
}

// Fills y with f(x) as the forward pass (alpha 1, beta 0) leaves it.
void set_forward_output(const ref::Activation &a, const Tensor &x, Tensor &y) {
    for_each_index(x.shape().dims, [&](const std::vector<int> &idx) { y.set(idx, ref::activation_f(a, x.at(idx))); });
}

// Moves inputs away from the kinks of the piecewise modes, where finite
// differences and the two sides' derivatives disagree.
void avoid_kinks(Tensor &x, const ref::Activation &a, double margin) {
    const double kinks[] = {0.0, a.coef, -3.0, 3.0};
    for_each_index(x.shape().dims, [&](const std::vector<int> &idx) {
        double v = x.at(idx);
        for (double k : kinks)
            if (std::fabs(v - k) < margin) v = k + (v < k ? -margin : margin);
        x.set(idx, v);
    });
}

std::vector<std::pair<Shape, Shape>> layout_pairs(const std::vector<int> &dims) {
    return {{packed(dims), packed(dims)},
            {packed_nhwc(dims), packed_nhwc(dims)},
            {padded(dims), packed_nhwc(dims)},
            {packed(dims), padded(dims, 2)}};
}

class Activation : public ::testing::TestWithParam<std::string> {};

TEST_P(Activation, ForwardEveryModeTypeLayoutAndBeta) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const std::vector<int> dims = {2, 5, 3, 7};
    for (const ref::Activation &act : all_modes()) {
        Desc desc(act);
        for (anydnnDataType_t dt : kTypes)
            for (const auto &[xs, ys] : layout_pairs(dims))
                for (double beta : {0.0, 0.5}) {
                    SCOPED_TRACE(name_of(act) + " " + dtype_name(dt) + " x " + xs.to_string() + " y " +
                                 ys.to_string() + " beta " + std::to_string(beta));
                    Tensor x(xs, dt), y(ys, dt), y0(ys, dt);
                    x.fill_random(-4, 4);
                    if (beta != 0) y.fill_random();
                    y0.copy_from(y);
                    const Scalar al(0.75), be(beta);
                    ASSERT_OK(anydnnActivationForward(h, desc, al.ptr(dt), x.desc(), x.data(), be.ptr(dt), y.desc(),
                                                      y.data()));
                    expect_close(y.values(), ref::activation_forward(act, 0.75, x, beta, y0), rel_tol(dt),
                                 abs_tol(dt), "forward");
                    EXPECT_TRUE(y.guards_intact());
                    EXPECT_TRUE(y.gaps_equal(y0));
                }
    }
}

TEST_P(Activation, BackwardEveryModeTypeLayoutAndBeta) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const std::vector<int> dims = {2, 5, 3, 7};
    for (const ref::Activation &act : all_modes()) {
        Desc desc(act);
        for (anydnnDataType_t dt : kTypes)
            for (const auto &[xs, dxs] : layout_pairs(dims))
                for (double beta : {0.0, 0.5}) {
                    SCOPED_TRACE(name_of(act) + " " + dtype_name(dt) + " x,y,dy " + xs.to_string() + " dx " +
                                 dxs.to_string() + " beta " + std::to_string(beta));
                    Tensor x(xs, dt), y(packed_nhwc(dims), dt), dy(padded(dims, 1), dt), dx(dxs, dt), dx0(dxs, dt);
                    x.fill_random(-4, 4);
                    avoid_kinks(x, act, 1e-2);
                    set_forward_output(act, x, y);
                    dy.fill_random();
                    if (beta != 0) dx.fill_random();
                    dx0.copy_from(dx);
                    const Scalar al(1.25), be(beta);
                    ASSERT_OK(anydnnActivationBackward(h, desc, al.ptr(dt), y.desc(), y.data(), dy.desc(), dy.data(),
                                                       x.desc(), x.data(), be.ptr(dt), dx.desc(), dx.data()));
                    // The modes that read y see f(x) rounded to dt; their
                    // derivatives move by at most 2 * (that rounding) * |dy|.
                    const double y_slack = reads_y(act.mode) ? 2 * 1.25 * storage_tol(dt) : 0;
                    expect_close(dx.values(), ref::activation_backward(act, 1.25, x, dy, beta, dx0), rel_tol(dt),
                                 abs_tol(dt) + y_slack, "backward");
                    EXPECT_TRUE(dx.guards_intact());
                    EXPECT_TRUE(dx.gaps_equal(dx0));
                }
    }
}

TEST_P(Activation, LargeTensorsSplitAcrossThreads) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const std::vector<int> dims = {3, 17, 33, 65};
    for (const ref::Activation &act : all_modes()) {
        Desc desc(act);
        for (anydnnDataType_t dt : {ANYDNN_DATA_FLOAT, ANYDNN_DATA_BFLOAT16})
            for (double beta : {0.0, -1.25}) {
                SCOPED_TRACE(name_of(act) + " " + dtype_name(dt) + " beta " + std::to_string(beta));
                Tensor x(packed(dims), dt), y(packed(dims), dt), y0(packed(dims), dt);
                Tensor dy(packed(dims), dt), dx(packed(dims), dt), dx0(packed(dims), dt);
                x.fill_random(-6, 6);
                avoid_kinks(x, act, 1e-2);
                y.fill_random();
                y0.copy_from(y);
                dy.fill_random();
                dx.fill_random();
                dx0.copy_from(dx);
                const Scalar one(1), be(beta);
                ASSERT_OK(anydnnActivationForward(h, desc, one.ptr(dt), x.desc(), x.data(), be.ptr(dt), y.desc(),
                                                  y.data()));
                expect_close(y.values(), ref::activation_forward(act, 1, x, beta, y0), rel_tol(dt), 4 * abs_tol(dt),
                             "forward");
                // y = f(x) for the backward pass.
                set_forward_output(act, x, y);
                ASSERT_OK(anydnnActivationBackward(h, desc, one.ptr(dt), y.desc(), y.data(), dy.desc(), dy.data(),
                                                   x.desc(), x.data(), be.ptr(dt), dx.desc(), dx.data()));
                const double y_slack = reads_y(act.mode) ? 2 * storage_tol(dt) : 0;
                expect_close(dx.values(), ref::activation_backward(act, 1, x, dy, beta, dx0), rel_tol(dt),
                             4 * abs_tol(dt) + y_slack, "backward");
                EXPECT_TRUE(y.guards_intact());
                EXPECT_TRUE(dx.guards_intact());
            }
    }
}

TEST_P(Activation, InPlace) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const std::vector<int> dims = {2, 3, 40, 41};
    for (const ref::Activation &act : all_modes()) {
        SCOPED_TRACE(name_of(act));
        Desc desc(act);
        Tensor x(padded(dims), ANYDNN_DATA_FLOAT), x0(padded(dims), ANYDNN_DATA_FLOAT);
        x.fill_random(-4, 4);
        avoid_kinks(x, act, 1e-2);
        x0.copy_from(x);
        const float one = 1, half = 0.5f;
        ASSERT_OK(anydnnActivationForward(h, desc, &one, x.desc(), x.data(), &half, x.desc(), x.data()));
        expect_close(x.values(), ref::activation_forward(act, 1, x0, 0.5, x0), 1e-5, 2e-6, "forward in place");
        // Backward with dx == dy.
        Tensor y(padded(dims), ANYDNN_DATA_FLOAT), d(padded(dims), ANYDNN_DATA_FLOAT), d0(padded(dims), ANYDNN_DATA_FLOAT);
        set_forward_output(act, x0, y);
        d.fill_random();
        d0.copy_from(d);
        ASSERT_OK(anydnnActivationBackward(h, desc, &one, y.desc(), y.data(), d.desc(), d.data(), x0.desc(),
                                           x0.data(), &half, d.desc(), d.data()));
        expect_close(d.values(), ref::activation_backward(act, 1, x0, d0, 0.5, d0), 1e-5, 4e-6, "backward in place");
    }
}

// RELU and CLIPPED_RELU: NOT_PROPAGATE_NAN treats NaN as below 0 (f = 0,
// f' = 0), PROPAGATE_NAN passes it through; every other mode always gives NaN.
TEST_P(Activation, NanOptions) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const std::vector<int> dims = {1, 3, 5, 7};
    for (const ref::Activation &act : all_modes())
        for (anydnnDataType_t dt : kTypes) {
            SCOPED_TRACE(name_of(act) + " " + dtype_name(dt));
            Desc desc(act);
            Tensor x(packed(dims), dt), y(packed(dims), dt), dy(packed(dims), dt), dx(packed(dims), dt);
            x.fill_random(-2, 2);
            x.set({0, 0, 0, 0}, NAN);
            x.set({0, 1, 2, 3}, NAN);
            x.set({0, 2, 4, 6}, NAN);
            const Scalar one(1), zero(0);
            ASSERT_OK(anydnnActivationForward(h, desc, one.ptr(dt), x.desc(), x.data(), zero.ptr(dt), y.desc(),
                                              y.data()));
            const auto yref = ref::activation_forward(act, 1, x, 0, y);
            expect_close(y.values(), yref, rel_tol(dt), abs_tol(dt), "forward");
            const bool drops = (act.mode == ANYDNN_ACTIVATION_RELU || act.mode == ANYDNN_ACTIVATION_CLIPPED_RELU) &&
                               !act.propagate_nan;
            EXPECT_EQ(std::isnan(y.at({0, 1, 2, 3})), !drops);
            dy.fill_random();
            ASSERT_OK(anydnnActivationBackward(h, desc, one.ptr(dt), y.desc(), y.data(), dy.desc(), dy.data(),
                                               x.desc(), x.data(), zero.ptr(dt), dx.desc(), dx.data()));
            const double y_slack = reads_y(act.mode) ? 2 * storage_tol(dt) : 0;
            expect_close(dx.values(), ref::activation_backward(act, 1, x, dy, 0, dx), rel_tol(dt),
                         abs_tol(dt) + y_slack, "backward");
            // IDENTITY's f' = 1 does not look at x: dx = dy.
            if (act.mode != ANYDNN_ACTIVATION_IDENTITY) EXPECT_EQ(std::isnan(dx.at({0, 2, 4, 6})), !drops);
        }
}

// The limits at +-infinity (and past the overflow of every exponential),
// never inf * 0 = NaN.
TEST_P(Activation, InfinitiesGiveTheLimits) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const double inf = std::numeric_limits<double>::infinity();
    struct Case {
        ref::Activation act;
        double f_pos, f_neg, df_pos, df_neg;  // f(+inf), f(-inf), f'(+inf), f'(-inf)
    };
    const Case cases[] = {
        {{ANYDNN_ACTIVATION_SIGMOID, false, 0, 1}, 1, 0, 0, 0},
        {{ANYDNN_ACTIVATION_RELU, false, 0, 1}, inf, 0, 1, 0},
        {{ANYDNN_ACTIVATION_TANH, false, 0, 1}, 1, -1, 0, 0},
        {{ANYDNN_ACTIVATION_CLIPPED_RELU, false, 2, 1}, 2, 0, 0, 0},
        {{ANYDNN_ACTIVATION_ELU, false, 0.5, 1}, inf, -0.5, 1, 0},
        {{ANYDNN_ACTIVATION_IDENTITY, false, 0, 1}, inf, -inf, 1, 1},
        {{ANYDNN_ACTIVATION_SWISH, false, 0, 2}, inf, 0, 1, 0},
        {{ANYDNN_ACTIVATION_SWISH, false, 0, -0.5}, 0, -inf, 0, 1},
        {{ANYDNN_ACTIVATION_GELU, false, 0, 1}, inf, 0, 1, 0},
        {{ANYDNN_ACTIVATION_GELU_TANH, false, 0, 1}, inf, 0, 1, 0},
        {{ANYDNN_ACTIVATION_LEAKY_RELU, false, 0.1, 1}, inf, -inf, 1, 0.1},
        {{ANYDNN_ACTIVATION_HARDSWISH, false, 0, 1}, inf, 0, 1, 0},
        {{ANYDNN_ACTIVATION_MISH, false, 0, 1}, inf, 0, 1, 0},
        {{ANYDNN_ACTIVATION_SOFTPLUS, false, 0, 1}, inf, 0, 1, 0},
    };
    const std::vector<int> dims = {1, 1, 1, 2};
    for (const Case &c : cases)
        for (anydnnDataType_t dt : kTypes) {
            SCOPED_TRACE(name_of(c.act) + " " + dtype_name(dt));
            Desc desc(c.act);
            Tensor x(packed(dims), dt), y(packed(dims), dt), dy(packed(dims), dt), dx(packed(dims), dt);
            x.set({0, 0, 0, 0}, inf);
            x.set({0, 0, 0, 1}, -inf);
            const Scalar one(1), zero(0);
            ASSERT_OK(anydnnActivationForward(h, desc, one.ptr(dt), x.desc(), x.data(), zero.ptr(dt), y.desc(),
                                              y.data()));
            EXPECT_EQ(y.at({0, 0, 0, 0}), round_to(dt, c.f_pos));
            EXPECT_EQ(y.at({0, 0, 0, 1}), round_to(dt, c.f_neg));
            dy.set({0, 0, 0, 0}, 1);
            dy.set({0, 0, 0, 1}, 1);
            ASSERT_OK(anydnnActivationBackward(h, desc, one.ptr(dt), y.desc(), y.data(), dy.desc(), dy.data(),
                                               x.desc(), x.data(), zero.ptr(dt), dx.desc(), dx.data()));
            EXPECT_EQ(dx.at({0, 0, 0, 0}), round_to(dt, c.df_pos));
            EXPECT_EQ(dx.at({0, 0, 0, 1}), round_to(dt, c.df_neg));
        }
}

// The largest error of out against ref beyond an absolute slack, relative
// to max(|ref|, floor).
double max_rel_error(const std::vector<double> &out, const std::vector<double> &ref, double slack, double floor) {
    double e = 0;
    for (size_t i = 0; i < out.size(); ++i)
        e = std::fmax(e, (std::fabs(out[i] - ref[i]) - slack) / std::fmax(std::fabs(ref[i]), floor));
    return e;
}

// Far into the tails (where the exponentials underflow or overflow) the
// float modes stay accurate relative to each value, not just absolutely,
// over x in [-20, 20]. Bounds, relative to |ref| + floor:
// - forward: 2e-6 (floor: the smallest normal float), except where the
//   function amplifies a rounding inside it: SWISH's beta * x (beta itself
//   is rounded to float) by |beta x|, GELU_TANH's u = k (x + c x^3) by |2u|
//   (up to ~90 before the result underflows);
// - backward: 5e-6 beyond an absolute 6e-8, since the derivatives cross 0
//   (GELU, SWISH, MISH, HARDSWISH) as differences of terms near 1 whose
//   rounding (an ulp, 6e-8) is then all that is left; the same
//   amplifications; SIGMOID, TANH and ELU take f' from y, whose float
//   rounding (6e-8 near 1) bounds their error absolutely.
// GELU is the exception: its Phi(x) is accurate to 2.1e-7 absolute, not
// relative (vmath.hpp; as 0.5 (1 + erf(x / sqrt 2)) in PyTorch), so its
// lower tail is bounded absolutely: x Phi(x) to 2.1e-7 |x| <= 1.3e-6, the
// derivative Phi(x) + x phi(x) to 2.1e-7 plus the rounding of its terms.
TEST_P(Activation, TailsStayAccurateInFloat) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const int n = 4001;
    const Shape s = packed({1, 1, 1, n});
    Tensor x(s, ANYDNN_DATA_FLOAT), y(s, ANYDNN_DATA_FLOAT), dy(s, ANYDNN_DATA_FLOAT), dx(s, ANYDNN_DATA_FLOAT);
    for (int i = 0; i < n; ++i) x.set({0, 0, 0, i}, -20.0 + 40.0 * i / (n - 1) + 1e-3);
    for (int i = 0; i < n; ++i) dy.set({0, 0, 0, i}, 1);
    for (const ref::Activation &act : all_modes()) {
        SCOPED_TRACE(name_of(act));
        Desc desc(act);
        const float one = 1, zero = 0;
        ASSERT_OK(anydnnActivationForward(h, desc, &one, x.desc(), x.data(), &zero, y.desc(), y.data()));
        const bool gelu = act.mode == ANYDNN_ACTIVATION_GELU;
        const double fwd =
            max_rel_error(y.values(), ref::activation_forward(act, 1, x, 0, y), gelu ? 1.3e-6 : 0, 1.17549435e-38);
        set_forward_output(act, x, y);
        ASSERT_OK(anydnnActivationBackward(h, desc, &one, y.desc(), y.data(), dy.desc(), dy.data(), x.desc(),
                                           x.data(), &zero, dx.desc(), dx.data()));
        const bool from_y = reads_y(act.mode);
        const double bwd = max_rel_error(dx.values(), ref::activation_backward(act, 1, x, dy, 0, dx),
                                         from_y ? 0 : (gelu ? 2.8e-7 : 6e-8),
                                         from_y ? 1 : 1.17549435e-38);
        std::printf("%-52s forward %.2e  backward %.2e%s\n", name_of(act).c_str(), fwd, bwd,
                    from_y ? " (absolute)" : "");
        const double amplified = act.mode == ANYDNN_ACTIVATION_GELU_TANH ? 3e-5
                                 : act.mode == ANYDNN_ACTIVATION_SWISH   ? 5e-6
                                                                         : 0;
        EXPECT_LE(fwd, amplified > 0 ? amplified : 2e-6);
        EXPECT_LE(bwd, from_y ? 1.5e-7 : amplified > 0 ? amplified : 5e-6);
    }
}

// The analytic backward pass agrees with central differences of the forward
// pass, both computed by the library in f64.
TEST_P(Activation, BackwardMatchesFiniteDifferencesInF64) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    const std::vector<int> dims = {2, 3, 4, 5};
    const double step = 1e-6;
    for (const ref::Activation &act : all_modes()) {
        SCOPED_TRACE(name_of(act));
        Desc desc(act);
        const anydnnDataType_t dt = ANYDNN_DATA_DOUBLE;
        Tensor x(packed(dims), dt), xp(packed(dims), dt), xm(packed(dims), dt);
        Tensor y(packed(dims), dt), yp(packed(dims), dt), ym(packed(dims), dt);
        Tensor dy(packed(dims), dt), dx(packed(dims), dt);
        x.fill_random(-4, 4);
        avoid_kinks(x, act, 1e-3);
        for_each_index(dims, [&](const std::vector<int> &idx) {
            xp.set(idx, x.at(idx) + step);
            xm.set(idx, x.at(idx) - step);
            dy.set(idx, 1);
        });
        const double one = 1, zero = 0;
        ASSERT_OK(anydnnActivationForward(h, desc, &one, x.desc(), x.data(), &zero, y.desc(), y.data()));
        ASSERT_OK(anydnnActivationForward(h, desc, &one, xp.desc(), xp.data(), &zero, yp.desc(), yp.data()));
        ASSERT_OK(anydnnActivationForward(h, desc, &one, xm.desc(), xm.data(), &zero, ym.desc(), ym.data()));
        ASSERT_OK(anydnnActivationBackward(h, desc, &one, y.desc(), y.data(), dy.desc(), dy.data(), x.desc(),
                                           x.data(), &zero, dx.desc(), dx.data()));
        std::vector<double> fd;
        const auto p = yp.values(), m = ym.values();
        for (size_t i = 0; i < p.size(); ++i) fd.push_back((p[i] - m[i]) / (2 * step));
        // Truncation ~ step^2 |f'''|, cancellation ~ 1e-16 / step.
        expect_close(dx.values(), fd, 1e-7, 1e-8, "finite differences");
    }
}

TEST_P(Activation, SwishBeta) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    Desc desc;
    double b = 0;
    ASSERT_OK(anydnnGetActivationDescriptorSwishBeta(desc, &b));
    EXPECT_EQ(b, 1.0);  // the default
    ASSERT_OK(anydnnSetActivationDescriptor(desc, ANYDNN_ACTIVATION_SWISH, ANYDNN_NOT_PROPAGATE_NAN, 0));
    const std::vector<int> dims = {2, 4, 5, 6};
    for (double beta : {1.0, 1.7, -0.6, 0.0, 10.0}) {
        SCOPED_TRACE("swish beta " + std::to_string(beta));
        ASSERT_OK(anydnnSetActivationDescriptorSwishBeta(desc, beta));
        ASSERT_OK(anydnnGetActivationDescriptorSwishBeta(desc, &b));
        EXPECT_EQ(b, beta);
        const ref::Activation act{ANYDNN_ACTIVATION_SWISH, false, 0, beta};
        Tensor x(packed(dims), ANYDNN_DATA_FLOAT), y(packed(dims), ANYDNN_DATA_FLOAT);
        Tensor dy(packed(dims), ANYDNN_DATA_FLOAT), dx(packed(dims), ANYDNN_DATA_FLOAT);
        x.fill_random(-4, 4);
        dy.fill_random();
        const float one = 1, zero = 0;
        ASSERT_OK(anydnnActivationForward(h, desc, &one, x.desc(), x.data(), &zero, y.desc(), y.data()));
        expect_close(y.values(), ref::activation_forward(act, 1, x, 0, y), 1e-5, 2e-6, "forward");
        ASSERT_OK(anydnnActivationBackward(h, desc, &one, y.desc(), y.data(), dy.desc(), dy.data(), x.desc(),
                                           x.data(), &zero, dx.desc(), dx.data()));
        expect_close(dx.values(), ref::activation_backward(act, 1, x, dy, 0, dx), 1e-5, 2e-6, "backward");
    }
}

INSTANTIATE_TEST_SUITE_P(Isa, Activation, ::testing::ValuesIn(isa_levels()));

// ---- Descriptor and argument checks ------------------------------------------------------

TEST(ActivationDescriptor, SetGetAndBadValues) {
    Desc d;
    anydnnActivationMode_t mode;
    anydnnNanPropagation_t nan;
    double coef;
    EXPECT_STATUS(anydnnGetActivationDescriptor(d, &mode, &nan, &coef), ANYDNN_STATUS_BAD_PARAM);  // never set
    ASSERT_OK(anydnnSetActivationDescriptor(d, ANYDNN_ACTIVATION_CLIPPED_RELU, ANYDNN_PROPAGATE_NAN, 6.0));
    ASSERT_OK(anydnnGetActivationDescriptor(d, &mode, &nan, &coef));
    EXPECT_EQ(mode, ANYDNN_ACTIVATION_CLIPPED_RELU);
    EXPECT_EQ(nan, ANYDNN_PROPAGATE_NAN);
    EXPECT_EQ(coef, 6.0);
    ASSERT_OK(anydnnGetActivationDescriptor(d, nullptr, nullptr, nullptr));
    for (int bad : {-1, 7, 99, 106, 1000})
        EXPECT_STATUS(anydnnSetActivationDescriptor(d, static_cast<anydnnActivationMode_t>(bad),
                                                    ANYDNN_NOT_PROPAGATE_NAN, 0),
                      ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetActivationDescriptor(d, ANYDNN_ACTIVATION_RELU, static_cast<anydnnNanPropagation_t>(2), 0),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetActivationDescriptor(d, ANYDNN_ACTIVATION_ELU, ANYDNN_NOT_PROPAGATE_NAN, NAN),
                  ANYDNN_STATUS_BAD_PARAM);
    // A failed set leaves the descriptor as it was.
    ASSERT_OK(anydnnGetActivationDescriptor(d, &mode, &nan, &coef));
    EXPECT_EQ(mode, ANYDNN_ACTIVATION_CLIPPED_RELU);
    EXPECT_EQ(coef, 6.0);
    EXPECT_STATUS(anydnnSetActivationDescriptorSwishBeta(d, NAN), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnGetActivationDescriptorSwishBeta(d, nullptr), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnCreateActivationDescriptor(nullptr), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetActivationDescriptor(nullptr, ANYDNN_ACTIVATION_RELU, ANYDNN_NOT_PROPAGATE_NAN, 0),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnGetActivationDescriptor(nullptr, &mode, &nan, &coef), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetActivationDescriptorSwishBeta(nullptr, 1), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnGetActivationDescriptorSwishBeta(nullptr, &coef), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_OK(anydnnDestroyActivationDescriptor(nullptr));
}

// The bytes of t's span, to check that a failing call wrote nothing.
std::vector<unsigned char> bytes_of(const Tensor &t) {
    const auto *p = static_cast<const unsigned char *>(t.data());
    return {p, p + t.shape().span() * dtype_size(t.dtype())};
}

TEST(ActivationArguments, ForwardFailuresWriteNothing) {
    Handle h("generic");
    Desc relu(ref::Activation{ANYDNN_ACTIVATION_RELU, false, 0, 1}), unset;
    const std::vector<int> dims = {2, 3, 4, 5};
    Tensor x(packed(dims), ANYDNN_DATA_FLOAT), y(packed(dims), ANYDNN_DATA_FLOAT);
    Tensor other_dims(packed({2, 3, 4, 6}), ANYDNN_DATA_FLOAT), other_type(packed(dims), ANYDNN_DATA_HALF);
    Tensor s8x(packed(dims), ANYDNN_DATA_INT8), s8y(packed(dims), ANYDNN_DATA_INT8);
    Tensor x_nhwc(packed_nhwc(dims), ANYDNN_DATA_FLOAT);
    anydnnTensorDescriptor_t never_set;
    ASSERT_OK(anydnnCreateTensorDescriptor(&never_set));
    x.fill_random();
    y.fill_random();
    const auto before = bytes_of(y);
    const float one = 1, zero = 0;
    const auto fwd = [&](anydnnHandle_t hh, anydnnActivationDescriptor_t d, const void *a, anydnnTensorDescriptor_t xd,
                         const void *xp, const void *b, anydnnTensorDescriptor_t yd, void *yp) {
        return anydnnActivationForward(hh, d, a, xd, xp, b, yd, yp);
    };
    const anydnnStatus_t bad = ANYDNN_STATUS_BAD_PARAM;
    EXPECT_STATUS(fwd(nullptr, relu, &one, x.desc(), x.data(), &zero, y.desc(), y.data()), bad);
    EXPECT_STATUS(fwd(h, nullptr, &one, x.desc(), x.data(), &zero, y.desc(), y.data()), bad);
    EXPECT_STATUS(fwd(h, unset, &one, x.desc(), x.data(), &zero, y.desc(), y.data()), bad);
    EXPECT_STATUS(fwd(h, relu, &one, nullptr, x.data(), &zero, y.desc(), y.data()), bad);
    EXPECT_STATUS(fwd(h, relu, &one, never_set, x.data(), &zero, y.desc(), y.data()), bad);
    EXPECT_STATUS(fwd(h, relu, &one, x.desc(), x.data(), &zero, nullptr, y.data()), bad);
    EXPECT_STATUS(fwd(h, relu, &one, other_dims.desc(), other_dims.data(), &zero, y.desc(), y.data()), bad);
    EXPECT_STATUS(fwd(h, relu, &one, other_type.desc(), other_type.data(), &zero, y.desc(), y.data()), bad);
    EXPECT_STATUS(fwd(h, relu, &one, x.desc(), nullptr, &zero, y.desc(), y.data()), bad);
    EXPECT_STATUS(fwd(h, relu, nullptr, x.desc(), x.data(), &zero, y.desc(), y.data()), bad);
    EXPECT_STATUS(fwd(h, relu, &one, x.desc(), x.data(), nullptr, y.desc(), y.data()), bad);
    // In place needs identical descriptors.
    EXPECT_STATUS(fwd(h, relu, &one, x_nhwc.desc(), y.data(), &zero, y.desc(), y.data()), bad);
    EXPECT_TRUE(bytes_of(y) == before);
    EXPECT_STATUS(fwd(h, relu, &one, x.desc(), x.data(), &zero, y.desc(), nullptr), bad);
    EXPECT_STATUS(fwd(h, relu, &one, s8x.desc(), s8x.data(), &zero, s8y.desc(), s8y.data()),
                  ANYDNN_STATUS_NOT_SUPPORTED);
    EXPECT_TRUE(bytes_of(y) == before);
    anydnnDestroyTensorDescriptor(never_set);
}

TEST(ActivationArguments, BackwardFailuresWriteNothing) {
    Handle h("generic");
    Desc desc_tanh(ref::Activation{ANYDNN_ACTIVATION_TANH, false, 0, 1}), unset;
    const std::vector<int> dims = {2, 3, 4, 5};
    Tensor y(packed(dims), ANYDNN_DATA_FLOAT), dy(packed(dims), ANYDNN_DATA_FLOAT), x(packed(dims), ANYDNN_DATA_FLOAT);
    Tensor dx(packed(dims), ANYDNN_DATA_FLOAT), other_dims(packed({2, 3, 5, 5}), ANYDNN_DATA_FLOAT);
    Tensor other_type(packed(dims), ANYDNN_DATA_DOUBLE), dy_nhwc(packed_nhwc(dims), ANYDNN_DATA_FLOAT);
    for (Tensor *t : {&y, &dy, &x, &dx}) t->fill_random();
    const auto before = bytes_of(dx);
    const float one = 1, zero = 0;
    const anydnnStatus_t bad = ANYDNN_STATUS_BAD_PARAM;
    const auto bwd = [&](anydnnActivationDescriptor_t d, const Tensor &yt, const Tensor &dyt, const Tensor &xt,
                         const void *a, void *dxp) {
        return anydnnActivationBackward(h, d, a, yt.desc(), yt.data(), dyt.desc(), dyt.data(), xt.desc(), xt.data(),
                                        &zero, dx.desc(), dxp);
    };
    EXPECT_STATUS(bwd(unset, y, dy, x, &one, dx.data()), bad);
    EXPECT_STATUS(bwd(nullptr, y, dy, x, &one, dx.data()), bad);
    EXPECT_STATUS(bwd(desc_tanh, other_dims, dy, x, &one, dx.data()), bad);
    EXPECT_STATUS(bwd(desc_tanh, y, other_dims, x, &one, dx.data()), bad);
    EXPECT_STATUS(bwd(desc_tanh, y, dy, other_dims, &one, dx.data()), bad);
    EXPECT_STATUS(bwd(desc_tanh, other_type, dy, x, &one, dx.data()), bad);
    EXPECT_STATUS(bwd(desc_tanh, y, other_type, x, &one, dx.data()), bad);
    EXPECT_STATUS(bwd(desc_tanh, y, dy, other_type, &one, dx.data()), bad);
    EXPECT_STATUS(bwd(desc_tanh, y, dy, x, nullptr, dx.data()), bad);
    EXPECT_STATUS(bwd(desc_tanh, y, dy, x, &one, nullptr), bad);
    EXPECT_STATUS(anydnnActivationBackward(h, desc_tanh, &one, y.desc(), nullptr, dy.desc(), dy.data(), x.desc(), x.data(),
                                           &zero, dx.desc(), dx.data()),
                  bad);
    EXPECT_STATUS(anydnnActivationBackward(h, desc_tanh, &one, y.desc(), y.data(), dy.desc(), nullptr, x.desc(), x.data(),
                                           &zero, dx.desc(), dx.data()),
                  bad);
    EXPECT_STATUS(anydnnActivationBackward(h, desc_tanh, &one, y.desc(), y.data(), dy.desc(), dy.data(), x.desc(), nullptr,
                                           &zero, dx.desc(), dx.data()),
                  bad);
    EXPECT_STATUS(anydnnActivationBackward(h, desc_tanh, &one, y.desc(), y.data(), dy.desc(), dy.data(), x.desc(), x.data(),
                                           nullptr, dx.desc(), dx.data()),
                  bad);
    EXPECT_STATUS(anydnnActivationBackward(h, desc_tanh, &one, y.desc(), y.data(), dy.desc(), dy.data(), x.desc(), x.data(),
                                           &zero, nullptr, dx.data()),
                  bad);
    // dx in dy's buffer with another layout.
    EXPECT_STATUS(anydnnActivationBackward(h, desc_tanh, &one, y.desc(), y.data(), dy_nhwc.desc(), dx.data(), x.desc(),
                                           x.data(), &zero, dx.desc(), dx.data()),
                  bad);
    EXPECT_TRUE(bytes_of(dx) == before);
}

}  // namespace
