// The reduce-tensor descriptor object.
#pragma once

#include "anydnn/anydnn_ops.h"

struct anydnnReduceTensorStruct {
    bool is_set = false;
    anydnnReduceTensorOp_t op = ANYDNN_REDUCE_TENSOR_ADD;
    anydnnDataType_t comp_type = ANYDNN_DATA_FLOAT;
    anydnnNanPropagation_t nan_opt = ANYDNN_NOT_PROPAGATE_NAN;
    anydnnReduceTensorIndices_t indices = ANYDNN_REDUCE_TENSOR_NO_INDICES;
    anydnnIndicesType_t indices_type = ANYDNN_32BIT_INDICES;
};
