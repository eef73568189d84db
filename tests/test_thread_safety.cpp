// Two handles used from two threads at once give the same results, bit for
// bit, as one handle used alone.
#include <cstring>
#include <thread>

#include "common/test_util.hpp"

using namespace anydnn_test;

namespace {

// A workload touching several kernel families, big enough to use OpenMP.
void run_workload(anydnnHandle_t h, const Tensor &a, const Tensor &b, Tensor &c, Tensor &d) {
    anydnnOpTensorDescriptor_t op;
    ASSERT_OK(anydnnCreateOpTensorDescriptor(&op));
    ASSERT_OK(anydnnSetOpTensorDescriptor(op, ANYDNN_OP_TENSOR_MUL, ANYDNN_DATA_FLOAT, ANYDNN_NOT_PROPAGATE_NAN));
    const float one = 1, half = 0.5f, zero = 0;
    for (int rep = 0; rep < 20; ++rep) {
        ASSERT_OK(anydnnOpTensor(h, op, &one, a.desc(), a.data(), &half, b.desc(), b.data(), &half, c.desc(), c.data()));
        ASSERT_OK(anydnnTransformTensor(h, &one, c.desc(), c.data(), &zero, d.desc(), d.data()));
        ASSERT_OK(anydnnAddTensor(h, &half, a.desc(), a.data(), &one, c.desc(), c.data()));
    }
    anydnnDestroyOpTensorDescriptor(op);
}

TEST(ThreadSafety, TwoHandlesTwoThreadsMatchOneHandle) {
    const std::vector<int> dims = {4, 16, 64, 65};
    Tensor a(packed(dims), ANYDNN_DATA_FLOAT), b(packed({1, 16, 1, 1}), ANYDNN_DATA_FLOAT);
    a.fill_random();
    b.fill_random();
    auto fresh = [&](Tensor &t) {
        t.poison();
        const float zero = 0;
        Handle h("generic");
        ASSERT_OK(anydnnSetTensor(h, t.desc(), t.data(), &zero));
    };
    Tensor c_ref(packed(dims), ANYDNN_DATA_FLOAT), d_ref(packed_nhwc(dims), ANYDNN_DATA_FLOAT);
    fresh(c_ref);
    {
        Handle h(isa_levels().back());
        Handle fallback("generic");
        run_workload(h.available ? h.h : fallback.h, a, b, c_ref, d_ref);
    }
    Tensor c1(packed(dims), ANYDNN_DATA_FLOAT), d1(packed_nhwc(dims), ANYDNN_DATA_FLOAT);
    Tensor c2(packed(dims), ANYDNN_DATA_FLOAT), d2(packed_nhwc(dims), ANYDNN_DATA_FLOAT);
    fresh(c1);
    fresh(c2);
    Handle h1(isa_levels().back()), h2(isa_levels().back());
    Handle f1("generic"), f2("generic");
    std::thread t1([&] { run_workload(h1.available ? h1.h : f1.h, a, b, c1, d1); });
    std::thread t2([&] { run_workload(h2.available ? h2.h : f2.h, a, b, c2, d2); });
    t1.join();
    t2.join();
    const size_t bytes = c_ref.shape().span() * 4;
    EXPECT_EQ(std::memcmp(c1.data(), c_ref.data(), bytes), 0);
    EXPECT_EQ(std::memcmp(c2.data(), c_ref.data(), bytes), 0);
    EXPECT_EQ(std::memcmp(d1.data(), d_ref.data(), bytes), 0);
    EXPECT_EQ(std::memcmp(d2.data(), d_ref.data(), bytes), 0);
}

}  // namespace
