// Reading the host scalars (alpha, beta, values) of an op.
#pragma once

#include "anydnn/anydnn_core.h"
#include "core/status.hpp"

namespace anydnn::ops {

// *p as a double: p points to a double when dt is DOUBLE, to a float
// otherwise (cuDNN's rule). BAD_PARAM naming `arg` when p is NULL.
Status scalar_arg(const void *p, const char *arg, anydnnDataType_t dt, double *out);

// BAD_PARAM naming `arg` when p is NULL.
Status pointer_arg(const void *p, const char *arg);

}  // namespace anydnn::ops
