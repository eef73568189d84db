// The pooling descriptor object.
#pragma once

#include "anydnn/anydnn_core.h"
#include "anydnn/anydnn_ops.h"

struct anydnnPoolingStruct {
    static constexpr int kMaxSpatial = ANYDNN_DIM_MAX - 2;
    bool is_set = false;  // by Set2d / SetNd
    anydnnPoolingMode_t mode = ANYDNN_POOLING_MAX;
    anydnnNanPropagation_t nan_opt = ANYDNN_NOT_PROPAGATE_NAN;
    int spatial = 0;  // nbDims, outermost first
    int window[kMaxSpatial] = {}, pad[kMaxSpatial] = {}, stride[kMaxSpatial] = {};
};
