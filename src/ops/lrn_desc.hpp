// The LRN descriptor object (shared by LRN and divisive normalization).
#pragma once

#include "anydnn/anydnn_ops.h"

struct anydnnLRNStruct {
    // cuDNN's defaults at creation.
    unsigned n = 5;
    double alpha = 1e-4, beta = 0.75, k = 2.0;
};
