// The convolution descriptor object.
#pragma once

#include "anydnn/anydnn_cnn.h"
#include "anydnn/anydnn_core.h"

struct anydnnConvolutionStruct {
    static constexpr int kMaxSpatial = ANYDNN_DIM_MAX - 2;
    bool is_set = false;  // by Set2d / SetNd; group count, math and reorder type have their own setters
    int spatial = 0;      // arrayLength
    int pad[kMaxSpatial] = {}, stride[kMaxSpatial] = {}, dilation[kMaxSpatial] = {};
    anydnnConvolutionMode_t mode = ANYDNN_CROSS_CORRELATION;
    anydnnDataType_t compute = ANYDNN_DATA_FLOAT;
    int groups = 1;
    anydnnMathType_t math = ANYDNN_DEFAULT_MATH;
    anydnnReorderType_t reorder = ANYDNN_DEFAULT_REORDER;
};
