// The op-tensor and tensor-transform descriptor objects.
#pragma once

#include <cstdint>

#include "anydnn/anydnn_ops.h"
#include "core/tensor_desc.hpp"

struct anydnnOpTensorStruct {
    bool is_set = false;
    anydnnOpTensorOp_t op = ANYDNN_OP_TENSOR_ADD;
    anydnnDataType_t comp_type = ANYDNN_DATA_FLOAT;
    anydnnNanPropagation_t nan_opt = ANYDNN_NOT_PROPAGATE_NAN;
};

struct anydnnTensorTransformStruct {
    bool is_set = false;
    uint32_t nd = 0;
    anydnnTensorFormat_t dest_format = ANYDNN_TENSOR_NCHW;
    int32_t pad_before[anydnn::kMaxDims] = {};
    int32_t pad_after[anydnn::kMaxDims] = {};
    uint32_t fold[anydnn::kMaxDims] = {};  // per spatial dimension
    anydnnFoldingDirection_t direction = ANYDNN_TRANSFORM_FOLD;
};
