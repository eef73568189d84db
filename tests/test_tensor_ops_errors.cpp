// Every documented BAD_PARAM / NOT_SUPPORTED case of the tensor ops: the
// status, a message, and an output left exactly as it was.
#include <cstring>

#include "common/test_util.hpp"

using namespace anydnn_test;

namespace {

class TensorOpsErrors : public ::testing::Test {
protected:
    Handle h{"generic"};
    Tensor a{packed({2, 3, 4, 5}), ANYDNN_DATA_FLOAT};
    Tensor c{packed({2, 3, 4, 5}), ANYDNN_DATA_FLOAT};
    Tensor c0{packed({2, 3, 4, 5}), ANYDNN_DATA_FLOAT};
    Tensor wrong_dims{packed({2, 3, 4, 6}), ANYDNN_DATA_FLOAT};
    Tensor wrong_type{packed({2, 3, 4, 5}), ANYDNN_DATA_HALF};
    Tensor five_d{packed({2, 3, 4, 5, 1}), ANYDNN_DATA_FLOAT};
    Tensor ints{packed({2, 3, 4, 5}), ANYDNN_DATA_INT32};
    anydnnTensorDescriptor_t unset = nullptr;
    anydnnOpTensorDescriptor_t op = nullptr;
    float one = 1, zero = 0;

    void SetUp() override {
        a.fill_random();
        c.fill_random();
        c0.copy_from(c);
        ASSERT_OK(anydnnCreateTensorDescriptor(&unset));
        ASSERT_OK(anydnnCreateOpTensorDescriptor(&op));
        ASSERT_OK(anydnnSetOpTensorDescriptor(op, ANYDNN_OP_TENSOR_ADD, ANYDNN_DATA_FLOAT, ANYDNN_NOT_PROPAGATE_NAN));
    }
    void TearDown() override {
        // Nothing was written.
        EXPECT_EQ(std::memcmp(c.data(), c0.data(), c.shape().span() * 4), 0);
        EXPECT_TRUE(c.guards_intact());
        anydnnDestroyTensorDescriptor(unset);
        anydnnDestroyOpTensorDescriptor(op);
    }
};

TEST_F(TensorOpsErrors, AddTensor) {
    EXPECT_STATUS(anydnnAddTensor(nullptr, &one, a.desc(), a.data(), &zero, c.desc(), c.data()),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnAddTensor(h, &one, wrong_dims.desc(), wrong_dims.data(), &zero, c.desc(), c.data()),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_NE(last_error().find("aDesc dimension 3 is 6"), std::string::npos) << last_error();
    EXPECT_STATUS(anydnnAddTensor(h, &one, wrong_type.desc(), wrong_type.data(), &zero, c.desc(), c.data()),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnAddTensor(h, &one, five_d.desc(), five_d.data(), &zero, c.desc(), c.data()),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnAddTensor(h, &one, unset, a.data(), &zero, c.desc(), c.data()), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnAddTensor(h, &one, nullptr, a.data(), &zero, c.desc(), c.data()), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnAddTensor(h, nullptr, a.desc(), a.data(), &zero, c.desc(), c.data()), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnAddTensor(h, &one, a.desc(), a.data(), nullptr, c.desc(), c.data()), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnAddTensor(h, &one, a.desc(), nullptr, &zero, c.desc(), c.data()), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnAddTensor(h, &one, a.desc(), a.data(), &zero, c.desc(), nullptr), ANYDNN_STATUS_BAD_PARAM);
}

TEST_F(TensorOpsErrors, OpTensorDescriptor) {
    EXPECT_STATUS(anydnnCreateOpTensorDescriptor(nullptr), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetOpTensorDescriptor(op, static_cast<anydnnOpTensorOp_t>(6), ANYDNN_DATA_FLOAT,
                                              ANYDNN_NOT_PROPAGATE_NAN),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetOpTensorDescriptor(op, ANYDNN_OP_TENSOR_ADD, ANYDNN_DATA_HALF, ANYDNN_NOT_PROPAGATE_NAN),
                  ANYDNN_STATUS_NOT_SUPPORTED);
    EXPECT_STATUS(anydnnSetOpTensorDescriptor(op, ANYDNN_OP_TENSOR_ADD, static_cast<anydnnDataType_t>(77),
                                              ANYDNN_NOT_PROPAGATE_NAN),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetOpTensorDescriptor(op, ANYDNN_OP_TENSOR_ADD, ANYDNN_DATA_FLOAT,
                                              static_cast<anydnnNanPropagation_t>(2)),
                  ANYDNN_STATUS_BAD_PARAM);
    // The failed sets left the descriptor as it was.
    anydnnOpTensorOp_t o;
    anydnnDataType_t t;
    anydnnNanPropagation_t n;
    ASSERT_OK(anydnnGetOpTensorDescriptor(op, &o, &t, &n));
    EXPECT_EQ(o, ANYDNN_OP_TENSOR_ADD);
    EXPECT_EQ(t, ANYDNN_DATA_FLOAT);
    anydnnOpTensorDescriptor_t never;
    ASSERT_OK(anydnnCreateOpTensorDescriptor(&never));
    EXPECT_STATUS(anydnnGetOpTensorDescriptor(never, &o, &t, &n), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnOpTensor(h, never, &one, a.desc(), a.data(), &one, a.desc(), a.data(), &zero, c.desc(),
                                 c.data()),
                  ANYDNN_STATUS_BAD_PARAM);
    anydnnDestroyOpTensorDescriptor(never);
}

TEST_F(TensorOpsErrors, OpTensor) {
    EXPECT_STATUS(anydnnOpTensor(h, nullptr, &one, a.desc(), a.data(), &one, a.desc(), a.data(), &zero, c.desc(),
                                 c.data()),
                  ANYDNN_STATUS_BAD_PARAM);
    // A must have C's dimensions; only B broadcasts.
    Tensor bcast(packed({1, 3, 1, 1}), ANYDNN_DATA_FLOAT);
    EXPECT_STATUS(anydnnOpTensor(h, op, &one, bcast.desc(), bcast.data(), &one, a.desc(), a.data(), &zero, c.desc(),
                                 c.data()),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnOpTensor(h, op, &one, a.desc(), a.data(), &one, wrong_dims.desc(), wrong_dims.data(), &zero,
                                 c.desc(), c.data()),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnOpTensor(h, op, &one, a.desc(), a.data(), &one, wrong_type.desc(), wrong_type.data(), &zero,
                                 c.desc(), c.data()),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnOpTensor(h, op, &one, a.desc(), a.data(), &one, nullptr, a.data(), &zero, c.desc(), c.data()),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnOpTensor(h, op, &one, a.desc(), a.data(), nullptr, a.desc(), a.data(), &zero, c.desc(),
                                 c.data()),
                  ANYDNN_STATUS_BAD_PARAM);
    Tensor ic(packed({2, 3, 4, 5}), ANYDNN_DATA_INT32);
    EXPECT_STATUS(anydnnOpTensor(h, op, &one, ints.desc(), ints.data(), &one, ints.desc(), ints.data(), &zero,
                                 ic.desc(), ic.data()),
                  ANYDNN_STATUS_NOT_SUPPORTED);
}

TEST_F(TensorOpsErrors, TransformSetScale) {
    EXPECT_STATUS(anydnnTransformTensor(h, &one, wrong_dims.desc(), wrong_dims.data(), &zero, c.desc(), c.data()),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnTransformTensor(h, &one, a.desc(), nullptr, &zero, c.desc(), c.data()), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnTransformTensor(h, &one, a.desc(), a.data(), &zero, unset, c.data()), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetTensor(h, c.desc(), c.data(), nullptr), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetTensor(h, c.desc(), nullptr, &one), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetTensor(nullptr, c.desc(), c.data(), &one), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnScaleTensor(h, c.desc(), c.data(), nullptr), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnScaleTensor(h, unset, c.data(), &one), ANYDNN_STATUS_BAD_PARAM);
}

TEST_F(TensorOpsErrors, TransformDescriptorAndEx) {
    anydnnTensorTransformDescriptor_t t;
    ASSERT_OK(anydnnCreateTensorTransformDescriptor(&t));
    const int32_t neg[4] = {0, -1, 0, 0};
    const uint32_t zero_fold[2] = {0, 1};
    EXPECT_STATUS(anydnnSetTensorTransformDescriptor(t, 2, ANYDNN_TENSOR_NCHW, nullptr, nullptr, nullptr,
                                                     ANYDNN_TRANSFORM_FOLD),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetTensorTransformDescriptor(t, 4, ANYDNN_TENSOR_NCHW, neg, nullptr, nullptr,
                                                     ANYDNN_TRANSFORM_FOLD),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetTensorTransformDescriptor(t, 4, ANYDNN_TENSOR_NCHW, nullptr, nullptr, zero_fold,
                                                     ANYDNN_TRANSFORM_FOLD),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetTensorTransformDescriptor(t, 4, ANYDNN_TENSOR_NCHW, nullptr, nullptr, nullptr,
                                                     static_cast<anydnnFoldingDirection_t>(3)),
                  ANYDNN_STATUS_BAD_PARAM);
    // Never successfully set.
    EXPECT_STATUS(anydnnTransformTensorEx(h, t, &one, a.desc(), a.data(), &zero, c.desc(), c.data()),
                  ANYDNN_STATUS_BAD_PARAM);
    const int32_t pad[4] = {0, 0, 1, 0};
    ASSERT_OK(anydnnSetTensorTransformDescriptor(t, 4, ANYDNN_TENSOR_NCHW, pad, nullptr, nullptr,
                                                 ANYDNN_TRANSFORM_FOLD));
    // c has no room for the padding.
    EXPECT_STATUS(anydnnTransformTensorEx(h, t, &one, a.desc(), a.data(), &zero, c.desc(), c.data()),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnTransformTensorEx(h, t, &one, five_d.desc(), five_d.data(), &zero, c.desc(), c.data()),
                  ANYDNN_STATUS_BAD_PARAM);
    int32_t before[4];
    anydnnTensorFormat_t fmt;
    EXPECT_STATUS(anydnnGetTensorTransformDescriptor(t, 5, &fmt, before, nullptr, nullptr, nullptr),
                  ANYDNN_STATUS_BAD_PARAM);
    ASSERT_OK(anydnnGetTensorTransformDescriptor(t, 4, &fmt, before, nullptr, nullptr, nullptr));
    EXPECT_EQ(before[2], 1);
    anydnnDestroyTensorTransformDescriptor(t);
}

}  // namespace
