// Backward convolution beyond the reference comparison: a finite-difference
// check in f64 that ties backward data, filter and bias to the forward;
// bitwise determinism over runs and thread counts; backward bias; the
// algorithm queries; the documented error statuses.
#include <cmath>
#include <cstring>

#include "common/conv_setup.hpp"

using namespace anydnn_test;

namespace {

double dot(const Tensor &a, const Tensor &b) {
    const std::vector<double> va = a.values(), vb = b.values();
    double s = 0;
    for (size_t i = 0; i < va.size(); ++i) s += va[i] * vb[i];
    return s;
}

// t + eps * dir, element by element (t's layout).
void axpy_into(Tensor &out, const Tensor &t, double eps, const Tensor &dir) {
    const std::vector<double> vt = t.values(), vd = dir.values();
    for (int64_t i = 0; i < static_cast<int64_t>(vt.size()); ++i) out.set_offset(offset_of(out, i), vt[i] + eps * vd[i]);
}

// L = <conv(x, w) + bias, dy>, through the forward (IMPLICIT_GEMM, no workspace).
double loss(const Handle &h, ConvSetup &s, const Tensor &x, const Tensor &w, const Tensor &bias, const Tensor &dy) {
    const Scalar one(1.0), zero(0.0);
    anydnnActivationDescriptor_t act;
    EXPECT_OK(anydnnCreateActivationDescriptor(&act));
    EXPECT_OK(anydnnSetActivationDescriptor(act, ANYDNN_ACTIVATION_IDENTITY, ANYDNN_NOT_PROPAGATE_NAN, 0));
    EXPECT_OK(anydnnConvolutionBiasActivationForward(
        h, one.ptr(ANYDNN_DATA_DOUBLE), x.desc(), x.data(), s.filter, w.data(), s.conv,
        ANYDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, nullptr, 0, zero.ptr(ANYDNN_DATA_DOUBLE), s.y->desc(),
        s.y->data(), bias.desc(), bias.data(), act, s.y->desc(), s.y->data()));
    anydnnDestroyActivationDescriptor(act);
    return dot(*s.y, dy);
}

class ConvBwdGradient : public ::testing::TestWithParam<std::string> {};

// L is linear in x, w and the bias, so the central difference is exact up
// to rounding: (L(x + e v) - L(x - e v)) / 2e == <dL/dx, v> = <bwd_data(dy), v>.
TEST_P(ConvBwdGradient, FiniteDifferencesMatchEveryDirection) {
    Handle h(GetParam());
    SKIP_IF_UNAVAILABLE(h);
    for (const char *text : {"mb2ic3ih7iw5oc5oh7ow5kh3kw3ph1pw1", "g2ic6ih9oc4kh3sh2ph2", "ic5ih11oc7kh3sh3dh2ph3",
                             "g6ic6ih8oc12kh3ph1", "ic3id5ih6iw7oc4kd3kh3kw3pd1ph1pw1sd2", "ic4ih10oc3kh1sh3"}) {
        for (Layout layout : {Layout::nchw, Layout::nhwc}) {
            ConvCase c = make_case(text, 2, layout, ANYDNN_DATA_DOUBLE);
            SCOPED_TRACE(c.to_string());
            ConvSetup s(c);
            std::unique_ptr<Tensor> dy = s.like_y(), v = s.like_x(), u = s.like_w(), bias = s.bias(),
                                    e = s.bias(), probe_x = s.like_x(), probe_w = s.like_w(), probe_b = s.bias();
            for (Tensor *t : {dy.get(), v.get(), u.get(), bias.get(), e.get()}) t->fill_random();
            const double eps = 1e-3;
            auto central = [&](auto &&at) { return (at(eps) - at(-eps)) / (2 * eps); };
            const double fd_x = central([&](double d) {
                axpy_into(*probe_x, *s.x, d, *v);
                return loss(h, s, *probe_x, *s.w, *bias, *dy);
            });
            const double fd_w = central([&](double d) {
                axpy_into(*probe_w, *s.w, d, *u);
                return loss(h, s, *s.x, *probe_w, *bias, *dy);
            });
            const double fd_b = central([&](double d) {
                axpy_into(*probe_b, *bias, d, *e);
                return loss(h, s, *s.x, *s.w, *probe_b, *dy);
            });
            const Scalar one(1.0), zero(0.0);
            const anydnnDataType_t dt = ANYDNN_DATA_DOUBLE;
            for (int algo : {0, 1}) {
                SCOPED_TRACE("algo " + std::to_string(algo));
                std::unique_ptr<Tensor> dx = s.like_x(), dw = s.like_w();
                size_t bytes = 0;
                ASSERT_OK(anydnnGetConvolutionBackwardDataWorkspaceSize(
                    h, s.filter, dy->desc(), s.conv, dx->desc(), static_cast<anydnnConvolutionBwdDataAlgo_t>(algo),
                    &bytes));
                std::vector<unsigned char> ws(bytes);
                ASSERT_OK(anydnnConvolutionBackwardData(h, one.ptr(dt), s.filter, s.w->data(), dy->desc(),
                                                        dy->data(), s.conv,
                                                        static_cast<anydnnConvolutionBwdDataAlgo_t>(algo), ws.data(),
                                                        bytes, zero.ptr(dt), dx->desc(), dx->data()));
                ASSERT_OK(anydnnGetConvolutionBackwardFilterWorkspaceSize(
                    h, s.x->desc(), dy->desc(), s.conv, s.filter, static_cast<anydnnConvolutionBwdFilterAlgo_t>(algo),
                    &bytes));
                ws.assign(bytes, 0);
                ASSERT_OK(anydnnConvolutionBackwardFilter(h, one.ptr(dt), s.x->desc(), s.x->data(), dy->desc(),
                                                          dy->data(), s.conv,
                                                          static_cast<anydnnConvolutionBwdFilterAlgo_t>(algo),
                                                          ws.data(), bytes, zero.ptr(dt), s.filter, dw->data()));
                EXPECT_NEAR(dot(*dx, *v), fd_x, 1e-8 * (1 + std::fabs(fd_x)));
                EXPECT_NEAR(dot(*dw, *u), fd_w, 1e-8 * (1 + std::fabs(fd_w)));
            }
            // Backward filter's WINOGRAD_NONFUSED where it applies (3x3, stride 1).
            const auto wino = ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED;
            size_t bytes = 0;
            if (anydnnGetConvolutionBackwardFilterWorkspaceSize(h, s.x->desc(), dy->desc(), s.conv, s.filter, wino,
                                                                &bytes) == ANYDNN_STATUS_SUCCESS) {
                std::unique_ptr<Tensor> dw = s.like_w();
                std::vector<unsigned char> ws(bytes);
                ASSERT_OK(anydnnConvolutionBackwardFilter(h, one.ptr(dt), s.x->desc(), s.x->data(), dy->desc(),
                                                          dy->data(), s.conv, wino, ws.data(), bytes, zero.ptr(dt),
                                                          s.filter, dw->data()));
                EXPECT_NEAR(dot(*dw, *u), fd_w, 1e-8 * (1 + std::fabs(fd_w))) << "WINOGRAD_NONFUSED";
            }
            std::unique_ptr<Tensor> db = s.bias();
            ASSERT_OK(anydnnConvolutionBackwardBias(h, one.ptr(dt), dy->desc(), dy->data(), zero.ptr(dt), db->desc(),
                                                    db->data()));
            EXPECT_NEAR(dot(*db, *e), fd_b, 1e-8 * (1 + std::fabs(fd_b)));
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Isa, ConvBwdGradient, ::testing::ValuesIn(isa_levels()));

// The GEMM algorithms (backward filter also on a first layer: its im2col
// path, 8 parts, x copied channels last when channels first; on strided 3x3s, grouped or in 2 parts: a GEMM per tap,
// dy packed once per group and part for all of them; on 1x1s in parts of
// the batch's pixels: one GEMM per part channels last, one per image
// spanned channels first, there computing dW^T) and backward filter's
// WINOGRAD_NONFUSED (on the 3x3: two blocks of 256 tiles) give the same
// bits run after run and for 1, 2 or 3 threads.
TEST(ConvBwdDeterminism, SameBitsForAnyThreadCount) {
    const std::string isa = isa_levels().back();
    struct Case {
        const char *shape;
        int mb;
        Layout layout;
    };
    for (const Case &k : {Case{"ic24ih30oc40kh3ph1", 8, Layout::nchw}, Case{"ic24ih30oc40kh3ph1", 8, Layout::nhwc},
                          Case{"ic3ih40oc16kh7sh2ph3", 2, Layout::nhwc}, Case{"ic3ih40oc16kh7sh2ph3", 2, Layout::nchw},
                          Case{"ic24ih30oc40kh3sh2ph1", 8, Layout::nhwc},
                          Case{"g2ic24ih30oc40kh3sh2ph1", 8, Layout::nchw},
                          Case{"ic24ih20oc40kh1", 8, Layout::nhwc}, Case{"ic40ih20oc24kh1", 8, Layout::nchw}}) {
        ConvCase c = make_case(k.shape, k.mb, k.layout);
        ConvSetup s(c);
        std::unique_ptr<Tensor> dy = s.like_y();
        dy->fill_random();
        std::vector<std::vector<double>> dxs, dws, wdws;
        for (int threads : {1, 2, 3, 2}) {
            Handle h(isa, threads);
            SKIP_IF_UNAVAILABLE(h);
            const Scalar one(1.0f), zero(0.0f);
            std::unique_ptr<Tensor> dx = s.like_x(), dw = s.like_w();
            size_t bytes = 0;
            ASSERT_OK(anydnnGetConvolutionBackwardDataWorkspaceSize(h, s.filter, dy->desc(), s.conv, dx->desc(),
                                                                    ANYDNN_CONVOLUTION_BWD_DATA_ALGO_1, &bytes));
            std::vector<unsigned char> ws(bytes);
            ASSERT_OK(anydnnConvolutionBackwardData(h, one.ptr(c.dt), s.filter, s.w->data(), dy->desc(), dy->data(),
                                                    s.conv, ANYDNN_CONVOLUTION_BWD_DATA_ALGO_1, ws.data(), bytes,
                                                    zero.ptr(c.dt), dx->desc(), dx->data()));
            ASSERT_OK(anydnnGetConvolutionBackwardFilterWorkspaceSize(h, s.x->desc(), dy->desc(), s.conv, s.filter,
                                                                      ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_1, &bytes));
            ws.assign(bytes, 0);
            ASSERT_OK(anydnnConvolutionBackwardFilter(h, one.ptr(c.dt), s.x->desc(), s.x->data(), dy->desc(),
                                                      dy->data(), s.conv, ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_1,
                                                      ws.data(), bytes, zero.ptr(c.dt), s.filter, dw->data()));
            dxs.push_back(dx->values());
            dws.push_back(dw->values());
            const auto wino = ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED;
            if (anydnnGetConvolutionBackwardFilterWorkspaceSize(h, s.x->desc(), dy->desc(), s.conv, s.filter, wino,
                                                                &bytes) != ANYDNN_STATUS_SUCCESS)
                continue;  // not a 3x3
            ws.assign(bytes, 0);
            ASSERT_OK(anydnnConvolutionBackwardFilter(h, one.ptr(c.dt), s.x->desc(), s.x->data(), dy->desc(),
                                                      dy->data(), s.conv, wino, ws.data(), bytes, zero.ptr(c.dt),
                                                      s.filter, dw->data()));
            wdws.push_back(dw->values());
        }
        for (size_t i = 1; i < dxs.size(); ++i) {
            EXPECT_EQ(dxs[i], dxs[0]) << "backward data, run " << i;
            EXPECT_EQ(dws[i], dws[0]) << "backward filter, run " << i;
        }
        for (size_t i = 1; i < wdws.size(); ++i)
            EXPECT_EQ(wdws[i], wdws[0]) << "backward filter WINOGRAD_NONFUSED, run " << i;
    }
}

TEST(ConvBwdBias, SumsOverAllButChannels) {
    Handle h("generic");
    for (Layout layout : {Layout::nchw, Layout::nhwc, Layout::strided}) {
        ConvCase c = make_case("ic4ih9iw7oc6kh3", 3, layout);
        ConvSetup s(c);
        std::unique_ptr<Tensor> dy = s.like_y(), db = s.bias();
        dy->fill_random();
        db->fill_random();
        const std::vector<double> dyv = dy->values(), db0 = db->values();
        const Scalar alpha(0.75f), beta(0.5f);
        ASSERT_OK(anydnnConvolutionBackwardBias(h, alpha.ptr(c.dt), dy->desc(), dy->data(), beta.ptr(c.dt),
                                                db->desc(), db->data()));
        const int n = s.y_dims[0], k = s.y_dims[1];
        const int64_t pixels = static_cast<int64_t>(dyv.size()) / (n * k);
        std::vector<double> want(k, 0);
        for (int i = 0; i < n; ++i)
            for (int ch = 0; ch < k; ++ch)
                for (int64_t p = 0; p < pixels; ++p) want[ch] += dyv[(static_cast<int64_t>(i) * k + ch) * pixels + p];
        for (int ch = 0; ch < k; ++ch) want[ch] = 0.75 * want[ch] + 0.5 * db0[ch];
        expect_close(db->values(), want, 1e-5, 1e-5, "db");
    }
}

// ---- Queries and errors ---------------------------------------------------------------

class ConvBwdApi : public ::testing::Test {
protected:
    ConvBwdApi() : setup_(make_case("ic8ih10oc12kh3ph1", 2, Layout::nhwc)), grad_y_(setup_.like_y()), grad_x_(setup_.like_x()) {
        grad_y_->fill_random();
    }
    Handle handle_{"generic"};
    ConvSetup setup_;
    std::unique_ptr<Tensor> grad_y_, grad_x_;
};

TEST_F(ConvBwdApi, CountsRankingAndFind) {
    int count = 0;
    ASSERT_OK(anydnnGetConvolutionBackwardDataAlgorithmMaxCount(handle_, &count));
    EXPECT_EQ(count, ANYDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT);
    ASSERT_OK(anydnnGetConvolutionBackwardFilterAlgorithmMaxCount(handle_, &count));
    EXPECT_EQ(count, ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT);

    anydnnConvolutionBwdDataAlgoPerf_t dperf[ANYDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    int returned = 0;
    ASSERT_OK(anydnnGetConvolutionBackwardDataAlgorithm_v7(handle_, setup_.filter, grad_y_->desc(), setup_.conv, grad_x_->desc(),
                                                           ANYDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &returned, dperf));
    ASSERT_EQ(returned, ANYDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT);
    EXPECT_EQ(dperf[0].algo, ANYDNN_CONVOLUTION_BWD_DATA_ALGO_1);  // the GEMM first on a plain 3x3
    EXPECT_EQ(dperf[0].status, ANYDNN_STATUS_SUCCESS);
    EXPECT_EQ(dperf[1].status, ANYDNN_STATUS_SUCCESS);
    EXPECT_EQ(dperf[2].status, ANYDNN_STATUS_SUCCESS);  // WINOGRAD_NONFUSED: 3x3, stride 1, one group
    EXPECT_EQ(dperf[3].status, ANYDNN_STATUS_NOT_SUPPORTED);
    for (const auto &p : dperf) EXPECT_EQ(p.determinism, ANYDNN_DETERMINISTIC);

    anydnnConvolutionBwdFilterAlgoPerf_t fperf[2];
    ASSERT_OK(anydnnFindConvolutionBackwardFilterAlgorithm(handle_, setup_.x->desc(), grad_y_->desc(), setup_.conv, setup_.filter, 2,
                                                           &returned, fperf));
    ASSERT_EQ(returned, 2);
    // Timed ones first, fastest first; one the model puts beyond 10x the
    // cheapest is listed untimed (time -1).
    for (const auto &p : fperf) EXPECT_EQ(p.status, ANYDNN_STATUS_SUCCESS);
    EXPECT_GE(fperf[0].time, 0);
    if (fperf[1].time >= 0) EXPECT_LE(fperf[0].time, fperf[1].time);
    else EXPECT_EQ(fperf[1].time, -1);

    // FindEx with no workspace: ALGO_1 cannot fit, ALGO_0 is timed.
    ASSERT_OK(anydnnFindConvolutionBackwardDataAlgorithmEx(handle_, setup_.filter, setup_.w->data(), grad_y_->desc(), grad_y_->data(),
                                                           setup_.conv, grad_x_->desc(), grad_x_->data(), 2, &returned, dperf,
                                                           nullptr, 0));
    EXPECT_EQ(dperf[0].algo, ANYDNN_CONVOLUTION_BWD_DATA_ALGO_0);
    EXPECT_GE(dperf[0].time, 0);
    EXPECT_EQ(dperf[1].status, ANYDNN_STATUS_ALLOC_FAILED);
}

TEST_F(ConvBwdApi, BadInputGetsTheDocumentedStatus) {
    const Scalar one(1.0f), zero(0.0f);
    const anydnnDataType_t dt = ANYDNN_DATA_FLOAT;
    size_t bytes = 0;
    EXPECT_STATUS(anydnnGetConvolutionBackwardDataWorkspaceSize(handle_, setup_.filter, grad_y_->desc(), setup_.conv, grad_x_->desc(),
                                                                ANYDNN_CONVOLUTION_BWD_DATA_ALGO_FFT, &bytes),
                  ANYDNN_STATUS_NOT_SUPPORTED);
    EXPECT_STATUS(anydnnGetConvolutionBackwardFilterWorkspaceSize(handle_, setup_.x->desc(), grad_y_->desc(), setup_.conv, setup_.filter,
                                                                  static_cast<anydnnConvolutionBwdFilterAlgo_t>(99),
                                                                  &bytes),
                  ANYDNN_STATUS_BAD_PARAM);
    ASSERT_OK(anydnnGetConvolutionBackwardDataWorkspaceSize(handle_, setup_.filter, grad_y_->desc(), setup_.conv, grad_x_->desc(),
                                                            ANYDNN_CONVOLUTION_BWD_DATA_ALGO_1, &bytes));
    ASSERT_GT(bytes, 0u);
    std::vector<unsigned char> ws(bytes);
    grad_x_->poison();
    std::unique_ptr<Tensor> before = setup_.like_x();
    before->copy_from(*grad_x_);
    // Too small a workspace, a NULL output, dy of the wrong size, dx overlapping dy.
    EXPECT_STATUS(anydnnConvolutionBackwardData(handle_, one.ptr(dt), setup_.filter, setup_.w->data(), grad_y_->desc(), grad_y_->data(),
                                                setup_.conv, ANYDNN_CONVOLUTION_BWD_DATA_ALGO_1, ws.data(), bytes - 1,
                                                zero.ptr(dt), grad_x_->desc(), grad_x_->data()),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnConvolutionBackwardData(handle_, one.ptr(dt), setup_.filter, setup_.w->data(), grad_y_->desc(), grad_y_->data(),
                                                setup_.conv, ANYDNN_CONVOLUTION_BWD_DATA_ALGO_0, nullptr, 0, zero.ptr(dt),
                                                grad_x_->desc(), nullptr),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnConvolutionBackwardData(handle_, one.ptr(dt), setup_.filter, setup_.w->data(), grad_x_->desc(), grad_y_->data(),
                                                setup_.conv, ANYDNN_CONVOLUTION_BWD_DATA_ALGO_0, nullptr, 0, zero.ptr(dt),
                                                grad_x_->desc(), grad_x_->data()),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnConvolutionBackwardData(handle_, one.ptr(dt), setup_.filter, setup_.w->data(), grad_y_->desc(), grad_y_->data(),
                                                setup_.conv, ANYDNN_CONVOLUTION_BWD_DATA_ALGO_0, nullptr, 0, zero.ptr(dt),
                                                grad_x_->desc(), grad_y_->data()),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_EQ(std::memcmp(grad_x_->data(), before->data(), static_cast<size_t>(grad_x_->shape().span()) * 4), 0)
        << "a failed call wrote dx";
    // The filter gradient into w's own memory as dy: overlap.
    EXPECT_STATUS(anydnnConvolutionBackwardFilter(handle_, one.ptr(dt), setup_.x->desc(), setup_.x->data(), grad_y_->desc(),
                                                  grad_y_->data(), setup_.conv, ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_0, nullptr,
                                                  0, zero.ptr(dt), setup_.filter, grad_y_->data()),
                  ANYDNN_STATUS_BAD_PARAM);
    // Bias: db must be 1 x K x 1 x 1.
    std::unique_ptr<Tensor> wrong = std::make_unique<Tensor>(packed({1, 5, 1, 1}), dt);
    EXPECT_STATUS(anydnnConvolutionBackwardBias(handle_, one.ptr(dt), grad_y_->desc(), grad_y_->data(), zero.ptr(dt),
                                                wrong->desc(), wrong->data()),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnConvolutionBackwardBias(handle_, one.ptr(dt), grad_y_->desc(), nullptr, zero.ptr(dt), wrong->desc(),
                                                wrong->data()),
                  ANYDNN_STATUS_BAD_PARAM);
}

}  // namespace
