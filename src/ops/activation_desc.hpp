// The activation descriptor object.
#pragma once

#include "anydnn/anydnn_ops.h"

struct anydnnActivationStruct {
    bool is_set = false;  // by anydnnSetActivationDescriptor; the swish beta has its own setter
    anydnnActivationMode_t mode = ANYDNN_ACTIVATION_RELU;
    anydnnNanPropagation_t nan_opt = ANYDNN_NOT_PROPAGATE_NAN;
    double coef = 0;
    double swish_beta = 1;
};
